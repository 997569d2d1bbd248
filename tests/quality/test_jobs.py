"""A seed gives the same result whatever the number of jobs (chunks are seed-addressed)."""

import dataclasses

from lemmas import REGISTRY
from tests.conftest import check_of
from verifier.audit import run_checks
from verifier.engine import SearchConfig, run_check


def _same(a, b):
    assert a.verdict == b.verdict
    assert a.stats == b.stats
    assert a.counterexample == dataclasses.replace(b.counterexample, found_by=dataclasses.replace(
        b.counterexample.found_by, seconds=a.counterexample.found_by.seconds)) if a.counterexample else b.counterexample is None


def test_one_check_split_across_processes_gives_the_serial_result():
    for check, seed in [(check_of("4.1", reading="as-printed"), 3), (check_of("B.2"), 1), (check_of("3.3", part="1"), 2)]:
        config = SearchConfig(seed=seed, budget=12_000, batch=1024)
        _same(run_check(check, config), run_check(check, dataclasses.replace(config, jobs=2)))


def test_many_checks_across_processes_give_the_serial_results():
    checks = [ch for c in REGISTRY for ch in c.checks()]
    config = SearchConfig(seed=5, budget=5_000)
    serial = run_checks(checks, config)
    parallel = run_checks(checks, dataclasses.replace(config, jobs=2))
    assert [r.claim for r in parallel.results] == [r.claim for r in serial.results]
    for a, b in zip(serial.results, parallel.results):
        _same(a, b)
