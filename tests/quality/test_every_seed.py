"""Issue 5: a refuted claim is found from every seed within the default budget, not from a
lucky one.  Lemma C.2 part 1 is the hardest of the pack (a d = 3 sign pattern at the edge
of the hypotheses); before the search key and the redraw move it survived seeds 0 and 4."""

import pytest

from tests.conftest import check_of
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict


@pytest.mark.parametrize("seed", range(5))
def test_lemma_c_2_part_1_found_from_every_seed(seed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no stored counterexample in sight
    config = SearchConfig(seed=seed, shrink=False)
    r = run_check(check_of("C.2", part="1"), config)
    assert r.verdict is Verdict.REFUTED, (r.stop_reason, r.stats.max_ratio)
    assert r.certified and r.method == "interval"
    assert r.counterexample.found_by.evaluations <= config.budget
