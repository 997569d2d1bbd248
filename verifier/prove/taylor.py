"""Truncated Taylor series along a direction: the claim's own functions, to any order.

A :class:`Series` is ``c_0 + c_1 t + ... + c_n t^n``, the expansion of a quantity along the
line ``x + t u`` (``u`` an exact direction).  Its coefficients are numbers of a *base* context:
balls (:class:`~verifier.contexts.BallContext`, rigorous enclosures), exact rationals or sympy
expressions.  A coefficient is the j-th derivative over j!: with ``x`` an exact point, the
coefficients are the Taylor coefficients there; with ``x`` a ball (a whole box), each is an
enclosure of that coefficient at every point of the box, which is the Lagrange remainder's
coefficient (``f(x + t u) = sum_{j<k} c_j(x) t^j + c_k(xi) t^k`` for some xi on the segment).

Every function of the ``ctx`` table expands by its own row: the value from the base context's
form, the rest from the row's derivative, written once against a context's functions and here
evaluated on series one order lower (``(f o u)' = f'(u) u'``, integrated), so a new row needs
nothing here.  abs, max and min expand where the base decides the branch at ``c_0``; where it
does not (a kink on the line) the result is *broken* and so is everything computed from it --
an argument that needs it fails, nothing raises.

The mathematics of a claim is still written once: it runs in :class:`TaylorContext`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb, fmpq

from ..contexts import BallContext, FunctionDomainError, ExactContext, SymbolicContext
from ..contexts.errors import NotRational
from ..contexts import ObjectContext
from ..contexts.table import BY_NAME, Scalars
from ..contexts.values import to_fraction
from .jets import interval_product, interval_square

POWER = BY_NAME["power"]


class Broken(ArithmeticError):
    """A series that has no expansion here (a kink of abs, max or min on the line, a domain edge)."""


class Series:
    """c_0 + c_1 t + ... + c_n t^n with coefficients of one base context (``broken``: no expansion)."""

    __slots__ = ("c", "ctx", "broken")

    def __init__(self, coefficients, ctx: "TaylorContext", broken: bool = False):
        self.c, self.ctx, self.broken = tuple(coefficients), ctx, broken

    # -- helpers -------------------------------------------------------------------------
    @property
    def order(self) -> int:
        return len(self.c) - 1

    def lifted(self, other) -> "Series":
        if isinstance(other, Series):
            return other
        return self.ctx.constant(other, self.order)

    def _made(self, coefficients, *operands) -> "Series":
        return Series(coefficients, self.ctx, any(o.broken for o in operands))

    def truncated(self, order: int) -> "Series":
        return Series(self.c[:order + 1], self.ctx, self.broken)

    def derivative(self) -> "Series":
        """d/dt, one order lower."""
        return Series([k * self.c[k] for k in range(1, len(self.c))] or [self.ctx.zero], self.ctx, self.broken)

    # -- arithmetic ----------------------------------------------------------------------
    def __add__(self, o):
        o = self.lifted(o)
        n = min(self.order, o.order)
        total = self.ctx.total
        return self._made([total((self.c[k], o.c[k])) for k in range(n + 1)], self, o)

    __radd__ = __add__

    def __neg__(self):
        return self._made([-x for x in self.c], self)

    def __sub__(self, o):
        o = self.lifted(o)
        n = min(self.order, o.order)
        return self._made([self.c[k] - o.c[k] for k in range(n + 1)], self, o)

    def __rsub__(self, o):
        return self.lifted(o) - self

    def __mul__(self, o):
        o = self.lifted(o)
        n = min(self.order, o.order)
        times, square, total = self.ctx.times, self.ctx.square, self.ctx.total
        out = []
        for k in range(n + 1):
            if o is self:  # u^2: its coefficient of t^k is a sum of squares and doubled products
                terms = [square(self.c[k // 2])] if k % 2 == 0 else []
                for j in range((k + 1) // 2):
                    pair = times(self.c[j], self.c[k - j])
                    terms += [pair, pair]  # twice, not 2 * pair: a ball times 2 may round below an end at 0
            else:
                terms = [times(self.c[j], o.c[k - j]) for j in range(k + 1)]
            out.append(total(terms))
        return self._made(out, self, o)

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = self.lifted(o)
        return self * o.reciprocal()

    def __rtruediv__(self, o):
        return self.lifted(o) * self.reciprocal()

    def reciprocal(self) -> "Series":
        head = self.c[0]
        if not self.ctx.nonzero(head):
            return Series([self.ctx.zero] * len(self.c), self.ctx, True)
        out = [1 / head]
        for k in range(1, len(self.c)):
            total = self.c[1] * out[k - 1]
            for j in range(2, k + 1):
                total = total + self.c[j] * out[k - j]
            out.append(-total / head)
        return self._made(out, self)

    def __pow__(self, k):
        if isinstance(k, int) and k >= 0:
            if k == 0:
                return self.ctx.constant(1, self.order)
            if k % 2 == 0:
                half = self ** (k // 2)
                return half * half
            return self * self ** (k - 1) if k > 1 else self
        return self.ctx.power2(self, self.lifted(k))

    def __repr__(self):
        return f"Series({', '.join(map(str, self.c))}{', broken' if self.broken else ''})"


class TaylorContext(ObjectContext):
    """The claim's functions on :class:`Series` of ``order`` over a base context."""

    name = "taylor"
    rigorous = True
    native = (Series,)

    def __init__(self, base, order: int):
        self.base, self.order = base, order
        self.zero = base.scalar(Fraction(0))
        balls = isinstance(base, BallContext)
        # a product of wide balls by their ends (a midpoint-radius product of [0, e] and [0, e] reaches
        # below 0), and x^2 of one ball never negative: the signs a Hessian's diagonal needs
        self.times = interval_product if balls else (lambda a, b: a * b)
        self.square = interval_square if balls else (lambda a: a * a)
        self.total = _signed_sum if balls else _sum

    # -- numbers -------------------------------------------------------------------------
    def precision(self):
        return self.base.precision()

    def constant(self, value, order: int | None = None) -> Series:
        order = self.order if order is None else order
        if isinstance(value, Series):
            return value
        head = self.base.lift_value(value) if not isinstance(value, (Fraction, int)) else self.base.scalar(Fraction(value))
        return Series([head] + [self.zero] * order, self)

    def scalar(self, value):
        return self.constant(Fraction(value))

    def lift_value(self, v):
        if isinstance(v, Series):
            return v
        if isinstance(v, (int, Fraction, fmpq)):
            return self.constant(to_fraction(v) if not isinstance(v, int) else v)
        return self.constant(v)

    def line(self, point, direction) -> Series:
        """The coordinate ``point + t direction`` (``point``: a base number, ``direction``: exact)."""
        return Series([self.base.lift_value(point) if not isinstance(point, Fraction) else self.base.scalar(point),
                       self.base.scalar(Fraction(direction))] + [self.zero] * (self.order - 1), self)

    def nonzero(self, x) -> bool:
        """``x`` certainly not 0 (a ball excluding 0, a nonzero rational, a sympy number known nonzero)."""
        if isinstance(x, arb):
            return not (0 in x)
        if isinstance(x, fmpq):
            return x != 0
        return bool(getattr(x, "is_zero", None) is False)

    def sign(self, x) -> int | None:
        """+1, -1, or None when the base does not decide it (0 included)."""
        if isinstance(x, arb):
            return 1 if x > 0 else -1 if x < 0 else None
        if isinstance(x, fmpq):
            return 1 if x > 0 else -1 if x < 0 else None
        positive = getattr(x, "is_positive", None)
        negative = getattr(x, "is_negative", None)
        return 1 if positive is True else -1 if negative is True else None

    # -- the function table ----------------------------------------------------------------
    @property
    def scalars(self) -> Scalars:
        out = self.__dict__.get("_scalars")
        if out is None:
            out = self.__dict__["_scalars"] = Scalars(self._series_function, self._constant_series, self.scalar)
        return out

    def _constant_series(self, name):
        return self.constant(self.base.scalars.pi if name == "pi" else self.base.scalars.e)

    def _series_function(self, row):
        if row.exponent:
            return lambda u, p: self.power2(u, p)
        return lambda u: self.expand(row, u)

    def _function(self, row, x):
        return self._apply(lambda u: self.expand(row, u), x, reuse=False)

    def expand(self, row, u: Series) -> Series:
        """row(u) as a series of u's order: its value from the base form, the rest from f'(u) u'."""
        u = self.lift_value(u)
        if u.broken:
            return Series([self.zero] * len(u.c), self, True)
        try:
            head = self.base.function_of(row)(u.c[0])
        except (FunctionDomainError, NotRational, ZeroDivisionError, ValueError):
            return Series([self.zero] * len(u.c), self, True)
        if isinstance(head, arb) and not head.is_finite():
            return Series([self.zero] * len(u.c), self, True)
        if u.order == 0:
            return Series([head], self)
        slope = row.derivative(self.scalars, u.truncated(u.order - 1))
        return self._integrated(head, slope * u.derivative(), u)

    def _integrated(self, head, rate: Series, u: Series) -> Series:
        """The series whose value is ``head`` and whose t-derivative is ``rate``."""
        return Series([head] + [rate.c[k - 1] / k for k in range(1, u.order + 1)], self, rate.broken or u.broken)

    # -- power -------------------------------------------------------------------------------
    def _power_int(self, a, k):
        a = self.lift_value(a)
        if k >= 0:
            return a**k
        return 1 / a ** (-k)

    def _power_real(self, a, q: Fraction):
        return self.power2(a, self.constant(q))

    def power2(self, a, p):
        a, p = self.lift_value(a), self.lift_value(p)
        if all(x == 0 for x in p.c[1:]) and _is_integer(p.c[0]):
            return self._power_int(a, _as_int(p.c[0]))
        if a.broken or p.broken:
            return Series([self.zero] * (min(a.order, p.order) + 1), self, True)
        try:
            head = self.base.function_of(POWER)(a.c[0], p.c[0])
        except (FunctionDomainError, NotRational, ZeroDivisionError, ValueError):
            return Series([self.zero] * (min(a.order, p.order) + 1), self, True)
        order = min(a.order, p.order)
        if order == 0:
            return Series([head], self)
        if not self.sign(a.c[0]) == 1:  # x^p is smooth only where x > 0 (a non-integer p)
            return Series([self.zero] * (order + 1), self, True)
        dx, dp = POWER.derivative(self.scalars, a.truncated(order - 1), p.truncated(order - 1))
        rate = dx * a.derivative() + dp * p.derivative()
        return Series([head] + [rate.c[k - 1] / k for k in range(1, order + 1)], self, rate.broken)

    # -- order logic: a branch decided at c_0, else broken -------------------------------------
    def _pick(self, a: Series, b: Series, larger: bool) -> Series:
        gap = self.sign((a - b).c[0])
        if gap is None:
            return Series([self.zero] * (min(a.order, b.order) + 1), self, True)
        return a if (gap > 0) == larger else b

    def max2(self, a, b):
        return self._pick(self.lift_value(a), self.lift_value(b), True)

    def min2(self, a, b):
        return self._pick(self.lift_value(a), self.lift_value(b), False)

    def _abs1(self, a):
        a = self.lift_value(a)
        s = self.sign(a.c[0])
        if s is None:
            return Series([self.zero] * len(a.c), self, True)
        return a if s > 0 else -a

    def abs(self, x):
        return self._apply(self._abs1, x, reuse=False)

    def _outside(self, domain, a) -> bool:
        return False  # the base form decides, on c_0


