"""Numeric contexts: one claim, written once, evaluated in every precision.

A claim's mathematics is a Python function ``f(ctx, v)`` over numpy arrays whose
first axis is a batch axis.  The context decides what the entries are:

* :class:`FloatContext` -- float64 arrays, a whole batch of candidates at once (search);
* :class:`MPContext` -- mpmath numbers at a scoped working precision (re-check);
* :class:`ExactContext` -- python-flint ``fmpq`` rationals (certificate, no transcendentals);
* :class:`BallContext` -- python-flint ``arb`` balls: every result is a rigorous enclosure
  (certificate where ``exp`` appears);
* :class:`SymbolicContext` -- sympy expressions (proof that two sides are *exactly* equal,
  which no enclosure can give).

Object contexts hold batches of size one.  Arithmetic operators act entrywise through
numpy's object arrays, so ``A @ B``, ``X - Y`` and ``(hi + lo) / 2`` mean the same in every
context.  Constants in claim code must be Python ints (or built with :meth:`Context.const`):
a float literal would silently break exactness, so the exact context rejects floats.

Precision is always scoped (``with ctx.precision(...)``), never set globally.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction
from typing import Any, Iterator

import mpmath
import numpy as np
import sympy
from flint import arb, fmpq
from flint import ctx as flint_ctx


class NotRational(ArithmeticError):
    """Raised by the exact context when a claim leaves the rationals (exp, log, sqrt)."""


def _core_axes(x: np.ndarray) -> tuple[int, ...]:
    return tuple(range(1, np.ndim(x)))


def to_fraction(value: Any) -> Fraction:
    """Exact rational value of an int, Fraction, fmpq or finite float."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, fmpq):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise ValueError(f"non-finite number {value!r}")
        return Fraction(float(value))
    raise TypeError(f"cannot take the exact value of {type(value).__name__}")


class Context:
    """Operations a claim may use, beyond the arithmetic operators."""

    name = "abstract"
    #: True when every result is exact or a rigorous enclosure (usable for certificates).
    rigorous = False

    # -- construction -----------------------------------------------------------------
    def asarray(self, value: Any) -> np.ndarray:
        raise NotImplementedError

    def const(self, value: int | str | Fraction) -> Any:
        """A constant such as ``ctx.const("1/2")`` in this context's number type."""
        return self.scalar(Fraction(value))

    def scalar(self, value: Fraction) -> Any:
        raise NotImplementedError

    def convert(self, data: dict) -> dict:
        """A candidate's variables (exact rationals or floats) as this context's numbers."""
        return {k: self.asarray(np.asarray(v, dtype=object)) for k, v in data.items()}

    # -- elementwise ------------------------------------------------------------------
    def exp(self, x):
        raise NotImplementedError

    def log(self, x):
        raise NotImplementedError

    def sqrt(self, x):
        raise NotImplementedError

    def abs(self, x):
        return np.abs(x)

    def maximum(self, x, y):
        raise NotImplementedError

    def minimum(self, x, y):
        raise NotImplementedError

    # -- reductions (axis: an int or a tuple of ints, never the batch axis) ------------
    def max(self, x, axis, keepdims=False):
        raise NotImplementedError

    def min(self, x, axis, keepdims=False):
        raise NotImplementedError

    def sum(self, x, axis, keepdims=False):
        return np.sum(x, axis=axis, keepdims=keepdims)

    # -- helpers written once against the primitives above ----------------------------
    def T(self, x):
        """Transpose of the last two axes."""
        return np.swapaxes(x, -1, -2)

    def ones_like(self, x):
        out = np.empty_like(x)
        out[...] = self.scalar(Fraction(1))
        return out

    def max_all(self, x):
        """Maximum over every non-batch axis."""
        axes = _core_axes(x)
        return self.max(x, axes) if axes else x

    def min_all(self, x):
        axes = _core_axes(x)
        return self.min(x, axes) if axes else x

    def sum_all(self, x):
        axes = _core_axes(x)
        return self.sum(x, axes) if axes else x

    def norm_inf(self, x):
        """Entrywise max norm ``max_{j,l} |x_{j,l}|`` (the paper's ``||.||_inf``)."""
        return self.max_all(self.abs(x))

    def norm_1(self, x):
        """Entrywise l1 norm ``sum_{j,l} |x_{j,l}|`` (the paper's ``||.||_1``)."""
        return self.sum_all(self.abs(x))

    @contextlib.contextmanager
    def precision(self) -> Iterator[None]:
        yield


