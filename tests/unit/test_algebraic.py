"""Real algebraic numbers, number-field arithmetic and their stored form (verifier/algebraic.py).

Everything decided here is decided exactly: a recognised number is only a guess until the
field's arithmetic (a polynomial reduced modulo an irreducible one; signs by narrowing an
isolating interval) confirms it.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verifier import Claim, Hypothesis, Part, Scalar
from verifier.algebraic import AlgebraicFormatError, AlgebraicNumber, NotInField, NumberField, field_of, parse_polynomial, polynomial_text, recognise
from verifier.certify import Certifier
from verifier.prove import make_proof_box, prove
from verifier.results import Verdict


def _recognised(value):
    """``value()`` computed at 60 digits, recognised there."""
    with mpmath.workdps(60):
        return recognise(value())


def test_recognise_gives_the_minimal_polynomial_and_a_short_isolating_interval():
    with mpmath.workdps(60):
        r = recognise(1 / mpmath.sqrt(2))
    assert r.poly == (-1, 0, 2) and r.lo <= Fraction(7071, 10000) <= r.hi
    assert r.human == "sqrt(2)/2"
    assert str(r) == "sqrt(2)/2 = root of 2*x**2 - 1 in [7/10, 4/5]"
    with mpmath.workdps(60):
        assert recognise(mpmath.mpf(1) / 3) == Fraction(1, 3)


@pytest.mark.parametrize("seed", range(4))
def test_stored_form_round_trips_and_edits_are_refused(seed):
    rng = np.random.default_rng(seed)
    c = int(rng.integers(2, 50))
    while int(c**0.5) ** 2 == c:
        c += 1
    p, q = int(rng.integers(-5, 6)), int(rng.integers(1, 4))
    with mpmath.workdps(60):
        number = recognise(p + mpmath.sqrt(c) / q)
    assert isinstance(number, AlgebraicNumber)
    assert AlgebraicNumber.parse(str(number)) == number
    text = str(number)
    with pytest.raises(AlgebraicFormatError):  # the interval moved off the root
        AlgebraicNumber.parse(text.replace(f"[{number.lo},", f"[{number.hi + 1},").replace(f"{number.hi}]", f"{number.hi + 2}]"))
    with pytest.raises(AlgebraicFormatError):  # a closed form that is not that root
        AlgebraicNumber.parse("1" + text)
    with pytest.raises(AlgebraicFormatError):  # a reducible polynomial
        AlgebraicNumber.parse(f"{number.human} = root of x**4 - 1 in [{number.lo}, {number.hi}]")


def test_polynomial_text_round_trips():
    for coeffs in ([-1, 0, 2], [3, -4, 0, 1], [0, 0, -7, 0, 12]):
        assert parse_polynomial(polynomial_text(coeffs)) == coeffs
    with pytest.raises(AlgebraicFormatError):
        parse_polynomial("x**2 + __import__")


def test_field_arithmetic_and_exact_signs():
    theta = _recognised(lambda: 1 / mpmath.sqrt(2))
    field = NumberField(theta)
    t = field.theta
    assert t * t == Fraction(1, 2)
    assert field.sqrt(field.rational(2)) == 2 * t
    assert (1 / t) == 2 * t
    # a nonzero element very close to 0: its sign is decided exactly, not by float agreement
    tiny = t - Fraction(70710678118654752440, 10**20)  # 1/sqrt 2 = 0.70710678118654752440084...
    assert tiny.sign() == 1
    assert (t - Fraction(7071067811865476, 10**16)).sign() == -1
    with pytest.raises(NotInField):
        field.sqrt(field.rational(3))


def test_field_of_embeds_every_coordinate_or_says_it_cannot():
    a = _recognised(lambda: mpmath.sqrt(2))
    b = _recognised(lambda: 3 - mpmath.sqrt(2) / 5)
    field = field_of([a, b, Fraction(1, 3)])
    assert field.embed(b) + field.embed(a) / 5 == 3
    with pytest.raises(NotInField):
        field_of([a, _recognised(lambda: mpmath.sqrt(3))])


STRICT = Claim(
    id="T.alg", title="x + 1/(2x) > sqrt 2", statement="x + 1/(2x) > sqrt 2 for x > 0", dims=[],
    variables=[Scalar("x", lo=0, hi=10)], hypotheses=[Hypothesis("x > 0", lambda ctx, v: v.x, strict=True)],
    parts=[Part("main", relation=">", lhs=lambda ctx, v: v.x + 1 / (2 * v.x), rhs=lambda ctx, v: ctx.sqrt(2))],
)


def test_the_certifier_signs_an_algebraic_point_exactly():
    x = _recognised(lambda: 1 / mpmath.sqrt(2))
    data = {"x": np.array([x], dtype=object)}
    cert = Certifier(50).certify(STRICT.checks()[0], data, {})
    assert cert.violated and cert.method == "algebraic" and cert.exact_margin == 0
    assert "sympy" in cert.detail and "lhs \u2212 rhs simplifies to 0" in cert.detail
    near = _recognised(lambda: mpmath.sqrt(2) / 2 + mpmath.mpf(1) / 10)  # not the touching point
    cert = Certifier(50).certify(STRICT.checks()[0], {"x": np.array([near], dtype=object)}, {})
    assert cert.status == "holds"


SQRT_CONSTANT = Claim(
    id="T.imo", title="IMO 2006/3", statement="|ab(a^2-b^2)+bc(b^2-c^2)+ca(c^2-a^2)| <= 9 sqrt(2)/32 (a^2+b^2+c^2)^2", dims=[],
    variables=[Scalar("a", lo=-1, hi=1), Scalar("b", lo=-1, hi=1), Scalar("c", lo=-1, hi=1)],
    parts=[Part("main", lhs=lambda ctx, v: ctx.abs(v.a * v.b * (v.a**2 - v.b**2) + v.b * v.c * (v.b**2 - v.c**2) + v.c * v.a * (v.c**2 - v.a**2)),
                rhs=lambda ctx, v: 9 * ctx.sqrt(2) * (v.a**2 + v.b**2 + v.c**2) ** 2 / 32)],
)


def test_a_constant_9_sqrt2_over_32_no_longer_crashes_the_proof():
    """It ended in ``TypeError: argument should be a string or a Rational instance`` (a Jet times
    an array of Jets); now z3 gets sqrt(2) as a fresh real with r^2 = 2, then branch and bound."""
    check = SQRT_CONSTANT.checks()[0]
    proof = prove(check, make_proof_box(check, {}, named={k: (-1, 1) for k in "abc"}), time_limit=2.0)
    assert proof.result.verdict is not Verdict.ERROR, proof.result.message
    assert proof.result.verdict is not Verdict.REFUTED


def test_smt_refutes_a_strict_claim_at_its_algebraic_touching_point():
    check = STRICT.checks()[0]
    proof = prove(check, make_proof_box(check, {}), method="smt", time_limit=10)
    assert proof.result.verdict is Verdict.REFUTED
    cx = proof.result.counterexample
    assert cx.method == "algebraic" and cx.vars["x"] == "sqrt(2)/2 = root of 2*x**2 - 1 in [7/10, 4/5]"


def _two_variables(lhs, rhs):
    return Claim(id="T.ray", title="t", statement="s", dims=[], variables=[Scalar("x", lo=-2, hi=2), Scalar("y", lo=-2, hi=2)],
                 parts=[Part("main", relation=">=", lhs=lhs, rhs=rhs)]).checks()[0]


def test_an_equality_point_on_a_ray_is_found_exactly_and_its_sets_named():
    from verifier.equality import equality_sets, exact_equality_points

    check = _two_variables(lambda ctx, v: v.x**2 + 2 * v.y**2, lambda ctx, v: 2 * ctx.sqrt(2) * v.x * v.y)
    near = {"x": np.array([1.0]), "y": np.array([0.70710678])}  # float64 on the ray y = x / sqrt 2
    (point,) = exact_equality_points(check, near, {})
    assert point.describe() == "x = 1, y = sqrt(2)/2"
    assert point.lhs == point.rhs
    kinds = {s.kind for s in equality_sets(check, point)}
    assert kinds == {"ray"}
    diagonal = _two_variables(lambda ctx, v: v.x**2 + v.y**2, lambda ctx, v: 2 * v.x * v.y)
    (point,) = exact_equality_points(diagonal, {"x": np.array([0.7]), "y": np.array([0.7000001])}, {})
    assert {s.kind for s in equality_sets(diagonal, point)} == {"ray", "diagonal", "equal-variables"}


def test_no_equality_point_where_the_claim_is_strictly_true():
    from verifier.equality import exact_equality_points

    check = _two_variables(lambda ctx, v: v.x**2 + v.y**2 + 1, lambda ctx, v: 2 * v.x * v.y)
    assert exact_equality_points(check, {"x": np.array([0.7]), "y": np.array([0.7])}, {}) == []


def test_the_touching_point_strategy_refutes_a_strict_claim_on_a_ray():
    """x^2 + 3y^2 > 2 sqrt(3) xy on [1, 2] x [-2, 2] fails exactly on the ray y = x / sqrt 3."""
    from verifier.prove.refute_at_touch import TouchingPointRefutation

    class Budget:
        seconds, dps = 10.0, 50

    claim = Claim(id="T.touch", title="t", statement="s", dims=[], variables=[Scalar("x", lo=1, hi=2), Scalar("y", lo=-2, hi=2)],
                  parts=[Part("main", relation=">", lhs=lambda ctx, v: v.x**2 + 3 * v.y**2, rhs=lambda ctx, v: 2 * ctx.sqrt(3) * v.x * v.y)])
    check = claim.checks()[0]
    strategy = TouchingPointRefutation()
    assert strategy.applies(check, make_proof_box(check, {})) is None
    proof = strategy.attempt(check, make_proof_box(check, {}), Budget())
    assert proof is not None and proof.result.verdict is Verdict.REFUTED
    cx = proof.result.counterexample
    assert cx.method == "algebraic" and "sqrt(3)" in cx.vars["y"]
    non_strict = Claim(id="T.touch2", title="t", statement="s", dims=[], variables=claim.variables,
                       parts=[Part("main", relation=">=", lhs=claim.parts[0].lhs, rhs=claim.parts[0].rhs)]).checks()[0]
    assert strategy.applies(non_strict, make_proof_box(non_strict, {})) is not None


def test_report_helpers_split_a_stored_value():
    from verifier.algebraic_store import closed_form_latex, display_parts, is_algebraic_text

    value = "sqrt(2)/2 = root of 2*x**2 - 1 in [7/10, 4/5]"
    assert is_algebraic_text(value) and not is_algebraic_text("3/7")
    assert display_parts(value) == ("sqrt(2)/2", "root of 2*x**2 - 1 in [7/10, 4/5]")
    assert closed_form_latex(value) == r"\frac{\sqrt{2}}{2}"
