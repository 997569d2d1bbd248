"""Exact reduction on a face: the margin vanishes identically there (sympy).

Near a face where a claim is an equality, every enclosure straddles zero, so no amount of
splitting proves it.  What does is algebra: evaluate the margin with sympy symbols for the
coordinates still free on the face, and show the expression simplifies to 0.  abs, max and
min are not left to sympy (which rarely knows the signs): each branch is decided by a
rigorous enclosure over the face, carried alongside the expression, or by the two branches
being symbolically equal.  A branch that cannot be decided gives up -- no proof.
"""

from __future__ import annotations

import operator
from fractions import Fraction

import numpy as np
import sympy

from ..contexts import SYMBOLIC, FunctionDomainError, ObjectContext
from ..contexts.table import BY_NAME

POWER = BY_NAME["power"]


class Undecided(ArithmeticError):
    """A branch of abs, max or min could not be fixed on the face."""


#: stands for a branch left undecided where the context tolerates one: a margin that contains it
#: is not shown to vanish, while a quantity beside the margin (a claim's scale, |lhs| + |rhs|) may
UNDECIDED = sympy.Symbol("undecided_branch")


class Guided:
    """A sympy expression together with a Jet enclosing its values on the face."""

    __slots__ = ("e", "j", "tolerant")

    def __init__(self, e, j, tolerant=False):
        self.e, self.j, self.tolerant = e, j, tolerant

    def lifted(self, o):
        if isinstance(o, Guided):
            return o
        q = Fraction(o)
        return Guided(sympy.Rational(q.numerator, q.denominator), self.j.lifted(q))

    def _bin(op, swap=False):
        def f(self, o):
            o = self.lifted(o)
            a, b = (o, self) if swap else (self, o)
            return Guided(op(a.e, b.e), op(a.j, b.j), a.tolerant or b.tolerant)

        return f

    __add__ = _bin(operator.add)
    __radd__ = _bin(operator.add, swap=True)
    __sub__ = _bin(operator.sub)
    __rsub__ = _bin(operator.sub, swap=True)
    __mul__ = _bin(operator.mul)
    __rmul__ = _bin(operator.mul, swap=True)
    __truediv__ = _bin(operator.truediv)
    __rtruediv__ = _bin(operator.truediv, swap=True)
    del _bin

    def __neg__(self):
        return Guided(-self.e, -self.j, self.tolerant)

    def __pow__(self, k):
        return Guided(self.e**k, self.j**k, self.tolerant)

    def __abs__(self):
        enc = self.j.enclosure()
        if enc >= 0:
            return self
        if enc <= 0:
            return -self
        if sympy.simplify(self.e) == 0:
            return self
        if self.tolerant:
            return Guided(UNDECIDED, abs(self.j), True)
        raise Undecided("sign of an abs argument")

    def sign(self):
        enc = self.j.enclosure()
        if enc > 0 or enc < 0:
            return self.lifted(1 if enc > 0 else -1)
        if sympy.simplify(self.e) == 0:
            return self.lifted(0)
        raise Undecided("sign of a sign argument")


def _choose(a: Guided, b: Guided, larger: bool) -> Guided:
    ea, eb = a.j.enclosure(), b.j.enclosure()
    if (ea >= eb) if larger else (ea <= eb):
        return a
    if (eb >= ea) if larger else (eb <= ea):
        return b
    if sympy.simplify(a.e - b.e) == 0:
        return a
    if a.tolerant or b.tolerant:
        return Guided(UNDECIDED, a.j if larger else b.j, True)  # the Jet is never used to decide
    raise Undecided("branch of max/min")


class GuidedContext(ObjectContext):
    """sympy beside Jets.  ``tolerant``: an undecided branch stands as :data:`UNDECIDED` instead of
    raising (one call per face up front can afford to go on; a call per box cannot)."""

    name = "guided-symbolic"

    def __init__(self, jets, tolerant: bool = False):
        self.jets, self.tolerant = jets, tolerant

    def scalar(self, value):
        q = Fraction(value)
        return Guided(sympy.Rational(q.numerator, q.denominator), self.jets.scalar(q), self.tolerant)

    def lift_value(self, v):
        return v if isinstance(v, Guided) else self.scalar(Fraction(v))

    @staticmethod
    def max2(a, b):
        a, b = (a, a.lifted(b)) if isinstance(a, Guided) else (b.lifted(a), b)
        return _choose(a, b, True)

    @staticmethod
    def min2(a, b):
        a, b = (a, a.lifted(b)) if isinstance(a, Guided) else (b.lifted(a), b)
        return _choose(a, b, False)

    def abs(self, x):
        return self._elementwise(abs, x)

    def sign(self, x):
        return self._elementwise(Guided.sign, x)

    def _function(self, row, x):
        # every function of the table: sympy's form beside the Jet's enclosure of it
        sym, jets = SYMBOLIC.function_of(row), self.jets
        return self._elementwise(lambda g: Guided(sym(g.e), jets._function(row, np.asarray([g.j], dtype=object))[0], g.tolerant), x)

    def power2(self, a, p):
        a, p = self.lift_value(a), self.lift_value(p)
        return Guided(SYMBOLIC.function_of(POWER)(a.e, p.e), self.jets.power2(a.j, p.j), a.tolerant or p.tolerant)

    def constant_value(self, name):
        # ctx.pi: sympy's exact constant beside the Jets' enclosure of it
        return Guided(SYMBOLIC.constant_value(name), self.jets.lift_value(self.jets.constant_value(name)))

    def precision(self):
        return self.jets.precision()


def _symbol(k: int, lo, hi):
    """A real symbol with the sign its interval gives it (0^p = 0 on a face where p > 0)."""
    if lo > 0:
        return sympy.Symbol(f"x{k}", positive=True)
    if lo >= 0:
        return sympy.Symbol(f"x{k}", nonnegative=True)
    if hi < 0:
        return sympy.Symbol(f"x{k}", negative=True)
    if hi <= 0:
        return sympy.Symbol(f"x{k}", nonpositive=True)
    return sympy.Symbol(f"x{k}", real=True)


def vanishes_identically(problem, face, entry: int, tolerant: bool = False) -> bool:
    """True when entry ``entry`` of the margin is the zero function on the face (a box).

    ``tolerant``: a branch of abs, max or min the face leaves undecided outside the margin (in the
    claim's scale) does not end the attempt; the margin itself must still be free of one."""
    jctx, jet_values = problem.jets(face)
    ctx = GuidedContext(jctx, tolerant)
    values = []
    for k, ((lo, hi), jet) in enumerate(zip(face, jet_values)):
        if problem.piece[k]:
            values.append(lo)
        elif lo == hi:
            q = Fraction(lo)
            values.append(Guided(sympy.Rational(q.numerator, q.denominator), jet, tolerant))
        else:
            values.append(Guided(_symbol(k, lo, hi), jet, tolerant))
    try:
        _, margins = problem.evaluate(ctx, problem.data(ctx, values))
        expr = margins[entry].e
        if UNDECIDED in expr.free_symbols:
            return False
        return sympy.simplify(sympy.expand(expr)) == 0
    except (Undecided, ZeroDivisionError, ValueError, TypeError, FunctionDomainError):
        return False
