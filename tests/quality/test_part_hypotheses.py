"""Hypotheses per part: two regimes of one statement as two parts of one claim.

Each member draws a breakpoint ``b`` and states ``|x - b| = x - b`` under ``x >= b`` and
``|x - b| = b - x`` under ``x <= b`` (part hypotheses), ``x`` in ``[-4, 4]``.  Both parts hold,
and neither would without its own hypothesis.  The false twin swaps the regimes: the search
refutes each part at a point of *its* regime (certified, shrunk there), the prover refutes it
and proves the true twin; a claim without the part hypotheses is refuted in both parts.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verifier import Claim, Hypothesis, Part, Scalar
from verifier.certify import Certifier
from verifier.engine import QUICK, SearchConfig, run_check
from verifier.prove import make_proof_box, prove

from .domain_families import exact_point


def regimes(seed: int, swapped: bool = False, with_hypotheses: bool = True) -> Claim:
    rng = np.random.default_rng([seed, 91])
    b = Fraction(int(rng.integers(-9, 10)), int(rng.choice([3, 4, 5, 7])))
    right = Hypothesis(f"x \u2265 {b}", lambda ctx, v: v.x - ctx.const(b))
    left = Hypothesis(f"x \u2264 {b}", lambda ctx, v: ctx.const(b) - v.x)
    if swapped:
        right, left = left, right
    return Claim(f"regimes-{seed}", "|x - b| by regime", f"|x - {b}| by regime", variables=(Scalar("x", lo=-4, hi=4),), dims=(),
                 parts=(Part("right", lambda ctx, v: ctx.abs(v.x - ctx.const(b)), lambda ctx, v: v.x - ctx.const(b), relation="==",
                             hypotheses=[right] if with_hypotheses else []),
                        Part("left", lambda ctx, v: ctx.abs(v.x - ctx.const(b)), lambda ctx, v: ctx.const(b) - v.x, relation="==",
                             hypotheses=[left] if with_hypotheses else [])))


def _breakpoint(claim) -> Fraction:
    return Fraction(claim.statement.split("- ")[1].split("|")[0])


@pytest.mark.parametrize("seed", range(4))
def test_each_part_is_searched_and_proved_under_its_own_hypotheses(seed):
    claim = regimes(seed)
    for check in claim.checks():
        other = next(p for p in claim.parts if p.name != check.part.name)
        assert check.part.hypotheses[0] in check.hypotheses and other.hypotheses[0] not in check.hypotheses
        assert run_check(check, SearchConfig(seed=seed, budget=QUICK.budget)).verdict.value == "survived"
        proof = prove(check, make_proof_box(check, {}), time_limit=30)
        assert proof.result.verdict.value == "proved", proof.result.message


@pytest.mark.parametrize("seed", range(4))
def test_the_swapped_regimes_are_refuted_in_each_part_at_a_point_of_its_regime(seed):
    claim = regimes(seed, swapped=True)
    b = _breakpoint(claim)
    for check in claim.checks():
        result = run_check(check, SearchConfig(seed=seed, budget=QUICK.budget))
        assert result.verdict.value == "refuted", (check.label, result.stop_reason)
        point = exact_point(result.counterexample)
        assert Certifier(50).certify(check, point, {}).violated
        x = Fraction(result.counterexample.vars["x"])
        assert (x < b) if check.part.name == "right" else (x > b), (check.label, x, b)  # in its own (swapped) regime
        assert prove(check, make_proof_box(check, {}), time_limit=30).result.verdict.value == "refuted"


@pytest.mark.parametrize("seed", range(2))
def test_without_the_part_hypotheses_both_parts_are_refuted(seed):
    for check in regimes(seed, with_hypotheses=False).checks():
        assert run_check(check, SearchConfig(seed=seed, budget=QUICK.budget)).verdict.value == "refuted"
