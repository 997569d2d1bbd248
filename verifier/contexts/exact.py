"""Exact rationals (python-flint ``fmpq``): certificates of claims that stay rational."""

from __future__ import annotations

import math
from fractions import Fraction

import sympy
from flint import fmpq

from .errors import NotRational
from .objects import _domain, _ObjectContext
from .values import to_fraction


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
