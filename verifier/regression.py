"""Regression on claims: make a lock from a run, and compare a fresh run with a lock.

Both return plain data; the CLI and the pytest plugin present it.  Stored counterexamples
are replayed exactly (their inputs are exact rationals, so a replay is deterministic and
fast).  Checks locked without a counterexample are searched again with the lock's seed and
budget: the search is a pure function of (seed, budget) until its time cap, and a search cut
short by the cap is a prefix of the full one, so a fresh run can only differ from the lock
when the claim, the engine or the evidence changed -- which is exactly what drift means.

A survivor locked with a proof is proved again on the domain its claim states now, within
the lock's proof times: a proof that no longer goes through, or a domain that moved, is
drift; an inconclusive proof that now goes through is a note (the lock can record it).
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from .audit import Audit, AuditOptions
from .budget import ProofBudget
from .claims import Check
from .kernel_evidence import evidence_drift, with_kernel_evidence, with_locked_kernel
from .lock import Lock, LockEntry, LockedSearch, file_sha256, locked_proof, relative_to_lock
from .results import CheckResult, ProofStatus, Verdict
from .search.config import SearchConfig
from .evidence import CounterexampleFileError, read_document
from .replay import Replay
from .store import CounterexampleStore

#: how a stored file is replayed: in a worker of its claim's pack (:func:`verifier.remote.replay`)
Replayer = Callable[[Path], Replay]

# the ``change`` of an outcome, as the drift table names it
NOW_REFUTED = "surviving claim now refuted"
NO_LONGER_REFUTES = "stored counterexample no longer refutes"
CONTENT_CHANGED = "stored counterexample edited since the lock"
VALUES_MOVED = "stored values are not what its inputs give"
COULD_NOT_CHECK = "could not be checked"
VERDICT_MOVED = "verdict moved"
PROOF_LOST = "proof no longer goes through"
PROOF_DOMAIN_MOVED = "proof domain changed"
UNLISTED_REFUTES = "a stored counterexample the lock does not list refutes it"
NOT_LOCKED = "not in the lock"
GONE = "in the lock, no longer in the registry"


@dataclass(frozen=True)
class Outcome:
    """One (claim, part, reading): what the lock says, what a fresh run says, what changed."""

    paper: str
    claim: str
    part: str
    reading: str
    locked: str | None  # verdict in the lock (None: not locked)
    now: str | None  # verdict now (None: no longer in the registry)
    change: str = ""  # "" when it matches the lock
    detail: str = ""
    replays: tuple[Replay, ...] = ()
    files: tuple[str, ...] = ()  # as listed in the lock, parallel to ``replays``
    result: CheckResult | None = None  # the fixed-seed search, for checks locked without evidence
    seconds: float = 0.0
    unpinned: tuple[str, ...] = ()  # listed files whose content is not what the lock pins (their sha256 moved)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.claim, self.part, self.reading)

    @property
    def drift(self) -> bool:
        return bool(self.change)


@dataclass(frozen=True)
class Regression:
    lock: Lock
    outcomes: tuple[Outcome, ...]
    seconds: float = 0.0
    #: one line each on the store's files the lock does not list and no check of the run owns
    strays: tuple[str, ...] = ()

    @property
    def drifted(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.drift)

    @property
    def exit_code(self) -> int:
        if any(o.now == Verdict.ERROR.value for o in self.outcomes):
            return 2
        return 1 if self.drifted else 0


def search_config(search: LockedSearch) -> SearchConfig:
    return SearchConfig(seed=search.seed, budget=search.budget, time_limit=search.time_limit, dps=search.dps)


def proof_budget(search: LockedSearch) -> ProofBudget:
    return ProofBudget(per_check=search.prove_time, total=search.prove_total, dps=search.dps, boxes=search.prove_boxes)


def audit_for(search: LockedSearch, runner, jobs: int = 1) -> Audit:
    """The audit a lock's fixed-seed search and proofs run through."""
    return Audit(AuditOptions(search_config(search), proof_budget(search)), runner, jobs)


