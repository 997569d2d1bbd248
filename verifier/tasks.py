"""The tasks a worker runs for the audit: each takes one picklable item naming a check and
returns plain data (:func:`verifier.packside.as_data`).  They run where a pack is loaded, never
in the process that decides (:mod:`verifier.audit`)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from .formula import NotExportable
from .formula import export_formula as export_check_formula
from .packside import PackSource, as_data, loaded, resolve
from .proof_audit import as_locked, attempt, proof_before_search
from .prove import make_proof_box, prove
from .results import ProofAttempt, ProofStatus
from .runner import make_runner, send_message
from .search.config import SearchConfig
from .search.coordinator import run_check
from .replay import replay as replay_file
from .tighten import tighten as tighten_check

#: seconds between progress messages from a worker
PROGRESS_EVERY = 0.1


def search(task):
    """One check's search (certified and shrunk in here)."""
    check = resolve(task.ref)
    sent = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - sent[0] >= PROGRESS_EVERY:
            sent[0] = now
            send_message((done, total))

    return as_data(run_check(check, task.config, progress if task.progress else None))


def prove_first(task):
    """The row of a small polynomial check z3 proves on its whole search domain, else None."""
    return as_data(proof_before_search(resolve(task.ref), task.config))


def prove_survivor(task):
    """The proof of a check that survived, on the domain its claim states (or, for a proof the
    lock says did not go through, that proof as locked, on the domain stated now)."""
    try:
        check = resolve(task.ref)
        if task.locked is not None:
            return as_data((as_locked(check, *task.locked), None))
        return as_data(attempt(check, task.budget, task.deadline, task.share, task.cap))
    except Exception as exc:  # one check's failure is its own row, never the whole audit's
        return ProofAttempt(ProofStatus.ERROR, "", message=f"{type(exc).__name__}: {exc}"), None


@dataclass(frozen=True)
class ReplayTask:
    """A stored counterexample to certify again: its pack, its path, and the digits (None: the file's)."""

    source: PackSource
    path: str
    dps: int | None = None


def replay(task: ReplayTask):
    """Re-certify a stored counterexample against the claim its pack states now."""
    _, registry = loaded(task.source)
    return as_data(replay_file(task.path, registry.find, task.dps))


@dataclass(frozen=True)
class TightenTask:
    ref: object
    config: SearchConfig
    rounds: int


def tighten(task: TightenTask):
    """The best constant of one check's right-hand side (``verify tighten``)."""
    return as_data(tighten_check(resolve(task.ref), task.config, task.rounds))


@dataclass(frozen=True)
class ProveTask:
    """``verify prove``: one check on the domain the command line states."""

    ref: object
    dims: dict
    default_box: object
    named_boxes: dict
    method: str
    time_limit: float
    dps: int
    jobs: int = 1
    executor: str | None = None


def prove_on(task: ProveTask):
    check = resolve(task.ref)
    domain = make_proof_box(check, task.dims, task.default_box, task.named_boxes)
    with make_runner(task.jobs, task.executor) as runner:
        return as_data(prove(check, domain, task.method, task.time_limit, task.dps, executor=runner))


@dataclass(frozen=True)
class FormulaTask:
    """A check's formula to export as data, at these dims."""

    ref: object
    dims: dict


def export_formula(task: FormulaTask):
    """("formula", the check's Formula at the task's dims) or ("not-exported", why)."""
    try:
        return "formula", export_check_formula(resolve(task.ref), task.dims)
    except NotExportable as exc:
        return "not-exported", str(exc)


__all__ = ["FormulaTask", "PROGRESS_EVERY", "ProveTask", "ReplayTask", "TightenTask", "export_formula", "prove_first", "prove_on",
           "prove_survivor", "replay", "search", "tighten"]
