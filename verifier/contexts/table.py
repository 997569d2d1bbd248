"""The function table: every elementwise function of the ``ctx`` API, with what each context needs.

One row per function gives its float64 form (vectorised; nan outside the domain), its
mpmath, exact-rational, ball and sympy forms of one number, where it is defined, and its
derivative, written once against a context's functions.  The contexts build their methods
from the rows and the prover's jets take the derivative from here.  So adding a function is
one row, and the property test (which reads this table) checks it in every context and in
the jets from the start.  A context without a form of a function raises its
``unavailable_error`` when the function is used, naming it.

The ball form must enclose the function's values on the whole ball it is given (arb's own
functions do: each is a rigorous enclosure), and the derivative, evaluated in ball
arithmetic on a ball, then encloses the derivative on that ball (each operation of the
formula being an enclosure): that is what makes the jets' mean-value forms rigorous.  The
ball forms call the ball's own method (``a.tanh()``), never arb's function unbound
(``arb.tanh(a)``), which reads whatever it is given as a ball: a Jet handed to it made
FLINT abort the process.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import methodcaller
from fractions import Fraction
from typing import Any, Callable

import importlib

import mpmath
import numpy as np
from flint import arb, fmpq

from .errors import FunctionDomainError, NotRational


class _OnFirstCall:
    """A library's functions, imported when one is first called: the table names sympy's and
    scipy's functions without loading either (half a second) where no claim is evaluated --
    in the process that decides, say."""

    def __init__(self, module: str):
        self._module = module

    def __getattr__(self, name: str):
        module = self._module

        def call(*args, **kwargs):
            return getattr(importlib.import_module(module), name)(*args, **kwargs)

        call.__name__ = call.__qualname__ = name
        return call


sympy = _OnFirstCall("sympy")
scipy = type("scipy", (), {"special": _OnFirstCall("scipy.special")})


@dataclass(frozen=True)
class Above:
    """Where a function is defined: ``x > edge`` (``strict``) or ``x >= edge``.

    ``edge`` is a rational, or for an irrational edge (lambertw's -1/e) a function of a
    context's :class:`Scalars` that computes it in that context's numbers.
    """

    edge: Fraction | Callable[[Any], Any]
    strict: bool

    @property
    def rational(self) -> Fraction | None:
        return None if callable(self.edge) else Fraction(self.edge)

    @property
    def integral(self) -> int | None:
        """The edge as an int when it is one (compared with any number type, at no cost)."""
        q = self.rational
        return int(q) if q is not None and q.denominator == 1 else None

    def value(self, fns: "Scalars"):
        """The edge as one of the context's numbers."""
        return self.edge(fns) if callable(self.edge) else fns.number(Fraction(self.edge))


@dataclass(frozen=True)
class Function:
    """One elementwise function of the ``ctx`` API.

    ``arity`` counts array arguments; ``exponent`` marks ``power``'s second argument, a
    number (``x ** 2`` stays exact) or an array (a variable exponent).  ``piecewise``
    functions (abs, max, min) are each context's own order logic and have no columns.  The
    columns take and return one number of their context (``power``'s: two);
    ``derivative(fns, *args)`` is f' (for ``power`` the pair of partials) in the functions
    ``fns`` of a context (:class:`Scalars`).  ``increasing``
    lets an enclosure come from the ends of a ball (where arb's own gives none: sqrt of a
    ball reaching 0, or the part of a ball inside the domain).  ``values`` and ``slopes``
    bound the function and its derivative everywhere (None: unbounded that side): an
    enclosure is cut to them, which a claim tangent at the edge of its box needs (tanh(x)
    <= x at 0: the slope of tanh must be seen to be at most 1 there, not 1 + an ulp).
    """

    name: str
    arity: int = 1
    exponent: bool = False
    summary: str = ""
    domain: Above | None = None
    float: Callable | None = None
    mp: Callable | None = None
    exact: Callable | None = None
    ball: Callable | None = None
    symbolic: Callable | None = None
    derivative: Callable | None = None
    piecewise: bool = False
    increasing: bool = False
    values: tuple = (None, None)
    slopes: tuple = (None, None)


class Scalars:
    """A context's functions of one number by name (``fns.exp(x)``), its constants ``pi`` and
    ``e``, and ``number(q)`` for a rational: the language derivatives and edges are written in.

    ``function(row)`` is the context's one-number form of a row, domain checked; ``constant``
    computes a named constant at the ambient precision (never kept: precision is scoped).
    """

    def __init__(self, function: Callable[[Function], Callable], constant: Callable[[str], Any], number: Callable[[Fraction], Any]):
        self._function, self.constant_value, self.number = function, constant, number

    @property
    def pi(self):
        return self.constant_value("pi")

    @property
    def e(self):
        return self.constant_value("e")

    def __getattr__(self, name):
        row = BY_NAME.get(name)
        if row is None or row.piecewise:
            raise AttributeError(name)
        fn = self._function(row)
        setattr(self, name, fn)
        return fn


def _at_zero(name: str, value) -> Callable:
    """The exact form of a function that is rational only at 0."""

    def at_zero(v):
        if v == 0:
            return fmpq(value)
        raise NotRational(f"{name} of a nonzero rational is irrational")

    return at_zero


def _exact_log(v):
    if v == 1:
        return fmpq(0)
    raise NotRational("log of a rational other than 1 is irrational")


def _exact_sqrt(v):
    root = exact_root(v, 2)
    if root is None:
        raise NotRational("sqrt of a non-square rational is irrational")
    return root


def _exact_softplus(v):
    raise NotRational("softplus of a rational is irrational")


def exact_root(v: fmpq, k: int) -> fmpq | None:
    """The rational k-th root of a non-negative rational, when it is one."""
    p, q = int(v.p), int(v.q)
    rp, rq = _iroot_exact(p, k), _iroot_exact(q, k)
    return None if rp is None or rq is None else fmpq(rp, rq)


def _iroot_exact(n: int, k: int) -> int | None:
    r = int(sympy.integer_nthroot(n, k)[0])
    return r if r**k == n else None


def _mp_softplus(a):
    return mpmath.log1p(mpmath.exp(a)) if a < 0 else a + mpmath.log1p(mpmath.exp(-a))


def _ball_softplus(a):
    # log1p(e^a) = a + log1p(e^-a): each form keeps its argument of exp <= 0 near its side
    return a.exp().log1p() if a.upper() <= 0 else a + (-a).exp().log1p()


def _float_lambertw(x):
    w = scipy.special.lambertw(x, 0)
    return np.where((x >= -1 / np.e) & np.isfinite(x), w.real, np.nan)


# -- power: x^p, p a number or a variable ------------------------------------------------
def power_int(a, k: int):
    """a^k for an integer k, in any context's numbers (0^k with k < 0 has no value)."""
    if k < 0 and a == 0:
        raise ZeroDivisionError("power: zero to a negative power")
    return a**k


def _undefined_power(a):
    return FunctionDomainError(f"power with a non-integer exponent is undefined at {a}")


def _mp_power(a, p):
    if p == int(p):
        return power_int(a, int(p))
    if not (a > 0 or (a == 0 and p > 0)):
        raise _undefined_power(a)
    return a**p if a else mpmath.mpf(0)


def _exact_power(v, p):
    p = fmpq(p.numerator, p.denominator) if isinstance(p, Fraction) else p
    if p.q == 1:
        return power_int(v, int(p.p))
    if not (v > 0 or (v == 0 and p > 0)):
        raise _undefined_power(v)
    if v == 0:
        return fmpq(0)
    root = exact_root(v, int(p.q))
    if root is None:
        raise NotRational(f"{v}^({p}) is irrational")
    return root ** int(p.p)


def _ball_power(a, p):
    if p.is_exact() and p.is_integer():
        return power_int(a, int(p.unique_fmpz()))
    if a.upper() < 0 or (a.is_zero() and not p > 0):
        raise _undefined_power(a)
    if a.is_zero():
        return arb(0)
    return a**p


def _symbolic_power(a, p):
    if a.is_negative is True and p.is_integer is not True:
        raise _undefined_power(a)
    return sympy.Pow(a, p)


def _power_derivative(f, x, p):
    """(d/dx, d/dp) of x^p: p x^(p-1) and x^p log x."""
    return p * f.power(x, p - 1), f.power(x, p) * f.log(x)


#: The elementwise functions every context implements (names as in numpy/scipy).
FUNCTIONS: tuple[Function, ...] = (
    Function("exp", summary="e^x", increasing=True, values=(0, None), slopes=(0, None),
             float=np.exp, mp=mpmath.exp, exact=_at_zero("exp", 1), ball=methodcaller("exp"), symbolic=sympy.exp,
             derivative=lambda f, x: f.exp(x)),
    Function("log", summary="natural log; undefined for x <= 0", domain=Above(0, strict=True), increasing=True,
             slopes=(0, None),
             float=np.log, mp=mpmath.log, exact=_exact_log, ball=methodcaller("log"), symbolic=sympy.log,
             derivative=lambda f, x: 1 / x),
    Function("sqrt", summary="square root; undefined for x < 0", domain=Above(0, strict=False), increasing=True,
             values=(0, None), slopes=(0, None),
             float=np.sqrt, mp=mpmath.sqrt, exact=_exact_sqrt, ball=methodcaller("sqrt"), symbolic=sympy.sqrt,
             derivative=lambda f, x: 1 / (2 * f.sqrt(x))),
    Function("abs", summary="|x|", piecewise=True),
    Function("sign", summary="-1, 0 or 1 as x < 0, x = 0 or x > 0", piecewise=True),
    Function("tanh", increasing=True, values=(-1, 1), slopes=(0, 1),
             float=np.tanh, mp=mpmath.tanh, exact=_at_zero("tanh", 0), ball=methodcaller("tanh"), symbolic=sympy.tanh,
             derivative=lambda f, x: 1 - f.tanh(x) ** 2),
    Function("sigmoid", summary="1 / (1 + e^-x) (scipy.special.expit)", increasing=True,
             values=(0, 1), slopes=(0, Fraction(1, 4)),
             float=scipy.special.expit, mp=lambda a: 1 / (1 + mpmath.exp(-a)), exact=_at_zero("sigmoid", fmpq(1, 2)),
             ball=lambda a: 1 / (1 + (-a).exp()), symbolic=lambda a: 1 / (1 + sympy.exp(-a)),
             derivative=lambda f, x: f.sigmoid(x) * f.sigmoid(-x)),
    Function("softplus", summary="log(1 + e^x)", increasing=True, values=(0, None), slopes=(0, 1),
             float=lambda x: np.logaddexp(0.0, x), mp=_mp_softplus, exact=_exact_softplus, ball=_ball_softplus,
             symbolic=lambda a: sympy.log(1 + sympy.exp(a)),
             derivative=lambda f, x: f.sigmoid(x)),
    Function("erf", increasing=True, values=(-1, 1), slopes=(0, Fraction(113, 100)),  # erf' <= 2 / sqrt(pi) = 1.128...
             float=scipy.special.erf, mp=mpmath.erf, exact=_at_zero("erf", 0), ball=methodcaller("erf"), symbolic=sympy.erf,
             derivative=lambda f, x: 2 * f.exp(-(x * x)) / f.sqrt(f.pi)),
    Function("sin", values=(-1, 1), slopes=(-1, 1),
             float=np.sin, mp=mpmath.sin, exact=_at_zero("sin", 0), ball=methodcaller("sin"), symbolic=sympy.sin,
             derivative=lambda f, x: f.cos(x)),
    Function("cos", values=(-1, 1), slopes=(-1, 1),
             float=np.cos, mp=mpmath.cos, exact=_at_zero("cos", 1), ball=methodcaller("cos"), symbolic=sympy.cos,
             derivative=lambda f, x: -f.sin(x)),
    Function("log1p", summary="log(1 + x); undefined for x <= -1", domain=Above(-1, strict=True), increasing=True,
             slopes=(0, None),
             float=np.log1p, mp=mpmath.log1p, exact=_at_zero("log1p", 0), ball=methodcaller("log1p"),
             symbolic=lambda a: sympy.log(1 + a),
             derivative=lambda f, x: 1 / (1 + x)),
    Function("expm1", summary="e^x - 1", increasing=True, values=(-1, None), slopes=(0, None),
             float=np.expm1, mp=mpmath.expm1, exact=_at_zero("expm1", 0), ball=methodcaller("expm1"),
             symbolic=lambda a: sympy.exp(a) - 1,
             derivative=lambda f, x: f.exp(x)),
    Function("power", exponent=True, summary="x^p for a real number or a variable p; a negative base needs an integer p",
             float=np.power, mp=_mp_power, exact=_exact_power, ball=_ball_power, symbolic=_symbolic_power,
             derivative=_power_derivative),
    Function("lambertw", summary="principal branch W_0; undefined for x < -1/e", domain=Above(lambda f: -1 / f.e, strict=False),
             increasing=True, values=(-1, None), slopes=(0, None),
             float=_float_lambertw, mp=lambda a: mpmath.re(mpmath.lambertw(a)), exact=_at_zero("lambertw", 0),
             ball=methodcaller("lambertw"), symbolic=sympy.LambertW,
             # W' = 1 / (x + e^W) = e^-W / (1 + W): the second form is finite wherever W > -1
             derivative=lambda f, x: f.exp(-f.lambertw(x)) / (1 + f.lambertw(x))),
    Function("maximum", arity=2, piecewise=True),
    Function("minimum", arity=2, piecewise=True),
)

BY_NAME = {f.name: f for f in FUNCTIONS}
_FUNCTION_NAMES = frozenset(BY_NAME)

#: Reductions over non-batch axes: ``ctx.NAME(x, axis, keepdims=False)``.
REDUCTIONS: tuple[str, ...] = ("max", "min", "sum")
