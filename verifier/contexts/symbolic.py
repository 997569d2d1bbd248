"""sympy expressions: proof that two sides are exactly equal, which no enclosure can give."""

from __future__ import annotations

import contextlib
from fractions import Fraction

import numpy as np
import sympy

from .objects import _domain, _ObjectContext
from .values import to_fraction


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
