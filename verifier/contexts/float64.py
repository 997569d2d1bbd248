"""float64 arrays, a whole batch of candidates at once: the search's context."""

from __future__ import annotations

import contextlib
from fractions import Fraction

import numpy as np
import scipy.special
from flint import fmpq

from .base import Context
from .values import _integral, exact_decimal


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
