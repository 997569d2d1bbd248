"""The audit: search, certify, shrink, prove what survives, save -- the whole pipeline, in one place.

    Audit(options, runner).run(checks)
      search   each check in a worker: generate -> target -> refine -> deep, every suspect
               re-checked and certified, the counterexample shrunk    (verifier.search)
      prove    each survivor in a worker, on the domain its claim states, within the proof
               budget                                                  (verifier.proof_audit)
      save     every certified counterexample, here                    (verifier.store)

Every command that checks claims -- ``lemma``, ``expr``, ``all``, ``lock``, ``check``, the
pytest plugin -- builds :class:`AuditOptions`, hands its checks to an :class:`Audit` and its
result to a reporter.  Whatever runs a claim's code runs in a worker of the runner; this
process receives plain data, checks that each answer is the one it asked for, and decides.
A worker that does not come back (it exited, crashed, hung, forked, or broke the protocol)
costs its own row, which says ``error`` and why.

The runner names each check in its own way (:meth:`~verifier.runner.Runner.ref`): the
process that decides names it by pack and key (:class:`PackRunner`), so that a worker loads
only that pack; tests and workers holding checks in memory name them by a token or by value.
"""

from __future__ import annotations

import dataclasses
import enum
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from .claims import Check
from .limits import capped_jobs
from .proof_audit import NO_PROOFS, PROOF_FIRST_SECONDS, ProofBudget, wants_proof
from .results import FAILING, CheckResult, ProofAttempt, ProofStatus, RunResult, Verdict
from .runner import ForkedRunner, Outcome, Runner
from .search.config import SearchConfig
from . import tasks as tasks_

#: seconds an isolated proof may run past its own time limit before its worker stops it
PROOF_GRACE = 5.0
#: seconds a worker may take to export a check's formula as data
FORMULA_SECONDS = 120.0


@dataclass(frozen=True)
class AuditOptions:
    """What an audit may spend and keep: the search's configuration, the proofs' budget, and
    where certified counterexamples are saved (None: nowhere)."""

    search: SearchConfig = SearchConfig()
    proofs: ProofBudget = NO_PROOFS
    store: Path | None = None
    force: bool = False


class Stop(str, enum.Enum):
    """How an audit ended."""

    FINISHED = "finished"  # every check searched, every survivor's proof attempted
    PROOF_TIME_SPENT = "proof-time-spent"  # some survivors' proofs were not started: the total proof time ran out

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class AuditResult(RunResult):
    """Every check's row, what was saved where, and what could not be saved and why."""

    saved: dict = dataclasses.field(default_factory=dict)  # key -> path
    unsaved: dict = dataclasses.field(default_factory=dict)  # key -> why not
    stop: Stop = Stop.FINISHED


# ---------------------------------------------------------------------------- tasks
@dataclass(frozen=True)
class SearchTask:
    ref: object  # how the runner names the check
    config: SearchConfig
    progress: bool = False


@dataclass(frozen=True)
class ProofTask:
    ref: object
    budget: ProofBudget
    deadline: float
    share: float = 1.0
    cap: float | None = None  # the seconds the check's own time limit leaves its proof
    locked: tuple | None = None  # (status, method, volume %): not tried again, described as the lock records it


def check_time_limit(time_limit: float) -> float:
    """Seconds a check's worker may run before it is stopped: ``--time`` and a grace for the work
    after the search's deadline (a batch under way, a certificate, the statistics), generous
    because a loaded machine (load 15 on 2 cores) runs it 8 times slower."""
    return time_limit + max(5.0, 0.25 * time_limit)


def _affinity(task) -> object:
    """Tasks of one pack share workers; no worker runs two packs' code."""
    return getattr(task.ref, "source", None)


