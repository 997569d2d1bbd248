"""The branch and bound's parts: executors change nothing, Jets enclose what they claim, charts lie on their sets."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from flint import arb, fmpq

from tests.conftest import check_of
from verifier import Claim, Dim, Orthogonal, Part, Sphere, UnitVector
from verifier.contexts import ExactContext, FloatContext
from verifier.kinds import membership_errors
from verifier.kinds.sphere import sqrt_upper
from verifier.runner import ForkedRunner, SerialRunner
from verifier.prove import make_proof_box, prove
from verifier.prove.jets import JetContext, interval_ball

BOX = (Fraction(-5), Fraction(5))
EPS = (Fraction(1, 100), Fraction(2))


def _summary(p):
    d = p.details
    return p.result.verdict, d.boxes_examined, d.boxes_proved, d.volume_proved, p.result.message


@pytest.mark.parametrize("claim_id, part, reading, dims",
                         [("B.2", None, None, {"n": 2}), ("B.2", None, None, {"n": 3}), ("4.2", "2", "intended", {"n": 1})])
def test_the_proof_does_not_depend_on_the_executor(claim_id, part, reading, dims):
    check = check_of(claim_id, part=part, reading=reading)
    domain = make_proof_box(check, dims, None, {"a": BOX, "eps": EPS})
    serial = prove(check, domain, method="branch-and-bound", time_limit=120, executor=SerialRunner())
    with ForkedRunner(2) as pool:
        pooled = prove(check, domain, method="branch-and-bound", time_limit=120, executor=pool)
    assert serial.result.verdict.value == "proved", serial.result.message
    assert _summary(serial) == _summary(pooled)


def _jets_over(box):
    radii = [interval_ball(-(hi - lo) / 2, (hi - lo) / 2) for lo, hi in box]
    ctx = JetContext(radii, 64)
    with ctx.precision():
        return ctx, [ctx.coordinate(i, lo, hi) for i, (lo, hi) in enumerate(box)]


def _softmax_first(ctx, z):
    from verifier.library import softmax

    return np.ravel(softmax(ctx, np.asarray([z], dtype=object)))[0]


def test_softmax_gradient_encloses_the_derivative_at_sampled_points():
    rng = np.random.default_rng(11)
    for _ in range(20):
        lo = [Fraction(int(x), 8) for x in rng.integers(-24, 24, 3)]
        box = [(a, a + Fraction(int(w), 8)) for a, w in zip(lo, rng.integers(1, 12, 3))]
        ctx, z = _jets_over(box)
        with ctx.precision():
            s = _softmax_first(ctx, z)
        for _ in range(5):
            x = [float(a) + float(rng.random()) * float(b - a) for a, b in box]
            e = np.exp(np.array(x) - max(x))
            p = e / e.sum()
            exact = [p[0] * ((k == 0) - p[k]) for k in range(3)]  # d s_0 / d z_k
            for g, want in zip(s.g, exact):
                assert g.lower() - 1e-12 <= want <= g.upper() + 1e-12
            assert s.enclosure().lower() - 1e-12 <= p[0] <= s.enclosure().upper() + 1e-12


def test_square_and_abs_of_a_ball_about_zero_are_never_negative():
    ctx, (x,) = _jets_over([(Fraction(-1), Fraction(2))])
    with ctx.precision():
        assert (x * x).enclosure() >= 0
        assert ctx.abs(np.asarray([x], dtype=object))[0].enclosure() >= 0
        assert abs(x).enclosure() >= 0


def _variable(kind):
    return {"unit-2": UnitVector("x", "n"), "unit-inf": UnitVector("x", "n", norm="inf"),
            "unit-1": UnitVector("x", "n", norm=1), "orthogonal": Orthogonal("x", "n"),
            "sphere-3": Sphere("x", "n", 3), "sphere-7/9": Sphere("x", "n", "7/9"), "sphere-9/4": Sphere("x", "n", "9/4")}[kind]


def _atlas(var, shape):
    return var.domain.atlas(var, shape)


@pytest.mark.parametrize("kind, n", [("unit-2", 1), ("unit-2", 3), ("unit-inf", 3), ("unit-1", 2), ("orthogonal", 1), ("orthogonal", 2), ("orthogonal", 3),
                                     ("sphere-3", 3), ("sphere-3", 5), ("sphere-7/9", 4), ("sphere-9/4", 1), ("sphere-9/4", 2)])
def test_every_chart_maps_rational_parameters_exactly_onto_the_set(kind, n):
    var = _variable(kind)
    claim = Claim("c", "c", "c", variables=(var,), dims=(Dim("n", n, n),),
                  parts=(Part("main", lambda ctx, v: ctx.sum_all(v["x"]), lambda ctx, v: ctx.const(100)),))
    check = claim.checks()[0]
    atlas = _atlas(var, var.concrete_shape({"n": n}))
    rng = np.random.default_rng(n)
    exact = ExactContext()
    for piece in range(atlas.pieces):
        for _ in range(4):
            t = [fmpq(int(k), 16) for k in rng.integers(-16, 17, atlas.parameters)]
            point = np.asarray(atlas.point(exact, t, piece), dtype=object).reshape((1,) + var.concrete_shape({"n": n}))
            assert membership_errors(check, {"x": point}, {"n": n}, exact) is None


def test_charts_reach_the_extreme_points():
    """The vertices of the cross-polytope, the cube's corners, the poles: where maxima of these claims sit."""
    exact = ExactContext()
    var = UnitVector("x", "n", norm=1)
    atlas = _atlas(var, (3,))
    assert [int(x) for x in atlas.point(exact, [fmpq(0), fmpq(0)], 0)] == [1, 0, 0]
    atlas = _atlas(UnitVector("x", "n", norm="inf"), (3,))
    assert [int(x) for x in atlas.point(exact, [fmpq(1), fmpq(-1)], 5)] == [1, -1, -1]
    atlas = _atlas(UnitVector("x", "n"), (3,))
    assert [int(x) for x in atlas.point(exact, [fmpq(0), fmpq(0)], 1)] == [0, 0, -1]


