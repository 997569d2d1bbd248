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
import math
from decimal import Decimal
from fractions import Fraction
from dataclasses import dataclass
from typing import Any, Iterator

import mpmath
import numpy as np
import scipy.special
import sympy
from flint import arb, fmpq
from flint import ctx as flint_ctx


class NotRational(ArithmeticError):
    """Raised by the exact context when a claim leaves the rationals (exp, log, sqrt)."""


class DomainError(ArithmeticError):
    """A function was applied outside its domain (log of a negative number, say).

    Every rigorous context raises it where the float context gives nan, and the
    certifier treats it as it treats a division by zero: the point is outside the claim's
    hypotheses, never a violation.
    """


class FloatLiteralError(TypeError):
    """A float literal reached an exact context: its value is not the decimal written."""


class Bound(float):
    """A domain endpoint: the nearest float in the float search, the exact value elsewhere.

    ``Fraction(bound)`` and every exact context see the value the author wrote (``"0.1"``
    or ``1e-9`` mean 1/10 and 1/10^9).  A value no float holds is rounded *outward*
    (``side=-1`` for a lower end, ``+1`` for an upper end): the float search clips just
    outside, within a rounding of the float hypotheses' tolerance, and the exact
    projection then clips onto the decimal itself, so a claim false only at the endpoint
    is reached.
    """

    exact: Fraction

    def __new__(cls, value: Any, side: int = 0) -> "Bound":
        exact = exact_decimal(value)
        nearest = float(exact)
        if side and Fraction(nearest) != exact and (Fraction(nearest) > exact) == (side < 0):
            nearest = float(np.nextafter(nearest, side * np.inf))
        out = super().__new__(cls, nearest)
        out.exact = exact
        return out

    def __repr__(self) -> str:
        shortest = repr(float(self.exact))
        return shortest if Fraction(shortest) == self.exact else f"'{self.exact}'"

    __str__ = __repr__

    @property
    def plain(self) -> int | float | str:
        """For JSON: an int or a float when one holds the value exactly, else ``"1/10"``."""
        if self.exact.denominator == 1:
            return int(self.exact)
        return float(self.exact) if Fraction(float(self.exact)) == self.exact else str(self.exact)

    def as_integer_ratio(self) -> tuple[int, int]:
        return self.exact.numerator, self.exact.denominator

    def __reduce__(self):
        return (_bound_from, (self.exact, float(self)))


def _bound_from(exact: Fraction, nearest: float) -> "Bound":
    out = float.__new__(Bound, nearest)
    out.exact = exact
    return out


def exact_decimal(value: Any) -> Fraction:
    """The exact value an author means: a float by its shortest repr (``1e-9`` is 1/10^9)."""
    if isinstance(value, Bound):
        return value.exact
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise ValueError(f"non-finite number {value!r}")
        return Fraction(repr(float(value)))
    if isinstance(value, (str, Decimal)):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError, ArithmeticError):
            raise ValueError(f"not a number: {value!r} (write a decimal like '0.1' or a ratio like '1/3')") from None
    return to_fraction(value)


def _core_axes(x: np.ndarray) -> tuple[int, ...]:
    return tuple(range(1, np.ndim(x)))


