"""Constrained kinds: exact points on the sets, membership hypotheses, samples and projections."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq

from verifier import Claim, ClaimDefinitionError, Derived, Dim, DoublyStochastic, Ordered, Orthogonal, Part, Scalar, Simplex, Sphere, Stochastic, UnitVector
from verifier.certify import Certifier
from verifier.contexts import ExactContext, FloatContext
from verifier.domains import membership_errors
from verifier.kinds.orthogonal import cayley
from verifier.kinds.sphere import inverse_stereographic
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
    "simplex-total": (Simplex("x", "n", "5/2"), 4),
    "sphere-3": (Sphere("x", "n", 3), 3),
    "sphere-7/9": (Sphere("x", "n", "7/9"), 4),
    "doubly-stochastic": (DoublyStochastic("x", "n"), 4),
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
    (lambda: Simplex("p", 0), "size must name a Dim or be a positive int"),
    (lambda: Simplex("p", 2.0), "size must name a Dim or be a positive int"),
    (lambda: Derived("c", 3), "fn must be a function"),
    (lambda: Orthogonal("1Q", "n"), "identifier"),
    (lambda: Simplex("p", "n", 0), "total must be a positive exact rational"),
    (lambda: Simplex("p", "n", "x"), "total must be a positive exact rational"),
    (lambda: Simplex("p", "n", float("inf")), "total must be a positive exact rational"),
    (lambda: Sphere("u", "n", -2), "radius_squared must be a positive exact rational"),
    (lambda: Sphere("u", "n", True), "radius_squared must be a positive exact rational"),
])
def test_factories_name_the_bad_argument(make, message):
    with pytest.raises(ClaimDefinitionError, match=message):
        make()


def test_a_total_or_radius_squared_means_the_exact_value_written():
    assert Simplex("p", "n", 0.1).domain.total == Fraction(1, 10)
    assert Simplex("p", "n", "3/2").domain.total == Fraction(3, 2) == Simplex("p", "n", Fraction(3, 2)).domain.total
    assert Sphere("u", "n", 0.3).domain.radius_squared == Fraction(3, 10)


@pytest.mark.parametrize("r2, sizes, words", [
    (7, (3, 3), "x_1^2 + x_2^2 + x_3^2 = 7 has no rational point (7 has the form 4^a (8b + 7)"),
    (3, (2, 2), "x_1^2 + x_2^2 = 3 has no rational point (3 has a prime 3 mod 4 to an odd power"),
    (3, (1, 4), "x_1^2 = 3 has no rational point (3 is not the square of a rational)"),
    ("3/2", (2, 5), "6, numerator times denominator of 3/2, has a prime 3 mod 4"),
])
def test_a_sphere_without_rational_points_is_refused_when_the_claim_is_declared(r2, sizes, words):
    with pytest.raises(ClaimDefinitionError) as info:
        _claim_dims(Sphere("u", "n", r2), *sizes)
    assert str(info.value).startswith("Sphere u: ") and words in str(info.value) and "\n" not in str(info.value)


def test_a_fixed_size_sphere_without_rational_points_is_refused_naming_a_size_that_has_them():
    with pytest.raises(ClaimDefinitionError, match=r"x_1\^2 \+ x_2\^2 = 3 has no rational point .* or a size of at least 3$"):
        Claim("t", "t", "t", variables=(Sphere("u", 2, 3),), dims=(),
              parts=(Part("main", lambda ctx, v: ctx.sum_all(v.u), lambda ctx, v: ctx.const(100)),))


def _claim_dims(var, lo, hi):
    return Claim("t", "t", "t", variables=(var,), dims=(Dim("n", lo, hi),),
                 parts=(Part("main", lambda ctx, v: ctx.sum_all(v[var.name]), lambda ctx, v: ctx.const(100)),))


@pytest.mark.parametrize("r2, n", [(1, 3), (3, 3), (7, 4), ("3/2", 3), ("1/2", 2), ("7/9", 5), (25, 1), (11, 3), (10**12 + 37, 3)])
def test_the_sphere_knows_a_rational_point_and_moves_points_onto_it_exactly(r2, n):
    var = Sphere("x", "n", r2)
    r2 = fmpq(var.domain.radius_squared.numerator, var.domain.radius_squared.denominator)
    point = var.domain.rational_point(n)
    assert sum(x * x for x in point) == var.domain.radius_squared
    check = _claim(var, n).checks()[0]
    rng = np.random.default_rng(n)
    for _ in range(5):
        off = {"x": _exact(*rng.standard_normal(n))}
        on = project(EXACT, check, off, {"n": n})
        assert sum(v * v for v in on["x"][0]) == r2
        chart = var.domain.chart(on["x"][0])  # its chart's map back gives the point itself
        assert chart is None or list(chart.point(chart.params)) == list(on["x"][0])


def test_the_sphere_of_radius_squared_one_rounds_as_the_unit_sphere_does():
    """Seen from the opposite pole, a point of radius squared 1 has the unit sphere's stereographic coordinates."""
    x = _exact(0.6, -0.48, 0.64)[0]
    unit, sphere = UnitVector("x", "n").domain, Sphere("x", "n", 1).domain
    assert [str(v) for v in sphere.onto_set_exact(x)] == [str(v) for v in unit.onto_set_exact(x)]
    a, b = unit.chart(x), sphere.chart(x)
    assert [str(v) for v in a.params] == [str(v) for v in b.params]


