"""The pieces of ``verify prove``: domains, the SMT context, Jets."""

from fractions import Fraction

import numpy as np
import pytest
import z3

from tests.conftest import check_of
from verifier.contexts import BallContext
from verifier.prove.domain import ProofBoxError, make_proof_box, parse_boxes, parse_dims
from verifier.prove.jets import JetContext, interval_ball
from verifier.prove.smt import formula
from verifier.prove.z3ctx import NotDecidable, Z3Context, model_fraction


def test_parse_dims_and_boxes():
    assert parse_dims("n=3, d=2") == {"n": 3, "d": 2}
    default, named = parse_boxes(["-5:5", "eps=0.01:2"])
    assert default == (Fraction(-5), Fraction(5)) and named == {"eps": (Fraction(1, 100), Fraction(2))}


@pytest.mark.parametrize("bad", ["n", "n=x", "=3"])
def test_bad_dims_are_named(bad):
    with pytest.raises(ProofBoxError):
        parse_dims(bad)


@pytest.mark.parametrize("bad", ["5:-5", "a=1", "x:2"])
def test_bad_boxes_are_named(bad):
    with pytest.raises(ProofBoxError):
        parse_boxes([bad])


def test_domain_validates_against_the_claim():
    check = check_of("4.1", reading="repaired")
    with pytest.raises(ProofBoxError, match="missing d"):
        make_proof_box(check, {"n": 3})
    with pytest.raises(ProofBoxError, match="no dimension 'k'"):
        make_proof_box(check, {"n": 3, "d": 1, "k": 2})
    with pytest.raises(ProofBoxError, match="no variable 'C'"):
        make_proof_box(check, {"n": 3, "d": 1}, None, {"C": (Fraction(0), Fraction(1))})
    with pytest.raises(ProofBoxError, match="relation"):
        make_proof_box(check, {"n": 3, "d": 1}, None, {"B": (Fraction(0), Fraction(1))})
    d = make_proof_box(check, {"n": 3, "d": 1}, (Fraction(-5), Fraction(5)))
    # eps keeps its own lower bound 0; B is bounded by its relation, not boxed
    assert d.boxes == {"A": (Fraction(-5), Fraction(5)), "eps": (Fraction(0), Fraction(5))}
    text = d.describe(check)
    assert "n = 3, d = 1" in text and "eps \u2208 [0, 5]" in text and "\u2016B \u2212 A\u2016\u221e \u2264 eps" in text


def test_z3_context_builds_the_claims_formula():
    check = check_of("4.1", reading="as-printed")
    data, facts = formula(check, make_proof_box(check, {"n": 2, "d": 1}))
    assert set(data) == {"A", "eps", "B"} and all(z3.is_expr(x) for x in np.ravel(data["A"]))
    solver = z3.Solver()
    solver.add(*facts)
    assert solver.check() == z3.unsat  # n = 2: Lemma 4.1 holds


def test_z3_context_refuses_exp():
    check = check_of("B.2")
    with pytest.raises(NotDecidable):
        formula(check, make_proof_box(check, {"n": 2}))


def test_model_values_are_exact():
    x = z3.Real("x")
    s = z3.Solver()
    s.add(3 * x == 1)
    s.check()
    assert model_fraction(s.model(), x) == Fraction(1, 3)


def test_z3_max_min_abs_are_if_terms():
    ctx = Z3Context()
    a, b = z3.Reals("a b")
    arr = np.array([[a, b]], dtype=object)
    s = z3.Solver()
    s.add(a == -2, b == 1)
    s.check()
    m = s.model()
    assert m.eval(ctx.max(arr, -1)[0]) == 1 and m.eval(ctx.min(arr, -1)[0]) == -2
    assert m.eval(ctx.abs(arr)[0, 0]) == 2


def _softmax_gap(ctx, x, y):
    from lemmas.alman_song.common import softm

    return softm(ctx, x + y) - softm(ctx, x)


def test_jet_enclosures_contain_every_value_on_the_box():
    rng = np.random.default_rng(0)
    box = [(Fraction(-1, 2), Fraction(1, 4)), (Fraction(1, 8), Fraction(3, 4)), (Fraction(-1, 10), Fraction(1, 10)), (Fraction(0), Fraction(1, 5))]
    jets = JetContext([interval_ball(-(hi - lo) / 2, (hi - lo) / 2) for lo, hi in box])
    with jets.precision():
        v = [jets.coordinate(i, lo, hi) for i, (lo, hi) in enumerate(box)]
        x, y = np.array([[v[0], v[1]]], dtype=object), np.array([[v[2], v[3]]], dtype=object)
        enclosure = [j.enclosure() for j in np.ravel(_softmax_gap(jets, x, y))]
    ball = BallContext(128)
    for _ in range(50):
        p = [Fraction(int(rng.integers(0, 1001)), 1000) * (hi - lo) + lo for lo, hi in box]
        with ball.precision():
            bx = ball.asarray(np.array([[p[0], p[1]]], dtype=object))
            by = ball.asarray(np.array([[p[2], p[3]]], dtype=object))
            values = np.ravel(_softmax_gap(ball, bx, by))
        for e, val in zip(enclosure, values):
            assert e.contains(val)


def test_identical_computations_cancel_exactly():
    """f(a + 0) - f(a) over a box is exactly 0 (hash-consing), not an interval."""
    box = [(Fraction(-3), Fraction(2)), (Fraction(0), Fraction(1))]
    jets = JetContext([interval_ball(-(hi - lo) / 2, (hi - lo) / 2) for lo, hi in box] + [None])
    with jets.precision():
        a = np.array([[jets.coordinate(0, *box[0]), jets.coordinate(1, *box[1])]], dtype=object)
        zero = np.array([[jets.coordinate(2, 0, 0), jets.coordinate(2, 0, 0)]], dtype=object)
        gap = _softmax_gap(jets, a, zero * a)
    assert all(j.enclosure() == 0 for j in np.ravel(gap))