def to_fraction(value: Any) -> Fraction:
    """Exact rational value of an int, Fraction, fmpq, Bound or finite float."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, fmpq):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, Bound):
        return value.exact
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise ValueError(f"non-finite number {value!r}")
        return Fraction(float(value))
    if isinstance(value, Decimal):
        return Fraction(value)
    raise TypeError(f"cannot take the exact value of {type(value).__name__}")


@dataclass(frozen=True)
class Function:
    """One elementwise function of the ``ctx`` API, as the property test generates it.

    ``arity`` counts array arguments; ``exponent`` marks ``power``'s second argument, a
    real number rather than an array.  Adding a row here is how a function joins the API's
    tests: every context must implement it under ``name``.
    """

    name: str
    arity: int = 1
    exponent: bool = False
    summary: str = ""


#: The elementwise functions every context implements (names as in numpy/scipy).
FUNCTIONS: tuple[Function, ...] = (
    Function("exp", summary="e^x"),
    Function("log", summary="natural log; undefined for x <= 0"),
    Function("sqrt", summary="square root; undefined for x < 0"),
    Function("abs", summary="|x|"),
    Function("tanh"),
    Function("sigmoid", summary="1 / (1 + e^-x) (scipy.special.expit)"),
    Function("softplus", summary="log(1 + e^x)"),
    Function("erf"),
    Function("sin"),
    Function("cos"),
    Function("log1p", summary="log(1 + x); undefined for x <= -1"),
    Function("expm1", summary="e^x - 1"),
    Function("power", arity=1, exponent=True, summary="x^p for real p; a negative base needs an integer p"),
    Function("lambertw", summary="principal branch W_0; undefined for x < -1/e"),
    Function("maximum", arity=2),
    Function("minimum", arity=2),
)

_FUNCTION_NAMES = frozenset(f.name for f in FUNCTIONS)

#: Reductions over non-batch axes: ``ctx.NAME(x, axis, keepdims=False)``.
REDUCTIONS: tuple[str, ...] = ("max", "min", "sum")


def _integral(p: Any) -> int | None:
    """``p`` as an int when it is an integer (``2``, ``Fraction(4, 2)``, ``2.0``), else None."""
    try:
        q = exact_decimal(p)
    except (TypeError, ValueError):
        return None
    return int(q) if q.denominator == 1 else None


class Context:
    """Operations a claim may use, beyond the arithmetic operators."""

    name = "abstract"
    #: True when every result is exact or a rigorous enclosure (usable for certificates).
    rigorous = False

    # -- construction -----------------------------------------------------------------
    def asarray(self, value: Any) -> np.ndarray:
        raise NotImplementedError

    def const(self, value: int | str | Fraction) -> Any:
        """A constant such as ``ctx.const("1/2")`` or ``ctx.const("0.45")`` in this context's number type."""
        with self.precision():
            return self.scalar(exact_decimal(value))

    def scalar(self, value: Fraction) -> Any:
        raise NotImplementedError

    def convert(self, data: dict) -> dict:
        """A candidate's variables (exact rationals or floats) as this context's numbers.

        Converted inside the context's precision: outside it, a rational such as 1/3 or a
        166-bit dyadic would be rounded to the ambient 53 bits before any certificate saw it.
        """
        with self.precision():
            return {k: self.asarray(np.asarray(v, dtype=object)) for k, v in data.items()}

    # -- elementwise (see FUNCTIONS) --------------------------------------------------
    def abs(self, x):
        return np.abs(x)

    # -- reductions (axis: an int or a tuple of ints, never the batch axis) ------------
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


def _float_args(x):
    """An operand as float64 (ints, Fractions, Bounds and object arrays of them)."""
    if isinstance(x, np.ndarray) and x.dtype == np.float64:
        return x
    if isinstance(x, np.ndarray) and x.dtype == object:
        return np.frompyfunc(float, 1, 1)(x).astype(np.float64)
    return np.asarray(x, dtype=np.float64) if not isinstance(x, (Fraction, fmpq)) else float(x)


