"""Constrained kinds: exact points on the sets, membership hypotheses, samples and projections."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq

from verifier import Claim, ClaimDefinitionError, Derived, Dim, Ordered, Orthogonal, Part, Scalar, Simplex, Stochastic, UnitVector
from verifier.certify import Certifier
from verifier.contexts import ExactContext, FloatContext
from verifier.domains import membership_errors
from verifier.domains import cayley, inverse_stereographic
from verifier.rational_points import nearby_simple_points
from verifier.sampling import Sampler, exactify, on_boundary, project

EXACT = ExactContext()
KINDS = {
    "simplex": (Simplex("x", "n"), 5),
    "stochastic": (Stochastic("x", "n", "n"), 4),
    "unit-2": (UnitVector("x", "n"), 4),
    "unit-inf": (UnitVector("x", "n", norm="inf"), 4),
    "unit-1": (UnitVector("x", "n", norm=1), 4),
    "ordered": (Ordered("x", "n", lo=-1, hi=2), 5),
    "orthogonal": (Orthogonal("x", "n"), 4),
}


def _claim(var, n, lhs=None, rhs=None, relation="<="):
    return Claim("t", "t", "t", variables=(var,), dims=(Dim("n", n, n),),
                 parts=(Part("main", lhs or (lambda ctx, v: ctx.sum_all(v.x)), rhs or (lambda ctx, v: ctx.const(100)), relation=relation),))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_projected_float_sample_lies_exactly_on_the_set(kind):
    var, n = KINDS[kind]
    check = _claim(var, n).checks()[0]
    dims = {"n": n}
    data = Sampler(check).sample(dims, np.random.default_rng(7), 300)
    for i in range(0, 300, 7):
        exact = exactify(check, data, i, dims)
        assert membership_errors(check, exact, dims, EXACT) is None, (kind, exact)
        again = project(EXACT, check, exact, dims)  # a point on the set stays where it is
        assert all(np.array_equal(again[k], exact[k]) for k in exact)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_float_samples_sit_on_the_set_and_a_good_share_on_its_boundary(kind):
    var, n = KINDS[kind]
    check = _claim(var, n).checks()[0]
    x = Sampler(check).sample({"n": n}, np.random.default_rng(3), 4000)["x"]
    for hyp in check.hypotheses:  # every membership margin >= 0 up to rounding
        assert np.min(hyp.margin(FloatContext(), check.values({"x": x}, {"n": n}))) > -1e-9, hyp.text
    share = float(np.mean(on_boundary(var, x)))
    assert 0.3 < share < 0.95, share


def _exact(*xs):
    return np.array([[fmpq(Fraction(x).numerator, Fraction(x).denominator) for x in xs]], dtype=object)


def test_exact_projections_land_on_the_sets():
    f = _exact
    simplex = _claim(Simplex("x", "n"), 3).checks()[0]
    p = project(EXACT, simplex, {"x": f(0.3, -0.1, 0.75)}, {"n": 3})["x"]
    assert sum(p[0]) == 1 and min(p[0]) >= 0
    sphere = _claim(UnitVector("x", "n"), 3).checks()[0]
    u = project(EXACT, sphere, {"x": f(0.6, 0.8, 0.001)}, {"n": 3})["x"]
    assert sum(v * v for v in u[0]) == 1
    t = [fmpq(1, 2), fmpq(-2, 3)]
    assert sum(v * v for v in inverse_stereographic(t, 1, -1)) == 1


def test_cayley_transform_of_a_rational_skew_matrix_is_exactly_orthogonal():
    a = np.array([[fmpq(0), fmpq(1, 3), fmpq(-2)], [fmpq(-1, 3), fmpq(0), fmpq(5, 7)], [fmpq(2), fmpq(-5, 7), fmpq(0)]], dtype=object)
    q = cayley(a)
    assert np.array_equal(q.T @ q, np.eye(3, dtype=int).astype(object))


def test_a_point_off_the_set_fails_its_membership_hypothesis_exactly():
    check = _claim(Stochastic("x", "n", "n"), 2, relation="<").checks()[0]
    off = {"x": np.array([[[fmpq(1, 2), fmpq(1, 2) + fmpq(1, 10**30)], [fmpq(1), fmpq(0)]]], dtype=object)}
    cert = Certifier(30).certify(check, off, {"n": 2})
    assert cert.status == "hypothesis-fails" and "sums to exactly 1" in cert.detail
    name, reason = membership_errors(check, off, {"n": 2}, EXACT)
    assert name == "x" and "sums to exactly 1" in reason


def test_derived_variable_is_computed_exactly_and_checked():
    claim = Claim("t", "t", "t", variables=(Scalar("a", lo=0, hi=3), Scalar("b", lo=0, hi=3), Derived("c", lambda ctx, v: 3 - v.a - v.b, lo=0)),
                  dims=(), parts=(Part("main", lambda ctx, v: v.a * v.b * v.c, lambda ctx, v: ctx.const(1)),))
    check = claim.checks()[0]
    point = {"a": np.array([fmpq(1, 3)], dtype=object), "b": np.array([fmpq(1, 2)], dtype=object), "c": np.array([fmpq(0)], dtype=object)}
    assert membership_errors(check, point, {}, EXACT)[0] == "c"
    fixed = project(EXACT, check, point, {})
    assert fixed["c"][0] == fmpq(13, 6) and membership_errors(check, fixed, {}, EXACT) is None


def test_nearby_simple_points_find_the_centroid_and_stay_on_the_set():
    check = _claim(Simplex("x", "n"), 3).checks()[0]
    near = {"x": _exact(0.3333333, 0.3333334, 0.3333333)}
    near = project(EXACT, check, near, {"n": 3})
    points = nearby_simple_points(check, near, {"n": 3}, lambda d: project(EXACT, check, d, {"n": 3}))
    assert any(list(p["x"][0]) == [fmpq(1, 3)] * 3 for p in points)
    assert all(membership_errors(check, p, {"n": 3}, EXACT) is None for p in points)


@pytest.mark.parametrize("make, message", [
    (lambda: UnitVector("u", "n", norm=3), "norm must be 2, 'inf' or 1"),
    (lambda: Simplex("p", 3), "size must name a Dim"),
    (lambda: Derived("c", 3), "fn must be a function"),
    (lambda: Orthogonal("1Q", "n"), "identifier"),
])
def test_factories_name_the_bad_argument(make, message):
    with pytest.raises(ClaimDefinitionError, match=message):
        make()
