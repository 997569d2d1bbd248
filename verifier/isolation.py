"""Isolation: an author's code runs where it can neither end, hang nor crash the run.

A claim pack is someone else's code.  It may call ``sys.exit`` or ``os._exit``, raise
``KeyboardInterrupt``, sleep forever, print, or reach native code that aborts (a FLINT
exception) or segfaults.  Work that runs it -- a check's search, a proof, a pack's import --
runs in a forked worker process under a deadline, and comes back as data
(:class:`Outcome`): the value returned, the exception raised, or how the process ended (its
exit status, the signal that killed it, the deadline that passed).  The run goes on.

Cost.  A fork and an exit of this process cost 5-20 ms on a loaded machine, more than many
checks take, so workers are forked once and take task after task (each holds the next one in
its pipe, so it never waits for the parent); a worker is replaced only after a task that did
not return normally.  Tasks reach a worker by fork, never by pickle
(claims hold lambdas): a task is an index into the list the workers were forked with, and
only results and messages travel back, pickled, through a pipe.

Deadlines are kept twice.  Inside the worker a SIGALRM watchdog (:func:`time_box`) raises
:class:`TimeLimitExceeded` in whatever Python code runs when the task's time is up, naming
the author's code it stopped; the parent kills a worker still busy ``KILL_AFTER`` seconds
later (native code that never returns to Python ignores the watchdog).

A worker's stdout is its stderr (stdout carries JSON; nothing an author prints may reach
it), its stdin is empty, and it ignores Ctrl-C: the parent receives it, kills the workers
and ends the run (exit 130).
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import selectors
import signal
import struct
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

#: seconds between a task's deadline (when the watchdog fires inside the worker) and the
#: parent's SIGKILL of a worker that did not answer
KILL_AFTER = 3.0
#: seconds between reminders to code that caught :class:`TimeLimitExceeded` and went on
REMIND_EVERY = 0.25

_VERIFIER_DIR = str(Path(__file__).resolve().parent)
_LIBRARY_DIRS = tuple(sorted({str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}))

#: signals that mean "native code crashed", as a reader should be told
CRASH_SIGNALS = {signal.SIGSEGV: "segmentation fault", signal.SIGABRT: "aborted", signal.SIGBUS: "bus error",
                 signal.SIGFPE: "arithmetic fault", signal.SIGILL: "illegal instruction"}


# ---------------------------------------------------------------------------- outcomes
@dataclass(frozen=True)
class Outcome:
    """How one task ended: ``status`` is returned, raised, exited, killed or timed out."""

    status: str
    value: Any = None
    exception: str = ""  # the exception's type name (raised)
    detail: str = ""  # the exception's message (raised)
    where: str = ""  # the author's code it was in: "pack.py, line 7, in lhs"
    exit_status: int | None = None  # exited
    signal: int | None = None  # killed
    seconds: float = 0.0
    limit: float | None = None  # the task's time limit in seconds, if it had one

    @property
    def returned(self) -> bool:
        return self.status == "returned"

    @property
    def out_of_time(self) -> bool:
        return self.status == "timed out" or self.exception == TimeLimitExceeded.__name__

    @property
    def crashed(self) -> bool:
        return self.status == "killed"

    def describe(self, limit_text: str | None = None) -> str:
        """What happened, as the predicate of a sentence ("the claim's code ..."), one line."""
        at = f" ({self.where})" if self.where else ""
        if self.out_of_time:
            within = limit_text or (f"{self.limit:g} s" if self.limit is not None else "its time limit")
            stopped = "was stopped" if self.status == "raised" else "was killed"
            return f"did not return within {within} and {stopped}{at}"
        if self.status == "raised":
            if self.exception == "SystemExit":
                return f"called sys.exit({self.detail}){at}"
            return f"raised {self.exception}{': ' + self.detail if self.detail else ''}{at}"
        if self.status == "exited":
            return f"ended its process (exit status {self.exit_status}: os._exit or native code)"
        if self.status == "killed":
            name = signal_name(self.signal)
            why = CRASH_SIGNALS.get(self.signal)
            return f"crashed: its process died of signal {name}" + (f" ({why})" if why else "")
        return self.status


def signal_name(number: int | None) -> str:
    try:
        return signal.Signals(number).name
    except (ValueError, TypeError):
        return f"signal {number}"


def authors_frame(tb_or_frame) -> str:
    """The innermost frame of an author's code ("file.py, line 7, in lhs"), or "".

    An author's code is a claim pack's (a pack loaded from a path, or an installed one) or
    anything that is neither the verifier nor the Python installation (standard library,
    site-packages): a frame of sympy's is not the claim's, even when a claim's check ran it.
    """
    frames = []
    if hasattr(tb_or_frame, "tb_frame"):
        tb = tb_or_frame
        while tb is not None:
            frames.append((tb.tb_frame, tb.tb_lineno))
            tb = tb.tb_next
    else:
        frame = tb_or_frame
        while frame is not None:
            frames.insert(0, (frame, frame.f_lineno))
            frame = frame.f_back
    for frame, line in reversed(frames):
        code = frame.f_code
        if _is_authors(code.co_filename, str(frame.f_globals.get("__name__", ""))):
            name = "" if code.co_name == "<module>" else f", in {code.co_name}"
            return f"{Path(code.co_filename).name}, line {line}{name}"
    return ""


def _is_authors(filename: str, module: str) -> bool:
    if filename.startswith(("<", _VERIFIER_DIR)) or "importlib" in filename:
        return False
    if not filename.startswith(_LIBRARY_DIRS):
        return True
    return module.startswith("_verifier_pack_") or module.split(".")[0] in _pack_roots()


_PACK_ROOTS: set[str] | None = None


def _pack_roots() -> set[str]:
    """Top-level modules of the installed claim packs (their code may live in site-packages)."""
    global _PACK_ROOTS
    if _PACK_ROOTS is None:
        from .executor import _claim_pack_roots

        _PACK_ROOTS = _claim_pack_roots()
    return _PACK_ROOTS


# ---------------------------------------------------------------------------- the watchdog
class TimeLimitExceeded(BaseException):
    """Raised where the code of a :func:`time_box` runs when its deadline has passed.

    A BaseException, as KeyboardInterrupt is: an author's (or a library's) ``except
    Exception`` does not swallow it, and code that swallows it anyway is reminded every
    ``REMIND_EVERY`` seconds.
    """

    def __init__(self, deadline: float, where: str = ""):
        super().__init__(f"the time limit passed{f' in {where}' if where else ''}")
        self.deadline, self.where = deadline, where


class OutOfTime(Exception):
    """:func:`call_within`'s deadline passed before the call returned."""


