"""sympy expressions: proof that two sides are exactly equal, which no enclosure can give."""

from __future__ import annotations

import contextlib
from fractions import Fraction

import numpy as np
import sympy

from .objects import ObjectContext
from .values import to_fraction


class SymbolicContext(ObjectContext):
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

    def lift_value(self, v):
        if isinstance(v, sympy.Basic):
            return v
        return self.scalar(to_fraction(v))

    def abs(self, x):
        return self._apply(sympy.Abs, x)

    def sign(self, x):
        return self._apply(sympy.sign, x)

    def max2(self, a, b):
        return sympy.Max(a, b)

    def min2(self, a, b):
        return sympy.Min(a, b)

    column = "symbolic"

    def _outside(self, domain, a) -> bool:
        # only what sympy knows: an expression of unknown sign is left to the form
        gap = a - domain.value(self.scalars)
        return (gap.is_nonpositive is True) if domain.strict else (gap.is_negative is True)

    @staticmethod
    def constant_value(name):
        return sympy.pi if name == "pi" else sympy.E
