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

from fractions import Fraction

import numpy as np
import z3

from ..contexts import NotRational, _ObjectContext


class NotDecidable(NotRational):
    """The claim uses a function outside real arithmetic with if-then-else (exp, log, sqrt)."""


class _ScalarTerm(z3.ArithRef):
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
        return _ScalarTerm(result.as_ast(), result.ctx) if isinstance(result, z3.ArithRef) else result

    return method


for _op in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
            "__pow__", "__le__", "__lt__", "__ge__", "__gt__", "__neg__"):
    setattr(_ScalarTerm, _op, _declining_arrays(_op) if _op != "__neg__" else
            (lambda self: _ScalarTerm((-z3.ArithRef(self.as_ast(), self.ctx)).as_ast(), self.ctx)))


class Z3Context(_ObjectContext):
    name = "z3"
    rigorous = True
    unavailable_error = NotDecidable  # tanh, erf, power with a real exponent, ...: another method

    def scalar(self, value):
        value = Fraction(value)
        term = z3.RealVal(value)
        return _ScalarTerm(term.as_ast(), term.ctx)

    def _convert(self, v):
        if z3.is_expr(v):
            return v
        return super()._convert(v)

    def symbols(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """A fresh z3 Real per entry, with the batch axis in front."""
        out = np.empty((1,) + tuple(shape), dtype=object)
        for idx in np.ndindex(*shape):
            out[(0,) + idx] = z3.Real(name + "".join(f"_{i}" for i in idx))
        return out

    @staticmethod
    def _max2(a, b):
        return z3.If(a >= b, a, b)

    @staticmethod
    def _min2(a, b):
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

    def sqrt(self, x):
        return self._not_decidable("sqrt")(x)


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
