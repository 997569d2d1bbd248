"""The exponential basis: exp of a piecewise linear exponent is exactly a monomial in y = exp(x/q).

The substitution is checked against the original in ball arithmetic at random points (both sides
evaluated by arb, y_k put at exp(x_k / q_k)); unsat in the basis is a proof, sat only a lead.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import z3
from flint import arb, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import check_of
from verifier import Claim, Part, Scalar
from verifier.prove import make_proof_box, prove
from verifier.prove.exp_basis import ExpBasis, Leaf, Linearizer, NotLinear, extreme_operands, prove_exp_basis

NAMES = ("u", "v", "w")
X = {name: z3.Real(name) for name in NAMES}


def _arb(q: Fraction) -> arb:
    return arb(fmpq(q.numerator, q.denominator))


def _eval(term, env: dict):
    """A z3 term (arithmetic or Boolean) in arb at the point ``env`` (name -> arb); None where a
    comparison of overlapping balls cannot be decided."""
    if z3.is_rational_value(term):
        return _arb(Fraction(term.numerator_as_long(), term.denominator_as_long()))
    if z3.is_true(term) or z3.is_false(term):
        return z3.is_true(term)
    if z3.is_const(term):
        return env[str(term)]
    args = [_eval(a, env) for a in term.children()]
    if any(a is None for a in args):
        return None
    kind = term.decl().kind()
    if kind == z3.Z3_OP_ITE:
        return args[1] if args[0] else args[2]
    if kind == z3.Z3_OP_ADD:
        return sum(args[1:], args[0])
    if kind == z3.Z3_OP_SUB:
        return args[0] - sum(args[1:], arb(0))
    if kind == z3.Z3_OP_UMINUS:
        return -args[0]
    if kind == z3.Z3_OP_MUL:
        out = arb(1)
        for a in args:
            out *= a
        return out
    if kind == z3.Z3_OP_DIV:
        return args[0] / args[1]
    if kind in (z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_OP_NOT):
        return all(args) if kind == z3.Z3_OP_AND else any(args) if kind == z3.Z3_OP_OR else not args[0]
    a, b = args
    ops = {z3.Z3_OP_LE: (a < b, a > b), z3.Z3_OP_LT: (a < b, a >= b), z3.Z3_OP_GE: (a > b, a < b),
           z3.Z3_OP_GT: (a > b, a <= b)}
    if kind == z3.Z3_OP_EQ:
        return None  # an equality of balls is never certain
    yes, no = ops[kind]
    return True if yes else False if no else None


coefficient = st.fractions(min_value=-3, max_value=3, max_denominator=4)


@st.composite
def exponents(draw, depth=2):
    """A piecewise linear term: rational combinations of u, v, w, with max, min and abs."""
    if depth == 0 or draw(st.booleans()):
        coeffs = draw(st.lists(coefficient, min_size=3, max_size=3))
        return sum((z3.RealVal(c) * X[n] for c, n in zip(coeffs, NAMES)), z3.RealVal(draw(coefficient)))
    a, b = draw(exponents(depth=depth - 1)), draw(exponents(depth=depth - 1))
    kind = draw(st.sampled_from(["max", "min", "abs", "sum", "scale"]))
    if kind == "max":
        return z3.If(a >= b, a, b)
    if kind == "min":
        return z3.If(a <= b, a, b)
    if kind == "abs":
        return z3.If(a >= 0, a, -a)
    if kind == "sum":
        return a + b
    return z3.RealVal(draw(coefficient)) * a


def _point(draw_values, basis: ExpBasis) -> dict:
    env = {name: _arb(q) for name, q in zip(NAMES, draw_values)}
    for name, y in basis.y.items():
        env[str(y)] = (env[name] / basis.q[name]).exp()
    for c, k in basis.constants.items():
        env[str(k)] = _arb(c).exp()
    return env


@settings(max_examples=60, deadline=None)
@given(st.lists(exponents(), min_size=1, max_size=3), st.lists(st.fractions(min_value=-2, max_value=2, max_denominator=6),
                                                               min_size=3, max_size=3))
def test_each_exponential_is_its_monomial_at_random_points(terms, point):
    """exp(t) at x and the substituted monomial at y = exp(x/q) are the same number (balls overlap)."""
    basis = ExpBasis(X, terms)
    env = _point(point, basis)
    for t, in_y in zip(terms, basis.values):
        original, substituted = _eval(t, env), _eval(in_y, env)
        if original is None or substituted is None:
            continue  # a condition on a tie: no ball decides it
        original = original.exp()
        assert original.overlaps(substituted), (t, in_y, point)


@settings(max_examples=60, deadline=None)
@given(exponents(), exponents(), st.sampled_from(["<=", "<", ">=", ">"]),
       st.lists(st.fractions(min_value=-2, max_value=2, max_denominator=6), min_size=3, max_size=3))
def test_a_comparison_in_y_has_the_truth_value_of_the_one_in_x(left, right, op, point):
    atom = {"<=": left <= right, "<": left < right, ">=": left >= right, ">": left > right}[op]
    basis = ExpBasis(X, [left, right])
    in_y = basis.comparison(atom)
    env = _point(point, basis)
    before, after = _eval(atom, env), _eval(in_y, env)
    if before is not None and after is not None:
        assert before == after, (atom, in_y, point)


def test_powers_are_integers_over_the_common_denominator():
    u, v = X["u"], X["v"]
    basis = ExpBasis(X, [z3.RealVal(Fraction(2, 3)) * u - v / 2 + 1, u / 6])
    assert basis.q == {"u": 6, "v": 2}
    top, bottom = basis._monomial(Linearizer(X)(z3.RealVal(Fraction(2, 3)) * u - v / 2 + 1))
    assert str(top).count("exp(u/6)") == 4 and str(bottom) == "exp(v/2)" and "exp(1)" in str(top)


def test_exponents_outside_piecewise_linear_are_refused():
    u, v = X["u"], X["v"]
    for t in (u * v, u / v, z3.Real("exp!0") + u):
        with pytest.raises(NotLinear):
            Linearizer(X)(t)
    assert Linearizer(X)(z3.If(u >= v, u, v)).then == Leaf((("u", Fraction(1)),), Fraction(0))


def _scalar_claim(lhs, rhs, relation=">="):
    return Claim(id="e", kind="lemma", paper="t", location="-", title="t", statement="s", dims=[],
                 variables=[Scalar("x"), Scalar("z")],
                 parts=[Part("main", lhs=lhs, rhs=rhs, lhs_text="l", rhs_text="r", relation=relation)]).checks()[0]


BOX = {"x": (Fraction(-1), Fraction(1)), "z": (Fraction(-1), Fraction(1))}


def test_an_identity_of_four_exponentials_is_proved():
    """exp(x - z/3) exp(z) >= exp(x) exp(2z/3): equal, so a proof needs the exact basis (q = 3 for z)."""
    check = _scalar_claim(lambda c, v: c.exp(v.x - v.z / 3) * c.exp(v.z), lambda c, v: c.exp(v.x) * c.exp(2 * v.z / 3))
    p = prove_exp_basis(check, make_proof_box(check, {}, None, BOX), 10)
    assert p is not None and p.result.verdict.value == "proved" and p.details.solver == "unsat (exponential basis)"


def test_a_variable_outside_exp_is_linked_by_chords_and_tangents():
    """e^x - 1 <= 2x on [0, 1] (Lemma D.5's step): the chord of exp on [0, 1] lies below 1 + 2x."""
    check = _scalar_claim(lambda c, v: 2 * v.x + 0 * v.z, lambda c, v: c.exp(v.x) - 1)
    p = prove_exp_basis(check, make_proof_box(check, {}, None, {"x": (Fraction(0), Fraction(1)), "z": BOX["z"]}), 10)
    assert p is not None and p.result.verdict.value == "proved", p and p.result.message


def test_a_false_claim_is_refuted_or_left_never_proved():
    """exp(x + z) <= (99/100) exp(x) exp(z) is false everywhere."""
    check = _scalar_claim(lambda c, v: Fraction(99, 100) * c.exp(v.x) * c.exp(v.z), lambda c, v: c.exp(v.x + v.z))
    p = prove_exp_basis(check, make_proof_box(check, {}, None, BOX), 10)
    assert p is not None and p.result.verdict.value == "refuted" and p.result.counterexample is not None


def test_an_exponent_outside_the_basis_leaves_it_to_the_abstraction():
    check = _scalar_claim(lambda c, v: c.exp(v.x * v.z), lambda c, v: 0 * v.x)
    assert prove_exp_basis(check, make_proof_box(check, {}, None, BOX), 10) is None


@pytest.mark.parametrize("part", ["lower", "upper"])
def test_lemma_b3_is_proved_in_the_basis(part):
    """B.3 is tight on the whole manifold where a row of E is constant: boxes never close there;
    in the basis it is a statement about rational functions of y, which z3 decides."""
    check = check_of("B.3", part=part)
    p = prove(check, make_proof_box(check, {"n": 2}, (Fraction(-1), Fraction(1))), time_limit=60)
    assert p.result.verdict.value == "proved" and p.details.solver == "unsat (exponential basis)", p.result.message


@settings(max_examples=60, deadline=None)
@given(exponents(), exponents(), st.lists(st.fractions(min_value=-2, max_value=2, max_denominator=6), min_size=3, max_size=3))
def test_a_margin_is_the_minimum_of_its_operands(left, right, point):
    """min - max, |t| and their multiples split into operands whose minimum is the margin, exactly."""
    margin = z3.RealVal(2) * (left - right) - z3.If(left >= 0, left, -left)
    values = {str(X[n]): z3.RealVal(q) for n, q in zip(NAMES, point)}
    at = lambda t: z3.simplify(z3.substitute(t, *[(X[n], values[n]) for n in NAMES])).as_fraction()
    assert min(at(t) for t in extreme_operands(margin)) == at(margin)


def test_min_minus_max_and_abs_split():
    u, v, w = X["u"], X["v"], X["w"]
    assert len(extreme_operands(z3.If(u <= v, u, v) - z3.If(w >= 0, w, -w))) == 4
    assert len(extreme_operands(3 * (u - z3.If(v >= w, v, w)))) == 2
    assert len(extreme_operands(u + z3.If(v >= w, v, w))) == 1  # a maximum added is no minimum


def test_lemma_d5_intended_is_proved_through_its_operands():
    """||softm(a + b) - softm(a)|| <= 4||b||: the max norms split into one operand per sign and entry;
    b also occurs outside exp (4||b||), linked to exp(b) by chords and tangents."""
    check = check_of("D.5", part="main", reading="intended")
    p = prove_exp_basis(check, make_proof_box(check, {"n": 2}, (Fraction(-2), Fraction(2)), own_bounds=True), 30)
    assert p is not None and p.result.verdict.value == "proved", p and p.result.message


def test_lemma_b2_is_proved_on_unbounded_reals():
    """Every variable of B.2 lives inside exp or in |b_i| <= eps: no box is needed (branch and bound
    needed one, which was a usage error)."""
    check = check_of("B.2")
    p = prove(check, make_proof_box(check, {"n": 2}), time_limit=30)
    assert p.result.verdict.value == "proved" and p.details.solver == "unsat (exponential basis)", p.result.message
