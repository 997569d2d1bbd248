"""A Coq-term context: the claim's own functions build the Coq expressions of a counterexample.

Entries are :class:`Term` nodes in numpy object arrays (batch size one), so ``A @ B``,
``X - Y`` and ``(hi + lo) / 2`` build Coq real-number expressions exactly as they compute
numbers in the other contexts; the mathematics of a claim is still written once.

Each term knows, besides its Coq operation, its exact rational value where it has one
(every operation of + - * / abs max min on rationals), so the exporter can prove its value
by rational arithmetic (``lra``); the others (exp, ln, sqrt, ...) are proved inside an
enclosure by the Interval library.  A function Coq's reals or Interval cannot express
raises :class:`NotExportable`, which names it: a counterexample using it is reported as not
exported, never given a weaker proof.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from flint import fmpq

from ..contexts import _ObjectContext, to_fraction


class NotExportable(Exception):
    """The counterexample cannot be stated or proved in Coq; the message says why."""


#: unary functions of Coq's Reals library that the Interval tactic evaluates
COQ_FUNCTIONS = {"exp": "exp", "log": "ln", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "atan": "atan"}


class Term:
    """One node of a Coq real-number expression, shared wherever numpy reuses it."""

    __slots__ = ("op", "args", "exact", "label", "__weakref__")

    def __init__(self, op: str, args: tuple = (), exact: Fraction | None = None, label: str = ""):
        self.op = op  # const | var | + | - | * | / | neg | abs | max | min | id | a COQ_FUNCTIONS value
        self.args = args
        self.exact = exact  # the exact rational value, or None where the value is irrational
        self.label = label  # a variable entry's Coq name

    # -- arithmetic through numpy's object arrays ---------------------------------------
    def __add__(self, other):
        return _binary("+", self, other)

    def __radd__(self, other):
        return _binary("+", other, self)

    def __sub__(self, other):
        return _binary("-", self, other)

    def __rsub__(self, other):
        return _binary("-", other, self)

    def __mul__(self, other):
        return _binary("*", self, other)

    def __rmul__(self, other):
        return _binary("*", other, self)

    def __truediv__(self, other):
        return _binary("/", self, other)

    def __rtruediv__(self, other):
        return _binary("/", other, self)

    def __neg__(self):
        return Term("neg", (self,), None if self.exact is None else -self.exact)

    def __pos__(self):
        return self

    def __abs__(self):
        return Term("abs", (self,), None if self.exact is None else abs(self.exact))

    def __pow__(self, exponent):
        if isinstance(exponent, Term) and exponent.op == "const" and exponent.exact.denominator == 1:
            exponent = int(exponent.exact)
        if not isinstance(exponent, (int, np.integer)) or isinstance(exponent, bool) or abs(int(exponent)) > 64:
            raise NotExportable(f"not exportable to Coq: power with exponent {exponent!r} (only integer exponents up to 64)")
        n = int(exponent)
        out = lift(1)
        for _ in range(abs(n)):
            out = out * self
        return 1 / out if n < 0 else out

    def _refuse(self, *_):
        # a claim that branches on a value would give Coq a different formula than it states
        raise NotExportable("not exportable to Coq: the claim compares values in Python (a branch Coq cannot see)")

    __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __float__ = _refuse

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__

    def __repr__(self):
        return f"Term({self.op}, exact={self.exact})"


def lift(value: Any) -> Term:
    """A term for a claim's constant (an int, a Fraction, an fmpq); floats are refused as inexact."""
    if isinstance(value, Term):
        return value
    if isinstance(value, (float, np.floating)):
        raise NotExportable(f"not exportable to Coq: a float constant {value!r} in the claim (write it as an exact rational)")
    try:
        return Term("const", (), to_fraction(value))
    except (TypeError, ValueError):
        raise NotExportable(f"not exportable to Coq: a constant of type {type(value).__name__}") from None


def _exact_result(op, a: Fraction, b: Fraction) -> Fraction:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise ZeroDivisionError("division by an exact zero")
    return a / b


def _binary(op, x, y) -> Term:
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return NotImplemented  # numpy applies the operation entrywise, then calls back per entry
    x, y = lift(x), lift(y)
    # x + 0, x * 1 and friends: numpy's reductions start from them; the value is the same
    if op in "+-" and y.op == "const" and y.exact == 0:
        return x
    if op == "+" and x.op == "const" and x.exact == 0:
        return y
    if op in "*/" and y.op == "const" and y.exact == 1:
        return x
    if op == "*" and x.op == "const" and x.exact == 1:
        return y
    exact = None if x.exact is None or y.exact is None else _exact_result(op, x.exact, y.exact)
    if exact is None and (x.exact == 0 and op in "*/" or y.exact == 0 and op == "*"):
        exact = Fraction(0)  # a product with an exact zero is zero whatever the other factor (Coq: 0 / x = 0 too)
    if op == "/" and y.exact == 0:
        raise ZeroDivisionError("division by an exact zero")
    return Term(op, (x, y), exact)


