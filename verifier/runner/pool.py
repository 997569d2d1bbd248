"""The scheduler of forked workers: tasks out, checked answers back, in task order.

Cost.  A fork and an exit cost 5-20 ms on a loaded machine, more than many checks take, so
workers are forked once and take task after task (each holds the next one in its pipe, so it
never waits for the parent), across every ``map`` of the pool's life; a worker is replaced
only after a task that did not return cleanly.  Tasks travel by value (a pickle of a function
named by module and name, and its item); answers come back keyed by task
(:mod:`.protocol`) and, from workers that run a pack's code, are read as plain data only
(:mod:`.safe_pickle`).

Deadlines are kept twice: inside the worker by the watchdog, and here, where a worker still
busy ``KILL_AFTER`` seconds past its task's limit is killed with its whole session and every
process it started.

``affinity(item)`` keeps apart what must not share a process: a worker that ran a task of
one affinity (one claim pack) never runs a task of another; an idle worker of another
affinity makes room for it.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import selectors
import signal
import sys
import time
from collections import deque
from typing import Any, Callable, Hashable, Iterator, Sequence

from . import protocol
from .outcome import Outcome
from .safe_pickle import UnreadableAnswer, loads_data

#: seconds between a task's deadline (when the watchdog fires inside the worker) and the
#: parent's SIGKILL of a worker that did not answer
KILL_AFTER = 3.0

_NO_AFFINITY = object()


class _Worker:
    """A forked worker as the parent sees it: its pipes, and the tasks handed to it in order
    (the first is running; one more waits in its pipe)."""

    def __init__(self, inherited: Sequence[int], quiet: bool, affinity, payloads: Sequence = ()):
        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):  # buffered text would be written twice, once by each process
            with contextlib.suppress(AttributeError, OSError, ValueError):
                stream.flush()
        parent = os.getpid()
        with protocol.verifier_fork():
            pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the worker (coverage does not follow forks)
            code = 0
            try:
                os.close(task_w)
                os.close(result_r)
                protocol.child_setup(parent, inherited, quiet)
                protocol.worker_main(task_r, result_w, payloads)
            except BaseException:
                code = 70
            finally:
                os._exit(code)
        os.close(task_r)
        os.close(result_w)
        os.set_blocking(result_r, False)
        self.pid, self.tasks, self.results = pid, task_w, result_r
        self.buffer = protocol.FrameBuffer()
        self.queue: deque[tuple[int, int, int, float | None]] = deque()  # (index, seq, nonce, limit), the running task first
        self.started = self.deadline = 0.0
        self.alive = True
        self.takes_tasks = True
        self.affinity = affinity

    @property
    def fds(self) -> tuple[int, int]:
        return (self.tasks, self.results)

    @property
    def running(self) -> tuple[int, int, int, float | None] | None:
        return self.queue[0] if self.queue else None

    def assign(self, index: int, seq: int, payload: tuple, limit: float | None) -> bool:
        """Hand a task over; False if the worker has already gone (its end is read soon)."""
        nonce = protocol.new_nonce()
        try:
            protocol.write_frame(self.tasks, (seq, nonce, limit) + payload)
        except OSError:  # BrokenPipeError: it ended after its last answer, before we heard of it
            self.takes_tasks = False
            return False
        self.queue.append((index, seq, nonce, limit))
        if len(self.queue) == 1:
            self._started_now()
        return True

    def _started_now(self) -> None:
        # the worker starts a waiting task as soon as it sent the one before: a little earlier
        # than this, so the parent's deadline is a little later than the worker's own
        self.started = time.monotonic()
        limit = self.queue[0][3]
        self.deadline = math.inf if limit is None else self.started + limit

    def done_with_running(self) -> None:
        self.queue.popleft()
        if self.queue:
            self._started_now()

    def stop(self, kill: bool) -> int | None:
        """End the worker (with ``kill``, its whole session and every process it started); its
        wait status (None if it could not be reaped)."""
        if not self.alive:
            return None
        self.alive = False
        if kill:
            strays = protocol.descendants_of(self.pid)
            for target in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    target()
            for pid in strays:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        else:
            with contextlib.suppress(OSError):
                protocol.write_frame(self.tasks, (None, None, None, None, None))
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return None
        if kill:
            _reap_orphans()
        return status

    def outcome_of_death(self, status: int | None) -> Outcome:
        seconds = time.monotonic() - self.started
        limit = self.running[3] if self.running else None
        if status is not None and os.WIFSIGNALED(status):
            return Outcome("killed", signal=os.WTERMSIG(status), seconds=seconds, limit=limit)
        code = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
        return Outcome("exited", exit_status=code, seconds=seconds, limit=limit)


def _reap_orphans() -> None:
    """Zombies of processes a killed worker left, re-parented here (this process is a subreaper)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


