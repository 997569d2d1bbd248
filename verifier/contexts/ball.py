"""Rigorous ball arithmetic (python-flint ``arb``): certificates where exp, log, sqrt appear."""

from __future__ import annotations

import contextlib
import math
from fractions import Fraction

from flint import arb, fmpq
from flint import ctx as flint_ctx

from .objects import ObjectContext
from .values import to_fraction


class BallContext(ObjectContext):
    """Rigorous ball arithmetic (python-flint ``arb``) at ``prec`` bits.

    Every value is a ball guaranteed to contain the exact result.  ``max``/``min`` are
    computed from the balls' endpoints, so they are enclosures too.  A ball wholly outside
    a function's domain raises :class:`FunctionDomainError`; one straddling its edge gives a nan
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

    def lift_value(self, v):
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
    def max2(a, b):
        al, bl, au, bu = a.lower(), b.lower(), a.upper(), b.upper()  # each endpoint taken once
        return (al if al >= bl else bl).union(au if au >= bu else bu)

    @staticmethod
    def min2(a, b):
        al, bl, au, bu = a.lower(), b.lower(), a.upper(), b.upper()
        return (al if al <= bl else bl).union(au if au <= bu else bu)

    @staticmethod
    def sign1(a):
        """The sign where the ball decides it, else the hull of the signs it holds ([0, 1], [-1, 0], [-1, 1])."""
        if not a.is_finite():
            return arb.nan()
        if a > 0:
            return arb(1)
        if a < 0:
            return arb(-1)
        if a.is_zero():
            return arb(0)
        if a >= 0:
            return arb("0.5", "0.5")
        if a <= 0:
            return arb("-0.5", "0.5")
        return arb(0, 1)

    column = "ball"

    def _make_one(self, row):
        form = super()._make_one(row)
        name = row.name

        def guarded(*args):
            # arb's functions read any object as a ball: a Jet or an int handed to arb.tanh
            # was read as one from its raw memory, and FLINT aborted the process
            # ("Unable to allocate memory") or returned a ball of garbage
            for a in args:
                if type(a) is not arb:
                    raise TypeError(f"{name} in ball arithmetic needs a ball, got {type(a).__name__}")
            return form(*args)

        return guarded

    def _outside(self, domain, a) -> bool:
        top, edge = a.upper(), domain.value(self.scalars)
        return bool(top <= edge) if domain.strict else bool(top < edge)

    @staticmethod
    def constant_value(name):
        return arb.pi() if name == "pi" else arb.const_e()
