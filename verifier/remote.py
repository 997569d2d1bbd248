"""Calls the process that decides makes of a pack's code: each one a task in a worker.

The deciding process reads a stored file itself (so it knows what the file says, whatever a
worker answers), finds the file's claim in its catalog, and asks a worker of that claim's pack
to do what needs the claim's code.  An answer that is not the one asked for, or a worker that
does not come back, is an exception here naming the claim -- never a value taken on trust.
"""

from __future__ import annotations

from pathlib import Path

from .errors import VerifierError
from .runner import Outcome
from .evidence import CounterexampleFileError, read_document
from . import tasks

#: seconds a replay of one stored point may take before its worker is stopped
REPLAY_TIME_LIMIT = 120.0

#: exceptions whose message is whole by itself (they name their file or field): shown as they are
_SELF_EXPLAINING = {"CounterexampleFileError", "NotDeterministic", "NotTightenable", "MethodError", "BoundedDomainError", "DomainError"}


class WorkerFailed(VerifierError):
    """A task whose worker raised, ended, crashed, hung or broke the protocol; the message says which."""

    def __init__(self, outcome: Outcome, subject: str):
        if outcome.status == "raised" and outcome.exception in _SELF_EXPLAINING:
            text = outcome.detail
        else:
            text = f"{subject} {outcome.describe()}"
        super().__init__(text)
        self.outcome, self.exception_name = outcome, outcome.exception


def ask(runner, fn, task, subject: str, limit: float | None, kind=object):
    """``fn(task)`` in one of ``runner``'s workers (of the task's pack); its answer, if it is a
    ``kind``; else :class:`WorkerFailed`."""
    source = getattr(task, "source", None) or getattr(getattr(task, "ref", None), "source", None)
    (outcome,) = runner.map(fn, [task], limit=lambda _: limit, affinity=lambda _: source, workers=1)
    if not outcome.returned:
        raise WorkerFailed(outcome, subject)
    if not isinstance(outcome.value, kind):
        raise WorkerFailed(Outcome("violated", detail=f"sent back {type(outcome.value).__name__}, not {kind.__name__}"), subject)
    return outcome.value


def file_claim(path, catalog):
    """(the stored document, as read here; the claim it names, from the catalog)."""
    doc = read_document(path)
    try:
        claim = catalog.find(doc["paper"], doc["claim"])
    except KeyError:
        raise CounterexampleFileError(path, "claim", f"no claim {doc['claim']!r} in paper {doc['paper']!r}") from None
    return doc, claim


def replay(path, runner, catalog, dps: int | None = None):
    """Re-certify a stored counterexample in a worker of its claim's pack: the
    :class:`~verifier.store.Replay`, checked to be of the file that was asked about."""
    from .replay import Replay

    doc, claim = file_claim(path, catalog)
    task = tasks.ReplayTask(catalog.source_of(claim), str(path), dps)
    result = ask(runner, tasks.replay, task, f"claim {claim.id}: its code", REPLAY_TIME_LIMIT, Replay)
    stored = {key: doc[key] for key in ("lhs", "rhs", "margin")}
    if Path(result.path) != Path(path) or dict(result.stored) != stored:
        raise WorkerFailed(Outcome("violated", detail="sent back the replay of another file"), f"claim {claim.id}: its worker")
    return result


__all__ = ["REPLAY_TIME_LIMIT", "WorkerFailed", "ask", "file_claim", "replay"]
