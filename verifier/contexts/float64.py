"""float64 arrays, a whole batch of candidates at once: the search's context."""

from __future__ import annotations

import contextlib
import math
from fractions import Fraction

import numpy as np
from flint import fmpq

from .base import Context
from .values import integral_value, exact_decimal


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

    def _named_constant(self, name):
        return {"pi": math.pi, "e": math.e}[name]

    def _function(self, row, x):
        # outside a function's domain float64 gives nan or inf, as the search expects: no warning
        with np.errstate(all="ignore"):
            return row.float(_float_args(x))

    def abs(self, x):
        return np.abs(_float_args(x))

    def sign(self, x):
        return np.sign(_float_args(x))

    def power(self, x, p):
        if isinstance(p, np.ndarray):  # a variable exponent
            exponent = _float_args(p)
        else:
            k = integral_value(p)
            exponent = float(exact_decimal(p)) if k is None else k * 1.0
        with np.errstate(all="ignore"):
            return np.power(_float_args(x), exponent)

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