class FloatContext(Context):
    """float64, vectorised over the batch axis.  Outside a function's domain: nan (or +-inf)."""

    name = "float64"

    def asarray(self, value):
        return _float_args(np.asarray(value) if not isinstance(value, np.ndarray) else value)

    def scalar(self, value):
        return float(value)

    def exp(self, x):
        with np.errstate(over="ignore", invalid="ignore"):
            return np.exp(_float_args(x))

    def log(self, x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(_float_args(x))

    def sqrt(self, x):
        with np.errstate(invalid="ignore"):
            return np.sqrt(_float_args(x))

    def abs(self, x):
        return np.abs(_float_args(x))

    def tanh(self, x):
        return np.tanh(_float_args(x))

    def sigmoid(self, x):
        return scipy.special.expit(_float_args(x))

    def softplus(self, x):
        return np.logaddexp(0.0, _float_args(x))

    def erf(self, x):
        return scipy.special.erf(_float_args(x))

    def sin(self, x):
        return np.sin(_float_args(x))

    def cos(self, x):
        return np.cos(_float_args(x))

    def log1p(self, x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log1p(_float_args(x))

    def expm1(self, x):
        with np.errstate(over="ignore"):
            return np.expm1(_float_args(x))

    def power(self, x, p):
        with np.errstate(all="ignore"):
            return np.power(_float_args(x), float(exact_decimal(p)) if _integral(p) is None else _integral(p) * 1.0)

    def lambertw(self, x):
        x = _float_args(x)
        with np.errstate(all="ignore"):
            w = scipy.special.lambertw(x, 0)
        return np.where((x >= -1 / np.e) & np.isfinite(x), w.real, np.nan)

    def maximum(self, x, y):
        return np.maximum(_float_args(x), _float_args(y))

    def minimum(self, x, y):
        return np.minimum(_float_args(x), _float_args(y))

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
    x = _float_args(x)
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


class Numbers(np.ndarray):
    """An object array of one context's numbers that lifts foreign operands on the way in.

    ``x - Fraction(1, 3)`` or ``np.maximum(x, 0)`` would otherwise hand an ``arb`` a
    Fraction (which it refuses) or compare a ball with a Python int (which gives an int
    back): every ufunc, operator and reduction first turns ints, Fractions and fmpqs into
    the context's own numbers, so all contexts accept what numpy accepts.
    """

    context: "_ObjectContext | None" = None

    def __array_finalize__(self, obj):
        # a view of a plain array keeps the class's None (a getattr with a default would
        # raise and catch inside for every view numpy makes)
        if type(obj) is Numbers:
            self.context = obj.context

    def __reduce__(self):
        # pickled (to a worker process) as a plain object array; Values wraps it again
        return self.view(np.ndarray).__reduce__()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        ctx = self.context
        if ctx is None:  # a view numpy made without finalising: plain object arithmetic
            plain = [x.view(np.ndarray) if isinstance(x, Numbers) else x for x in inputs]
            return getattr(ufunc, method)(*plain, **kwargs)
        if method == "__call__" and not kwargs:
            # this runs for every operation at high precision: operands of this class are
            # viewed in place, the context's own numbers and cached constants pass as they are
            if len(inputs) == 2:
                a, b = inputs
                if ufunc is np.power and isinstance(b, (int, np.integer, Fraction)):
                    return ctx.power(a, b)  # ``x ** 2`` keeps its int exponent; ``x ** Fraction(1, 2)`` is a root
                result = ufunc(a.view(np.ndarray) if isinstance(a, Numbers) else ctx.lift(a),
                               b.view(np.ndarray) if isinstance(b, Numbers) else ctx.lift(b))
            else:
                result = ufunc(*[x.view(np.ndarray) if isinstance(x, Numbers) else ctx.lift(x) for x in inputs])
        else:
            args = [x.view(np.ndarray) if isinstance(x, Numbers) else ctx.lift(x) for x in inputs]
            if kwargs.get("out") is not None:
                kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, Numbers) else o for o in kwargs["out"])
            result = getattr(ufunc, method)(*args, **kwargs)
        if type(result) is np.ndarray and result.dtype == object:
            return result.view(type(self) if type(self) is not Numbers else ctx._numbers)
        return ctx.wrap(result)


def _context_operator(ufunc, fallback, reflected=False):
    """``a - b`` with ``b`` of the context's own class or a plain int or Fraction, straight to
    numpy's object loop (the same operation as through :meth:`Numbers.__array_ufunc__`).

    numpy's ``__array_ufunc__`` dispatch costs about 1 us an operation, half of an exact
    ``-`` on a small matrix, and claim code is mostly such operations.
    """

    def operator(self, other):
        cls = type(self)
        if type(other) is cls:
            other = other.view(np.ndarray)
        elif type(other) is int or type(other) is Fraction:
            other = cls.context.lift(other)
        else:
            return fallback(self, other)
        mine = self.view(np.ndarray)
        result = ufunc(other, mine) if reflected else ufunc(mine, other)
        if type(result) is np.ndarray and result.dtype == object:
            return result.view(cls)
        return cls.context.wrap(result)

    return operator


def _context_unary(ufunc):
    """``-a`` or ``abs(a)`` straight to numpy's object loop, as :func:`_context_operator` does for two operands."""

    def operator(self):
        result = ufunc(self.view(np.ndarray))
        if type(result) is np.ndarray and result.dtype == object:
            return result.view(type(self))
        return type(self).context.wrap(result)

    return operator


def _context_power(self, other):
    # an int or Fraction exponent goes to the context's power, as the dispatch sends it
    if type(other) is int or type(other) is Fraction:
        return type(self).context.power(self, other)
    return np.ndarray.__pow__(self, other)


