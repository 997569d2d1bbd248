"""Runners: where work runs, behind one interface.

    runner.map(fn, items, limit=None, on_message=None, affinity=None) -> an Outcome per item, in order

* :class:`SerialRunner` -- in this process, one item after another (no start-up cost; no
  isolation: only for the verifier's own code, or inside a worker already);
* :class:`ForkedRunner` -- forked workers that take task after task (:mod:`.pool`), each task
  checked on its way back (:mod:`.protocol`): what a task's code does to its process (ends it,
  crashes it, hangs it, forks it, leaves processes or threads behind) costs that task alone;
* :class:`~.dask.DaskRunner` -- the workers of a Dask scheduler, checks sent by value.

The decision to fork is made once, by :func:`make_runner`.  A task's result depends only on
its item, never on which runner ran it or when: a seed gives the same answer everywhere.

The four concerns of running someone else's code each have a module: :mod:`.authorship`
(whose code a frame is), :mod:`.watchdog` (deadlines inside a process), :mod:`.protocol` (a
worker's side: frames, forks, leftovers), :mod:`.pool` (the parent's side: scheduling and
deadlines); :mod:`.safe_pickle` is what the parent accepts back.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Hashable, Iterable, Iterator, Protocol, Sequence

from ..errors import VerifierError
from .authorship import authors_frame
from .outcome import CRASH_SIGNALS, AbruptEnd, Outcome, signal_name
from .pool import KILL_AFTER, ForkedPool
from .protocol import Inherited, message_sink, send_message
from .watchdog import OutOfTime, TimeLimitExceeded, call_within, time_box
from .dask import SPECS, RunnerError, parse_spec

#: checks visible to forked workers: token -> Check, registered before the workers fork
_CHECKS: dict[int, Any] = {}


class Runner(Protocol):
    jobs: int

    def map(self, fn: Callable[[Any], Any], items: Sequence, limit: Callable[[Any], float | None] | None = None,
            on_message: Callable[[int, Any], None] | None = None,
            affinity: Callable[[Any], Hashable] | None = None, workers: int | None = None) -> Iterator[Outcome]: ...

    def ref(self, check) -> Any: ...

    def close(self) -> None: ...


class WorkerLost(VerifierError, RuntimeError):
    """A task whose answer did not come back (:meth:`SerialRunner.imap` and friends raise it)."""

    def __init__(self, outcome: Outcome):
        super().__init__(f"a worker's task {outcome.describe()}")
        self.outcome = outcome


def forking_available() -> bool:
    """Isolation needs ``os.fork`` (POSIX); elsewhere work runs in-process."""
    return hasattr(os, "fork")


class _Values:
    """``imap``: the values of ``map``, in order; a task that did not return raises :class:`WorkerLost`."""

    def imap(self, fn: Callable[[Any], Any], items: Iterable) -> Iterator:
        for outcome in self.map(fn, list(items)):
            if not outcome.returned:
                raise WorkerLost(outcome)
            yield outcome.value

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SerialRunner(_Values):
    """One task after another in this process; a task's exception is its ``raised`` outcome."""

    jobs = 1

    def ref(self, check):
        return check

    def map(self, fn, items, limit=None, on_message=None, affinity=None, workers=None) -> Iterator[Outcome]:
        for index, item in enumerate(items):
            start = time.monotonic()
            sink = None if on_message is None else (lambda message, i=index: on_message(i, message))
            try:
                with message_sink(sink):
                    value = fn(item)
            except Exception as exc:
                yield Outcome("raised", exception=type(exc).__name__, detail=(str(exc).splitlines() or [""])[0][:500],
                              where=authors_frame(exc.__traceback__), seconds=time.monotonic() - start)
                continue
            yield Outcome("returned", value=value, seconds=time.monotonic() - start)

    def imap(self, fn, items) -> Iterator:
        # in-process, an exception is the caller's to see as it was raised
        for item in items:
            yield fn(item)

    def close(self) -> None:
        pass


