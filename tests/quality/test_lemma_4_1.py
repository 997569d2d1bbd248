"""Hard cases do get found: Lemma 4.1 is refuted from scratch, every time, and shrunk."""

import pytest

from tests.conftest import check_of
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict
from verifier.evidence import parse_exact


@pytest.mark.parametrize("seed", range(10))
def test_refuted_from_scratch_with_a_certified_small_counterexample(seed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no stored counterexample is anywhere in sight
    r = run_check(check_of("4.1", reading="as-printed"), SearchConfig(seed=seed, budget=100_000))
    assert r.verdict is Verdict.REFUTED
    assert r.certified and r.method == "exact"
    cx = r.counterexample
    # as small as the reviewer's: n = 3 (n <= 2 cannot fail), d = 1, integer entries
    assert cx.dims == {"n": 3, "d": 1}
    values = [parse_exact(x) for name in ("A", "B") for row in cx.vars[name] for x in row] + [parse_exact(cx.vars["eps"])]
    assert all(v.denominator == 1 and abs(v) <= 3 for v in values)
    assert parse_exact(cx.margin) < 0
    assert parse_exact(cx.lhs) > parse_exact(cx.rhs)
    assert not list(tmp_path.iterdir())  # the search wrote nothing


def test_the_same_seed_gives_the_same_counterexample():
    a = run_check(check_of("4.1", reading="as-printed"), SearchConfig(seed=7, budget=50_000))
    b = run_check(check_of("4.1", reading="as-printed"), SearchConfig(seed=7, budget=50_000))
    assert a.counterexample.vars == b.counterexample.vars
    assert a.counterexample.found_by.evaluations == b.counterexample.found_by.evaluations