_CONTEXT_OPERATORS = {
    **{f"__{r}{name}__": _context_operator(ufunc, getattr(np.ndarray, f"__{r}{name}__"), reflected=bool(r))
       for name, ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("truediv", np.true_divide),
                           ("matmul", np.matmul))
       for r in ("", "r")},
    # a reflected comparison is the mirrored one on the array (``2 < x`` is ``x > 2``)
    **{f"__{name}__": _context_operator(ufunc, getattr(np.ndarray, f"__{name}__"))
       for name, ufunc in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal),
                           ("eq", np.equal), ("ne", np.not_equal))},
    **{f"__{name}__": _context_unary(ufunc)
       for name, ufunc in (("neg", np.negative), ("pos", np.positive), ("abs", np.absolute))},
    "__pow__": _context_power,
}


def _numbers_class(ctx) -> type:
    """The array class of one context: :class:`Numbers` with the context as a class attribute.

    A class attribute is not copied into every view numpy makes (a slice, a transpose, a
    ufunc's result), so these views cost no Python call.
    """
    return type(f"{type(ctx).__name__}Numbers", (Numbers,),
                {"context": ctx, "__array_finalize__": np.ndarray.__array_finalize__, "__module__": __name__,
                 **_CONTEXT_OPERATORS})


#: one array class per standard context and precision: their lifting depends on the
#: ambient, scoped precision alone, so contexts of one class and precision share it
_NUMBERS_CLASSES: dict = {}


#: lifted ints and Fractions kept per (context class, precision), so that ``x * 2`` or
#: ``1 - x`` converts its constant once and not at every evaluation; the numbers are immutable
_LIFTED: dict = {}
_LIFTED_MAX = 4096


def _constant_key(value) -> tuple:
    # a Fraction's own hash costs a modular inverse in Python; its two ints hash at C speed
    if type(value) is Fraction:
        return (Fraction, value.numerator, value.denominator)
    return (type(value), value)


_ORDER_UFUNCS = {"_max2": np.maximum, "_min2": np.minimum}


