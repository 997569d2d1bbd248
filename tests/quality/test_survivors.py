"""True claims survive their default budget, and the report says how close the search came."""

import pytest

from lemmas import REGISTRY
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict

SURVIVORS = [ch for ch in REGISTRY.get("4.2").checks(reading="intended")] + REGISTRY.get("B.2").checks()


@pytest.mark.parametrize("check", SURVIVORS, ids=lambda c: c.label)
def test_survives_default_budget(check):
    r = run_check(check, SearchConfig(seed=0))
    if r.verdict is Verdict.INCONCLUSIVE:  # equality cases through exp: ties no certificate could sign (issue 13)
        assert r.stats.tight_undecided > 0 and r.counterexample is None, r.message
    else:
        assert r.verdict is Verdict.SURVIVED, r.counterexample
    assert r.stats.evaluations >= SearchConfig().budget
    assert r.stats.best_relative_margin is not None and r.stats.best_relative_margin >= 0
    assert r.stats.max_ratio is not None and r.stats.max_ratio <= 1 + 1e-12


def test_lemma_4_2_is_tight_and_b_2_is_not():
    # Lemma 4.2 (1) is an equality at b = eps * 1: the search reaches ratio 1.
    r = run_check(REGISTRY.get("4.2").checks(reading="intended", part="1")[0], SearchConfig(seed=1, budget=50_000))
    assert r.stats.max_ratio == pytest.approx(1.0, abs=1e-9)
    # Lemma B.2 is loose: sup lhs/rhs is 1/4 (softmax is 1/2-Lipschitz in l_inf, against 2 eps).
    r = run_check(REGISTRY.get("B.2").checks()[0], SearchConfig(seed=1, budget=50_000))
    assert 0.2 < r.stats.max_ratio <= 0.25 + 1e-9


def test_strict_reading_of_lemma_4_2_part_3_is_refuted_at_an_exact_equality():
    r = run_check(REGISTRY.get("4.2").checks(reading="as-printed")[0], SearchConfig(seed=0, budget=50_000))
    assert r.verdict is Verdict.REFUTED
    assert r.method == "exact" and "equal" in r.counterexample.certificate
    assert r.counterexample.margin == "0"
