"""An SMT context: the claim's own functions build the formula z3 decides.

Entries are z3 ``Real`` terms in numpy object arrays (batch size one), so ``A @ B``,
``X - Y`` and ``(hi + lo) / 2`` build terms exactly as they compute numbers elsewhere.  The
pairwise ``max``/``min`` and ``abs`` become ``If`` terms, which keeps every claim built
from + - * /, max, min and abs inside real arithmetic with if-then-else: piecewise linear
claims land in linear real arithmetic (decidable and fast), polynomial ones in nonlinear
real arithmetic (decidable by z3's nlsat, sometimes slowly -- hence the time limits).
``exp``, ``log`` and ``sqrt`` leave that fragment and raise :class:`NotDecidable`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import z3

from ..algebraic import AlgebraicNumber
from ..contexts import FunctionDomainError, NotRational, ObjectContext


class NotDecidable(NotRational):
    """The claim uses a function outside real arithmetic with if-then-else (exp, log, sqrt)."""


class ScalarTerm(z3.ArithRef):
    """A term outside any array (a constant, a reduction's result) that lets numpy broadcast it.

    z3's operators try to coerce their right operand into a numeral, and an array of terms
    turns into the string z3 cannot parse (``Z3Exception: b'parser error'``), so
    ``ctx.const(1) - ctx.max_all(t)`` failed for every bounded variable.  Declining the array
    hands the operation to numpy, which applies it entry by entry.
    """


def _declining_arrays(op):
    def method(self, other):
        if isinstance(other, np.ndarray):
            return NotImplemented
        result = getattr(z3.ArithRef, op)(self, other)
        return ScalarTerm(result.as_ast(), result.ctx) if isinstance(result, z3.ArithRef) else result

    return method


for _op in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
            "__pow__", "__le__", "__lt__", "__ge__", "__gt__", "__neg__"):
    setattr(ScalarTerm, _op, _declining_arrays(_op) if _op != "__neg__" else
            (lambda self: ScalarTerm((-z3.ArithRef(self.as_ast(), self.ctx)).as_ast(), self.ctx)))


class Z3Context(ObjectContext):
    """The SMT context.  A square root stays in real arithmetic by an exact substitution: each
    distinct ``sqrt(t)`` becomes a fresh real ``r`` with ``r >= 0`` and ``r * r = t`` (a
    *side condition*, which the formula must assert: :meth:`side_conditions`).  For a number
    ``t`` (``sqrt(2)`` in ``9 sqrt(2) / 32``) ``r`` is that algebraic constant, pinned also by
    an isolating interval; for a term in the variables it is the monotone substitution
    ``y = sqrt(x)``, under which every point where the claim is defined (``t >= 0``) is a
    model, so ``unsat`` stays a proof, and a point where ``t < 0`` is outside the claim, as
    the certifier treats it.  A rational power ``t^(p/q)`` is ``r^p`` with ``r^q = t``, ``r >= 0``.
    """

    name = "z3"
    rigorous = True
    unavailable_error = NotDecidable  # tanh, erf, power with a real exponent, ...: another method

    @property
    def _roots(self) -> dict:  # (term id, q) -> (the fresh root, its radicand); per formula
        return self.__dict__.setdefault("_root_terms", {})

    @property
    def _conditions(self) -> list:
        return self.__dict__.setdefault("_root_conditions", [])

    def begin_formula(self) -> None:
        """Forget the roots of the last formula: a condition ``r * r = t`` belongs to the formula
        whose terms used it (in another choice of chart pieces ``t`` may be negative)."""
        self._roots.clear()
        self._conditions.clear()

    def side_conditions(self) -> list:
        """What the substitutions of this formula assert (each root's defining polynomial and sign)."""
        return list(self._conditions)

    def _root(self, t, q: int):
        """The fresh real r >= 0 with r^q = t (t a term or a number)."""
        t = t if z3.is_expr(t) else z3.RealVal(Fraction(t))
        t = z3.simplify(t)
        key = (t.get_id(), q)
        hit = self._roots.get(key)
        if hit is not None:
            return hit[0]
        if z3.is_rational_value(t):
            value = Fraction(t.numerator_as_long(), t.denominator_as_long())
            exact = _rational_root(value, q)
            if exact is not None:
                out = self.scalar(exact)
                self._roots[key] = (out, t)
                return out
            if value < 0:
                raise FunctionDomainError(f"root of the negative number {value}")
        r = z3.Real(f"root{len(self._roots)}_{q}")
        self._conditions.extend([r >= 0, r ** q == t if q > 1 else r == t])
        if z3.is_rational_value(t):  # an algebraic constant: its isolating interval too
            lo, hi = _root_interval(Fraction(t.numerator_as_long(), t.denominator_as_long()), q)
            self._conditions.extend([r >= z3.RealVal(lo), r <= z3.RealVal(hi)])
        out = ScalarTerm(r.as_ast(), r.ctx)
        self._roots[key] = (out, t)
        return out

    def sqrt(self, x):
        return self._apply(lambda a: self._root(a, 2), x, reuse=False)

    def _power_real(self, a, q: Fraction):
        if q.denominator > 4 or abs(q.numerator) > 16:
            raise NotDecidable(f"power {q} is not decidable by SMT")
        r = self._root(a, q.denominator)
        out = r ** abs(q.numerator)
        return 1 / out if q.numerator < 0 else out

    def scalar(self, value):
        value = Fraction(value)
        term = z3.RealVal(value)
        return ScalarTerm(term.as_ast(), term.ctx)

    def lift_value(self, v):
        if z3.is_expr(v):
            return v
        return super().lift_value(v)

    def symbols(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """A fresh z3 Real per entry, with the batch axis in front."""
        out = np.empty((1,) + tuple(shape), dtype=object)
        for idx in np.ndindex(*shape):
            out[(0,) + idx] = z3.Real(name + "".join(f"_{i}" for i in idx))
        return out

    @staticmethod
    def max2(a, b):
        return z3.If(a >= b, a, b)

    @staticmethod
    def min2(a, b):
        return z3.If(a <= b, a, b)

    def abs(self, x):
        return self._elementwise(lambda a: z3.If(a >= 0, a, -a), x)

    def sign(self, x):
        return self._elementwise(lambda a: z3.If(a > 0, z3.RealVal(1), z3.If(a < 0, z3.RealVal(-1), z3.RealVal(0))), x)

    def _not_decidable(self, fn):
        def raise_(x):
            raise NotDecidable(f"{fn} is not decidable by SMT (real arithmetic with if-then-else)")

        return raise_

    def exp(self, x):
        return self._not_decidable("exp")(x)

    def log(self, x):
        return self._not_decidable("log")(x)



def nonconstant_denominators(term) -> list:
    """Every divisor in ``term`` that is not a numeral (division by it needs it nonzero)."""
    out, seen, stack = [], set(), [term]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_app_of(t, z3.Z3_OP_DIV) and not z3.is_rational_value(t.arg(1)):
            out.append(t.arg(1))
        stack.extend(t.children())
    return out


def _rational_root(value: Fraction, q: int) -> Fraction | None:
    """The rational q-th root of ``value`` >= 0 when there is one."""
    if value < 0:
        return None
    num, den = value.numerator, value.denominator
    rn, rd = round(num ** (1 / q)), round(den ** (1 / q))
    for a in (rn - 1, rn, rn + 1):
        for b in (rd - 1, rd, rd + 1):
            if a >= 0 and b > 0 and a**q == num and b**q == den:
                return Fraction(a, b)
    return None


def _root_interval(value: Fraction, q: int) -> tuple[Fraction, Fraction]:
    """Rationals lo < value^(1/q) < hi, 2^-40 apart (checked exactly: lo^q < value < hi^q)."""
    scale = 1 << 40
    guess = int(float(value) ** (1 / q) * scale) if value < 2**900 else 0
    lo, hi = Fraction(max(guess - 2, 0), scale), Fraction(guess + 2, scale)
    while lo**q > value:
        lo /= 2
    while hi**q < value:
        hi *= 2
    return lo, hi


def model_value(model, term) -> Fraction | AlgebraicNumber:
    """The exact value of ``term`` in ``model``: a rational, or the real algebraic number z3 holds."""
    val = model.eval(term, model_completion=True)
    if z3.is_rational_value(val):
        return Fraction(val.numerator_as_long(), val.denominator_as_long())
    if z3.is_algebraic_value(val):
        approx = val.approx(40).as_fraction()
        coeffs = [Fraction(c.as_fraction()) if z3.is_expr(c) else Fraction(c) for c in val.poly()]
        scale = math.lcm(*(c.denominator for c in coeffs))
        exact = AlgebraicNumber.from_root([int(c * scale) for c in coeffs], approx)
        if exact is None:
            raise ValueError(f"model value {val} is not a real root of its polynomial")
        return exact
    raise ValueError(f"model value {val} is not a number")


def model_fraction(model, term) -> Fraction:
    """The exact value of ``term`` in ``model``: a rational, or a close rational to an algebraic number."""
    val = model.eval(term, model_completion=True)
    if z3.is_rational_value(val):
        return Fraction(val.numerator_as_long(), val.denominator_as_long())
    if z3.is_algebraic_value(val):
        # an irrational root from nonlinear arithmetic: the certificate decides whether a nearby
        # rational still violates the claim
        return Fraction(val.approx(40).as_fraction().limit_denominator(10**30))
    raise ValueError(f"model value {val} is not a number")