def _rational_value(function: str, q: Fraction | None) -> Fraction | None:
    """The exact value where a function is rational at a rational point: exp(0), ln(1), sqrt(p^2/q^2)."""
    if q is None:
        return None
    if function == "exp" and q == 0 or function == "ln" and q == 1:
        return Fraction(1 - q)
    if function == "sqrt" and q >= 0:
        p, r = math.isqrt(q.numerator), math.isqrt(q.denominator)
        if p * p == q.numerator and r * r == q.denominator:
            return Fraction(p, r)
    return None


def _sign_term(a) -> Term:
    a = lift(a)
    exact = None if a.exact is None else Fraction((a.exact > 0) - (a.exact < 0))
    return Term("/", (a, abs(a)), exact)


class CoqContext(_ObjectContext):
    """Builds :class:`Term` graphs; variables become named Coq constants ``v_<name>_<i>_<j>``."""

    name = "coq"
    rigorous = True

    def scalar(self, value):
        return lift(Fraction(value))

    def _convert(self, v):
        return lift(v)

    def convert(self, data: dict) -> dict:
        out = {}
        for name, arr in data.items():
            arr = np.asarray(arr, dtype=object)
            terms = np.empty(arr.shape, dtype=object)
            for idx in np.ndindex(*arr.shape):
                q = to_fraction(arr[idx]) if not isinstance(arr[idx], fmpq) else Fraction(int(arr[idx].p), int(arr[idx].q))
                terms[idx] = Term("var", (), q, "_".join(["v_" + name] + [str(i) for i in idx[1:]]))
            out[name] = terms
        return out

    @staticmethod
    def _max2(a, b):
        a, b = lift(a), lift(b)
        return Term("max", (a, b), None if a.exact is None or b.exact is None else max(a.exact, b.exact))

    @staticmethod
    def _min2(a, b):
        a, b = lift(a), lift(b)
        return Term("min", (a, b), None if a.exact is None or b.exact is None else min(a.exact, b.exact))

    def abs(self, x):
        return self._elementwise(lambda a: abs(lift(a)), x)

    def _constant(self, name):
        # ctx.pi: Coq's reals have PI, but no term here writes it yet; the exporter names what it lacks
        raise NotImplementedError(f"the constant {name}")

    def sign(self, x):
        # x / |x| is the sign in Coq's reals, at 0 too (Rinv 0 = 0, RIneq.Rinv_0): the formula
        # Coq is given is the claim's, and its value is known wherever x's is
        return self._elementwise(_sign_term, x)

    def _function(self, name):
        coq = COQ_FUNCTIONS[name]
        return lambda x: self._elementwise(lambda a: Term(coq, (lift(a),), _rational_value(coq, lift(a).exact)), x)

    def exp(self, x):
        return self._function("exp")(x)

    def log(self, x):
        return self._function("log")(x)

    def sqrt(self, x):
        return self._function("sqrt")(x)

    def sin(self, x):
        return self._function("sin")(x)

    def cos(self, x):
        return self._function("cos")(x)

    def tan(self, x):
        return self._function("tan")(x)

    def atan(self, x):
        return self._function("atan")(x)

    # the functions below are written through the ones Coq has, so the formula is the same
    def tanh(self, x):
        e = self.exp(2 * x)
        return (e - 1) / (e + 1)

    def sigmoid(self, x):
        return 1 / (1 + self.exp(-x))

    def softplus(self, x):
        return self.log(1 + self.exp(x))

    def log1p(self, x):
        return self.log(1 + x)

    def expm1(self, x):
        return self.exp(x) - 1

    def power(self, x, y):
        return np.frompyfunc(lambda a, b: lift(a) ** b, 2, 1)(x, y)

    def erf(self, x, *args, **kw):
        return self._not_exportable("erf")(x)

    def lambertw(self, x, *args, **kw):
        return self._not_exportable("lambertw")(x)

    def _not_exportable(self, fn):
        def raise_(*_args, **_kw):
            raise NotExportable(f"not exportable to Coq: {fn} (no Coq/Interval counterpart)")

        return raise_