class ForkedRunner(_Values):
    """Forked workers (see :mod:`.pool`); ``trusted=False`` when their tasks run a pack's code
    and this process decides verdicts: answers are then read as plain data only."""

    def __init__(self, jobs: int, trusted: bool = True, quiet: bool = False):
        self.jobs = max(1, jobs)
        self._pool = ForkedPool(self.jobs, trusted=trusted, quiet=quiet)
        self._refs: set[int] = set()

    @property
    def workers(self) -> int:
        """Workers alive now (started on demand, kept between maps)."""
        return len(self._pool.workers)

    def ref(self, check) -> int:
        """A token the forked workers resolve: registered before they fork (workers forked
        before a check existed are retired, so the next ones know it)."""
        token = id(check)
        if _CHECKS.get(token) is not check:
            _CHECKS[token] = check
            if self._pool.workers:
                self._pool.close()
        self._refs.add(token)
        return token

    def map(self, fn, items, limit=None, on_message=None, affinity=None, workers=None) -> Iterator[Outcome]:
        return self._pool.map(fn, items, limit, on_message, affinity, workers)

    def close(self) -> None:
        self._pool.close()
        for token in self._refs:
            _CHECKS.pop(token, None)
        self._refs.clear()


def registered_check(ref):
    """The check a task names: a forked worker's token, a check sent by value, or the check itself."""
    from .dask import CheckByValue

    if isinstance(ref, int):
        return _CHECKS[ref]
    if isinstance(ref, CheckByValue):
        return ref.check
    return ref


def make_runner(jobs: int = 1, spec: str | None = None) -> Runner:
    """The runner ``spec`` names (``serial``, ``process``, ``dask-local``, ``dask://HOST:PORT``),
    with ``jobs`` workers where it starts them; without a spec, in-process for one job and
    forked workers otherwise.  Never more local workers than cores available."""
    from ..limits import capped_jobs

    kind, address = parse_spec(spec) if spec is not None else ("process", None)
    if kind == "dask":
        from .dask import DaskRunner

        return DaskRunner.connect(address)
    jobs = capped_jobs(jobs)
    if kind == "dask-local":
        from .dask import DaskRunner

        return DaskRunner.local(max(jobs, 1))
    if kind == "serial" or jobs <= 1 or not forking_available():
        return SerialRunner()
    return ForkedRunner(jobs)


def run_isolated(fn: Callable[[Any], Any], item: Any = None, limit: float | None = None,
                 on_message: Callable[[Any], None] | None = None, quiet: bool = False, trusted: bool = True) -> Outcome:
    """``fn(item)`` in one forked worker, within ``limit`` seconds: its :class:`Outcome`.  The
    function and the item reach the worker by fork: neither needs to pickle."""
    relay = None if on_message is None else (lambda _, message: on_message(message))
    with ForkedPool(1, trusted=trusted, quiet=quiet, inherited=[(fn, item)]) as pool:
        return next(pool.map(Inherited(0), [None], (lambda _: limit), relay))


def _call(task):
    fn, args = task
    try:
        return "returned", fn(*args)
    except Exception as exc:  # raised again in the caller, as if the call had run there
        return "raised", exc


def call_apart(fn: Callable, *args, limit: float | None = None, subject: str = "the call"):
    """``fn(*args)`` in a forked worker: its value, or the Exception it raised (raised here);
    :class:`AbruptEnd` ("``subject`` ended its process ...") when it did not come back."""
    outcome = run_isolated(_call, (fn, args), limit=limit)
    if not outcome.returned:
        raise AbruptEnd(outcome, subject)
    kind, payload = outcome.value
    if kind == "raised":
        raise payload
    return payload


__all__ = ["AbruptEnd", "CRASH_SIGNALS", "ForkedRunner", "KILL_AFTER", "OutOfTime", "Outcome", "Runner", "RunnerError", "SPECS",
           "SerialRunner", "TimeLimitExceeded", "WorkerLost", "authors_frame", "call_apart", "call_within", "forking_available",
           "make_runner", "parse_spec", "registered_check", "run_isolated", "send_message", "signal_name", "time_box"]