class _ObjectContext(Context):
    """Contexts whose entries are Python number objects (batch size one)."""

    #: the context's own number types, left as they are by :meth:`lift`
    native: tuple[type, ...] = ()

    # -- operands ------------------------------------------------------------------------
    def _make_numbers(self) -> type:
        key = self._numbers_key()
        if key is None:
            return _numbers_class(self)
        return _NUMBERS_CLASSES.get(key) or _NUMBERS_CLASSES.setdefault(key, _numbers_class(self))

    def _numbers_key(self):
        """What this context's lifting depends on, when contexts may share an array class (None: never)."""
        return None

    def wrap(self, result):
        if isinstance(result, np.ndarray) and result.dtype == object:
            return result.view(self._numbers)
        if isinstance(result, tuple):
            return tuple(self.wrap(r) for r in result)
        return result

    def lift(self, x):
        """An operand as an array (or number) of this context's numbers."""
        if isinstance(x, Numbers):
            return x.view(np.ndarray)
        if type(x) is int or type(x) is Fraction:
            return self._lift_constant(x)
        if isinstance(x, self.native):
            return x
        if isinstance(x, np.ndarray):
            if x.dtype != object:
                x = x.astype(object)
            return np.frompyfunc(self._lift_one, 1, 1)(x) if x.ndim else np.asarray(self._lift_one(x[()]), dtype=object)
        if isinstance(x, (list, tuple)):
            return self.lift(np.asarray(x, dtype=object))
        return self._lift_one(x)

    def _lift_one(self, v):
        if isinstance(v, self.native):
            return v
        if isinstance(v, (float, np.floating)) and not isinstance(v, Bound):
            raise FloatLiteralError(
                f"float literal {float(v)!r} in claim code: its binary value is not the decimal written; "
                f"use ctx.const('{float(v)!r}') or Fraction({_ratio_text(v)})"
            )
        return self._convert(v)

    #: the precision lifted constants depend on (None: no cache, each lift converts anew)
    def _lift_precision(self):
        return None

    def _lift_constant(self, v):
        prec = self._lift_precision()
        if prec is None:
            return self._lift_one(v)
        key = (type(self), prec) + _constant_key(v)
        out = _LIFTED.get(key)
        if out is None:
            if len(_LIFTED) >= _LIFTED_MAX:
                _LIFTED.clear()
            out = _LIFTED[key] = self._lift_one(v)
        return out

    def _apply(self, fn, *args, reuse=True):
        arrays = [a.view(np.ndarray) if isinstance(a, Numbers) else self.lift(a) for a in args]
        if isinstance(fn, np.ufunc):
            out = fn(*arrays)
        else:
            out = self._ufunc(fn, len(arrays))(*arrays) if reuse else np.frompyfunc(fn, len(arrays), 1)(*arrays)
        return self.wrap(out if type(out) is np.ndarray else np.asarray(out, dtype=object))

    def _ufunc(self, fn, nin):
        """``np.frompyfunc(fn, nin, 1)``, made once per function and context (``fn``: it or its name)."""
        try:
            return self.__dict__["_ufuncs"][fn, nin]
        except KeyError:
            cache = self.__dict__.setdefault("_ufuncs", {})
        if fn in _ORDER_UFUNCS and getattr(type(self), fn) is getattr(_ObjectContext, fn):
            # numpy's maximum on objects is ``a if a >= b else b`` (minimum: ``<=``) in C: the
            # same number, ties and nans included, without a Python call per pair
            out = _ORDER_UFUNCS[fn]
        else:
            out = np.frompyfunc(getattr(self, fn) if isinstance(fn, str) else fn, nin, 1)
        cache[fn, nin] = out
        return out

    def const(self, value):
        """A 0-d array, so that ``ctx.const("1/2") + Fraction(1, 3)`` lifts like any operand."""
        prec = self._const_precision()
        if prec is None or type(value) not in (int, str, Fraction):
            return self.wrap(np.asarray(super().const(value), dtype=object))
        key = (type(self), "const", prec) + _constant_key(value)
        number = _LIFTED.get(key)
        if number is None:
            if len(_LIFTED) >= _LIFTED_MAX:
                _LIFTED.clear()
            number = _LIFTED[key] = super().const(value)
        return self.wrap(np.asarray(number, dtype=object))  # a new array each time: claim code may change it in place

    #: the precision ``const`` works at, when its results may be kept (None: never kept)
    def _const_precision(self):
        return None

    def _elementwise(self, fn, x):
        return self._apply(fn, x)

    # -- the API -------------------------------------------------------------------------
    def asarray(self, value):
        arr = np.asarray(value, dtype=object)
        out = self._ufunc("_convert", 1)(arr) if arr.ndim else np.asarray(self._convert(arr[()]), dtype=object)
        return self.wrap(out)

    def _convert(self, v):
        return self.scalar(to_fraction(v))

    def _max2(self, a, b):
        return a if a >= b else b

    def _min2(self, a, b):
        return a if a <= b else b

    def _reduce(self, fn, x, axis, keepdims):
        out = x.view(np.ndarray) if isinstance(x, Numbers) else self.lift(x)
        ufunc = self._ufunc(fn, 2)
        ndim = out.ndim if type(out) is np.ndarray else np.ndim(out)
        if isinstance(axis, int):
            out = ufunc.reduce(out, axis=axis % ndim, keepdims=keepdims)
        else:
            for a in sorted((a % ndim for a in axis), reverse=True):
                out = ufunc.reduce(out, axis=a, keepdims=keepdims)
        if type(out) is np.ndarray and out.dtype == object:
            return out.view(self._numbers)
        return self.wrap(out)

    def abs(self, x):
        return self._apply(np.absolute, x)  # numpy's absolute on objects is ``abs``, without a Python call

    def maximum(self, x, y):
        return self._apply("_max2", x, y)

    def minimum(self, x, y):
        return self._apply("_min2", x, y)

    def max(self, x, axis, keepdims=False):
        return self._reduce("_max2", x, axis, keepdims)

    def min(self, x, axis, keepdims=False):
        return self._reduce("_min2", x, axis, keepdims)

    def sum(self, x, axis, keepdims=False):
        return self.wrap(np.sum(self.lift(x), axis=axis, keepdims=keepdims))

    def power(self, x, p):
        k = _integral(p)
        if k is not None:
            return self._apply(lambda a: self._power_int(a, k), x, reuse=False)
        q = exact_decimal(p)
        return self._apply(lambda a: self._power_real(a, q), x, reuse=False)

    def _power_int(self, a, k):
        if k < 0 and a == 0:
            raise ZeroDivisionError("power: zero to a negative power")
        return a**k

    #: what a context without a function raises (the SMT context: "not decidable")
    unavailable_error: type[ArithmeticError] = NotRational

    def _power_real(self, a, q: Fraction):
        raise self.unavailable_error(f"power with a non-integer exponent is not available in the {self.name} context")

    def __getattr__(self, name):
        if name == "_numbers":  # made on first use, then an instance attribute (no call per operation)
            cls = self.__dict__["_numbers"] = self._make_numbers()
            return cls
        # a context that lacks a function's scalar form says so when the function is used
        if name.startswith("_") and name[1:] in _FUNCTION_NAMES:
            def unavailable(*_):
                raise self.unavailable_error(f"{name[1:]} is not available in the {self.name} context")

            return unavailable
        raise AttributeError(name)

    # the remaining functions of FUNCTIONS, each the scalar method ``_NAME``
    def exp(self, x):
        return self._apply("_exp", x)

    def log(self, x):
        return self._apply("_log", x)

    def sqrt(self, x):
        return self._apply("_sqrt", x)

    def tanh(self, x):
        return self._apply("_tanh", x)

    def sigmoid(self, x):
        return self._apply("_sigmoid", x)

    def softplus(self, x):
        return self._apply("_softplus", x)

    def erf(self, x):
        return self._apply("_erf", x)

    def sin(self, x):
        return self._apply("_sin", x)

    def cos(self, x):
        return self._apply("_cos", x)

    def log1p(self, x):
        return self._apply("_log1p", x)

    def expm1(self, x):
        return self._apply("_expm1", x)

    def lambertw(self, x):
        return self._apply("_lambertw", x)


