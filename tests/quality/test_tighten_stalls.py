"""``verify tighten`` past its two stalls (issue 19): a first witness whose ratio is irrational
(a ball, not a rational), and a largest ratio on the boundary of a non-strict hypothesis.

Both families are drawn from a seed; the true constant is known in closed form.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from verifier.claims import Claim, Hypothesis, Part, Scalar
from verifier.engine import SearchConfig
from verifier.tighten import tighten


def peak_claim(rng: random.Random) -> tuple[Claim, Fraction]:
    """``c0 exp(-(x - a)^2 - (y - b)^2) <= C``: the largest ratio, c0, only at (a, b); elsewhere irrational."""
    a, b = Fraction(rng.randint(5, 35), 10), Fraction(rng.randint(5, 35), 10)
    c0 = Fraction(rng.randint(11, 40), 10)
    part = Part(
        "main",
        lambda ctx, v: ctx.const(c0) * ctx.exp(-((v.x - ctx.const(a)) ** 2) - (v.y - ctx.const(b)) ** 2),
        lambda ctx, v: v.x * 0 + 1,
        lhs_text="c0 exp(-|(x, y) - (a, b)|^2)", rhs_text="1",
    )
    claim = Claim("peak", "a peak", f"{c0} exp(-(x-{a})^2-(y-{b})^2) <= C", (Scalar("x", lo=0, hi=4), Scalar("y", lo=0, hi=4)), (), (part,))
    return claim, c0


def boundary_claim(rng: random.Random) -> tuple[Claim, Fraction]:
    """``x y + x <= C`` under ``x + y <= s``: increasing in both, largest at x = (s + 1)/2 on the line."""
    s = Fraction(rng.randint(15, 60), 10)
    hypothesis = Hypothesis("x + y <= s", lambda ctx, v: ctx.const(s) - v.x - v.y)
    part = Part("main", lambda ctx, v: v.x * v.y + v.x, lambda ctx, v: v.x * 0 + 1, lhs_text="x y + x", rhs_text="1")
    claim = Claim("edge", "on the edge", f"x y + x <= C when x + y <= {s}", (Scalar("x", lo=0, hi=4), Scalar("y", lo=0, hi=4)), (), (part,), hypotheses=(hypothesis,))
    x = (s + 1) / 2
    return claim, x * (s - x + 1)


@pytest.mark.parametrize("seed", range(4))
def test_a_peak_met_first_at_irrational_ratios_reaches_its_height(seed):
    claim, truth = peak_claim(random.Random(seed))
    t = tighten(claim.checks()[0], SearchConfig(seed=seed, budget=20_000, time_limit=20.0))
    assert t.lower_bound is not None and t.lower_bound <= truth  # certified: never above the truth
    assert t.lower_bound == truth, (float(t.lower_bound), truth)
    assert all(r.ratio is not None for r in t.rounds if r.verdict == "refuted")
    assert t.last_verdict == "survived" and not t.round_limit_hit


@pytest.mark.parametrize("seed", range(4))
def test_a_maximum_on_a_hypothesis_boundary_is_reached(seed):
    claim, truth = boundary_claim(random.Random(100 + seed))
    t = tighten(claim.checks()[0], SearchConfig(seed=seed, budget=20_000, time_limit=20.0))
    assert t.lower_bound is not None and t.best_seen is not None
    assert t.lower_bound == truth, (float(t.lower_bound), truth)
    x, y = (Fraction(t.witness.vars[k]) for k in ("x", "y"))
    assert x + y <= Fraction(claim.statement.rsplit(" ", 1)[1])  # the witness satisfies the hypothesis exactly
