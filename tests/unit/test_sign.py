"""``ctx.sign`` in every context: exact at 0, an enclosure where a ball straddles 0, a case
split in z3, no gradient across the jump in the prover's jets."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verifier import Claim, Part, Scalar, Vector, Dim
from verifier.contexts import BallContext, ExactContext, FloatContext, MPContext, SymbolicContext
from verifier.prove import make_proof_box, prove
from verifier.prove.jets import JetContext, interval_ball
from verifier.prove.z3ctx import Z3Context

POINT = [Fraction(-1, 3), Fraction(0), Fraction(2, 7)]


@pytest.mark.parametrize("ctx", [MPContext(), ExactContext(), BallContext(), SymbolicContext()], ids=lambda c: c.name)
def test_sign_is_exact_at_zero_and_off_it(ctx):
    with ctx.precision():
        out = np.ravel(ctx.sign(ctx.convert({"x": [POINT]})["x"]))
    assert [int(v) if ctx.name != "ball" else int(v.unique_fmpz()) for v in out] == [-1, 0, 1]
    assert list(FloatContext().sign(np.array([[-0.5, 0.0, 3.0]]))[0]) == [-1.0, 0.0, 1.0]


def test_a_ball_straddling_zero_gives_the_hull_of_the_signs_it_holds():
    ball = BallContext()
    with ball.precision():
        x = ball.convert({"x": [[Fraction(1, 3), Fraction(-2)]]})["x"]
        across, above, below = ball.sign(x - x)[0, 0], ball.sign(x)[0, 0], ball.sign(x)[0, 1]
    assert across.contains(-1) and across.contains(0) and across.contains(1)
    assert above == 1 and below == -1


def test_jets_have_no_gradient_across_the_jump_and_a_constant_off_it():
    ctx = JetContext([interval_ball(-1, 1)], 128)
    with ctx.precision():
        across = ctx.sign(np.array([[ctx.coordinate(0, Fraction(-1), Fraction(1))]], dtype=object))[0, 0]
        off = ctx.sign(np.array([[ctx.coordinate(0, Fraction(1), Fraction(3))]], dtype=object))[0, 0]
    assert across.v.contains(-1) and across.v.contains(1) and not across.g[0].is_finite()
    assert off.g is None and off.v == 1


def test_z3_states_sign_as_a_case_split():
    import z3

    z = Z3Context()
    x = z.symbols("x", ())
    s, x = z.sign(x)[0], x[0]
    solver = z3.Solver()
    solver.add(s * x != z3.If(x >= 0, x, -x))
    assert solver.check() == z3.unsat


def _claim(lhs, rhs, relation, variables=(Scalar("x", lo=-2, hi=2),), dims=()):
    return Claim("s", "s", "s", variables=variables, dims=dims, parts=(Part("main", lhs, rhs, relation=relation),)).checks()[0]


def test_sign_claims_are_proved_by_smt_and_by_branch_and_bound():
    identity = _claim(lambda ctx, v: v.x * ctx.sign(v.x), lambda ctx, v: ctx.abs(v.x), "==")
    assert prove(identity, make_proof_box(identity, {}), method="smt", time_limit=30).result.verdict.value == "proved"
    # Lion's update against the gradient: sign(m) . g <= ||g||_1, exactly by z3's case splits
    lion = (Vector("m", "n", lo=-2, hi=2), Vector("g", "n", lo=-2, hi=2))
    tight = _claim(lambda ctx, v: ctx.sum(ctx.sign(v.m) * v.g, 1), lambda ctx, v: ctx.norm_1(v.g), "<=", lion, (Dim("n", 2, 2),))
    assert prove(tight, make_proof_box(tight, {"n": 2}), method="smt", time_limit=30).result.verdict.value == "proved"
    # branch and bound splits until the sign is decided, where the claim has room
    slack = _claim(lambda ctx, v: v.x * ctx.sign(v.x), lambda ctx, v: ctx.const(3), "<=")
    p = prove(slack, make_proof_box(slack, {}), method="branch-and-bound", time_limit=30, max_boxes=2000)
    assert p.result.verdict.value == "proved", p.result.message


def test_a_claim_false_only_where_the_sign_is_zero_is_refuted_by_branch_and_bound():
    """sign(x)^2 >= 1 fails only at x = 0: the proof must not close the box around 0."""
    for hi, verdict in ((2, "refuted"), (3, "inconclusive")):  # 0 is the root box's centre, or inside a box left open
        check = _claim(lambda ctx, v: ctx.sign(v.x) * ctx.sign(v.x), lambda ctx, v: ctx.const(1), ">=", (Scalar("x", lo=-2, hi=hi),))
        p = prove(check, make_proof_box(check, {}), method="branch-and-bound", time_limit=30, max_boxes=400)
        assert p.result.verdict.value == verdict, p.result.message
