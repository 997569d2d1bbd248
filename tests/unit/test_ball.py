"""The Ball kind: a ball of variable centre and radius, in the Euclidean and the max norm."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq

from verifier import Ball, Claim, ClaimDefinitionError, Dim, Part, Scalar, Vector
from verifier.contexts import ExactContext
from verifier.engine import SearchConfig, run_check
from verifier.kinds import kind_text, membership_errors
from verifier.prove import make_proof_box, prove
from verifier.prove.parametrisation import Parametrisation
from verifier.sampling import Sampler, exactify

EXACT = ExactContext()


def _check(norm=2, center="a", radius="s", n=3, lhs=None, rhs=None):
    variables = [Scalar("s", lo=Fraction(1, 2), hi=2), Vector("a", "n", lo=-1, hi=1), Ball("x", "n", center=center, radius=radius, norm=norm)]
    return Claim("b", "b", "b", variables=variables, dims=(Dim("n", n, n),),
                 parts=(Part("main", lhs or (lambda ctx, v: ctx.sum(v.x, 1)), rhs or (lambda ctx, v: ctx.const(100)), relation="<="),)).checks()[0]


@pytest.mark.parametrize("kwargs, words", [
    ({"norm": 1}, "norm must be 2 or 'inf'"),
    ({"radius": 0}, "radius must be a positive exact rational"),
    ({"radius": "2 s"}, "radius must be a positive exact rational"),
    ({"center": 3}, "center must be None, a point"),
    ({"center": (1, 2)}, "center has 2 entries, the ball's size is 3"),
    ({"center": (1, 2, 0.1j)}, "center must hold exact numbers"),
])
def test_the_factory_names_the_bad_argument(kwargs, words):
    with pytest.raises(ClaimDefinitionError, match=words):
        Ball("x", 3, **kwargs)


def test_kind_text_and_membership_hypotheses_name_centre_and_radius():
    check = _check()
    x = next(v for v in check.variables if v.name == "x")
    assert kind_text(x, {"n": 3}) == "ball(n, n=3, norm=2, center=a, radius=s)"
    texts = [h.text for h in x.domain.hypotheses(x)]
    assert texts == ["s \u2265 0 (the radius of x's ball)", "\u2016x \u2212 a\u2016\u2082\u00b2 \u2264 (s)\u00b2"]
    fixed = Ball("y", "n", radius="3/2", norm="inf")
    assert [h.text for h in fixed.domain.hypotheses(fixed)] == ["\u2016y\u2016\u221e \u2264 3/2"]
    assert make_proof_box(check, {"n": 3}).relations == ("x: every value with \u2016x \u2212 a\u2016\u2082 \u2264 s",)


@pytest.mark.parametrize("norm", [2, "inf"])
def test_samples_lie_in_the_ball_and_a_share_on_its_boundary_and_at_its_centre(norm):
    check = _check(norm)
    data = Sampler(check).sample({"n": 3}, np.random.default_rng(0), 4096)
    d = data["x"] - data["a"]
    size = np.max(np.abs(d), axis=1) if norm == "inf" else np.sqrt(np.sum(d * d, axis=1))
    assert np.all(size <= data["s"] * (1 + 1e-12))
    on_boundary = np.isclose(size, data["s"], rtol=1e-12, atol=0)
    at_centre = size == 0
    assert on_boundary.mean() > 0.4 and at_centre.mean() > 0.02, (on_boundary.mean(), at_centre.mean())


@pytest.mark.parametrize("norm", [2, "inf"])
def test_a_point_outside_moves_exactly_onto_the_boundary_and_a_point_inside_stays(norm):
    check = _check(norm)
    data = {"s": np.array([1.5]), "a": np.array([[0.25, -0.5, 0.0]]), "x": np.array([[3.0, 1.0, -2.0]])}
    point = exactify(check, data, 0, {"n": 3})
    d = point["x"][0] - point["a"][0]
    r = point["s"][0]
    assert (max(abs(v) for v in d) if norm == "inf" else sum(v * v for v in d)) == (r if norm == "inf" else r * r)
    inside = dict(data, x=np.array([[0.5, -0.25, 0.125]]))
    assert [fmpq(1, 2), fmpq(-1, 4), fmpq(1, 8)] == list(exactify(check, inside, 0, {"n": 3})["x"][0])
    assert membership_errors(check, point, {"n": 3}, EXACT) is None


def test_an_irrational_radius_keeps_the_exact_point_inside():
    check = _check(radius=lambda ctx, v: ctx.sqrt(v.s))
    data = {"s": np.array([2.0]), "a": np.array([[0.0, 0.0, 0.0]]), "x": np.array([[3.0, 1.0, -2.0]])}
    point = exactify(check, data, 0, {"n": 3})
    assert sum(v * v for v in point["x"][0]) < 2 and membership_errors(check, point, {"n": 3}, EXACT) is None


def test_an_irrational_centre_stops_the_search_naming_the_ball():
    result = run_check(_check(center=lambda ctx, v: v.a * ctx.sqrt(v.s)[:, None]), SearchConfig(seed=0, budget=2000))
    assert result.verdict.value == "error" and result.stats.evaluations == 0
    assert "x: a point of the ball about its centre is irrational" in result.message and "rational centre" in result.message


@pytest.mark.parametrize("norm", [2, "inf"])
def test_every_image_of_the_proof_map_lies_in_the_ball_exactly(norm):
    check = _check(norm)
    domain = make_proof_box(check, {"n": 3})
    param = Parametrisation(check, domain)
    rng = np.random.default_rng(1)
    for root in param.roots():
        for _ in range(5):
            values = [fmpq(lo.numerator, lo.denominator) if lo == hi else fmpq(int(rng.integers(0, 17)), 16) * (fmpq(hi.numerator, hi.denominator) - fmpq(lo.numerator, lo.denominator)) + fmpq(lo.numerator, lo.denominator)
                      for lo, hi in root]
            data = param.data(EXACT, values)
            assert membership_errors(check, data, {"n": 3}, EXACT) is None
    assert not [h for h in param.hypotheses if "\u2016x" in h.text]  # membership built in; the radius's sign is not
    assert any("s \u2265 0" in h.text for h in param.hypotheses)


@pytest.mark.slow
@pytest.mark.parametrize("norm", [2, "inf"])
def test_branch_and_bound_proves_a_claim_over_the_ball_and_refutes_its_false_twin(norm):
    """exp(x_1 - a_1) <= exp(s) + 1/100 on ||x - a|| <= s, and false with - 1/100: x_1 - a_1 reaches s."""
    for slack, verdict in ((Fraction(1, 100), "proved"), (-Fraction(1, 100), "refuted")):
        check = _check(norm, n=2, lhs=lambda ctx, v: ctx.exp(v.x[:, 0] - v.a[:, 0]), rhs=lambda ctx, v, e=slack: ctx.exp(v.s) + e)
        p = prove(check, make_proof_box(check, {"n": 2}), method="branch-and-bound", time_limit=60, max_boxes=3000)
        assert p.result.verdict.value == verdict, (norm, slack, p.result.message)