def _ratio_text(v) -> str:
    q = Fraction(repr(float(v)))
    return f"{q.numerator}, {q.denominator}"


def _domain(ok: bool, what: str, a) -> None:
    if not ok:
        raise DomainError(f"{what} is undefined at {a}")


class MPContext(_ObjectContext):
    """mpmath at ``dps`` significant digits, scoped with ``workdps``."""

    name = "mpmath"
    native = (mpmath.mpf,)

    def __init__(self, dps: int = 50):
        self.dps = dps

    @contextlib.contextmanager
    def precision(self):
        with mpmath.workdps(self.dps):
            yield

    def scalar(self, value):
        value = Fraction(value)
        return mpmath.mpf(value.numerator) / value.denominator

    def _convert(self, v):
        if isinstance(v, mpmath.mpf):
            return v
        if type(v) is int:  # ``x * 2``: the same rounding as through a Fraction, without one
            return mpmath.mpf(v)
        if type(v) is fmpq:  # a candidate's entries: fmpq is in lowest terms, as a Fraction would be
            return mpmath.mpf(int(v.p)) / int(v.q)
        if type(v) is float and math.isfinite(v):
            p, q = v.as_integer_ratio()
            return mpmath.mpf(p) / q
        return self.scalar(to_fraction(v))

    def _lift_precision(self):
        return mpmath.mp.prec if type(self) is MPContext else None

    def _const_precision(self):
        return self.dps if type(self) is MPContext else None

    def _numbers_key(self):
        return (MPContext, self.dps) if type(self) is MPContext else None

    _exp = staticmethod(mpmath.exp)
    _tanh = staticmethod(mpmath.tanh)
    _erf = staticmethod(mpmath.erf)
    _sin = staticmethod(mpmath.sin)
    _cos = staticmethod(mpmath.cos)
    _expm1 = staticmethod(mpmath.expm1)

    @staticmethod
    def _log(a):
        _domain(a > 0, "log", a)
        return mpmath.log(a)

    @staticmethod
    def _sqrt(a):
        _domain(a >= 0, "sqrt", a)
        return mpmath.sqrt(a)

    @staticmethod
    def _sigmoid(a):
        return 1 / (1 + mpmath.exp(-a))

    @staticmethod
    def _softplus(a):
        return mpmath.log1p(mpmath.exp(a)) if a < 0 else a + mpmath.log1p(mpmath.exp(-a))

    @staticmethod
    def _log1p(a):
        _domain(a > -1, "log1p", a)
        return mpmath.log1p(a)

    @staticmethod
    def _lambertw(a):
        _domain(a >= -mpmath.exp(-1), "lambertw", a)
        return mpmath.re(mpmath.lambertw(a))

    def _power_real(self, a, q):
        _domain(a > 0 or (a == 0 and q > 0), "power with a non-integer exponent", a)
        return a ** self.scalar(q) if a else mpmath.mpf(0)


