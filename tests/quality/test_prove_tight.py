"""Tight claims are proved through their equality points; their false twins are refuted (issue 34).

A sharp inequality is an equality somewhere, and there the enclosure of the margin on a box
around the touching point always contains 0.  On the tree before, every one of the nine
one-variable facts below ended inconclusive ("98.44 % of the domain's volume proved in 13 boxes,
1 box left open"), and so did every true member of the seeded families: the box at the touching
point was never closed.  Now an argument anchored at an exact equality point closes it
(:mod:`verifier.prove.touching`), and the false twin -- the margin lowered by 1/10^4, false only
near the touching point -- is still refuted with a certified counterexample.

The polynomial families are proved with branch and bound alone (``method="branch-and-bound"``):
z3 decides them outright, and what is tested here is the branch and bound's handling of the
touch (an even-order zero, an interior minimum, a corner, a whole diagonal).
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from tests.quality.tight_families import ONE_VARIABLE, POLYNOMIALS, one_variable, polynomial
from verifier import Claim, Part, Scalar
from verifier.prove import make_proof_box, prove

#: the nine facts of issue 34, on their stated intervals: (name, margin >= 0, variables)
NINE = [
    ("tanh(x) <= x", lambda c, v: v.x - c.tanh(v.x), [("x", 0, 3)]),
    ("sigmoid(x) <= 1/2 + x/4", lambda c, v: F(1, 2) + v.x / 4 - c.sigmoid(v.x), [("x", 0, 4)]),
    ("log1p(x) <= x", lambda c, v: v.x - c.log1p(v.x), [("x", 0, 3)]),
    ("sin(x) <= x", lambda c, v: v.x - c.sin(v.x), [("x", 0, 3)]),
    ("lambertw(x) <= x", lambda c, v: v.x - c.lambertw(v.x), [("x", 0, 3)]),
    ("expm1(x) >= x", lambda c, v: c.expm1(v.x) - v.x, [("x", -2, 2)]),
    ("cos(x) >= 1 - x^2/2", lambda c, v: c.cos(v.x) - 1 + v.x * v.x / 2, [("x", -3, 3)]),
    ("x^(1/2) >= x", lambda c, v: c.power(v.x, F(1, 2)) - v.x, [("x", 0, 1)]),
    ("x^p <= x", lambda c, v: v.x - c.power(v.x, v.p), [("x", 0, 1), ("p", 1, 2)]),
]


def _check(title, margin, variables):
    claim = Claim(id="fact", kind="property", paper="t", location="-", title=title, statement=title, dims=[],
                  variables=[Scalar(n, lo=lo, hi=hi) for n, lo, hi in variables],
                  parts=[Part("main", lhs=margin, rhs=lambda c, v: 0, relation=">=")])
    return claim.checks()[0]


def _proved(claim, method="auto"):
    check = claim.checks()[0] if isinstance(claim, Claim) else claim
    return prove(check, make_proof_box(check, {}, None, {}), method, time_limit=60, max_boxes=2500)


@pytest.mark.parametrize("title, margin, variables", NINE, ids=[t for t, _, _ in NINE])
def test_the_nine_one_variable_facts_are_proved_on_their_stated_intervals(title, margin, variables):
    proof = _proved(_check(title, margin, variables))
    assert proof.result.verdict.value == "proved", proof.result.message
    cert = proof.details.certificate  # leaves of a branch and bound, or the formulas z3 refuted (x^(1/2): a root substitution)
    assert cert is not None and (cert.leaves or cert.smt)


@pytest.mark.parametrize("seed", range(len(ONE_VARIABLE)))
def test_a_function_against_its_tangent_at_a_random_point_is_proved_and_its_lowered_twin_refuted(seed):
    tight = one_variable(seed)
    proof = _proved(tight.true)
    assert proof.result.verdict.value == "proved", (tight.family, tight.drawn, proof.result.message)
    twin = _proved(tight.false)
    assert twin.result.verdict.value == "refuted" and twin.result.counterexample is not None, (tight.family, tight.drawn, twin.result.message)


@pytest.mark.parametrize("seed", range(len(POLYNOMIALS)))
def test_a_polynomial_with_an_equality_case_is_proved_by_branch_and_bound_and_its_lowered_twin_refuted(seed):
    tight = polynomial(seed)
    proof = _proved(tight.true, "branch-and-bound")
    assert proof.result.verdict.value == "proved", (tight.family, tight.drawn, proof.result.message)
    twin = _proved(tight.false, "branch-and-bound")
    assert twin.result.verdict.value == "refuted" and twin.result.counterexample is not None, (tight.family, tight.drawn, twin.result.message)


def test_a_proof_through_a_touching_point_leaves_the_point_and_the_argument_in_its_certificate():
    proof = _proved(_check("cos(x) >= 1 - x^2/2", NINE[6][1], [("x", -3, 3)]))
    cert = proof.details.certificate
    touching = [leaf for leaf in cert.leaves if leaf.method == "touching-point"]
    assert touching, [leaf.method for leaf in cert.leaves]
    leaf = next(leaf for leaf in touching if leaf.hints.get("equality"))
    assert leaf.hints["argument"] == "tangent-factor" and leaf.hints["point"] == ["0"] and leaf.hints["order"] == 4
    lo, hi = (F(b) for b in leaf.box["x"])
    assert lo <= 0 <= hi
    assert {"x": "0"} in [dict(p) for p in cert.points]
    # every leaf's box is exact rationals inside the domain
    for leaf in cert.leaves:
        a, b = (F(x) for x in leaf.box["x"])
        assert -3 <= a <= b <= 3


def test_an_unfinished_proof_says_where_it_is_stuck_and_names_the_equality_point_it_found():
    """(x - 1/3)^4 + (y - 1/5)^4 >= 0 touches at (1/3, 1/5) to fourth order in two variables,
    which no argument here closes (the Hessian vanishes there, no second-order test sees past it,
    and the claim is not homogeneous about that point): the proof says where it stopped and which
    exact equality point is there."""
    check = _check("(x - 1/3)^4 + (y - 1/5)^4 >= 0", lambda c, v: (v.x - F(1, 3))**4 + (v.y - F(1, 5))**4,
                   [("x", F(-1, 3), 1), ("y", F(-1, 5), 1)])
    proof = prove(check, make_proof_box(check, {}, None, {}), "branch-and-bound", time_limit=60, max_boxes=300)
    assert proof.result.verdict.value == "inconclusive", proof.result.message
    stuck = proof.details.stuck
    assert stuck is not None and stuck.boxes > 0
    (xlo, xhi), (ylo, yhi) = ((F(a), F(b)) for a, b in (stuck.hull["x"], stuck.hull["y"]))
    assert xlo <= F(1, 3) <= xhi and ylo <= F(1, 5) <= yhi and xhi - xlo < F(1, 10)
    assert stuck.nearest is not None and "x = 1/3, y = 1/5" in stuck.nearest


def test_a_near_tie_from_the_search_is_a_lead_branch_and_bound_verifies_before_it_uses_it():
    """The search's near-ties reach the prover as exact guesses (``near``): a true one anchors the
    argument at once; a wrong one is checked, found not an equality point, and changes nothing."""
    a, b = F(37, 100), F(-41, 113)
    check = _check("interior minimum", lambda c, v: (v.x - a)**2 + (v.y - b)**2 - (v.x - a) * (v.y - b) + (v.x - a)**2 * (v.y - b)**2,
                   [("x", -1, 1), ("y", -1, 1)])
    domain = make_proof_box(check, {}, None, {})
    plain = prove(check, domain, "branch-and-bound", time_limit=60, max_boxes=2500)
    led = prove(check, domain, "branch-and-bound", time_limit=60, max_boxes=2500, near=({"x": a, "y": b},))
    wrong = prove(check, domain, "branch-and-bound", time_limit=60, max_boxes=2500, near=({"x": F(1, 3), "y": F(1, 3)},))
    for proof in (plain, led, wrong):
        assert proof.result.verdict.value == "proved", proof.result.message
        assert {"x": "37/100", "y": "-41/113"} in [dict(p) for p in proof.details.certificate.points]
        assert {"x": "1/3", "y": "1/3"} not in [dict(p) for p in proof.details.certificate.points]
    assert led.details.boxes_examined < plain.details.boxes_examined