_BOXES: list[float] = []  # deadlines of the enclosing time boxes, innermost last
_OUTER: tuple | None = None  # (handler, timer, when) in place before the outermost box


def can_box() -> bool:
    """SIGALRM reaches only the main thread: elsewhere a time box cannot interrupt anything."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _on_alarm(signum, frame):
    if not _BOXES:
        return
    earliest = min(_BOXES)
    if time.monotonic() < earliest:  # early (a timer of an outer box): wait for the real one
        _arm()
        return
    raise TimeLimitExceeded(earliest, authors_frame(frame))


def _arm() -> None:
    if _BOXES:
        signal.setitimer(signal.ITIMER_REAL, max(min(_BOXES) - time.monotonic(), 1e-4), REMIND_EVERY)
    else:
        signal.setitimer(signal.ITIMER_REAL, 0)


@contextlib.contextmanager
def time_box(deadline: float | None) -> Iterator[None]:
    """Within the block, :class:`TimeLimitExceeded` is raised once ``time.monotonic()`` passes
    ``deadline`` (None: no limit).  Boxes nest; off the main thread the block runs unboxed."""
    global _OUTER
    if deadline is None or not math.isfinite(deadline) or not can_box():
        yield
        return
    if not _BOXES:
        _OUTER = (signal.signal(signal.SIGALRM, _on_alarm), signal.getitimer(signal.ITIMER_REAL), time.monotonic())
    _BOXES.append(deadline)
    depth = len(_BOXES)
    _arm()
    try:
        yield
    finally:
        # Python runs a signal's handler at the next check after the signal, so an alarm (or a
        # reminder) that fired just before the timer is stopped can still raise in here: the
        # leaving is done again until it completes.  An outer box whose deadline passed is
        # re-armed by it and raises after the block, where its own handler expects it.
        while True:
            try:
                _leave(depth)
                break
            except TimeLimitExceeded:
                continue


def _leave(depth: int) -> None:
    """Close the boxes from ``depth`` inward; restore what was in place before the outermost
    one once none is left.  Safe to repeat after an interruption at any point."""
    global _OUTER
    signal.setitimer(signal.ITIMER_REAL, 0)
    del _BOXES[depth - 1:]
    if _BOXES:
        _arm()
    elif _OUTER is not None:
        handler, (left, interval), when = _OUTER
        signal.signal(signal.SIGALRM, signal.SIG_DFL if handler is None else handler)  # None: set outside Python
        _OUTER = None
        if left > 0:  # someone else's timer (pytest-timeout, say) runs on, minus the time spent here
            signal.setitimer(signal.ITIMER_REAL, max(left - (time.monotonic() - when), 1e-4), interval)


def call_within(deadline: float | None, fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)``; :class:`OutOfTime` if ``deadline`` passed first (an enclosing
    box that runs out first still raises its own :class:`TimeLimitExceeded`)."""
    try:
        with time_box(deadline):
            return fn(*args, **kwargs)
    except TimeLimitExceeded as exc:
        if deadline is None or exc.deadline < deadline:
            raise
        raise OutOfTime(f"did not return within the time left{f' ({exc.where})' if exc.where else ''}") from None