class ExactContext(_ObjectContext):
    """Exact rationals.  Leaving the rationals raises :class:`NotRational`."""

    name = "exact"
    rigorous = True
    native = (fmpq,)

    def scalar(self, value):
        value = Fraction(value)
        return fmpq(value.numerator, value.denominator)

    def _convert(self, v):
        if isinstance(v, fmpq):
            return v
        if type(v) is int:
            return fmpq(v)
        if type(v) is float and math.isfinite(v):  # a sampled point: its ratio is in lowest terms, as a Fraction's
            return fmpq(*v.as_integer_ratio())
        return self.scalar(to_fraction(v))

    def _lift_precision(self):
        return 0 if type(self) is ExactContext else None  # rationals do not depend on a precision

    _const_precision = _lift_precision

    def _numbers_key(self):
        return (ExactContext,) if type(self) is ExactContext else None

    @staticmethod
    def _at_zero(name, value_at_zero):
        def f(v):
            if v == 0:
                return fmpq(value_at_zero)
            raise NotRational(f"{name} of a nonzero rational is irrational")

        return staticmethod(f)

    _exp = _at_zero("exp", 1)
    _tanh = _at_zero("tanh", 0)
    _erf = _at_zero("erf", 0)
    _sin = _at_zero("sin", 0)
    _cos = _at_zero("cos", 1)
    _expm1 = _at_zero("expm1", 0)

    @staticmethod
    def _lambertw(v):
        _domain(not v < _MINUS_INV_E_BELOW, "lambertw", v)
        if v == 0:
            return fmpq(0)
        raise NotRational("lambertw of a nonzero rational is irrational")

    @staticmethod
    def _sigmoid(v):
        if v == 0:
            return fmpq(1, 2)
        raise NotRational("sigmoid of a nonzero rational is irrational")

    @staticmethod
    def _softplus(v):
        raise NotRational("softplus of a rational is irrational")

    @staticmethod
    def _log(v):
        _domain(v > 0, "log", v)
        if v == 1:
            return fmpq(0)
        raise NotRational("log of a rational other than 1 is irrational")

    @staticmethod
    def _log1p(v):
        _domain(v > -1, "log1p", v)
        if v == 0:
            return fmpq(0)
        raise NotRational("log1p of a nonzero rational is irrational")

    @staticmethod
    def _sqrt(v):
        _domain(v >= 0, "sqrt", v)
        root = _exact_root(v, 2)
        if root is None:
            raise NotRational("sqrt of a non-square rational is irrational")
        return root

    def _power_real(self, v, q):
        _domain(v > 0 or (v == 0 and q > 0), "power with a non-integer exponent", v)
        if v == 0:
            return fmpq(0)
        root = _exact_root(v, q.denominator)
        if root is None:
            raise NotRational(f"{v}^({q}) is irrational")
        return root**q.numerator


#: a rational just below -1/e (the edge of lambertw's domain); between it and -1/e balls decide
_MINUS_INV_E_BELOW = fmpq(-36787944117144234, 10**17)


def _exact_root(v: fmpq, k: int) -> fmpq | None:
    """The rational k-th root of a non-negative rational, when it is one."""
    p, q = int(v.p), int(v.q)
    rp, rq = _iroot_exact(p, k), _iroot_exact(q, k)
    return None if rp is None or rq is None else fmpq(rp, rq)


def _iroot_exact(n: int, k: int) -> int | None:
    r = int(sympy.integer_nthroot(n, k)[0])
    return r if r**k == n else None


class BallContext(_ObjectContext):
    """Rigorous ball arithmetic (python-flint ``arb``) at ``prec`` bits.

    Every value is a ball guaranteed to contain the exact result.  ``max``/``min`` are
    computed from the balls' endpoints, so they are enclosures too.  A ball wholly outside
    a function's domain raises :class:`DomainError`; one straddling its edge gives a nan
    ball, which no certificate accepts.
    """

    name = "ball"
    rigorous = True
    native = (arb,)

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
        if type(v) is int and v.bit_length() <= 53:  # exact at any precision, as through an fmpq
            return arb(v)
        if type(v) is float and math.isfinite(v):
            return arb(fmpq(*v.as_integer_ratio()))
        return self.scalar(to_fraction(v))

    def _lift_precision(self):
        return flint_ctx.prec if type(self) is BallContext else None

    def _const_precision(self):
        return self.prec if type(self) is BallContext else None

    def _numbers_key(self):
        return (BallContext, self.prec) if type(self) is BallContext else None

    @staticmethod
    def _max2(a, b):
        al, bl, au, bu = a.lower(), b.lower(), a.upper(), b.upper()  # each endpoint taken once
        return (al if al >= bl else bl).union(au if au >= bu else bu)

    @staticmethod
    def _min2(a, b):
        al, bl, au, bu = a.lower(), b.lower(), a.upper(), b.upper()
        return (al if al <= bl else bl).union(au if au <= bu else bu)

    _exp = staticmethod(arb.exp)
    _tanh = staticmethod(arb.tanh)
    _erf = staticmethod(arb.erf)
    _sin = staticmethod(arb.sin)
    _cos = staticmethod(arb.cos)
    _expm1 = staticmethod(arb.expm1)

    @staticmethod
    def _log(a):
        _domain(not a.upper() <= 0, "log", a)
        return a.log()

    @staticmethod
    def _sqrt(a):
        _domain(not a.upper() < 0, "sqrt", a)
        return a.sqrt()

    @staticmethod
    def _sigmoid(a):
        return 1 / (1 + (-a).exp())

    @staticmethod
    def _softplus(a):
        # log1p(e^a) = a + log1p(e^-a): each form keeps its argument of exp <= 0 near its side
        return a.exp().log1p() if a.upper() <= 0 else a + (-a).exp().log1p()

    @staticmethod
    def _log1p(a):
        _domain(not a.upper() <= -1, "log1p", a)
        return a.log1p()

    @staticmethod
    def _lambertw(a):
        _domain(not (a + arb(-1).exp()).upper() < 0, "lambertw", a)
        return a.lambertw()

    def _power_real(self, a, q):
        _domain(not a.upper() < 0 and not (q < 0 and a.is_zero()), "power with a non-integer exponent", a)
        if a.is_zero():
            return arb(0)
        return a ** self.scalar(q)


