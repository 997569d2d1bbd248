"""Rigorous ball arithmetic (python-flint ``arb``): certificates where exp, log, sqrt appear."""

from __future__ import annotations

import contextlib
import math
from fractions import Fraction

from flint import arb, fmpq
from flint import ctx as flint_ctx

from .objects import _domain, _ObjectContext
from .values import to_fraction


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