# ---------------------------------------------------------------------------- stdout
@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Within the block, whatever is written to stdout (``print``, ``os.write(1, ...)``, a C
    library's printf) goes to stderr: stdout carries only what the command means to print."""
    saved_fd = None
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):
        pass
    try:
        saved_fd = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no fd 1 or 2 (an embedding without them): Python's streams only
        saved_fd = None
    saved, sys.stdout = sys.stdout, sys.stderr
    try:
        yield
    finally:
        try:
            sys.stderr.flush()
        except (AttributeError, OSError, ValueError):
            pass
        sys.stdout = saved
        if saved_fd is not None:
            os.dup2(saved_fd, 1)
            os.close(saved_fd)


# ---------------------------------------------------------------------------- workers
_TASK = struct.Struct(">qd")  # (index, seconds it may take from its start, or -1: no limit); index -1: stop
_FRAME = struct.Struct(">I")  # length of the pickle that follows
_STOP = -1


def forking_available() -> bool:
    """Isolation needs ``os.fork`` (POSIX); elsewhere work runs in-process, as before."""
    return hasattr(os, "fork")


def _write_frame(fd: int, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_FRAME.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = os.read(fd, n - len(out))
        if not chunk:
            return b""
        out += chunk
    return out


def _child_setup(parent: int, close: Sequence[int], quiet: bool) -> None:
    """A worker: dies with its parent, ignores Ctrl-C, reads nothing, prints to stderr (or,
    ``quiet``, nowhere)."""
    from .executor import die_with_parent

    global _OUTER
    _BOXES.clear()
    _OUTER = None
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    for fd in close:
        try:
            os.close(fd)
        except OSError:
            pass
    die_with_parent(parent)
    try:
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null if quiet else 2, 1)
        if quiet:
            os.dup2(null, 2)
        os.close(null)
    except OSError:
        pass
    # fresh stream objects: the inherited ones may hold a lock another thread of the parent had
    for name, fd, mode in (("stdin", 0, "r"), ("stdout", 1, "w"), ("stderr", 2, "w")):
        try:
            setattr(sys, name, open(fd, mode, buffering=1, closefd=False, errors="backslashreplace"))
        except OSError:
            pass


def _worker_main(fn: Callable, items: Sequence, tasks: int, results: int) -> None:
    def send(message) -> None:
        _write_frame(results, ("message", message))

    while True:
        header = _read_exact(tasks, _TASK.size)
        if not header:
            return
        index, seconds = _TASK.unpack(header)
        if index == _STOP:
            return
        try:
            with time_box(None if seconds < 0 else time.monotonic() + seconds):
                frame = ("returned", fn(items[index], send))
        except BaseException as exc:  # the author's code may raise anything, SystemExit included
            where = exc.where if isinstance(exc, TimeLimitExceeded) else authors_frame(exc.__traceback__)
            detail = "" if isinstance(exc, TimeLimitExceeded) else (str(exc).splitlines() or [""])[0][:500]
            frame = ("raised", type(exc).__name__, detail, where)
        try:
            _write_frame(results, frame)
        except Exception as exc:  # a result that does not pickle
            _write_frame(results, ("raised", type(exc).__name__, f"its result could not be sent back: {exc}"[:500], ""))
            return
        if frame[0] != "returned":
            return  # a worker that met a BaseException may be in any state: the parent forks a fresh one


