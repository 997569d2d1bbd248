"""``verify tighten`` finds the true constants: 2 for Lemma 4.1, about 1/4 for Lemma B.2."""

from fractions import Fraction

from tests.conftest import check_of
from verifier.engine import SearchConfig
from verifier.tighten import tighten


def test_lemma_4_1_needs_a_constant_of_2():
    t = tighten(check_of("4.1", reading="as-printed"), SearchConfig(seed=0, budget=40_000))
    assert t.lower_bound is not None and t.lower_bound >= Fraction(199, 100)
    assert t.witness.method == "exact" and Fraction(t.witness.ratio) == t.lower_bound
    # the first round refutes the constant 1; the last survives at the certified bound
    assert t.rounds[0].verdict == "refuted" and t.last_verdict == "survived" and t.last_constant == t.lower_bound
    assert t.best_seen is not None and t.best_seen >= float(t.lower_bound) - 1e-9


def test_lemma_b_2_constant_is_about_a_quarter():
    """lhs <= eps/2 asymptotically against 2(e^eps - 1): the ratio tends to 1/4 as eps -> 0."""
    t = tighten(check_of("B.2"), SearchConfig(seed=0, budget=30_000))
    assert t.rounds[0].verdict == "survived"
    assert Fraction(24, 100) <= t.lower_bound <= Fraction(1, 4)  # certified (ball arithmetic), never above the truth
    assert t.witness.method == "interval"
