"""Exact rationals (python-flint ``fmpq``): certificates of claims that stay rational."""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, fmpq

from .ball import BallContext
from .objects import ObjectContext
from .values import to_fraction


class ExactContext(ObjectContext):
    """Exact rationals.  Leaving the rationals raises :class:`NotRational`."""

    name = "exact"
    rigorous = True
    native = (fmpq,)

    def scalar(self, value):
        value = Fraction(value)
        return fmpq(value.numerator, value.denominator)

    def lift_value(self, v):
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

    column = "exact"

    def _outside(self, domain, v) -> bool:
        q = domain.rational
        if q is not None:
            edge = fmpq(q.numerator, q.denominator)
            return v <= edge if domain.strict else v < edge
        # an irrational edge (lambertw's -1/e): balls decide, and only what they certainly show
        # counts; a rational too close to the edge goes on to the form, which calls it irrational
        with _EDGE_BALLS.precision():
            ball, edge = arb(v), domain.value(_EDGE_BALLS.scalars)
            return bool(ball <= edge) if domain.strict else bool(ball < edge)


#: where an irrational edge of a domain is computed for a rational (64 bits: only certain answers count)
_EDGE_BALLS = BallContext(64)