class Audit:
    """One run of the pipeline over a list of checks (see the module's text)."""

    def __init__(self, options: AuditOptions, runner: Runner, jobs: int = 1):
        self.options = options
        self.runner = runner
        self.jobs = capped_jobs(jobs)

    # ------------------------------------------------------------------------ the phases
    def run(self, checks: Sequence[Check], on_result: Callable[[CheckResult], None] | None = None,
            progress_factory=None) -> AuditResult:
        """Search every check, prove the survivors, save the counterexamples.  ``on_result``
        sees each row once it is final (a survivor's after its proof), as soon as it is."""
        checks = list(checks)
        proving = self.options.proofs.enabled

        def searched(result):
            if on_result is not None and not (proving and wants_proof(result)):
                on_result(result)

        results = self.search(checks, on_result=searched, progress_factory=progress_factory)
        results, stop = self.prove_survivors(checks, results, on_result=on_result)
        saved, unsaved = self.save(checks, results)
        return AuditResult(tuple(results), saved, unsaved, stop)

    def search(self, checks: Sequence[Check], config: SearchConfig | None = None, on_result=None,
               progress_factory=None) -> list[CheckResult]:
        """Each check's search in a worker, in order; ``on_result`` sees each row as soon as it
        and those before it are there.  With proofs enabled, small polynomial checks are first
        given to z3 on their whole search domain (:func:`verifier.proof_audit.proof_before_search`):
        one it proves is not searched."""
        config = self.options.search if config is None else config
        checks = list(checks)
        workers = self.jobs if len(checks) > 1 else 1
        each = dataclasses.replace(config, jobs=1) if workers > 1 else config
        proved, spent = self._proved_first(checks, each, workers) if config.prove_first and self.options.proofs.enabled else ({}, {})
        to_search = [i for i in range(len(checks)) if i not in proved]
        bars: dict[int, object] = {}

        def bar(i):
            if i not in bars:
                bars[i] = progress_factory(checks[i]) if progress_factory else None
            return bars[i]

        def relay(n, message):
            if bar(to_search[n]) and isinstance(message, tuple) and len(message) == 2:
                bar(to_search[n])(*message)

        # what z3 spent on a check first comes out of its --time
        tasks = [SearchTask(self.runner.ref(checks[i]), dataclasses.replace(each, time_limit=max(each.time_limit - spent.get(i, 0.0), 0.1))
                            if i in spent else each, progress_factory is not None) for i in to_search]
        outcomes = iter(self._map(tasks_.search, tasks, workers, limit=lambda t: check_time_limit(t.config.time_limit), on_message=relay))
        results = []
        for i, check in enumerate(checks):
            if i in proved:
                result = proved[i]
            else:
                result = self._answer(check, next(outcomes), config, CheckResult)
                if i in spent:
                    result = dataclasses.replace(result, seconds=result.seconds + spent[i])
            if bar(i):
                bar(i)(result.stats.evaluations, config.budget)
            results.append(result)
            if on_result is not None:
                on_result(result)
        return results

    def _proved_first(self, checks, config, workers) -> tuple[dict[int, CheckResult], dict[int, float]]:
        """({index: row} of the checks z3 proves before any search, {index: seconds spent} on the
        others); a worker that does not come back only means the check is searched."""
        tasks = [SearchTask(self.runner.ref(ch), config) for ch in checks]
        proved, spent = {}, {}
        for i, (check, outcome) in enumerate(zip(checks, self._map(tasks_.prove_first, tasks, workers, limit=_first_limit))):
            value = outcome.value if outcome.returned else None
            if isinstance(value, CheckResult) and (value.claim, value.part, value.reading) == check.key:
                proved[i] = value
            elif outcome.seconds > 0.05:
                spent[i] = outcome.seconds
        return proved, spent

    def prove_survivors(self, checks: Sequence[Check], results: Sequence[CheckResult], budget: ProofBudget | None = None,
                        on_result=None, check_time: float | None = None, locked: dict | None = None
                        ) -> tuple[list[CheckResult], Stop]:
        """``results`` with a proof attached to every check that survived its search.

        ``check_time``: the seconds each check may take, search and proof together (default:
        the search's ``--time``).  ``locked``: key -> (status, method, volume %) of proofs not
        to be tried again, described as the lock records them on the domain stated now.
        """
        budget = self.options.proofs if budget is None else budget
        check_time = self.options.search.time_limit if check_time is None else check_time
        results = list(results)
        todo = [i for i, r in enumerate(results) if wants_proof(r)] if budget.enabled else []
        caps = [check_time - results[i].seconds for i in todo]
        stop = Stop.FINISHED
        for i, (proof, refuting) in zip(todo, self.prove([checks[i] for i in todo], budget, caps, locked)):
            if proof.status is ProofStatus.NOT_ATTEMPTED:
                stop = Stop.PROOF_TIME_SPENT
            results[i] = dataclasses.replace(refuting if refuting is not None else results[i], proof=proof)
            if on_result is not None:
                on_result(results[i])
        return results, stop

    def prove(self, checks: Sequence[Check], budget: ProofBudget | None = None, caps: Sequence[float | None] | None = None,
              locked: dict | None = None) -> Iterator[tuple[ProofAttempt, CheckResult | None]]:
        """An attempt per check on the domain its claim states, in order, side by side in the
        workers (the total cap starts now): (the attempt, the prover's certified refutation or None).

        Each attempt may take its fair part of what is left of the total: the time left times the
        workers, over the attempts not yet started.  Attempts that end early (z3 often answers at
        once) pass their time on, and no check goes unattempted while others ran to their limit.
        ``caps``: per check, the seconds its own time limit leaves its proof (None: no cap).
        """
        budget = self.options.proofs if budget is None else budget
        checks = list(checks)
        if not checks:
            return
        caps = list(caps) if caps is not None else [None] * len(checks)
        workers = max(1, min(self.jobs, len(checks)))
        deadline = time.monotonic() + budget.total
        tasks = [ProofTask(self.runner.ref(check), budget, deadline, workers / (len(checks) - n), cap, (locked or {}).get(check.key))
                 for n, (check, cap) in enumerate(zip(checks, caps))]
        for check, outcome in zip(checks, self._map(tasks_.prove_survivor, tasks, workers, limit=_proof_time_limit)):
            yield self._proof_answer(check, outcome)

    def save(self, checks: Sequence[Check], results: Sequence[CheckResult]) -> tuple[dict, dict]:
        """Store every refuting counterexample (when the options name a store): ({key: path},
        {key: why not saved}).  Without ``force`` an existing file that differs is kept (a lock
        may cite it) and the new one gets the next free name; a file that cannot be written
        does not stop the others."""
        if self.options.store is None:
            return {}, {}
        from .evidence import CounterexampleFileError
        from .store import CounterexampleStore

        store = CounterexampleStore(self.options.store)
        by_key = {ch.key: ch for ch in checks}
        saved, unsaved = {}, {}
        for r in results:
            if r.verdict in FAILING and r.counterexample is not None:
                key = (r.claim, r.part, r.reading)
                check = by_key[key]
                try:
                    saved[key] = str(store.save(r.counterexample, statement=check.part.statement or check.claim.statement,
                                                force=self.options.force))
                except (CounterexampleFileError, OSError) as exc:
                    unsaved[key] = str(exc)
        return saved, unsaved

    def formula(self, check: Check, dims) -> "Formula":
        """``check``'s formula at ``dims``, exported as data by a worker of its pack (the claim's code
        runs there); :class:`~verifier.formula.NotExportable` naming why it cannot be."""
        from .formula import Formula, NotExportable

        (outcome,) = self._map(tasks_.export_formula, [tasks_.FormulaTask(self.runner.ref(check), dict(dims))], 1,
                               limit=lambda _: FORMULA_SECONDS)
        if not outcome.returned:
            raise NotExportable(f"the claim's code {outcome.describe()} while its formula was exported")
        kind, value = outcome.value
        if kind == "formula" and isinstance(value, Formula) and (value.claim, value.part, value.reading) == check.key:
            return value
        raise NotExportable(value if kind == "not-exported" and isinstance(value, str) else "its worker sent back another formula")

    # ------------------------------------------------------------------------ answers, checked
    def _map(self, fn, tasks, workers, limit=None, on_message=None):
        return self.runner.map(fn, tasks, limit=limit, on_message=on_message, affinity=_affinity, workers=workers)

    def _answer(self, check: Check, outcome: Outcome, config: SearchConfig, kind) -> CheckResult:
        """The worker's row for ``check``, if it came back and is that check's; else an error row saying why."""
        from .search.coordinator import abrupt_result

        if not outcome.returned:
            return abrupt_result(check, config, outcome)
        value = outcome.value
        if not isinstance(value, kind) or (value.claim, value.part, value.reading) != check.key:
            return abrupt_result(check, config, Outcome("violated", detail="sent back a row that is not this check's",
                                                        seconds=outcome.seconds))
        return value

    def _proof_answer(self, check: Check, outcome: Outcome) -> tuple[ProofAttempt, CheckResult | None]:
        if outcome.returned:
            value = outcome.value
            if (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], ProofAttempt)
                    and (value[1] is None or isinstance(value[1], CheckResult) and (value[1].claim, value[1].part, value[1].reading) == check.key)):
                return value
            outcome = Outcome("violated", detail="sent back a proof that is not this check's", seconds=outcome.seconds)
        return failed_attempt(outcome), None


