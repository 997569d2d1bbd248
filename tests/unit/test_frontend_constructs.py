"""``verify expr``'s language: every LaTeX and Python construct, evaluated in every context.

Each construct is read into a claim (through the pack module the front end writes) and its
left-hand side evaluated at one rational point in float64, mpmath, exact rationals, balls and
sympy; the expected value is the test's own formula, evaluated by mpmath.  The ball must
enclose it, the exact context must equal it (or say the value is irrational), float64 and
sympy must agree to rounding.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verifier.contexts import BallContext, ExactContext, FloatContext, MPContext, NotRational, SymbolicContext
from verifier.frontend import ExprRequest, build
from verifier.prove.z3ctx import Z3Context

FLOAT, MP, EXACT, BALL, SYM = FloatContext(), MPContext(60), ExactContext(), BallContext(256), SymbolicContext()
POINT = {"a": Fraction(1, 2), "b": Fraction(3, 2), "c": Fraction(2), "x": [Fraction(1), Fraction(1, 2), Fraction(3)],
         "y": [Fraction(2), Fraction(-1), Fraction(1, 4)], "alpha": Fraction(1, 3)}
VARS = ("a, b, c > 0", "x: vector n in [-4, 4]", "y: vector n in [-4, 4]", "alpha in [0, 1]")
m = mpmath.mpf
a, b, c = m(1) / 2, m(3) / 2, m(2)  # exact in binary: the expectations below are computed at 60 digits
x, y = [m(1), m(1) / 2, m(3)], [m(2), m(-1), m(1) / 4]

CONSTRUCTS = [
    (r"\frac{a}{b+c}", lambda: a / (b + c)),
    (r"\dfrac{a}{b} + \tfrac12", lambda: a / b + m(1) / 2),
    (r"\sqrt{b+c}", lambda: mpmath.sqrt(b + c)),
    (r"\sqrt[3]{c}", lambda: mpmath.cbrt(c)),
    (r"\sqrt[n]{c}", lambda: c ** (m(1) / 3)),
    (r"a \cdot b \times c", lambda: a * b * c),
    (r"a^{2} + b^3 - c^{-1}", lambda: a**2 + b**3 - 1 / c),
    (r"a^2b", lambda: a**2 * b),
    (r"\left( a + 1 \right)^2 \left[ b \right]", lambda: (a + 1) ** 2 * b),
    (r"2ab(c+1)", lambda: 2 * a * b * (c + 1)),
    (r"(a+b)(b+c)", lambda: (a + b) * (b + c)),
    (r"0.25 a + \frac{3}{4}", lambda: m("0.25") * a + m(3) / 4),
    (r"\sum_{i=1}^{n} x_i", lambda: sum(x)),
    (r"\sum_{i} x_i^2 y_i", lambda: sum(xi**2 * yi for xi, yi in zip(x, y))),
    (r"\sum_{i=1}^n \sum_{j=1}^n x_i y_j", lambda: sum(x) * sum(y)),
    (r"\frac{1}{n}\sum_i i x_i", lambda: sum((k + 1) * xi for k, xi in enumerate(x)) / 3),
    (r"\prod_{i=1}^{n} x_i", lambda: x[0] * x[1] * x[2]),
    (r"x_1 + x_n + y_{2}", lambda: x[0] + x[2] + y[1]),
    (r"\max(a, b, c) + \min\{a, b\}", lambda: max(a, b, c) + min(a, b)),
    (r"\max_i x_i - \min_{i} y_i", lambda: max(x) - min(y)),
    (r"|a - b| + \left| a - c \right| + \lvert b - c \rvert", lambda: abs(a - b) + abs(a - c) + abs(b - c)),
    (r"|a - |b - c||", lambda: abs(a - abs(b - c))),
    (r"\|x\| + \|x - y\|_1 + \|y\|_\infty", lambda: mpmath.sqrt(sum(t * t for t in x)) + sum(abs(p - q) for p, q in zip(x, y)) + max(abs(t) for t in y)),
    (r"\exp(a) + e^{b}", lambda: mpmath.exp(a) + mpmath.exp(b)),
    (r"\ln b + \log(c) + \log_2 c", lambda: mpmath.log(b) + mpmath.log(c) + 1),
    (r"\ln^2 b + \ln c^2", lambda: mpmath.log(b) ** 2 + mpmath.log(c**2)),
    (r"\tanh(a) + \sin a + \cos^2 b", lambda: mpmath.tanh(a) + mpmath.sin(a) + mpmath.cos(b) ** 2),
    (r"\operatorname{sigmoid}(a) + \mathrm{softplus}(b) + \operatorname{erf}(a)", lambda: 1 / (1 + mpmath.exp(-a)) + mpmath.log(1 + mpmath.exp(b)) + mpmath.erf(a)),
    (r"\operatorname{log1p}(a) + \operatorname{expm1}(b) + \operatorname{W}(c)", lambda: mpmath.log1p(a) + mpmath.expm1(b) + mpmath.lambertw(c).real),
    (r"\alpha a", lambda: (m(1) / 3) * a),
    (r"a \ln a - \sum_i y_i^2 \log y_i^2", lambda: a * mpmath.log(a) - sum(t * t * mpmath.log(t * t) for t in y)),
    ("a**2 + abs(b - c) + max(a, c) + exp(a) + sqrt(c) + log(b)", lambda: a**2 + abs(b - c) + max(a, c) + mpmath.exp(a) + mpmath.sqrt(c) + mpmath.log(b)),
    ("a*b/c - b**-1", lambda: a * b / c - 1 / b),
    ("a + 10^{-3} - 2.5E1", lambda: a + m(1) / 1000 - 25),
    ("c**alpha", lambda: c ** (m(1) / 3)),
]


def _data(ctx):
    out = {}
    for name, value in POINT.items():
        arr = np.array([value], dtype=object)
        out[name] = arr.astype(float) if ctx is FLOAT else ctx.asarray(arr)
    return out


def _lhs(expr):
    # every declared name appears (a declared variable left unused is an error)
    built = build(ExprRequest(f"{expr} \\le 100 + 0 (a + b + c + \\alpha + x_1 + y_1)", VARS, ("n = 3",), (), None, "t"))
    check = built.claim.checks()[0]
    return check, built.claim.parts[0].lhs


def _value(check, fn, ctx):
    with ctx.precision():
        data = _data(ctx)
        return np.ravel(fn(ctx, check.values(data, {"n": 3})))[0]


@pytest.mark.parametrize("expr, expected", CONSTRUCTS, ids=[e for e, _ in CONSTRUCTS])
def test_construct_in_every_context(expr, expected):
    check, fn = _lhs(expr)
    with mpmath.workdps(60):
        expected = expected()
    assert abs(float(_value(check, fn, FLOAT)) - float(expected)) <= 1e-9 * max(1, abs(float(expected)))
    with mpmath.workdps(60):
        assert abs(_value(check, fn, MP) - expected) <= m(10) ** -40 * max(1, abs(expected))
    ball = _value(check, fn, BALL)
    with mpmath.workdps(60):
        mid, rad = m(ball.mid().str(50, radius=False)), m(ball.rad().str(5, radius=False))
        assert abs(mid - expected) <= rad + m(10) ** -45, (ball, expected)
    try:
        exact = _value(check, fn, EXACT)
    except NotRational:
        pass
    else:
        with mpmath.workdps(60):
            assert abs(m(int(exact.p)) / m(int(exact.q)) - expected) <= m(10) ** -45
    assert abs(float(_value(check, fn, SYM).evalf(30)) - float(expected)) <= 1e-9 * max(1, abs(float(expected)))


def test_piecewise_polynomial_constructs_in_z3():
    """+ - * /, powers, |.|, max/min and sums build z3 terms: the prover's exact method sees them."""
    import z3

    check, fn = _lhs(r"\max(a, b) + |a - c| + \sum_i x_i^2 + \frac{a}{b}")
    z3ctx = Z3Context()
    data = {v.name: z3ctx.symbols(v.name, v.concrete_shape({"n": 3})) for v in check.variables}
    term = np.ravel(fn(z3ctx, check.values(data, {"n": 3})))[0]
    solver = z3.Solver()
    for name, value in POINT.items():
        for k, q in enumerate(value if isinstance(value, list) else [value]):
            sym = np.ravel(data[name])[k]
            solver.add(sym == z3.RealVal(Fraction(q)))
    expected = Fraction(3, 2) + Fraction(3, 2) + Fraction(41, 4) + Fraction(1, 3)  # max(a, b), |a - c|, sum x_i^2, a/b
    solver.add(term != z3.RealVal(expected))
    assert solver.check() == z3.unsat