class SymbolicContext(_ObjectContext):
    """sympy expressions: used to prove that a margin is exactly zero."""

    name = "symbolic"
    rigorous = True
    native = (sympy.Basic,)

    def scalar(self, value):
        value = Fraction(value)
        return sympy.Rational(value.numerator, value.denominator)

    @contextlib.contextmanager
    def precision(self):
        # sympy's numeric internals leave the FPU's overflow flag set, and numpy reports it
        # after an object loop as "RuntimeWarning: overflow encountered in _log (vectorized)":
        # noise about floats this context never computes with
        with np.errstate(all="ignore"):
            yield

    def _convert(self, v):
        if isinstance(v, sympy.Basic):
            return v
        return self.scalar(to_fraction(v))

    def abs(self, x):
        return self._apply(sympy.Abs, x)

    def _max2(self, a, b):
        return sympy.Max(a, b)

    def _min2(self, a, b):
        return sympy.Min(a, b)

    _exp = staticmethod(sympy.exp)
    _tanh = staticmethod(sympy.tanh)
    _erf = staticmethod(sympy.erf)
    _sin = staticmethod(sympy.sin)
    _cos = staticmethod(sympy.cos)

    @staticmethod
    def _log(a):
        _domain(not (a.is_nonpositive is True), "log", a)
        return sympy.log(a)

    @staticmethod
    def _sqrt(a):
        _domain(not (a.is_negative is True), "sqrt", a)
        return sympy.sqrt(a)

    @staticmethod
    def _sigmoid(a):
        return 1 / (1 + sympy.exp(-a))

    @staticmethod
    def _softplus(a):
        return sympy.log(1 + sympy.exp(a))

    @staticmethod
    def _log1p(a):
        _domain(not ((a + 1).is_nonpositive is True), "log1p", a)
        return sympy.log(1 + a)

    @staticmethod
    def _expm1(a):
        return sympy.exp(a) - 1

    @staticmethod
    def _lambertw(a):
        _domain(not ((a + sympy.exp(-1)).is_negative is True), "lambertw", a)
        return sympy.LambertW(a)

    def _power_real(self, a, q):
        _domain(not (a.is_negative is True), "power with a non-integer exponent", a)
        return sympy.Pow(a, self.scalar(q))


FLOAT = FloatContext()
EXACT = ExactContext()
SYMBOLIC = SymbolicContext()

# Lifting a foreign operand depends only on the number type (precision is the ambient,
# scoped one), so an object array built outside a context can still be given its lifting.
_BY_TYPE = ((fmpq, EXACT), (arb, BallContext()), (mpmath.mpf, MPContext()), (sympy.Basic, SYMBOLIC))


def as_numbers(value):
    """An object array of one context's numbers as :class:`Numbers` (anything else unchanged)."""
    if not isinstance(value, np.ndarray) or isinstance(value, Numbers) or value.dtype != object or not value.size:
        return value
    first = value.flat[0]
    for kind, ctx in _BY_TYPE:
        if isinstance(first, kind):
            return ctx.wrap(value)
    return value