def _sum(terms):
    out = terms[0]
    for t in terms[1:]:
        out = out + t
    return out


def _signed_sum(terms):
    """A sum of balls that keeps the sign all its terms share (a ball sum rounds its radius up, so
    a sum of terms >= 0 with an end at 0 would reach below it)."""
    out = _sum(terms)
    if all(t >= 0 for t in terms) and not out >= 0:
        return out.nonnegative_part()
    if all(t <= 0 for t in terms) and not out <= 0:
        return -(-out).nonnegative_part()
    return out


def _is_integer(x) -> bool:
    if isinstance(x, arb):
        return x.is_exact() and x.is_integer()
    if isinstance(x, fmpq):
        return x.q == 1
    return bool(getattr(x, "is_integer", False))


def _as_int(x) -> int:
    if isinstance(x, arb):
        return int(x.unique_fmpz())
    if isinstance(x, fmpq):
        return int(x.p)
    return int(x)


def ball_series(prec: int, order: int) -> TaylorContext:
    return TaylorContext(BallContext(prec), order)


def exact_series(order: int) -> TaylorContext:
    return TaylorContext(ExactContext(), order)


def symbolic_series(order: int) -> TaylorContext:
    return TaylorContext(SymbolicContext(), order)


def coefficients(series) -> list | None:
    """The coefficients of a series (a 1-element array or a Series), or None when it is broken."""
    s = np.ravel(np.asarray(series, dtype=object))[0] if not isinstance(series, Series) else series
    return None if s.broken else list(s.c)


__all__ = ["Broken", "Series", "TaylorContext", "ball_series", "coefficients", "exact_series", "symbolic_series"]