def run_checks(checks: Sequence[Check], config: SearchConfig, progress_factory=None, on_result=None, runner: Runner | None = None
               ) -> RunResult:
    """The search phase alone, for checks held in this process (tests, benchmarks, a worker):
    each check in a forked worker where processes fork (a claim that exits, raises past the
    engine, hangs or crashes costs only its own row), else one after another here."""
    from .runner import forking_available, make_runner

    checks = list(checks)
    if runner is not None:
        return RunResult(tuple(Audit(AuditOptions(config), runner, config.jobs).search(checks, on_result=on_result,
                                                                                    progress_factory=progress_factory)))
    jobs = capped_jobs(config.jobs) if len(checks) > 1 else 1
    made = ForkedRunner(jobs) if forking_available() else make_runner(1)
    with made:
        return run_checks(checks, config, progress_factory, on_result, made)


def _first_limit(task: SearchTask) -> float:
    return PROOF_FIRST_SECONDS + PROOF_GRACE


def _proof_time_limit(task: ProofTask) -> float:
    """The seconds a proof may take from now: its own limit, as the attempt computes it, and a grace."""
    left = min(task.budget.per_check, max(task.deadline - time.monotonic(), 0.0))
    return (left if task.cap is None else min(left, max(task.cap, 0.0))) + PROOF_GRACE


def failed_attempt(outcome: Outcome) -> ProofAttempt:
    """The attempt of a proof whose process did not come back (it crashed, exited, or ran past
    its time limit and a grace): the search's verdict stands."""
    return ProofAttempt(ProofStatus.ERROR, "", seconds=outcome.seconds, message=f"the proof {outcome.describe()}; the search's verdict stands")


__all__ = ["Audit", "AuditOptions", "AuditResult", "PROOF_GRACE", "ProofTask", "SearchTask", "Stop", "check_time_limit",
           "failed_attempt", "run_checks"]
