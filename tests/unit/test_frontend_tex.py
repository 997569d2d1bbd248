"""TeX's meaning, by TeX's rules: what ``verify expr`` reads, what it refuses, and how it says so.

Each reading is compared with the expression a mathematician reads (written here with sympy),
by sympy's ``simplify`` of the difference; each refusal must name the readings (or the
splitting TeX does) and how to write what is meant, on one line pointing at a column.
"""

from __future__ import annotations

import pytest
import sympy

from verifier.frontend import ExpressionError
from verifier.frontend.declarations import parse_declarations
from verifier.frontend.translate import Scope, read

x, y, z, a, b, c = sympy.symbols("x y z a b c", real=True)
i = sympy.Symbol("i", integer=True, positive=True)
n = sympy.Symbol("n", integer=True, positive=True)
u, w = sympy.IndexedBase("u", real=True), sympy.IndexedBase("w", real=True)
SCALARS = "a, b, c, x, y, z > 0"
VECTORS = "u, w: vector n in [-1, 1]"


def reading(text, *variables):
    scope = Scope(parse_declarations(variables or (SCALARS, VECTORS), ("n in 2..4",)))
    return read(f"{text} = 0", scope).relations[0].lhs


@pytest.mark.parametrize("text, meant", [
    ("2xy^2", 2 * x * y**2),
    ("ab^2 + bc^2 + ca^2", a * b**2 + b * c**2 + c * a**2),
    ("xy^{-1}", x / y),
    ("x^{-1}y", y / x),
    (r"\frac{ab^2}{c}", a * b**2 / c),
    ("xe^{x}", x * sympy.exp(x)),
    ("e^{x}y", sympy.exp(x) * y),
    ("2^{x}y", 2**x * y),
    ("x^2y", x**2 * y),
    ("x^ay", x**a * y),
    ("|x|y", sympy.Abs(x) * y),
    ("y|x - z|", y * sympy.Abs(x - z)),
    ("|x - z| - a|x - z|", sympy.Abs(x - z) - a * sympy.Abs(x - z)),
    (r"\sin^2 x", sympy.sin(x) ** 2),
    (r"\sin x^2", sympy.sin(x**2)),
    (r"\sin 2x", sympy.sin(2 * x)),
    (r"\sin 2\pi x", sympy.sin(2 * sympy.pi * x)),
    (r"\cos \frac{\pi}{3}", sympy.Rational(1, 2)),
    (r"\sin x \cos y", sympy.sin(x) * sympy.cos(y)),
    (r"\sin(x)y", sympy.sin(x) * y),
    (r"\log_a x", sympy.log(x) / sympy.log(a)),
    (r"\log_2 8", sympy.Integer(3)),
    (r"\ln x^2", sympy.log(x**2)),
    (r"\log \log x", sympy.log(sympy.log(x))),
    (r"\exp -x", sympy.exp(-x)),
    ("log(x)**2", sympy.log(x) ** 2),
    (r"\frac12", sympy.Rational(1, 2)),
    (r"\frac ab", a / b),
    (r"\frac12x", x / 2),
    (r"\sqrt[3]{x}", x ** sympy.Rational(1, 3)),
    (r"\sqrt2x", sympy.sqrt(2) * x),
    ("a/b \\cdot c", a * c / b),
    ("x**-1", 1 / x),
    ("2**3**2", sympy.Integer(512)),
    ("u_1^2", u[1] ** 2),
    ("u^2_1", u[1] ** 2),
    ("au_1^2", a * u[1] ** 2),
    (r"\sum_i u_iw_i", sympy.Sum(u[i] * w[i], (i, 1, n))),
    (r"\sum_i u_i^2", sympy.Sum(u[i] ** 2, (i, 1, n))),
    (r"\pi x + e", sympy.pi * x + sympy.E),
    ("2.5E1 x", 25 * x),
])
def test_what_a_mathematician_reads(text, meant):
    assert sympy.simplify(reading(text) - meant) == 0, (text, reading(text))


def test_a_declared_name_of_several_letters_is_one_name():
    xy = sympy.Symbol("xy", real=True)
    assert sympy.simplify(reading("2xy^2", "xy") - 2 * xy**2) == 0
    assert sympy.simplify(reading(r"\mathit{xy} + 1", "xy") - xy - 1) == 0
    eps = sympy.Symbol("eps", real=True)
    assert sympy.simplify(reading("2eps x", "eps, x") - 2 * eps * x) == 0


def test_e_is_eulers_number_unless_declared():
    e = sympy.Symbol("e", real=True)
    assert reading("e^x", "x") == sympy.exp(x)
    assert reading("e^x", "e, x") == e**x


@pytest.mark.parametrize("text, variables, fragments", [
    (r"\log x y", (), [r"\log(x y)", "(\\log x)\u00b7y", r"y \log x"]),
    (r"\sin x(y + z)", (), ["reads two ways"]),
    (r"\sin 2 \sin x", (), ["reads two ways"]),
    ("a/bc", (), ["reads two ways", r"\frac{..}{bc}", r"\frac{..}{b} c"]),
    ("1/2x", (), ["reads two ways", r"\frac{..}{2x}"]),
    ("a/b/c", (), ["(a/b)/c", "a/(b/c)"]),
    (r"\ln(x)^2", (), ["reads two ways", r"\ln^2(x)", r"\ln(x^{2})"]),
    (r"\sin^{-1} x", (), ["reads two ways", "inverse"]),
    ("x^23", (), ["TeX takes only 2 as the exponent", "x^{23}"]),
    ("x^2.5", (), ["x^{2.5}"]),
    ("u_12", (), ["x_{12}"]),
    (r"\frac123", (), [r"\frac{1}{2}", "3"]),
    (r"\sqrt23", (), [r"\sqrt{23}"]),
    ("2 3x", (), ["TeX sets them side by side, as 23"]),
    ("x 2", (), ["a number after a factor"]),
    ("(a + b)2", (), ["a number after a factor"]),
    ("x2", (), ["a name in Python", "x\u00b72 to TeX", "declare x2"]),
    ("1e-3 x", (), ["1\u00b710^-3 in Python", "1\u00b7e - 3 to TeX", "10^{-3}"]),
    ("x^-1", (), ["TeX sets only '-' as the exponent"]),
    ("x^(a+b)", (), ["TeX sets only '(' as the exponent"]),
    ("x^2^3", (), ["needs braces"]),
    ("|x|y|z|", (), ["the bars read two ways", r"\left|x\right|y\left|z\right|"]),
    ("xy + 1", ("x, y, xy",), ["reads two ways", "x\u00b7y", "the name xy", r"\mathit{xy}"]),
    ("exp(x) + p", ("e, x, p",), ["the function exp in Python", "the product e x p"]),
    ("x_max", ("x_max",), ["TeX takes only the letter m", "{max}"]),
    ("eps", ("x",), ["p is used but not declared", "eps is read as e\u00b7p\u00b7s"]),
    (r"\sin x", ("y",), ["x is used but not declared"]),
])
def test_what_readers_read_differently_is_refused_with_the_readings(text, variables, fragments):
    with pytest.raises(ExpressionError) as info:
        reading(text, *variables)
    message = str(info.value)
    assert "\n" not in message and info.value.column is not None, message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
