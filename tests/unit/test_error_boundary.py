"""Issue 16, part 3: one claim that raises, wherever it raises, costs only its own row."""

import pytest

import verifier.search.evaluate as evaluate_step
import verifier.search.coordinator as coordinator
from verifier import Claim, Part, Scalar
from verifier.audit import run_checks
from verifier.engine import SearchConfig, run_check
from verifier.results import RunResult, Verdict


def _claim(cid, lhs, relation="<="):
    return Claim(id=cid, kind="claim", title=cid, statement=cid, dims=[], variables=[Scalar("x", lo=-2, hi=2)],
                 parts=[Part("main", lhs=lhs, rhs=lambda ctx, v: ctx.const(1), relation=relation)])


def _faulty(ctx, v):
    raise TypeError("unsupported operand type(s) for *: 'float' and 'fmpq'")


FINE = _claim("T.fine", lambda ctx, v: v.x * v.x)  # x^2 <= 1 fails at x = 2: refuted
FAULTY = _claim("T.faulty", _faulty)
CONFIG = SearchConfig(seed=0, budget=4_000, shrink=False)


def _rows(jobs):
    run = run_checks([FINE.checks()[0], FAULTY.checks()[0], FINE.checks()[0]], SearchConfig(seed=0, budget=4_000, jobs=jobs))
    return run


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_raising_claim_gives_an_error_row_and_the_others_are_complete(jobs):
    run = _rows(jobs)
    fine1, bad, fine2 = run.results
    assert fine1.verdict is Verdict.REFUTED and fine2.verdict is Verdict.REFUTED
    assert fine1.counterexample is not None and fine2.counterexample is not None
    assert bad.verdict is Verdict.ERROR
    assert (bad.claim, bad.part, bad.reading) == ("T.faulty", "main", "as-printed")
    assert "TypeError" in bad.message and "T.faulty" in bad.message
    assert run.exit_code == 2


def test_a_sampler_that_cannot_be_built_is_an_error_row(monkeypatch):
    real = evaluate_step.Sampler

    def sampler(check):
        if check.claim.id == "T.faulty":
            raise ValueError("no pattern for this variable")
        return real(check)

    monkeypatch.setattr(evaluate_step, "Sampler", sampler)
    r = run_check(FAULTY.checks()[0], CONFIG)
    assert r.verdict is Verdict.ERROR and "building its sampler" in r.stop_reason and "ValueError" in r.message


def test_a_shrinker_that_raises_keeps_the_certified_counterexample(monkeypatch):
    class Broken:
        def __init__(self, *a, **k):
            pass

        def shrink(self, *a, **k):
            raise RuntimeError("shrinker fault")

    monkeypatch.setattr(coordinator, "Shrinker", Broken)
    r = run_check(FINE.checks()[0], SearchConfig(seed=0, budget=4_000))
    assert r.verdict is Verdict.REFUTED and r.certified and not r.counterexample.shrunk
    assert "RuntimeError: shrinker fault" in r.message


def test_a_search_stopped_by_its_first_counterexample_is_not_time_limited():
    r = run_check(FINE.checks()[0], CONFIG)
    assert r.verdict is Verdict.REFUTED and not r.time_limited
    true_claim = _claim("T.true", lambda ctx, v: v.x * v.x / 4)
    r = run_check(true_claim.checks()[0], SearchConfig(seed=0, budget=10**7, time_limit=0.3))
    assert r.verdict is Verdict.SURVIVED and r.time_limited and r.stop_reason == "time limit reached"