def test_the_simplex_of_a_total_sums_to_it_exactly():
    check = _claim(Simplex("x", "n", "7/3"), 3).checks()[0]
    p = project(EXACT, check, {"x": _exact(0.3, -0.1, 0.75)}, {"n": 3})["x"][0]
    assert sum(p) == fmpq(7, 3) and min(p) >= 0
    assert list(project(EXACT, check, {"x": _exact(0, 0, 0)}, {"n": 3})["x"][0]) == [fmpq(7, 9)] * 3
    off = {"x": np.array([[fmpq(7, 3), fmpq(1, 10**30), fmpq(0)]], dtype=object)}
    name, reason = membership_errors(check, off, {"n": 3}, EXACT)
    assert name == "x" and "x sums to exactly 7/3" in reason


def test_near_ties_on_the_sphere_round_in_its_chart():
    """(2/3, 2/3, 1/3) . x < 1 on |x|^2 = 1 ... and radius squared 9/4: the rational point
    c = (1, 1, 1/2) is found from a float point next to it."""
    check = _claim(Sphere("x", "n", "9/4"), 3).checks()[0]
    near = project(EXACT, check, {"x": _exact(1.0000001, 0.9999999, 0.5000001)}, {"n": 3})
    points = nearby_simple_points(check, near, {"n": 3}, lambda d: project(EXACT, check, d, {"n": 3}))
    assert any(list(p["x"][0]) == [fmpq(1), fmpq(1), fmpq(1, 2)] for p in points)
    assert all(membership_errors(check, p, {"n": 3}, EXACT) is None for p in points)


def test_a_doubly_stochastic_point_is_a_mixture_of_permutations_exactly():
    """Birkhoff-von Neumann: the chart's weights over its permutations give the point back,
    and any rational weights give a point on the set."""
    var = DoublyStochastic("x", "n")
    third, sixth = fmpq(1, 3), fmpq(1, 6)
    point = np.array([[third, third + sixth, sixth], [sixth, third, third + sixth], [third + sixth, sixth, third]], dtype=object)
    assert var.domain.contains(point)
    chart = var.domain.chart(point)
    assert np.array_equal(chart.point(chart.params), point) and sum(chart.params) == 1
    other = chart.point(np.array([fmpq(k + 1, 7) for k in range(len(chart.params))], dtype=object))
    assert var.domain.contains(other)
    check = _claim(var, 3).checks()[0]
    off = {"x": _exact(0.5, 0.5, 0.01, 0.2, 0.3, 0.5, 0.3, 0.2, 0.49)}
    on = project(EXACT, check, {"x": off["x"].reshape(1, 3, 3)}, {"n": 3})
    assert membership_errors(check, on, {"n": 3}, EXACT) is None


def test_a_column_off_by_a_hair_is_not_doubly_stochastic():
    check = _claim(DoublyStochastic("x", "n"), 2).checks()[0]
    off = {"x": np.array([[[fmpq(1, 2), fmpq(1, 2)], [fmpq(1, 2) + fmpq(1, 10**30), fmpq(1, 2) - fmpq(1, 10**30)]]], dtype=object)}
    name, reason = membership_errors(check, off, {"n": 2}, EXACT)
    assert name == "x" and "each column of x sums to exactly 1" in reason