def test_a_box_in_a_chart_is_enclosed():
    """A Jet over a chart's box encloses the chart's exact value at a point of the box."""
    var = UnitVector("x", "n")
    atlas = _atlas(var, (3,))
    box = [(Fraction(-1, 4), Fraction(1, 2)), (Fraction(1, 8), Fraction(1))]
    ctx, t = _jets_over(box)
    with ctx.precision():
        jets = atlas.point(ctx, t, 0)
    exact = atlas.point(ExactContext(), [fmpq(1, 4), fmpq(1, 2)], 0)
    for j, q in zip(jets, exact):
        assert j.enclosure().contains(arb(q))


@pytest.mark.parametrize("r2, n", [(3, 3), ("7/9", 4), (2, 2), ("9/4", 3)])
def test_the_two_sphere_charts_cover_the_sphere(r2, n):
    """Every point of the sphere is the image of a parameter in [-1, 1]^(n-1) of one of the
    two charts: the chart from the pole +-p covers the hemisphere where +-p . x <= 0."""
    var = Sphere("x", "n", r2)
    atlas = _atlas(var, (n,))
    p = np.array([float(v) for v in var.domain.rational_point(n)])
    j = int(np.argmax(np.abs(p)))
    c = float(sqrt_upper(var.domain.radius_squared))
    rng = np.random.default_rng(n)
    ctx = FloatContext()
    for x in rng.standard_normal((200, n)):
        x *= np.sqrt(float(var.domain.radius_squared)) / np.linalg.norm(x)
        piece = 0 if p @ x <= 0 else 1
        pole = p if piece == 0 else -p
        t = pole + (x - pole) * float(var.domain.radius_squared) / (float(var.domain.radius_squared) - pole @ x)
        u = np.delete(t, j) / c
        assert np.all(np.abs(u) <= 1)
        assert np.allclose(atlas.point(ctx, list(u), piece), x)