@pytest.mark.parametrize("text, relations", [
    (r"a \le b", ["<="]), (r"a \leq b", ["<="]), (r"a \leqslant b", ["<="]), (r"a \ge b", [">="]), (r"a \geq b", [">="]),
    ("a < b", ["<"]), ("a > b", [">"]), ("a = b", ["=="]), ("a <= b", ["<="]), ("a >= b", [">="]), ("a == b", ["=="]),
    ("a \u2264 b", ["<="]), (r"0 < a \le b", ["<", "<="]), (r"a \le b \le c", ["<=", "<="]),
])
def test_relations_and_chains(text, relations):
    names = ", ".join(n for n in "abc" if n in text)
    built = build(ExprRequest(text, (f"{names} in [0, 1]",), (), (), None, "t"))
    assert [p.relation for p in built.claim.parts] == relations
    assert [p.name for p in built.claim.parts] == (["main"] if len(relations) == 1 else [str(k + 1) for k in range(len(relations))])


def test_the_module_is_readable_ctx_code_with_the_statement_as_docstring():
    built = build(ExprRequest(r"\frac{a}{b+c}+\frac{b}{c+a}+\frac{c}{a+b} \geq \frac{3}{2}", ("a,b,c > 0",)))
    src = built.source
    assert src.startswith('r"""\\frac{a}{b+c}+\\frac{b}{c+a}+\\frac{c}{a+b} \\geq \\frac{3}{2}')
    assert "lhs=lambda ctx, v: v.a / (v.b + v.c) + v.b / (v.a + v.c) + v.c / (v.a + v.b)" in src
    assert 'rhs=lambda ctx, v: ctx.const("3/2")' in src
    assert "float(" not in src and "lambdify" not in src


