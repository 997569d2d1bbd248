"""Proofs in the audit: a check that survived the search is proved on the domain its claim states.

"Survived" alone cannot be told apart from "not searched hard"; a proof on a stated bounded
domain (fixed dimensions, a box per variable) can.  Each surviving check -- and each one left
``inconclusive`` by a tie the certifier could not sign, which a proof may still settle -- gets
one attempt with a time limit of its own, and all attempts together share a total cap, so an
audit of the whole paper stays within a known time however many checks survive.  A proof
that runs out of time says how much of the domain's volume it decided.

Attempts are independent, so they run side by side on the executor's worker processes; what
one attempt finds does not depend on the others (only when the total cap ends it does).  Each
runs in an isolated worker (:mod:`verifier.isolation`): native code that aborts or segfaults
kills only the proof, whose row says so with the signal, and the search's verdict stands.

A check's ``--time`` bounds its search and its proof together: the proof gets what the search
left of it (``cap``), and none when the search spent it all.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from .claims import Check
from .limits import MAX_PROVE_BOXES, LimitError, capped_jobs, check_int
from .executor import forks_safely, make_executor, registered_check
from .isolation import Outcome, forking_available, isolated_map
from .prove import BoundedDomainError, DomainError, MethodError, make_domain, prove
from .prove.identity import degenerate
from .results import CheckResult, ProofAttempt, ProofStatus, RunResult, Verdict

#: below this many seconds left of the total cap an attempt is not started: it could decide nothing
MIN_ATTEMPT_SECONDS = 0.5
#: after a proof on the claim's sizes, this many larger sizes are tried in the same attempt's time
LARGER_SIZES = 2


@dataclass(frozen=True)
class ProofBudget:
    """Work per attempt, and seconds per attempt and for all attempts together; ``per_check = 0`` attempts none.

    ``boxes`` is the budget that decides (branch-and-bound boxes per attempt, counted between
    fixed rounds): an attempt it stops has decided the same volume on any machine, so a lock
    written twice is the same.  The seconds are safety caps, generous by default; an attempt
    they stop says so, and its share of volume depends on the machine.
    """

    per_check: float = 60.0
    total: float = 150.0
    dps: int = 50
    boxes: int | None = 2500

    def __post_init__(self):
        for name in ("per_check", "total"):
            value = getattr(self, name)
            if not (value >= 0 and math.isfinite(value)):
                raise ValueError(f"proof time {name} must be a finite number of seconds >= 0, got {value!r}")
        if self.boxes is not None:
            try:
                check_int(self.boxes, 1, MAX_PROVE_BOXES)
            except LimitError as exc:
                raise ValueError(f"proof box budget {exc}") from None

    @property
    def enabled(self) -> bool:
        return self.per_check > 0 and self.total > 0


NO_PROOFS = ProofBudget(per_check=0.0, total=0.0)


def wants_proof(result: CheckResult) -> bool:
    """Survived, or inconclusive without a violation: the verdicts a proof can strengthen."""
    return result.verdict in (Verdict.SURVIVED, Verdict.INCONCLUSIVE) and result.counterexample is None


def volume_percent(fraction: float | None) -> float | None:
    """Rounded *down* to 0.1 %: never claims more of the domain than was decided."""
    if fraction is None:
        return None
    return math.floor(fraction * 1000 + 1e-9) / 10


def attempt(check: Check, budget: ProofBudget, deadline: float | None = None, share: float = 1.0,
            cap: float | None = None) -> tuple[ProofAttempt, CheckResult | None]:
    """One proof of ``check`` on its stated domain: the attempt, and the prover's result when it
    refuted the check (a certified counterexample), else None.  ``share``: the fraction of the
    time left before ``deadline`` this attempt may take; ``cap``: the seconds the check's own
    time limit leaves it."""
    # with a box budget the work is bounded already: no fair share of the clock, which would make
    # the share of volume depend on the machine and on the order the attempts ran in
    share = 1.0 if budget.boxes is not None else min(1.0, share)
    left = budget.per_check if deadline is None else min(budget.per_check, (deadline - time.monotonic()) * share)
    try:
        domain = domain_of(check)
    except DomainError as exc:
        return ProofAttempt(ProofStatus.ERROR, "", message=f"proof domain: {exc}"), None
    where, spec = domain.describe(check), domain.to_dict()
    if cap is not None and cap < MIN_ATTEMPT_SECONDS <= left:
        return ProofAttempt(ProofStatus.NOT_ATTEMPTED, where, spec, message="the search spent the check's time limit (--time)"), None
    left = left if cap is None else min(left, cap)
    if left < MIN_ATTEMPT_SECONDS:
        return ProofAttempt(ProofStatus.NOT_ATTEMPTED, where, spec, message="the total proof time was spent before this check"), None
    start = time.monotonic()
    try:
        proof = prove(check, domain, "auto", left, budget.dps, max_boxes=box_budget(check, budget))
    except (MethodError, BoundedDomainError) as exc:
        return ProofAttempt(ProofStatus.ERROR, where, spec, seconds=time.monotonic() - start, time_limit=left, message=str(exc)), None
    r, d = proof.result, proof.details
    common = dict(domain=where, spec=spec, method=d.method, seconds=time.monotonic() - start, time_limit=left)
    if r.verdict is Verdict.PROVED:
        also = also_proved(check, budget, start + left)
        common["seconds"] = time.monotonic() - start
        return ProofAttempt(ProofStatus.PROVED, volume_percent=100.0, also=also, message=r.message,  # an identity's rewriting
                            identical_sides=d.method == "identity" and degenerate(check, domain, grown_domain(check, domain)),
                            certificate=d.certificate, **common), None
    if r.counterexample is not None:
        return ProofAttempt(ProofStatus.REFUTED, message=r.counterexample.certificate, **common), r
    if r.verdict is Verdict.ERROR:
        return ProofAttempt(ProofStatus.ERROR, message=r.message, **common), None
    return ProofAttempt(ProofStatus.INCONCLUSIVE, volume_percent=volume_percent(d.volume_proved), message=r.message, **common), None


def larger_domains(check: Check) -> list[tuple[str, object]]:
    """(sizes as text, domain) for up to LARGER_SIZES larger sizes: every dimension the claim's
    proof domain does not fix one larger each time, within its range."""
    declared = check.proof_domain
    free = [d for d in check.dims if d.name not in declared.dims]
    sizes = declared.sizes(check.dims)
    out = []
    for step in range(1, LARGER_SIZES + 1):
        bigger = dict(sizes, **{d.name: min(sizes[d.name] + step, d.hi) for d in free})
        if out and bigger == out[-1][2] or bigger == sizes:
            break
        try:
            domain = _domain_at(check, bigger)
        except DomainError:
            break
        out.append((", ".join(f"{d.name} = {bigger[d.name]}" for d in free), domain, bigger))
    return [(text, domain) for text, domain, _ in out]


def grown_domain(check: Check, domain):
    """The domain with every dimension one larger where its range allows (None: none can grow)."""
    sizes = {d.name: min(domain.dims[d.name] + 1, d.hi) for d in check.dims}
    if sizes == dict(domain.dims):
        return None
    try:
        return _domain_at(check, sizes)
    except DomainError:
        return None


def also_proved(check: Check, budget: ProofBudget, deadline: float) -> tuple[str, ...]:
    """The larger sizes proved after a proof at the claim's own sizes, in order, before the
    first that is not (or the attempt's time runs out): where budget allows, a proof says how far it goes."""
    out = []
    for text, domain in larger_domains(check):
        left = deadline - time.monotonic()
        if left < MIN_ATTEMPT_SECONDS:
            break
        try:
            proof = prove(check, domain, "auto", left, budget.dps, max_boxes=box_budget(check, budget))
        except (MethodError, BoundedDomainError):
            break
        if proof.result.verdict is not Verdict.PROVED:
            break
        out.append(text)
    return tuple(out)


def box_budget(check: Check, budget: ProofBudget) -> int | None:
    """The claim's own ``max_boxes`` if it states one, else the run's; None (a time-only run, as
    locks written before box budgets) stays None."""
    if budget.boxes is None:
        return None
    declared = check.proof_domain.max_boxes
    return budget.boxes if declared is None else declared


def as_locked(check: Check, status: str, method: str, volume_percent: float | None) -> ProofAttempt:
    """A proof not tried again, as the lock records it, on the domain the check's claim states now.

    ``verify check`` does not rerun a proof locked as not going through (it cannot drift, only
    gain); the domain is still computed afresh, so one that moved is seen."""
    try:
        domain = domain_of(check)
    except DomainError as exc:
        return ProofAttempt(ProofStatus.ERROR, "", message=f"proof domain: {exc}")
    return ProofAttempt(ProofStatus(status), domain.describe(check), domain.to_dict(), method=method, volume_percent=volume_percent,
                        message="as locked: a proof that did not go through is not tried again by verify check")


def domain_of(check: Check):
    """The prover's domain for the one the claim states."""
    return _domain_at(check, check.proof_domain.sizes(check.dims))


def _domain_at(check: Check, sizes: dict):
    """The claim's declared proof domain (its box, or its variables' own bounds) at ``sizes``."""
    declared = check.proof_domain
    return make_domain(check, sizes, declared.box, declared.boxes, own_bounds=not declared.box_stated)


def with_proof(result: CheckResult, proof: ProofAttempt, refuting: CheckResult | None) -> CheckResult:
    """The search's result with its proof attached; a refuting proof's certified result replaces it."""
    base = refuting if refuting is not None else result
    return dataclasses.replace(base, proof=proof)


def _attempt_task(args) -> tuple[ProofAttempt, CheckResult | None]:
    ref, budget, deadline, share, cap = args
    check = ref if isinstance(ref, Check) else registered_check(ref)
    try:
        return attempt(check, budget, deadline, share, cap)
    except Exception as exc:  # one check's failure is its own row, never the whole audit's
        return ProofAttempt(ProofStatus.ERROR, "", message=f"{type(exc).__name__}: {exc}"), None


#: seconds an isolated proof may run past its own time limit before its worker stops it
PROOF_GRACE = 5.0


def _proof_time_limit(task) -> float:
    """The seconds a proof may take from now: its own limit, as :func:`attempt` computes it, and a grace."""
    _, budget, deadline, _, cap = task
    left = min(budget.per_check, max(deadline - time.monotonic(), 0.0))
    return (left if cap is None else min(left, max(cap, 0.0))) + PROOF_GRACE


def failed_attempt(outcome: Outcome) -> ProofAttempt:
    """The attempt of a proof whose process did not come back (it crashed, exited, or ran past
    its time limit and a grace): the search's verdict stands."""
    return ProofAttempt(ProofStatus.ERROR, "", seconds=outcome.seconds, message=f"the proof {outcome.describe()}; the search's verdict stands")


def prove_all(checks: Sequence[Check], budget: ProofBudget, jobs: int = 1,
              on_attempt: Callable[[Check, ProofAttempt, CheckResult | None], None] | None = None,
              caps: Sequence[float | None] | None = None) -> list[tuple[ProofAttempt, CheckResult | None]]:
    """An attempt per check, in order, on ``jobs`` processes (the total cap starts now).

    Each attempt may take its fair part of what is left of the total: the time left times the
    workers, over the attempts not yet started.  Attempts that end early (z3 often answers at
    once) pass their time on, and no check goes unattempted while others ran to their limit.
    ``caps``: per check, the seconds its own time limit leaves its proof (None: no cap).
    """
    checks = list(checks)
    caps = list(caps) if caps is not None else [None] * len(checks)
    deadline = time.monotonic() + budget.total
    out = []

    def report(check, proof, refuting):
        if on_attempt:
            on_attempt(check, proof, refuting)
        out.append((proof, refuting))

    if checks and forking_available() and forks_safely():
        workers = max(1, min(capped_jobs(jobs), len(checks)))
        tasks = [(ch, budget, deadline, workers / (len(checks) - i), cap) for i, (ch, cap) in enumerate(zip(checks, caps))]
        for check, outcome in zip(checks, isolated_map(_isolated_attempt, tasks, workers, limit=_proof_time_limit)):
            report(check, *(outcome.value if outcome.returned else (failed_attempt(outcome), None)))
        return out
    with make_executor(jobs) as ex:
        refs = [ex.ref(ch) for ch in checks]
        workers = max(1, ex.jobs)
        stream = ex.imap(_attempt_task, [(ref, budget, deadline, workers / (len(refs) - i), cap) for i, (ref, cap) in enumerate(zip(refs, caps))])
        for check, (proof, refuting) in zip(checks, stream):
            report(check, proof, refuting)
    return out


def _isolated_attempt(task, send) -> tuple[ProofAttempt, CheckResult | None]:
    return _attempt_task(task)


def prove_survivors(checks: Iterable[Check], run: RunResult, budget: ProofBudget, jobs: int = 1,
                    on_result: Callable[[CheckResult], None] | None = None, check_time: float | None = None) -> RunResult:
    """``run`` with a proof attached to every check that survived it; ``on_result`` sees each proved row.
    ``check_time``: the seconds each check may take, search and proof together (``--time``)."""
    checks = list(checks)
    results = list(run.results)
    todo = [i for i, r in enumerate(results) if wants_proof(r)] if budget.enabled else []

    def done(check, proof, refuting):
        i = todo[len(finished)]
        results[i] = with_proof(results[i], proof, refuting)
        finished.append(i)
        if on_result:
            on_result(results[i])

    finished: list[int] = []
    caps = [None if check_time is None else check_time - results[i].seconds for i in todo]
    prove_all([checks[i] for i in todo], budget, jobs, on_attempt=done, caps=caps)
    return RunResult(tuple(results))


__all__ = ["LARGER_SIZES", "MIN_ATTEMPT_SECONDS", "NO_PROOFS", "ProofBudget", "also_proved", "attempt", "as_locked", "domain_of", "failed_attempt",
           "larger_domains", "prove_all", "prove_survivors", "volume_percent", "wants_proof", "with_proof"]
