"""``verify expr``'s variables, constraints and bad input, as claims and as one-line errors."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from verifier.domains import domain_of
from verifier.frontend import ExpressionError, ExprRequest, build
from verifier.frontend.declarations import UNBOUNDED_BOX


def claim(statement, *variables, dims=(), where=(), tighten=None):
    return build(ExprRequest(statement, tuple(variables), tuple(dims), tuple(where), tighten, "t"))


def variable(built, name):
    return next(v for v in built.claim.variables if v.name == name)


def hypotheses(built):
    return {h.text: h.strict for h in built.claim.checks()[0].hypotheses}


# ----------------------------------------------------------------------------- variables
def test_scalars_with_a_strict_lower_bound_and_the_default_box():
    built = claim("a + b + c >= 0", "a,b,c > 0")
    for name in "abc":
        var = variable(built, name)
        assert (var.lo.exact, var.hi.exact) == (0, UNBOUNDED_BOX)
        assert hypotheses(built)[f"{name} > 0"] is True
    assert "searched on (0, 10000]" in built.claim.notes


@pytest.mark.parametrize("spec, lo, hi, strict", [
    ("x in [0, 4]", 0, 4, ()), ("x in (0, 1]", 0, 1, ("x > 0",)), ("x \\in [-1/2, \\frac{3}{2})", Fraction(-1, 2), Fraction(3, 2), ("x < 3/2",)),
    ("0 < x <= 1", 0, 1, ("x > 0",)), ("x <= 2", -UNBOUNDED_BOX, 2, ()), ("x \u2208 [0.25, 0.5]", Fraction(1, 4), Fraction(1, 2), ()),
    ("x", -UNBOUNDED_BOX, UNBOUNDED_BOX, ()), ("x in [0, \\infty)", 0, UNBOUNDED_BOX, ()),
])
def test_scalar_forms(spec, lo, hi, strict):
    built = claim("x <= 5", spec)
    var = variable(built, "x")
    assert (var.lo.exact, var.hi.exact) == (lo, hi)
    assert [t for t, s in hypotheses(built).items() if s] == list(strict)


def test_a_vector_of_a_dimension_with_a_box():
    built = claim("\\sum_i v_i^2 <= n", "v: vector n in [-1, 1]", dims=["n in 1..8"])
    var = variable(built, "v")
    assert var.shape == ("n",) and (var.lo.exact, var.hi.exact) == (-1, 1)
    assert [(d.name, d.lo, d.hi) for d in built.claim.dims] == [("n", 1, 8)]


def test_a_vector_of_a_fixed_size_needs_no_dimension():
    built = claim("\\sum_i v_i <= 3", "v: vector 3 > 0")
    var = variable(built, "v")
    assert var.shape == (3,) and built.claim.dims == ()
    assert hypotheses(built)["v > 0 entrywise"] is True


def test_simplex_and_unit_vector_kinds():
    built = claim("\\sum_i p_i u_i <= 1", "p: simplex n", "u: unit vector n", dims=["n in 2..4"])
    assert domain_of(variable(built, "p")).name == "simplex"
    assert domain_of(variable(built, "u")).name == "unit-vector"


def test_an_undeclared_dimension_gets_the_default_range_and_says_so():
    built = claim("\\sum_i v_i <= 3", "v: vector m in [0, 1]")
    assert [(d.name, d.lo, d.hi) for d in built.claim.dims] == [("m", 1, 6)]
    assert "dimension m was not given by --dim" in built.claim.notes


def test_homogeneity_is_detected_and_said():
    built = claim("\\frac{a}{b+c}+\\frac{b}{c+a}+\\frac{c}{a+b} \\geq \\frac{3}{2}", "a,b,c > 0")
    assert built.homogeneous == 0 and "homogeneous of degree 0" in built.claim.notes
    assert claim("a^2 + b^2 >= 2 a b", "a, b").homogeneous == 2
    assert claim("a + b^2 >= 0", "a, b > 0").homogeneous is None
    assert claim("a + b >= 1", "a in [0, 1]", "b > 0").homogeneous is None  # a's box is not a cone


# --------------------------------------------------------------------------- constraints
def _derived(built, name):
    return domain_of(variable(built, name))


@pytest.mark.parametrize("where, name, text", [
    ("a + b + c = 3", "c", "3 - a - b"),
    ("abc = 1", "c", "1/(a*b)"),
    ("ab + bc + ca = 3", "c", "(3 - a*b)/(a + b)"),
    ("xyz = x + y + z + 2", "z", "(x + y + 2)/(x*y - 1)"),
])
def test_equalities_solved_rationally_become_derived(where, name, text):
    letters = sorted({ch for ch in where if ch.isalpha()})
    built = claim(" + ".join(letters) + " >= 0", f"{', '.join(letters)}", where=[where])
    dom = _derived(built, name)
    assert dom.name == "derived"
    assert sympy.simplify(sympy.sympify(dom.text) - sympy.sympify(text)) == 0
    assert f"solved as {name} = " in built.claim.notes


def test_a_derived_variable_keeps_its_declared_bounds_as_hypotheses():
    built = claim("a b >= 0", "a, b > 0", where=["a b = 2"])
    var = variable(built, "b")
    assert var.lo.exact == 0 and var.hi is None  # the default box is for free variables only
    assert hypotheses(built)["b > 0"] is True


def test_a_sum_over_signed_variables_is_a_scaled_simplex():
    built = claim("a*b + b*c + c*a <= 3", "a,b,c >= 0", where=["a + b + c = 3"])
    kinds = {v.name: domain_of(v).name if domain_of(v) else "real" for v in built.claim.variables}
    assert kinds == {"abc": "simplex", "a": "derived", "b": "derived", "c": "derived"}
    assert "on the simplex of total 3" in built.claim.notes


def test_a_sum_of_squares_is_a_sphere():
    built = claim("x + y + z <= 3", "x, y, z", where=["x^2 + y^2 + z^2 = 3"])
    kinds = {v.name: domain_of(v).name if domain_of(v) else "real" for v in built.claim.variables}
    assert kinds["xyz"] == "sphere" and kinds["x"] == "derived"
    assert "on the sphere of radius squared 3" in built.claim.notes


def test_inequality_and_not_equal_constraints_are_hypotheses():
    built = claim("a + b >= 0", "a, b in [-1, 1]", where=["a \\le b", "a \\ne b", "0 < a + b < 1"])
    hyps = hypotheses(built)
    assert hyps["a \\le b"] is False and hyps["a \\ne b"] is True
    assert hyps["0 < a + b"] is True and hyps["a + b < 1"] is True


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("statement, variables, where, message, column", [
    ("\\frac{a}{\\foo b} < 1", ["a, b > 0"], [], "unknown command \\foo", 10),
    ("\\frac{a}{b <1", ["a, b > 0"], [], "unbalanced '{': no matching '}'", 9),
    ("a + b} <= 1", ["a, b > 0"], [], "unbalanced '}': it closes nothing", 6),
    ("(a + b <= 1", ["a, b > 0"], [], "unbalanced '('", 1),
    ("|a + b <= 1", ["a, b > 0"], [], "unbalanced '|'", 1),
    ("a + d <= 1", ["a > 0"], [], "d is used but not declared", 5),
    ("abd <= 1", ["a, b > 0"], [], "d is used but not declared", 3),
    ("eps + a <= 1", ["a > 0"], [], "p is used but not declared (--var): eps is read as e\u00b7p\u00b7s", 2),
    ("a + b", ["a, b > 0"], [], "a relation is missing", None),
    ("a + * b <= 1", ["a, b > 0"], [], "unexpected '*'", 5),
    ("a <=", ["a > 0"], [], "the text ends too early", 5),
    ("\\sum_i x_{i+1} <= 1", ["x: vector n"], [], "index arithmetic", None),
])
def test_bad_statements_name_the_place(statement, variables, where, message, column):
    with pytest.raises(ExpressionError) as info:
        claim(statement, *variables, where=where)
    err = info.value
    assert message in str(err) and "\n" not in str(err)
    if column is not None:
        assert err.column == column and f"column {column}" in str(err) and "\u25b6" in str(err)


@pytest.mark.parametrize("variables, where, source, message", [
    (["a, b > 0", "c in [0, 1]"], [], "--var 'c in [0, 1]'", "c is declared but not used"),
    (["a > 0"], ["a + 1"], "--where 'a + 1'", "a relation is missing"),
    (["a in [0, 1]"], ["a > 3"], "--where 'a > 3'", "contradict each other or the box"),
    (["a, b >= 0"], ["a + b = -1"], "--where 'a + b = -1'", "contradicts the declared signs"),
    (["a, b"], ["a^2 + b^2 = -1"], "--where 'a^2 + b^2 = -1'", "a sum of squares cannot be negative"),
    (["a, b"], ["a^2 + b^3 = 2"], "--where 'a^2 + b^3 = 2'", "no rational parametrisation"),
    (["a, b"], ["a^2 + 2b^2 = 5"], "--where 'a^2 + 2b^2 = 5'", "no rational point of small height"),
    (["a, b"], ["a^2 + b^2 = 3"], "--where 'a^2 + b^2 = 3'", "rational point"),
    (["a in [0, 1", "b"], [], "--var 'a in [0, 1'", "interval"),
    (["x: matrix n"], [], "--var 'x: matrix n'", "after ':'"),
])
def test_bad_declarations_and_constraints_are_one_line(variables, where, source, message):
    with pytest.raises(ExpressionError) as info:
        claim("a + b >= 0" if any("b" in v for v in variables) else "a >= 0", *variables, where=where)
    text = str(info.value)
    assert text.startswith(source) and message in text and "\n" not in text


def test_tighten_needs_the_constant_as_a_factor_of_one_side():
    built = claim("ab + bc + ca <= C (a^2 + b^2 + c^2)", "a, b, c >= 0", tighten="C")
    part = built.claim.parts[0]
    assert part.relation == "<=" and part.rhs_text == "a**2 + b**2 + c**2"
    flipped = claim("C (a + b) <= a^2 + b^2 + 2", "a, b >= 0", tighten="C")
    assert flipped.claim.parts[0].relation == ">="
    with pytest.raises(ExpressionError, match="times an expression without C"):
        claim("a <= C + b", "a, b >= 0", tighten="C")
    with pytest.raises(ExpressionError, match="the statement has no C"):
        claim("a <= b", "a, b >= 0", tighten="C")


# ------------------------------------------------------------------------ π, e and the reals
def test_an_irrational_bound_is_a_hypothesis_and_the_box_a_rational_just_outside():
    built = claim(r"\sin x > 0", r"0 < x < \pi")
    var = variable(built, "x")
    hi = var.hi.exact
    assert hi > Fraction(314159265358979, 10**14) and hi - Fraction(314159265358979, 10**14) < Fraction(1, 10**11)
    assert sympy.Rational(hi.numerator, hi.denominator) > sympy.pi  # outside the bound, never inside
    assert hypotheses(built)["x > 0"] is True and hypotheses(built)["x < pi"] is True
    assert "x < pi is a hypothesis" in built.claim.notes and "ctx.pi - v.x" in built.source


@pytest.mark.parametrize("spec, lo, strict", [
    (r"x \in (e, \pi]", sympy.E, ("x > E",)), (r"x \ge \sqrt{2}", sympy.sqrt(2), ()), (r"x > \ln 2", sympy.log(2), ("x > log(2)",)),
])
def test_bounds_may_be_any_real_constant(spec, lo, strict):
    built = claim("x <= 5", spec)
    var = variable(built, "x")
    assert var.lo.exact < lo and lo - var.lo.exact < Fraction(1, 10**11)
    assert [t for t, s in hypotheses(built).items() if s] == list(strict)


def test_a_point_between_pi_and_the_box_end_is_outside_the_claim():
    """x < π on (0, π): the box reaches a little past π, where the hypothesis (not the box) excludes x."""
    from verifier.engine import SearchConfig, run_check

    survives = claim(r"x < \pi", r"0 < x < \pi").claim.checks()[0]
    assert run_check(survives, SearchConfig(seed=3, budget=3000)).verdict.value == "survived"
    refuted = run_check(claim(r"\sin x \le 0.99", r"0 < x < \pi").claim.checks()[0], SearchConfig(seed=3, budget=3000))
    assert refuted.verdict.value == "refuted" and refuted.counterexample.certificate.startswith("ball arithmetic")


@pytest.mark.parametrize("spec, kind, shape, lo, hi, strict", [
    (r"x \in \mathbb{R}", "real", (), -UNBOUNDED_BOX, UNBOUNDED_BOX, ()),
    (r"x \in \mathbb{R}_{>0}", "real", (), 0, UNBOUNDED_BOX, ("x > 0",)),
    (r"x \in \mathbb R_{\geq 0}", "real", (), 0, UNBOUNDED_BOX, ()),
    ("x \u2208 \u211d_{<0}", "real", (), -UNBOUNDED_BOX, 0, ("x < 0",)),
    (r"x \in \mathbb{R}_{++}", "real", (), 0, UNBOUNDED_BOX, ("x > 0",)),
    (r"x \in \mathbb{R}^n", "vector", ("n",), -UNBOUNDED_BOX, UNBOUNDED_BOX, ()),
    (r"x \in \mathbb{R}^{3}_{>0}", "vector", (3,), 0, UNBOUNDED_BOX, ("x > 0 entrywise",)),
])
def test_the_reals_as_papers_write_them(spec, kind, shape, lo, hi, strict):
    statement = r"\sum_i x_i <= 1" if kind == "vector" else "x <= 1"
    built = claim(statement, spec)
    var = variable(built, "x")
    assert var.shape == shape and (var.lo.exact, var.hi.exact) == (lo, hi)
    assert [t for t, s in hypotheses(built).items() if s] == list(strict)


@pytest.mark.parametrize("spec, message", [
    (r"x \in \mathbb{R}_+", "reads two ways"),
    (r"x \in \mathbb{R}^+", "reads two ways"),
    (r"x \in \mathbb{Z}", "integer, rational and complex variables are not read"),
    (r"x \in \mathbb{R}^{n \times m}", "matrices"),
    (r"x \in \mathbb{R}_{\ne 0}", "cannot read the subscript"),
])
def test_sets_of_the_reals_that_are_not_read_are_named(spec, message):
    with pytest.raises(ExpressionError) as info:
        claim("x <= 1", spec)
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("names", [("dims", "params"), ("ctx", "v"), ("claim", "Fraction"), ("lambda", "Values")])
def test_a_declared_name_never_meets_an_internal_one(names):
    """``v.dims`` is the claim's dimensions, not a variable named dims: such names are read as v["dims"]."""
    from verifier.engine import SearchConfig, run_check

    first, second = names
    built = claim(rf"{first} + {second} \le 2", f"{first}, {second} in [0, 1]")
    result = run_check(built.claim.checks()[0], SearchConfig(seed=1, budget=500))
    assert result.verdict.value == "survived", result.message
    wrong = run_check(claim(rf"{first} + {second} \le 1.5", f"{first}, {second} in [0, 1]").claim.checks()[0],
                      SearchConfig(seed=1, budget=2000))
    assert wrong.verdict.value == "refuted"


def test_a_statement_with_no_variable_is_refused():
    with pytest.raises(ExpressionError, match="nothing varies"):
        claim(r"\pi < 4")
