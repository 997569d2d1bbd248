"""mpmath numbers at a scoped working precision: the re-check of every float candidate."""

from __future__ import annotations

import contextlib
import math
from fractions import Fraction

import mpmath
from flint import fmpq

from .objects import _domain, _ObjectContext
from .values import to_fraction


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