class _Worker:
    """A forked worker as the parent sees it: its pipes, and the tasks handed to it in order
    (the first is running; one more waits in its pipe, so it never waits for the parent)."""

    def __init__(self, fn: Callable, items: Sequence, inherited: Sequence[int], quiet: bool = False):
        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):  # buffered text would be written twice, once by each process
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the worker (coverage does not follow forks)
            code = 0
            try:
                os.close(task_w)
                os.close(result_r)
                _child_setup(parent, inherited, quiet)
                _worker_main(fn, items, task_r, result_w)
            except BaseException:
                code = 70
            finally:
                os._exit(code)
        os.close(task_r)
        os.close(result_w)
        os.set_blocking(result_r, False)
        self.pid, self.tasks, self.results = pid, task_w, result_r
        self.buffer = bytearray()
        self.queue: deque[tuple[int, float | None]] = deque()  # (index, limit), the running task first
        self.started = self.deadline = 0.0
        self.alive = True
        self.alive_for_tasks = True

    @property
    def fds(self) -> tuple[int, int]:
        return (self.tasks, self.results)

    @property
    def index(self) -> int | None:
        return self.queue[0][0] if self.queue else None

    @property
    def limit(self) -> float | None:
        return self.queue[0][1] if self.queue else None

    def assign(self, index: int, limit: float | None) -> bool:
        """Hand a task over; False if the worker has already gone (its end is read soon)."""
        try:
            os.write(self.tasks, _TASK.pack(index, -1.0 if limit is None else limit))
        except OSError:  # BrokenPipeError: it ended after its last answer, before we heard of it
            self.alive_for_tasks = False
            return False
        self.queue.append((index, limit))
        if len(self.queue) == 1:
            self._started_now()
        return True

    def _started_now(self) -> None:
        # the worker starts a waiting task as soon as it sent the one before: a little earlier
        # than this, so the parent's deadline is a little later than the worker's own
        self.started = time.monotonic()
        self.deadline = math.inf if self.limit is None else self.started + self.limit

    def done_with_running(self) -> None:
        self.queue.popleft()
        if self.queue:
            self._started_now()

    def frames(self) -> tuple[list, bool]:
        """The complete frames readable now, and whether the pipe reached its end."""
        ended = False
        while True:
            try:
                chunk = os.read(self.results, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                ended = True
                break
            if not chunk:
                ended = True
                break
            self.buffer += chunk
        out = []
        while len(self.buffer) >= _FRAME.size:
            (n,) = _FRAME.unpack_from(self.buffer)
            if len(self.buffer) < _FRAME.size + n:
                break
            data = bytes(self.buffer[_FRAME.size:_FRAME.size + n])
            del self.buffer[:_FRAME.size + n]
            try:
                out.append(pickle.loads(data))
            except Exception as exc:
                out.append(("raised", type(exc).__name__, f"its answer could not be read: {exc}"[:500], ""))
        return out, ended

    def stop(self, kill: bool) -> int | None:
        """End the worker; its wait status (None if it could not be reaped)."""
        if not self.alive:
            return None
        self.alive = False
        if kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        else:
            with contextlib.suppress(OSError):
                os.write(self.tasks, _TASK.pack(_STOP, 0.0))
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return None
        return status

    def outcome_of_death(self, status: int | None) -> Outcome:
        seconds = time.monotonic() - self.started
        if status is not None and os.WIFSIGNALED(status):
            return Outcome("killed", signal=os.WTERMSIG(status), seconds=seconds, limit=self.limit)
        code = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
        return Outcome("exited", exit_status=code, seconds=seconds, limit=self.limit)


def isolated_map(fn: Callable[[Any, Callable], Any], items: Sequence, jobs: int = 1,
                 limit: Callable[[Any], float | None] | None = None,
                 on_message: Callable[[int, Any], None] | None = None, quiet: bool = False) -> Iterator[Outcome]:
    """``fn(item, send)`` for every item, on ``jobs`` forked workers; an :class:`Outcome` per
    item, in item order, each as soon as it and those before it are there.

    ``limit(item)``: the seconds the item may take from when a worker starts it (None: no
    limit), read when it is handed to a worker.  ``send(message)`` in the worker calls
    ``on_message(index, message)`` here.  ``quiet``: what the workers print is dropped.  A
    worker whose task raised, ended or was killed is replaced (the task waiting behind it goes
    to another); workers are killed when the consumer stops early or the parent is interrupted.
    """
    items = list(items)
    pending = deque(range(len(items)))
    done: dict[int, Outcome] = {}
    workers: list[_Worker] = []
    jobs = max(1, min(jobs, len(items)))
    selector = selectors.DefaultSelector()

    def spawn() -> _Worker:
        inherited = [fd for w in workers for fd in w.fds]
        w = _Worker(fn, items, inherited, quiet)
        workers.append(w)
        selector.register(w.results, selectors.EVENT_READ, w)
        return w

    def retire(w: _Worker, outcome: Outcome | None, kill: bool) -> None:
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(w.results)
        status = w.stop(kill)
        workers.remove(w)
        if w.queue:
            done[w.index] = outcome if outcome is not None else w.outcome_of_death(status)
            w.queue.popleft()
            pending.extendleft(reversed([i for i, _ in w.queue]))  # never started: another worker takes them
            w.queue.clear()

    def finish(w: _Worker, frame) -> None:
        seconds = time.monotonic() - w.started
        if frame[0] == "returned":
            done[w.index] = Outcome("returned", value=frame[1], seconds=seconds, limit=w.limit)
            w.done_with_running()
        else:
            _, exception, detail, where = frame
            retire(w, Outcome("raised", exception=exception, detail=detail, where=where, seconds=seconds, limit=w.limit), kill=False)

    def hand_out() -> None:
        """Idle workers first (forking up to ``jobs``), then one waiting task per busy worker."""
        for w in [w for w in workers if not w.queue and not w.alive_for_tasks]:
            retire(w, None, kill=True)  # gone while idle (killed from outside): a fresh one takes its place
        for depth in (0, 1):
            while pending:
                w = next((w for w in workers if len(w.queue) == depth and w.alive_for_tasks), None)
                if w is None and depth == 0 and len(workers) < jobs:
                    w = spawn()
                if w is None:
                    break
                i = pending.popleft()
                if not w.assign(i, limit(items[i]) if limit else None):
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
            busy = [w for w in workers if w.queue]
            if not busy:  # every task is assigned or done, and none is running: cannot happen
                raise RuntimeError(f"isolated_map: task {next_out} is neither pending, running nor done")
            wake = min(w.deadline + KILL_AFTER for w in busy)
            timeout = None if wake == math.inf else max(wake - time.monotonic(), 0.0)
            for key, _ in selector.select(timeout):
                w = key.data
                frames, ended = w.frames()
                for frame in frames:
                    if not w.queue or w not in workers:
                        break
                    if frame[0] == "message":
                        if on_message is not None:
                            on_message(w.index, frame[1])
                    else:
                        finish(w, frame)
                if ended and w in workers:
                    retire(w, None, kill=False)
            now = time.monotonic()
            for w in [w for w in workers if w.queue and now > w.deadline + KILL_AFTER]:
                retire(w, Outcome("timed out", seconds=now - w.started, limit=w.limit), kill=True)
        completed = True
    finally:
        for w in list(workers):
            retire(w, None, kill=not completed)
        selector.close()


class AbruptEnd(Exception):
    """A call run apart did not come back: it ended or crashed its process, raised a
    BaseException (SystemExit, KeyboardInterrupt), or ran past its time limit."""

    def __init__(self, outcome: Outcome, subject: str):
        super().__init__(f"{subject} {outcome.describe()}")
        self.outcome = outcome


def _capturing(task, send):
    fn, args = task
    try:
        return "returned", fn(*args)
    except Exception as exc:  # raised again in the caller, as if the call had run there
        return "raised", exc


def call_apart(fn: Callable, *args, limit: float | None = None, subject: str = "the call"):
    """``fn(*args)`` in a forked worker: its value, or the Exception it raised (raised here);
    :class:`AbruptEnd` ("``subject`` ended its process ...") when it did not come back."""
    outcome = run_isolated(_capturing, (fn, args), limit=limit)
    if not outcome.returned:
        raise AbruptEnd(outcome, subject)
    kind, payload = outcome.value
    if kind == "raised":
        raise payload
    return payload


def run_isolated(fn: Callable[[Any, Callable], Any], item: Any = None, limit: float | None = None,
                 on_message: Callable[[Any], None] | None = None, quiet: bool = False) -> Outcome:
    """``fn(item, send)`` in one forked worker, within ``limit`` seconds: its :class:`Outcome`."""
    relay = None if on_message is None else (lambda _, message: on_message(message))
    return next(isolated_map(fn, [item], 1, (lambda _: limit), relay, quiet))


__all__ = ["AbruptEnd", "CRASH_SIGNALS", "KILL_AFTER", "OutOfTime", "Outcome", "TimeLimitExceeded", "authors_frame", "call_apart", "call_within", "can_box",
           "forking_available", "isolated_map", "run_isolated", "signal_name", "stdout_to_stderr", "time_box"]
