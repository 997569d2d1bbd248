"""Proofs in the audit: a check that survived the search is proved on the domain its claim states.

"Survived" alone cannot be told apart from "not searched hard"; a proof on a stated bounded
domain (fixed dimensions, a box per variable) can.  Each surviving check -- and each one left
``inconclusive`` by a tie the certifier could not sign, which a proof may still settle -- gets
one attempt with a time limit of its own, and all attempts together share a total cap, so an
audit of the whole paper stays within a known time however many checks survive.  A proof
that runs out of time says how much of the domain's volume it decided.

Attempts are independent, so the audit runs them side by side in its workers
(:meth:`verifier.audit.Audit.prove_survivors`); what one attempt finds does not depend on the
others (only when the total cap ends it does).  Native code that aborts or segfaults kills only
its worker: the proof's row says so with the signal, and the search's verdict stands.

A check's ``--time`` bounds its search and its proof together: the proof gets what the search
left of it (``cap``), and none when the search spent it all.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time

import numpy as np
from dataclasses import dataclass

from .claims import Check
from .budget import NO_PROOFS, ProofBudget
from .prove import BoundedDomainError, MethodError, ProofBoxError, make_proof_box, prove
from .prove.identity import degenerate
from .results import CheckResult, ProofAttempt, ProofStatus, StopReason, Verdict
from .runner import OutOfTime, call_within

#: below this many seconds left of the total cap an attempt is not started: it could decide nothing
MIN_ATTEMPT_SECONDS = 0.5
#: after a proof on the claim's sizes, this many larger sizes are tried in the same attempt's time
LARGER_SIZES = 2
#: a claim with at most this many scalar unknowns is small: z3 is asked first (see :func:`proof_before_search`)
SMALL_CLAIM = 6
#: seconds z3 may take on a small claim before the search starts anyway
PROOF_FIRST_SECONDS = 1.0




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
    except ProofBoxError as exc:
        return ProofAttempt(ProofStatus.ERROR, "", message=f"proof domain: {exc}"), None
    where, spec = domain.describe(check), domain.to_dict()
    if cap is not None and cap < MIN_ATTEMPT_SECONDS <= left:
        return ProofAttempt(ProofStatus.NOT_ATTEMPTED, where, spec, message="the search spent the check's time limit (--time)"), None
    left = left if cap is None else min(left, cap)
    if left < MIN_ATTEMPT_SECONDS:
        return ProofAttempt(ProofStatus.NOT_ATTEMPTED, where, spec, message="the total proof time was spent before this check"), None
    start = time.monotonic()
    try:
        proof = prove(check, domain, "auto", left, budget.dps, max_boxes=box_budget(check, budget), certificates=budget.certificates)
    except (MethodError, BoundedDomainError) as exc:
        return ProofAttempt(ProofStatus.ERROR, where, spec, seconds=time.monotonic() - start, time_limit=left, message=str(exc)), None
    r, d = proof.result, proof.details
    common = dict(domain=where, spec=spec, method=d.method, seconds=time.monotonic() - start, time_limit=left,
                  strategy=d.strategy, narrower=d.narrower, covers=d.covers, stuck=d.stuck.sentence() if d.stuck is not None else "",
                  attempts=tuple(a.to_dict() for a in d.attempts), certificate=d.certificate)
    if r.verdict is Verdict.PROVED:
        also = also_proved(check, budget, start + left)
        common["seconds"] = time.monotonic() - start
        return ProofAttempt(ProofStatus.PROVED, volume_percent=100.0, also=also, message=r.message,  # an identity's rewriting
                            identical_sides=d.method == "identity" and degenerate(check, domain, grown_domain(check, domain)),
                            **common), None
    if r.counterexample is not None:
        return ProofAttempt(ProofStatus.REFUTED, message=r.counterexample.certificate, **common), r
    if r.verdict is Verdict.ERROR:
        return ProofAttempt(ProofStatus.ERROR, message=r.message, **common), None
    return ProofAttempt(ProofStatus.INCONCLUSIVE, volume_percent=volume_percent(d.volume_proved), message=r.message, **common), None


def proof_before_search(check: Check, config) -> CheckResult | None:
    """A small polynomial claim proved by z3 on its whole search domain (every variable within
    its own bounds, at its only sizes) needs no search: the row that says so, else None.

    Nothing else changes: the search can only fail to refute what is proved, and the survivor's
    proof on the domain its claim states is still attempted as for any other survivor.  The
    attempt has a small time of its own, counted in the check's ``--time``; a claim whose code
    draws from a global random generator while z3 reads it is searched instead (the search's
    certificate says what such a claim is).
    """
    if any(d.lo != d.hi for d in check.dims):
        return None
    sizes = {d.name: d.lo for d in check.dims}
    if sum(math.prod(v.concrete_shape(sizes)) for v in check.variables) > SMALL_CLAIM:
        return None
    start = time.monotonic()
    seconds = min(PROOF_FIRST_SECONDS, config.time_limit / 4)
    before = _random_state()
    try:
        domain = make_proof_box(check, sizes)
        proof = call_within(start + seconds, prove, check, domain, "smt", seconds, config.dps, certificates=False)
    except (ProofBoxError, MethodError, BoundedDomainError, OutOfTime):
        return None  # not polynomial, not decidable by z3 in its time: the search as always
    if proof.result.verdict is not Verdict.PROVED or _random_state() != before:
        return None
    seconds = time.monotonic() - start
    return dataclasses.replace(proof.result, verdict=Verdict.SURVIVED, method="none", domain="", seed=config.seed, budget=config.budget,
                               seconds=seconds, stop=StopReason.PROVED_FIRST,
                               stop_reason=f"not searched: z3 proves it on the whole search domain ({seconds:.2f} s)")


def _random_state() -> tuple:
    """Where Python's and numpy's global generators are: any draw moves them."""
    _, keys, pos, *_ = np.random.get_state()
    return random.getstate(), keys.tobytes(), pos


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
        except ProofBoxError:
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
    except ProofBoxError:
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
            proof = prove(check, domain, "auto", left, budget.dps, max_boxes=box_budget(check, budget), certificates=budget.certificates)
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
    except ProofBoxError as exc:
        return ProofAttempt(ProofStatus.ERROR, "", message=f"proof domain: {exc}")
    return ProofAttempt(ProofStatus(status), domain.describe(check), domain.to_dict(), method=method, volume_percent=volume_percent,
                        message="as locked: a proof that did not go through is not tried again by verify check")


def domain_of(check: Check):
    """The prover's domain for the one the claim states."""
    return _domain_at(check, check.proof_domain.sizes(check.dims))


def _domain_at(check: Check, sizes: dict):
    """The claim's declared proof domain (its box, or its variables' own bounds) at ``sizes``."""
    declared = check.proof_domain
    return make_proof_box(check, sizes, declared.box, declared.boxes, own_bounds=not declared.box_stated)


def with_proof(result: CheckResult, proof: ProofAttempt, refuting: CheckResult | None) -> CheckResult:
    """The search's result with its proof attached; a refuting proof's certified result replaces it."""
    base = refuting if refuting is not None else result
    return dataclasses.replace(base, proof=proof)


__all__ = ["LARGER_SIZES", "MIN_ATTEMPT_SECONDS", "NO_PROOFS", "ProofBudget", "also_proved", "attempt", "as_locked", "domain_of",
           "larger_domains", "volume_percent", "wants_proof", "with_proof"]
