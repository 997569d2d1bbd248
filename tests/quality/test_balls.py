"""Balls of variable centre and radius: Hoelder's bound and its false twin on seeded members
(:mod:`.ball_families`).  The false twin is refuted at a point exactly in the ball, which an
independent certifier confirms; the true one survives the search and is proved."""

from __future__ import annotations

import pytest

from verifier.certify import Certifier
from verifier.contexts import ExactContext
from verifier.engine import QUICK, SearchConfig, run_check
from verifier.kinds import membership_errors
from verifier.prove import make_proof_box, prove

from .ball_families import ball_claim
from .domain_families import exact_point


@pytest.mark.parametrize("seed", range(6, 14))  # every centre (variable, constant, origin) and radius (variable, rational, expression)
def test_the_false_twin_is_refuted_in_the_ball_and_the_true_one_survives_and_is_proved(seed):
    false = ball_claim(seed, false=True)
    result = run_check(false, SearchConfig(seed=seed, budget=QUICK.budget, shrink=False))
    assert result.verdict.value == "refuted", (false.claim.title, result.stop_reason, result.message)
    cx = result.counterexample
    point = exact_point(cx)
    assert membership_errors(false, point, cx.dims, ExactContext()) is None
    assert Certifier(50).certify(false, point, cx.dims).violated
    true = ball_claim(seed, false=False)
    assert run_check(true, SearchConfig(seed=seed, budget=QUICK.budget)).verdict.value == "survived", true.claim.title
    dims = {d.name: d.lo for d in true.dims}
    proof = prove(true, make_proof_box(true, dims), time_limit=30)
    assert proof.result.verdict.value == "proved", (true.claim.title, proof.result.message)
