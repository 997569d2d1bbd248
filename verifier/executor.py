"""Executors: where the engine's seed-addressed chunks of work run.

The engine hands an executor a list of tasks and reads the results back *in task order*;
what a chunk computes depends only on the check, the configuration and the chunk's own
address (phase, index, start point), never on which worker ran it or when.  So a seed gives
the same result with one job or many, and a distributed executor only has to provide the
same ordered ``map`` to be plugged in.

Claims hold lambdas, which do not pickle: the process pool is *forked* after the checks it
will run are registered in this module, and tasks name a check by its position in that table.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Callable, Iterable, Iterator

from .limits import capped_jobs

#: checks visible to forked workers: token -> Check
_CHECKS: dict[int, Any] = {}


class SerialExecutor:
    """Runs tasks one after another in this process (no start-up cost)."""

    jobs = 1

    def ref(self, check) -> Any:
        """How a task names ``check``: in-process, the check itself."""
        return check

    def imap(self, fn: Callable, tasks: Iterable) -> Iterator:
        for t in tasks:
            yield fn(t)

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class ProcessExecutor(SerialExecutor):
    """A pool of forked worker processes; results come back in task order.

    At most ``2 * jobs`` tasks are in flight, so a search that stops at its first certified
    counterexample wastes little work; pending tasks are cancelled when the consumer stops.
    """

    def __init__(self, jobs: int):
        if jobs < 2:
            raise ValueError(f"a process pool needs at least 2 jobs, got {jobs}")
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None

    def ref(self, check) -> int:
        """A token the forked workers resolve; registered before the pool forks."""
        token = id(check)
        if _CHECKS.get(token) is not check:
            if self._pool is not None:  # workers were forked before this check existed
                self.close()
            _CHECKS[token] = check
        return token

    def _ensure_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("fork"),
                                             initializer=die_with_parent, initargs=(os.getpid(),))
        return self._pool

    def imap(self, fn: Callable, tasks: Iterable) -> Iterator:
        pool = self._ensure_pool()
        window: deque[Future] = deque()
        it = iter(tasks)
        try:
            for t in it:
                window.append(pool.submit(fn, t))
                if len(window) >= 2 * self.jobs:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()
        finally:
            for f in window:
                f.cancel()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with_parent(parent: int) -> None:
    """Pool initializer: a worker ends when the process that forked it dies, even by SIGKILL.

    Otherwise a killed ``verify`` leaves its workers computing for nobody.  Linux delivers
    SIGKILL to the worker when its parent exits; elsewhere the worker keeps the default.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl in this libc
            return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def make_executor(jobs: int) -> SerialExecutor:
    """``jobs`` <= 1: in-process; otherwise a forked pool (``0`` means one per core).

    Never more workers than cores available: more only add memory and switching.
    """
    jobs = capped_jobs(jobs)
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return SerialExecutor()
    return ProcessExecutor(jobs)


def registered_check(token: int):
    return _CHECKS[token]


__all__ = ["SerialExecutor", "ProcessExecutor", "die_with_parent", "make_executor", "registered_check"]