class ForkedPool:
    """Forked workers for ``fn(item)`` tasks, kept for the pool's life (see the module's text).

    ``trusted``: answers are read by plain pickle (the workers run only the verifier's own code
    on data the parent holds); otherwise as plain data only.  ``quiet``: what workers print is
    dropped.  ``inherited``: (fn, item) pairs the workers receive by fork, not by pickle: a task
    names one by :class:`~.protocol.Inherited` (a lambda, a claim).
    """

    def __init__(self, jobs: int, trusted: bool = True, quiet: bool = False, inherited: Sequence = ()):
        self.jobs = max(1, jobs)
        self.trusted, self.quiet = trusted, quiet
        self.inherited = tuple(inherited)
        self.workers: list[_Worker] = []
        self._seq = 0
        self._owner = os.getpid()
        protocol.become_subreaper()

    def _spawn(self, affinity) -> _Worker:
        inherited = [fd for w in self.workers for fd in w.fds]
        w = _Worker(inherited, self.quiet, affinity, self.inherited)
        self.workers.append(w)
        return w

    def map(self, fn: Callable[[Any], Any], items: Sequence, limit: Callable[[Any], float | None] | None = None,
            on_message: Callable[[int, Any], None] | None = None,
            affinity: Callable[[Any], Hashable] | None = None, workers: int | None = None) -> Iterator[Outcome]:
        """``fn(item)`` for every item; an :class:`Outcome` per item, in item order, each as soon
        as it and those before it are there.  ``limit(item)``: the seconds it may take from when
        a worker starts it (None: no limit).  ``send_message(m)`` in the task calls
        ``on_message(index, m)`` here.  ``workers``: at most this many tasks run at once (at most
        the pool's ``jobs``).  A worker whose task did not return cleanly is replaced;
        workers with tasks in hand are killed when the consumer stops early."""
        if self._owner != os.getpid():  # forked from the process that made the pool: not ours to use
            self.workers, self._owner = [], os.getpid()
        items = list(items)
        payloads = [(fn, item) for item in items]
        pending = deque(range(len(items)))
        done: dict[int, Outcome] = {}
        by_seq: dict[int, int] = {}
        selector = selectors.DefaultSelector()
        key_of = (lambda i: affinity(items[i])) if affinity is not None else (lambda i: _NO_AFFINITY)
        at_once = self.jobs if workers is None else max(1, min(workers, self.jobs))

        def register(w: _Worker) -> None:
            with contextlib.suppress(KeyError, ValueError):
                selector.register(w.results, selectors.EVENT_READ, w)

        for w in self.workers:
            register(w)

        def retire(w: _Worker, outcome: Outcome | None, kill: bool) -> None:
            with contextlib.suppress(KeyError, ValueError):
                selector.unregister(w.results)
            status = w.stop(kill)
            if w in self.workers:
                self.workers.remove(w)
            if w.queue:
                index = w.queue[0][0]
                done[index] = outcome if outcome is not None else w.outcome_of_death(status)
                w.queue.popleft()
                pending.extendleft(reversed([i for i, *_ in w.queue]))  # never started: another worker takes them
                w.queue.clear()

        def accept(w: _Worker, data: bytes) -> None:
            index, seq, nonce, limit_ = w.running
            seconds = time.monotonic() - w.started
            try:
                frame = pickle.loads(data) if self.trusted else loads_data(data)
                kind, got_seq, got_nonce, payload = frame
            except (UnreadableAnswer, ValueError, TypeError) as exc:
                why = str(exc) if isinstance(exc, UnreadableAnswer) else "its answer is not a frame of the protocol"
                retire(w, Outcome("violated", detail=f"sent an answer the verifier refuses: {why}", seconds=seconds, limit=limit_), kill=True)
                return
            except Exception as exc:  # a trusted answer that does not load
                retire(w, Outcome("raised", exception=type(exc).__name__, detail=f"its answer could not be read: {exc}"[:500],
                                  seconds=seconds, limit=limit_), kill=True)
                return
            if (got_seq, got_nonce) != (seq, nonce):
                retire(w, Outcome("violated", detail="wrote into the worker's channel an answer for another task (a forked copy?)",
                                  seconds=seconds, limit=limit_), kill=True)
                return
            if kind == protocol.MESSAGE:
                if on_message is not None:
                    on_message(index, payload)
            elif kind == protocol.RETURNED:
                done[index] = Outcome("returned", value=payload, seconds=seconds, limit=limit_)
                w.done_with_running()
            elif kind == protocol.RAISED:
                exception, detail, where = payload
                retire(w, Outcome("raised", exception=exception, detail=detail, where=where, seconds=seconds, limit=limit_), kill=False)
            elif kind == protocol.VIOLATED:
                (detail,) = payload
                retire(w, Outcome("violated", detail=detail, seconds=seconds, limit=limit_), kill=True)
            else:
                retire(w, Outcome("violated", detail=f"sent a frame of unknown kind {kind!r}", seconds=seconds, limit=limit_), kill=True)

        def hand_out() -> None:
            """Idle workers first (forking up to ``jobs``), then one waiting task per busy worker."""
            for w in [w for w in self.workers if not w.queue and not w.takes_tasks]:
                retire(w, None, kill=True)  # gone while idle (killed from outside): a fresh one takes its place
            for depth in (0, 1):
                for i in list(pending):
                    want = key_of(i)
                    busy = sum(1 for w in self.workers if w.queue)
                    w = next((w for w in self.workers if len(w.queue) == depth and w.takes_tasks and w.affinity == want), None)
                    if depth == 0 and busy >= at_once:
                        w = None
                    elif w is None and depth == 0:
                        if len(self.workers) >= self.jobs:
                            idle = next((w for w in self.workers if not w.queue), None)
                            if idle is None:
                                break
                            retire(idle, None, kill=False)  # another affinity's idle worker makes room
                        w = self._spawn(want)
                        register(w)
                    if w is None:
                        break
                    self._seq += 1
                    pending.remove(i)
                    lim = limit(items[i]) if limit else None
                    if w.assign(i, self._seq, payloads[i], lim):
                        w.affinity = want
                        by_seq[self._seq] = i
                    else:
                        pending.appendleft(i)

        next_out = 0
        completed = False
        try:
            while next_out < len(items):
                if next_out in done:
                    yield done.pop(next_out)
                    next_out += 1
                    continue
                hand_out()
                busy = [w for w in self.workers if w.queue]
                if not busy:  # every task is assigned or done, and none is running: cannot happen
                    raise RuntimeError(f"ForkedPool.map: task {next_out} is neither pending, running nor done")
                wake = min(w.deadline + KILL_AFTER for w in busy)
                timeout = None if wake == math.inf else max(wake - time.monotonic(), 0.0)
                for key, _ in selector.select(timeout):
                    w = key.data
                    ended = w.buffer.feed(w.results)
                    for data in w.buffer.frames():
                        if not w.queue or w not in self.workers:
                            if w in self.workers and data:  # an answer nobody asked for: the worker is not to be trusted
                                retire(w, None, kill=True)
                            break
                        accept(w, data)
                    if w in self.workers and w.buffer.oversized and w.queue:
                        retire(w, Outcome("violated", detail=f"sent an answer larger than {protocol.MAX_FRAME:,} bytes",
                                          seconds=time.monotonic() - w.started, limit=w.running[3]), kill=True)
                    if ended and w in self.workers:
                        retire(w, None, kill=False)
                now = time.monotonic()
                for w in [w for w in self.workers if w.queue and now > w.deadline + KILL_AFTER]:
                    retire(w, Outcome("timed out", seconds=now - w.started, limit=w.running[3]), kill=True)
            completed = True
        finally:
            for w in list(self.workers):
                if w.queue or not completed:
                    retire(w, None, kill=True)
            selector.close()

    def close(self) -> None:
        if self._owner != os.getpid():
            self.workers = []
            return
        for w in list(self.workers):
            w.stop(kill=bool(w.queue))
        self.workers = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


__all__ = ["ForkedPool", "KILL_AFTER"]
