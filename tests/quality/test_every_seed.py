"""Issue 5: a refuted claim is found from every seed within the default budget, not from a
lucky one.  These are the two hardest of the pack: Lemma C.2 part 1 (a d = 3 sign pattern at
the edge of the hypotheses) survived seeds 0 and 4 before the search key and the redraw move;
Lemma D.6 part 1 (attention, a d = 3 window of a constant) survived every seed."""

import pytest

from tests.conftest import check_of
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict

HARD = [("C.2", "1", None), ("D.6", "1", "attention")]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("cid,part,reading", HARD, ids=lambda x: str(x))
def test_found_from_every_seed(cid, part, reading, seed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no stored counterexample in sight
    config = SearchConfig(seed=seed, shrink=False)
    r = run_check(check_of(cid, part=part, reading=reading), config)
    assert r.verdict is Verdict.REFUTED, (r.stop_reason, r.stats.max_ratio)
    assert r.certified and r.method == "interval"
    assert r.counterexample.found_by.evaluations <= config.budget