class FloatContext(Context):
    """float64, vectorised over the batch axis."""

    name = "float64"

    def asarray(self, value):
        return np.asarray(value, dtype=np.float64)

    def scalar(self, value):
        return float(value)

    def exp(self, x):
        with np.errstate(over="ignore", invalid="ignore"):
            return np.exp(x)

    def log(self, x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(x)

    def sqrt(self, x):
        with np.errstate(invalid="ignore"):
            return np.sqrt(x)

    def maximum(self, x, y):
        return np.maximum(x, y)

    def minimum(self, x, y):
        return np.minimum(x, y)

    def max(self, x, axis, keepdims=False):
        return _fast_reduce(np.maximum, np.max, x, axis, keepdims)

    def min(self, x, axis, keepdims=False):
        return _fast_reduce(np.minimum, np.min, x, axis, keepdims)

    def sum(self, x, axis, keepdims=False):
        return _fast_reduce(np.add, np.sum, x, axis, keepdims)

    @contextlib.contextmanager
    def precision(self):
        # overflow to inf and nan are expected in a search; the engine filters them
        with np.errstate(all="ignore"):
            yield


def _fast_reduce(ufunc, reducer, x, axis, keepdims):
    """numpy reduction over the short trailing axes of a batch, several times faster.

    numpy reduces a (batch, 8, 8) array over axis -1 or -2 at about a fifth of its speed
    over a long contiguous axis.  Trailing axes of a contiguous array are flattened into
    one (a cheap view); a short axis is folded in halves with the binary ufunc instead,
    which vectorises over the whole batch.  The batch axis is never reduced here.
    """
    x = np.asarray(x)
    axes = sorted({a % x.ndim for a in ((axis,) if isinstance(axis, (int, np.integer)) else axis)})
    if not axes or x.ndim < 2 or x.shape[0] < 64 or 0 in axes or 0 in x.shape:
        return reducer(x, axis=axis, keepdims=keepdims)
    if axes == list(range(axes[0], x.ndim)) and len(axes) > 1 and x.flags.c_contiguous:
        flat = x.reshape(x.shape[: axes[0]] + (-1,))
        out = _fold(ufunc, flat, axes[0]) if flat.shape[-1] < 32 else reducer(flat, axis=-1, keepdims=True)
        out = out.reshape(x.shape[: axes[0]] + (1,) * len(axes))
    else:
        out = x
        for a in reversed(axes):
            out = _fold(ufunc, out, a)
    return out if keepdims else out.reshape([s for i, s in enumerate(out.shape) if i not in axes])


def _fold(ufunc, x, axis):
    """Reduce ``axis`` (kept, length 1) by pairwise halving: log2(n) whole-batch ufunc calls."""
    pre = (slice(None),) * axis
    n = x.shape[axis]
    while n > 1:
        h = n // 2
        y = ufunc(x[pre + (slice(0, h),)], x[pre + (slice(h, 2 * h),)])
        if n % 2:
            first = y[pre + (slice(0, 1),)]
            ufunc(first, x[pre + (slice(2 * h, n),)], out=first)
        x, n = y, h
    return x


class _ObjectContext(Context):
    """Contexts whose entries are Python number objects (batch size one)."""

    def _elementwise(self, fn, x):
        return np.frompyfunc(fn, 1, 1)(x)

    def _max2(self, a, b):
        return a if a >= b else b

    def _min2(self, a, b):
        return a if a <= b else b

    def _reduce(self, fn, x, axis, keepdims):
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        axes = sorted((a % np.ndim(x) for a in axes), reverse=True)
        ufunc = np.frompyfunc(fn, 2, 1)
        out = x
        for a in axes:
            out = ufunc.reduce(out, axis=a, keepdims=keepdims)
        return out

    def maximum(self, x, y):
        return np.frompyfunc(self._max2, 2, 1)(x, y)

    def minimum(self, x, y):
        return np.frompyfunc(self._min2, 2, 1)(x, y)

    def max(self, x, axis, keepdims=False):
        return self._reduce(self._max2, x, axis, keepdims)

    def min(self, x, axis, keepdims=False):
        return self._reduce(self._min2, x, axis, keepdims)

    def asarray(self, value):
        arr = np.asarray(value, dtype=object)
        return self._elementwise(self._convert, arr) if arr.ndim else np.asarray(self._convert(value), dtype=object)

    def _convert(self, v):
        return self.scalar(to_fraction(v))


class MPContext(_ObjectContext):
    """mpmath at ``dps`` significant digits, scoped with ``workdps``."""

    name = "mpmath"

    def __init__(self, dps: int = 50):
        self.dps = dps

    @contextlib.contextmanager
    def precision(self):
        with mpmath.workdps(self.dps):
            yield

    def scalar(self, value):
        value = Fraction(value)
        return mpmath.mpf(value.numerator) / value.denominator

    def exp(self, x):
        return self._elementwise(mpmath.exp, x)

    def log(self, x):
        return self._elementwise(mpmath.log, x)

    def sqrt(self, x):
        return self._elementwise(mpmath.sqrt, x)


class ExactContext(_ObjectContext):
    """Exact rationals.  Leaving the rationals raises :class:`NotRational`."""

    name = "exact"
    rigorous = True

    def scalar(self, value):
        value = Fraction(value)
        return fmpq(value.numerator, value.denominator)

    def _convert(self, v):
        if isinstance(v, fmpq):
            return v
        return self.scalar(to_fraction(v))

    @staticmethod
    def _exp(v):
        if v == 0:
            return fmpq(1)
        raise NotRational("exp of a nonzero rational is irrational")

    @staticmethod
    def _log(v):
        if v == 1:
            return fmpq(0)
        raise NotRational("log of a rational other than 1 is irrational")

    @staticmethod
    def _sqrt(v):
        if v < 0:
            raise NotRational("sqrt of a negative number")
        p, q = int(v.p), int(v.q)
        rp, rq = _isqrt_exact(p), _isqrt_exact(q)
        if rp is None or rq is None:
            raise NotRational("sqrt of a non-square rational is irrational")
        return fmpq(rp, rq)

    def exp(self, x):
        return self._elementwise(self._exp, x)

    def log(self, x):
        return self._elementwise(self._log, x)

    def sqrt(self, x):
        return self._elementwise(self._sqrt, x)


def _isqrt_exact(k: int) -> int | None:
    import math

    r = math.isqrt(k)
    return r if r * r == k else None


class BallContext(_ObjectContext):
    """Rigorous ball arithmetic (python-flint ``arb``) at ``prec`` bits.

    Every value is a ball guaranteed to contain the exact result.  ``max``/``min`` are
    computed from the balls' endpoints, so they are enclosures too.
    """

    name = "ball"
    rigorous = True

    def __init__(self, prec: int = 200):
        self.prec = prec

    @contextlib.contextmanager
    def precision(self):
        old = flint_ctx.prec
        flint_ctx.prec = self.prec
        try:
            yield
        finally:
            flint_ctx.prec = old

    def scalar(self, value):
        value = Fraction(value)
        return arb(fmpq(value.numerator, value.denominator))

    def _convert(self, v):
        if isinstance(v, arb):
            return v
        if isinstance(v, fmpq):
            return arb(v)
        return self.scalar(to_fraction(v))

    @staticmethod
    def _max2(a, b):
        lo = a.lower() if a.lower() >= b.lower() else b.lower()
        hi = a.upper() if a.upper() >= b.upper() else b.upper()
        return lo.union(hi)

    @staticmethod
    def _min2(a, b):
        lo = a.lower() if a.lower() <= b.lower() else b.lower()
        hi = a.upper() if a.upper() <= b.upper() else b.upper()
        return lo.union(hi)

    def exp(self, x):
        return self._elementwise(arb.exp, x)

    def log(self, x):
        return self._elementwise(arb.log, x)

    def sqrt(self, x):
        return self._elementwise(arb.sqrt, x)


class SymbolicContext(_ObjectContext):
    """sympy expressions: used to prove that a margin is exactly zero."""

    name = "symbolic"
    rigorous = True

    def scalar(self, value):
        value = Fraction(value)
        return sympy.Rational(value.numerator, value.denominator)

    def abs(self, x):
        return self._elementwise(sympy.Abs, x)

    def _max2(self, a, b):
        return sympy.Max(a, b)

    def _min2(self, a, b):
        return sympy.Min(a, b)

    def exp(self, x):
        return self._elementwise(sympy.exp, x)

    def log(self, x):
        return self._elementwise(sympy.log, x)

    def sqrt(self, x):
        return self._elementwise(sympy.sqrt, x)


FLOAT = FloatContext()
EXACT = ExactContext()
SYMBOLIC = SymbolicContext()
