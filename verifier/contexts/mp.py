"""mpmath numbers at a scoped working precision: the re-check of every float candidate."""

from __future__ import annotations

import contextlib
import math
from fractions import Fraction

import mpmath
from flint import fmpq

from .objects import ObjectContext
from .values import to_fraction


class MPContext(ObjectContext):
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

    def lift_value(self, v):
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

    @staticmethod
    def sign1(a):
        return mpmath.sign(a)  # nan stays nan

    column = "mp"

    def _outside_test(self, domain):
        edge = domain.integral
        if edge is None:  # an irrational edge, computed at the precision of the call
            return super()._outside_test(domain)
        # the re-check calls this for every entry: an int edge is compared as it is
        return (lambda a: not a > edge) if domain.strict else (lambda a: not a >= edge)

    def _outside(self, domain, a) -> bool:
        edge = domain.integral
        if edge is None:
            edge = domain.value(self.scalars)
        return not (a > edge if domain.strict else a >= edge)

    @staticmethod
    def constant_value(name):
        return +{"pi": mpmath.pi, "e": mpmath.e}[name]  # an mpf at the ambient precision