# ---------------------------------------------------------------------------- check
def check_entry(entry: LockEntry, check: Check, lock: Lock, replay: Replayer, audit: Audit, progress=None,
                result: CheckResult | None = None) -> Outcome:
    """Compare one locked (claim, part, reading) with the claim as the code states it now.

    ``result``: the locked search, when it was already run (in parallel, say).  Whatever goes
    wrong with this one check -- a corrupt file, a claim that raises -- becomes its own error
    row, so the other checks' rows are never lost.
    """
    start = time.monotonic()
    base = dict(paper=entry.paper, claim=entry.claim, part=entry.part, reading=entry.reading, locked=entry.verdict)
    try:
        if entry.counterexamples:
            return _check_evidence(entry, check, lock, replay, audit, base, start)
        return _check_search(entry, check, lock, audit, progress, result, base, start)
    except Exception as exc:
        return Outcome(**base, now=Verdict.ERROR.value, change=COULD_NOT_CHECK, detail=describe_error(exc), seconds=time.monotonic() - start)


def describe_error(exc: Exception) -> str:
    """One line: a file error, or a worker's, names its file and field already; anything else says what it was."""
    from .remote import WorkerFailed

    if isinstance(exc, (CounterexampleFileError, WorkerFailed)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def _check_evidence(entry, check, lock, replay, audit, base, start) -> Outcome:
    edited, unpinned = [], []
    for f, locked_hash in zip(entry.counterexamples, entry.sha256):
        now_hash = file_sha256(lock.file(f))
        if now_hash != locked_hash:
            edited.append(f"{f}: locked sha256 {locked_hash}, now {now_hash}")
            unpinned.append(f)
    replays = tuple(replay_listed(lock.file(f), entry, replay) for f in entry.counterexamples)
    stale = [(f, r) for f, r in zip(entry.counterexamples, replays) if not r.still_refutes]
    now = check.claim.refuted_verdict if len(stale) < len(replays) else "not refuted"
    change, detail = "", ""
    if stale:
        change = NO_LONGER_REFUTES
        detail = "; ".join(f"{f}: {r.certificate.status}, margin {r.margin} (stored {r.stored['margin']})" for f, r in stale)
    elif now != entry.verdict:
        change, detail = VERDICT_MOVED, f"the claim now declares a violation {now!r}"
    moved = [f"{f}: {r.moved_detail()}" for f, r in zip(entry.counterexamples, replays) if r.still_refutes and r.moved_values]
    if moved:
        change = f"{change}; {VALUES_MOVED}" if change else VALUES_MOVED
        detail = "; ".join(([detail] if detail else []) + moved)
    if edited:
        change = f"{change}; {CONTENT_CHANGED}" if change else CONTENT_CHANGED
        detail = "; ".join(([detail] if detail else []) + edited) + "; run `verify lock` to accept the new content"
    for what, why in evidence_drift(entry, lock, check, audit.formula):
        change, detail = f"{change}; {what}" if change else what, f"{detail}; {why}" if detail else why
    return Outcome(**base, now=now, change=change, detail=detail, replays=replays, files=entry.counterexamples, seconds=time.monotonic() - start,
                   unpinned=tuple(unpinned))


def _check_search(entry, check, lock, audit, progress, result, base, start) -> Outcome:
    if result is None:
        (result,) = audit.search([check], progress_factory=None if progress is None else (lambda _: progress))
        if entry.proof is not None:
            searched = {check.key: result}
            reprove_locked([check], {check.key: entry}, searched, lock.search, audit)
            result = searched[check.key]
    now = result.verdict.value
    change, detail = "", ""
    if now != entry.verdict:
        change = NOW_REFUTED if (entry.verdict == Verdict.SURVIVED.value and result.counterexample is not None) else VERDICT_MOVED
        if result.counterexample is not None:
            cx = result.counterexample
            detail = f"lhs {cx.lhs} vs rhs {cx.rhs} ({cx.certificate})"
        else:
            detail = result.message or result.stop_reason
    elif result.time_limited:
        detail = f"time cap reached after {result.stats.evaluations:,} of {lock.search.budget:,} evaluations"
    if not change and entry.proof is not None:
        change, detail = compare_proof(entry, result, detail)
    moved = evidence_drift(entry, lock, check, audit.formula)
    for what, why in moved:
        change, detail = f"{change}; {what}" if change else what, f"{detail}; {why}" if detail else why
    result = with_locked_kernel(result, entry, moved)
    return Outcome(**base, now=now, change=change, detail=detail, result=result, seconds=max(result.seconds, time.monotonic() - start))


#: a proof locked as going through gets this many times the locked time when checked again, so
#: a slower or busier CI machine does not turn the lock's proof into drift
REPROVE_SLACK = 3.0


def reprove_locked(checks: list[Check], locked: dict, searched: dict, search: LockedSearch, audit: Audit) -> None:
    """Prove again every searched check whose locked proof went through (with slack on the time).

    A proof locked as not going through is not run again -- it cannot drift, only gain, and
    it would spend CI's time on the budget it already ran out of -- it is reported as locked,
    on the domain its claim states now, so a domain that moved is still drift."""
    budget = proof_budget(search)
    held = [ch for ch in checks if locked[ch.key].proof is not None]
    went_through = [ch for ch in held if locked[ch.key].proof.status == ProofStatus.PROVED.value]
    _prove(audit, went_through, searched, dataclasses.replace(budget, per_check=budget.per_check * REPROVE_SLACK),
           search.time_limit * REPROVE_SLACK)
    as_locked = {ch.key: (locked[ch.key].proof.status, locked[ch.key].proof.method, locked[ch.key].proof.volume_percent)
                 for ch in held if ch not in went_through}
    if as_locked:
        # described in a worker (the domain is the claim's, as stated now); nothing is proved, so any budget serves
        _prove(audit, [ch for ch in held if ch.key in as_locked], searched, ProofBudget(per_check=1.0, total=1.0), None, as_locked)


def _prove(audit: Audit, checks: list[Check], searched: dict, budget: ProofBudget, check_time: float | None, locked: dict | None = None):
    """Attach to each searched result that survived the proof of its check, in place."""
    checks = [ch for ch in checks if ch.key in searched]
    if not checks:
        return
    results, _ = audit.prove_survivors(checks, [searched[ch.key] for ch in checks], budget, check_time=check_time or math.inf,
                                       locked=locked)
    for check, result in zip(checks, results):
        searched[check.key] = result


def compare_proof(entry: LockEntry, result: CheckResult, detail: str = "") -> tuple[str, str]:
    """(change, detail) between a locked proof and the one just tried; a gain is a note, not drift."""
    locked, now = entry.proof, locked_proof(result.proof)
    notes = [detail] if detail else []
    if now is None:
        return PROOF_LOST, f"locked {locked.status} on {locked.domain}; no proof was tried now"
    if now.spec != locked.spec:
        return PROOF_DOMAIN_MOVED, f"locked on {locked.domain}, now stated as {now.domain}; run `verify lock` to record it"
    proved = ProofStatus.PROVED.value
    if locked.status == proved and now.status != proved:
        why = f": {result.proof.message}" if result.proof.message else ""
        share = f", {now.volume_percent:g} % of the volume decided" if now.volume_percent is not None else ""
        return PROOF_LOST, f"on {now.domain}: now {now.status}{share} within {result.proof.time_limit:g} s{why}"
    if now.status == proved and locked.status != proved:
        notes.append(f"the proof now goes through on {now.domain} (locked {locked.status}); `verify lock` records it")
    if now.status == proved and locked.status == proved and now.also != locked.also:
        # the larger sizes are tried in the time a proof leaves over: a note, not drift
        notes.append(f"also proved at {', '.join(now.also) or 'no larger size'} now (locked: {', '.join(locked.also) or 'none'})")
    return "", "; ".join(notes)


def replay_listed(path: Path, entry: LockEntry, replay: Replayer) -> Replay:
    """Replay a file the lock lists, refusing one that belongs to another check."""
    doc = read_document(path)
    for field in ("claim", "part", "reading"):
        if doc[field] != getattr(entry, field):
            raise CounterexampleFileError(path, field, f"the lock lists this file for {field} {getattr(entry, field)!r}, the file says {doc[field]!r}")
    return replay(path)


def run_regression(lock: Lock, checks: Iterable[Check], replay: Replayer, audit: Audit, progress_factory=None,
                   store: CounterexampleStore | None = None, every_check: bool = True) -> Regression:
    """Every check of the registry against the lock, in registry order; lock-only entries last.

    ``store``: the counterexample store, whose every file the lock does not list is reported --
    with the check it refutes as drift (a lock edited to drop a refuting file and call the
    check survived does not pass), else as a note.  ``every_check``: ``checks`` is the whole
    registry, so a file no check owns is a stray worth a note.
    """
    start = time.monotonic()
    checks = list(checks)
    unlisted, strays = unlisted_files(lock, checks, store, every_check) if store is not None else ({}, ())
    locked = lock.by_key()
    to_search = [ch for ch in checks if ch.key in locked and not locked[ch.key].counterexamples]
    searched = dict(zip((ch.key for ch in to_search), audit.search(to_search, progress_factory=progress_factory)))
    reprove_locked(to_search, locked, searched, lock.search, audit)
    outcomes = []
    for check in checks:
        entry = locked.get(check.key)
        if entry is None:
            outcomes.append(Outcome(check.claim.paper, *check.key, locked=None, now=None, change=NOT_LOCKED,
                                    detail="run `verify lock` to record it"))
            continue
        outcome = check_entry(entry, check, lock, replay, audit, result=searched.get(check.key))
        outcomes.append(with_unlisted(outcome, check, unlisted.get(check.key, ()), replay))
    seen = {ch.key for ch in checks}
    for entry in lock.entries:
        if entry.key not in seen:
            outcomes.append(Outcome(entry.paper, *entry.key, locked=entry.verdict, now=None, change=GONE,
                                    detail="run `verify lock` to drop it"))
    return Regression(lock=lock, outcomes=tuple(outcomes), seconds=time.monotonic() - start, strays=strays)


def unlisted_files(lock: Lock, checks: list[Check], store: CounterexampleStore, every_check: bool):
    """({check key: [files of that check the lock does not list]}, (one line per other unlisted file,))."""
    listed = {os.path.abspath(lock.root / f) for e in lock.entries for f in e.counterexamples}
    by_key = {(ch.claim.paper or "unknown-paper", *ch.key): ch.key for ch in checks}
    mine, strays = {}, []
    for path in store.files():
        if os.path.abspath(path) in listed:
            continue
        try:
            doc = read_document(path)
        except CounterexampleFileError as exc:
            if every_check:
                strays.append(f"{exc} (not listed in {lock.path})")
            continue
        key = by_key.get((doc["paper"], doc["claim"], doc["part"], doc["reading"]))
        if key is not None:
            mine.setdefault(key, []).append(path)
        elif every_check:
            strays.append(f"{path}: not listed in {lock.path}, and no loaded claim has claim {doc['claim']!r} part {doc['part']!r} "
                          f"reading {doc['reading']!r} of paper {doc['paper']!r}")
    return mine, tuple(strays)


def with_unlisted(outcome: Outcome, check: Check, files, replay: Replayer) -> Outcome:
    """``outcome`` with the store's unlisted files of its check replayed: one that refutes is
    drift, one that no longer refutes a note (``verify lock`` leaves such files unlisted)."""
    refuting, notes = [], []
    for path in files:
        try:
            r = replay(path)
        except Exception as exc:
            notes.append(f"{describe_error(exc)} (not listed in the lock)")
            continue
        if r.still_refutes:
            refuting.append(f"{path}: refutes it ({r.certificate.method}: lhs {r.lhs}, rhs {r.rhs}) but the lock does not list it")
        else:
            notes.append(f"{path}: not listed in the lock (no longer refutes)")
    if not refuting and not notes:
        return outcome
    detail = "; ".join(([outcome.detail] if outcome.detail else []) + refuting + notes)
    if not refuting:
        return dataclasses.replace(outcome, detail=detail)
    change = f"{outcome.change}; {UNLISTED_REFUTES}" if outcome.change else UNLISTED_REFUTES
    now = outcome.now if outcome.now == Verdict.ERROR.value else check.claim.refuted_verdict
    return dataclasses.replace(outcome, change=change, now=now, detail=detail + "; run `verify lock` to list it")


def error_result(check: Check, config: SearchConfig, exc: Exception, seconds: float = 0.0) -> CheckResult:
    """The row of a check whose evidence could not be read: the engine's error row, with the error's own message."""
    from .search.coordinator import error_result as search_error_result

    row = search_error_result(check, config, exc, "its check", seconds=seconds)
    return dataclasses.replace(row, stop_reason="the check raised", message=describe_error(exc))


# ---------------------------------------------------------------------------- lock
@dataclass(frozen=True)
class LockRow:
    """How ``verify lock`` reached one entry: stored evidence, or a search (maybe saved)."""

    entry: LockEntry
    result: CheckResult | None
    replays: tuple[Replay, ...]
    saved: str | None = None
    stale: tuple[str, ...] = ()  # stored files for this check that no longer refute
    save_error: str | None = None  # why the counterexample found could not be stored (the lock is then not written)


def make_lock(checks: Iterable[Check], search: LockedSearch, store: CounterexampleStore, lock_path, replay: Replayer, audit: Audit,
              progress_factory=None) -> tuple[Lock, tuple[LockRow, ...]]:
    """Replay the stored evidence of every check; search the checks that have none, saving what refutes.

    A stored file that still refutes certifies the verdict on its own (the search at a CI budget
    may miss a reviewer's counterexample); new counterexamples are saved only when the store has
    none for that check, so existing evidence is never rewritten.
    """
    checks = list(checks)
    store.check_writable()  # before the search, so its results are not lost after it
    evidence, failed = {}, {}
    for check in checks:
        refuting, stale = [], []
        try:
            for path in stored_files(store, check):
                r = replay(path)
                (refuting if r.still_refutes else stale).append((path, r.require_stated_values() if r.still_refutes else r))
        except Exception as exc:
            failed[check.key] = error_result(check, search_config(search), exc)
            refuting, stale = [], []  # a file that cannot be pinned is the check's error, even beside one that refutes
        evidence[check.key] = refuting, stale
    to_search = [ch for ch in checks if not evidence[ch.key][0] and ch.key not in failed]
    searched = dict(zip((ch.key for ch in to_search), audit.search(to_search, progress_factory=progress_factory)))
    _prove(audit, to_search, searched, proof_budget(search), search.time_limit)
    searched.update(failed)
    rows = []
    for check in checks:
        refuting, stale = evidence[check.key]
        key = dict(paper=check.claim.paper, claim=check.claim.id, part=check.part.name, reading=check.reading.name)
        stale_names = tuple(relative_to_lock(lock_path, p) for p, _ in stale)
        try:
            if refuting:
                entry = LockEntry(**key, verdict=check.claim.refuted_verdict, method=refuting[0][1].certificate.method,
                                  counterexamples=tuple(relative_to_lock(lock_path, p) for p, _ in refuting),
                                  sha256=tuple(file_sha256(p) for p, _ in refuting))
                entry = with_kernel_evidence(entry, check, lock_path, export=audit.formula)
                rows.append(LockRow(entry, None, tuple(r for _, r in refuting), stale=stale_names))
                continue
            result = searched[check.key]
            saved = None
            if result.counterexample is not None:
                try:
                    path = store.save(result.counterexample, statement=check.part.statement or check.claim.statement)
                except (CounterexampleFileError, OSError) as exc:
                    # the certified counterexample is still shown; only the lock goes unwritten
                    rows.append(LockRow(LockEntry(**key, verdict=result.verdict.value, method=result.method), result, (),
                                        stale=stale_names, save_error=str(exc)))
                    continue
                saved = relative_to_lock(lock_path, path)
            entry = LockEntry(**key, verdict=result.verdict.value, method=result.method, counterexamples=(saved,) if saved else (),
                              sha256=(file_sha256(path),) if saved else (), proof=None if saved else locked_proof(result.proof))
            entry = with_kernel_evidence(entry, check, lock_path, store.root, None if saved else result.proof, audit.formula)
            rows.append(LockRow(entry, result, (), saved=saved, stale=stale_names))
        except Exception as exc:
            result = error_result(check, search_config(search), exc)
            rows.append(LockRow(LockEntry(**key, verdict=result.verdict.value), result, (), stale=stale_names))
    lock = Lock(search=search, entries=tuple(r.entry for r in rows), path=str(lock_path))
    return lock, tuple(rows)


def stored_files(store: CounterexampleStore, check: Check) -> list[Path]:
    """The store's files for one (claim, part, reading), in a stable order."""
    out = []
    for path in store.files(check.claim.paper or "unknown-paper", check.claim.id):
        doc = read_document(path)
        if (doc["part"], doc["reading"]) == (check.part.name, check.reading.name):
            out.append(path)
    return out


__all__ = ["CONTENT_CHANGED", "COULD_NOT_CHECK", "GONE", "LockRow", "NOT_LOCKED", "NOW_REFUTED", "NO_LONGER_REFUTES", "Outcome",
           "PROOF_DOMAIN_MOVED", "PROOF_LOST", "Regression", "Replayer", "UNLISTED_REFUTES", "VERDICT_MOVED", "audit_for", "check_entry",
           "compare_proof", "describe_error", "error_result", "make_lock", "proof_budget", "run_regression", "search_config",
           "stored_files", "unlisted_files", "with_unlisted"]
