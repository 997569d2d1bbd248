"""``verify tighten`` on ``>=`` parts, "no constant suffices", and the round limit (issues 18, 13)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

import verifier.cli
from tests.conftest import check_of
from verifier.claims import Claim, Part, Scalar
from verifier.packside import memory_pack
from verifier.engine import SearchConfig
from verifier.registry import Registry
from verifier.tighten import tighten

CONFIG = SearchConfig(seed=0, budget=6000, time_limit=20.0)


def quadratic_claim(a: int = 3) -> Claim:
    """``x^2 + 1 >= c * a x`` on [1, 10]: (x^2 + 1)/(a x) is smallest at x = 1, so c = 2/a."""
    part = Part("main", lambda ctx, v: v.x * v.x + 1, lambda ctx, v, a=a: a * v.x, relation=">=", lhs_text="x^2 + 1", rhs_text=f"{a}x")
    return Claim("q", "quadratic", f"x^2 + 1 >= c {a}x", (Scalar("x", lo=1, hi=10),), (), (part,))


def test_x2_plus_1_against_3x_reports_two_thirds():
    t = tighten(quadratic_claim().checks()[0], CONFIG)
    assert t.upper_bound == Fraction(2, 3) and t.lower_bound is None
    assert t.best_seen == pytest.approx(2 / 3)
    assert t.rounds[0].verdict == "refuted" and t.last_verdict == "survived"
    assert not t.no_constant and not t.round_limit_hit


@pytest.mark.parametrize("seed", range(3))
def test_geq_upper_bound_is_certified_and_near_the_truth(seed):
    """``e^x >= c (1 + x + k)`` on [-1, 3], k drawn from the seed: the true c is the min of the ratio."""
    rng = np.random.default_rng(seed)
    k = Fraction(int(rng.integers(1, 20)), 10)
    part = Part("main", lambda ctx, v: ctx.exp(v.x), lambda ctx, v, k=k: 1 + v.x + k, relation=">=")
    claim = Claim("g", "g", "e^x >= c(1 + x + k)", (Scalar("x", lo=-1, hi=3),), (), (part,))
    t = tighten(claim.checks()[0], CONFIG)
    # min over x of e^x / (1 + x + k) is at x = -k (inside for k <= 1), value e^-k; else at x = -1
    import mpmath

    x_star = max(-float(k), -1.0)
    truth = mpmath.exp(x_star) / (1 + x_star + float(k))
    assert t.upper_bound is not None and t.witness.method == "interval"
    bound = mpmath.mpf(t.upper_bound.numerator) / t.upper_bound.denominator
    assert bound >= truth - 1e-12  # certified: never below the truth
    assert bound <= truth * (1 + 1e-3)


def test_no_constant_suffices_when_rhs_is_zero_at_a_failing_point():
    t = tighten(check_of("4.1", reading="adversarial"), SearchConfig(seed=0, budget=20_000))
    assert t.no_constant and t.lower_bound is None
    assert t.witness is not None and t.witness.unbounded
    assert Fraction(t.witness.rhs) == 0 and Fraction(t.witness.lhs) > 0


def _slow_claim(seed: int) -> tuple[Claim, Fraction]:
    """``a x <= c`` on [0, 1], a drawn from the seed: the constant is a, reached round by round."""
    a = Fraction(int(np.random.default_rng(seed).integers(3, 9)))
    part = Part("main", lambda ctx, v, a=a: a * v.x, lambda ctx, v: ctx.const(1))
    return Claim("s", "s", f"{a} x <= c", (Scalar("x", lo=0, hi=1),), (), (part,)), a


@pytest.mark.parametrize("seed", range(2))
def test_rounds_go_on_past_the_limit_while_the_bound_still_rises(seed):
    claim, a = _slow_claim(seed)
    t = tighten(claim.checks()[0], SearchConfig(seed=seed, budget=2000), max_rounds=1)
    assert len(t.rounds) > 1 and t.lower_bound == a
    assert not t.round_limit_hit  # it ended because a round survived at a, not at the limit


def test_round_limit_is_said(monkeypatch):
    import verifier.tighten as tighten_module
    from verifier.reporters.formal_report import summary_sentence, tighten_to_dict

    monkeypatch.setattr(tighten_module, "MIN_GAIN", Fraction(10**6))  # no round past the limit is worth it
    claim, a = _slow_claim(0)
    t = tighten(claim.checks()[0], SearchConfig(seed=0, budget=2000, shrink=False), max_rounds=1)
    assert len(t.rounds) == 1 and t.rounds[0].verdict == "refuted"
    assert t.round_limit_hit and "round limit" in t.message
    assert tighten_to_dict(t)["round_limit_hit"] is True
    assert "round limit reached" in summary_sentence(t)


def test_cli_tighten_json_upper_bound():
    memory_pack("tighten-geq", [quadratic_claim()])
    r = CliRunner().invoke(verifier.cli.main, ["tighten", "q", "--json", "--budget", "6000", "--pack", "tighten-geq"])
    assert r.exit_code == 0, r.output
    (item,) = json.loads(r.stdout)
    assert item["upper_bound_exact"] == "2/3" and item["lower_bound"] is None and item["certified"] is True
    assert item["no_constant_suffices"] is False and item["round_limit_hit"] is False