def test_y_log_y_is_zero_at_zero_as_entropy_needs():
    """``p_i \\ln p_i`` at a vertex of the simplex: 0 log 0 = 0, exactly (not a point outside the domain)."""
    built = build(ExprRequest(r"-\sum_i p_i \ln p_i \le \ln n", ("p: simplex n",), ("n = 3",), (), None, "t"))
    check = built.claim.checks()[0]
    vertex = {"p": EXACT.asarray(np.array([[1, 0, 0]], dtype=object))}
    with EXACT.precision():
        assert np.ravel(built.claim.parts[0].lhs(EXACT, check.values(vertex, {"n": 3})))[0] == 0
    assert "xlogy(ctx, v.p, v.p)" in built.source


def test_the_prover_runs_the_printed_functions_on_jets_and_in_z3():
    """Branch and bound evaluates the printed claim on Jets (exp), z3 decides a polynomial one."""
    from verifier.proof_audit import ProofBudget, attempt

    with_exp = build(ExprRequest(r"e^{x} + \tanh(x) \ge x - 1", ("x in [-1, 1]",), (), (), None, "t"))
    proof, _ = attempt(with_exp.claim.checks()[0], ProofBudget(per_check=30))
    assert (proof.status.value, proof.method) == ("proved", "branch-and-bound")
    polynomial = build(ExprRequest(r"a^2 + b^2 \ge 2ab", ("a, b in [-2, 2]",), (), (), None, "t"))
    proof, _ = attempt(polynomial.claim.checks()[0], ProofBudget(per_check=30))
    assert (proof.status.value, proof.method) == ("proved", "smt")


def test_constants_reach_the_prover_as_arrays():
    """``2 * ctx.exp(1) * v.x`` and ``ctx.pi * v.x``: a constant combined with a constant first stays a
    0-d array of the context, so that the Jets of branch and bound meet it as an array."""
    from verifier.proof_audit import ProofBudget, attempt

    for statement in (r"2e x + \sin x \le 6x + 1", r"\sin(\pi x) \le \pi x + \frac{1}{10}"):
        built = build(ExprRequest(statement, ("x in [0, 1]",), (), (), None, "t"))
        proof, _ = attempt(built.claim.checks()[0], ProofBudget(per_check=30))
        assert (proof.status.value, proof.method) == ("proved", "branch-and-bound"), (statement, proof.message)
