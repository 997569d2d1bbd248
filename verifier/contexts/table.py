"""The function table: every elementwise function and reduction of the ``ctx`` API."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Function:
    """One elementwise function of the ``ctx`` API, as the property test generates it.

    ``arity`` counts array arguments; ``exponent`` marks ``power``'s second argument, a
    real number rather than an array.  Adding a row here is how a function joins the API's
    tests: every context must implement it under ``name``.
    """

    name: str
    arity: int = 1
    exponent: bool = False
    summary: str = ""


#: The elementwise functions every context implements (names as in numpy/scipy).
FUNCTIONS: tuple[Function, ...] = (
    Function("exp", summary="e^x"),
    Function("log", summary="natural log; undefined for x <= 0"),
    Function("sqrt", summary="square root; undefined for x < 0"),
    Function("abs", summary="|x|"),
    Function("tanh"),
    Function("sigmoid", summary="1 / (1 + e^-x) (scipy.special.expit)"),
    Function("softplus", summary="log(1 + e^x)"),
    Function("erf"),
    Function("sin"),
    Function("cos"),
    Function("log1p", summary="log(1 + x); undefined for x <= -1"),
    Function("expm1", summary="e^x - 1"),
    Function("power", arity=1, exponent=True, summary="x^p for real p; a negative base needs an integer p"),
    Function("lambertw", summary="principal branch W_0; undefined for x < -1/e"),
    Function("maximum", arity=2),
    Function("minimum", arity=2),
)

_FUNCTION_NAMES = frozenset(f.name for f in FUNCTIONS)

#: Reductions over non-batch axes: ``ctx.NAME(x, axis, keepdims=False)``.
REDUCTIONS: tuple[str, ...] = ("max", "min", "sum")
