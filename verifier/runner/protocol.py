"""The worker protocol: how a task reaches a forked worker and its answer comes back, checked.

Frames are length-prefixed pickles on a pair of pipes per worker.  The parent writes
``(seq, nonce, limit, fn, item)``; the worker answers ``(kind, seq, nonce, payload)`` with kind
``message``, ``returned``, ``raised`` or ``violated``.  The parent accepts a frame only for the
task the worker is running, named by its sequence number and a random nonce sent with it:
results are keyed by task, never taken by their position on the pipe.

A worker runs someone else's code, so after every task it checks that the code left nothing
behind that could reach another task's answer:

* **forks** -- a fork the verifier did not make (``os.fork`` in a claim, a library that forks
  without exec) fails the task: the forked copy loses the channel before it runs another line
  of Python (its copies of the pipes are closed), so it can never answer for any task;
* **processes** -- the worker is a child subreaper (Linux), so every process the task started,
  however detached (``setsid``, a double fork), is its descendant; whatever still runs after
  the task is killed, and the task fails naming it;
* **threads** -- a Python thread still alive after the task fails it, and the worker ends (a
  thread cannot be stopped from outside).

A worker's stdout is its stderr (stdout carries JSON), its stdin is empty, it ignores Ctrl-C
(the parent receives it and ends the run), and it dies with its parent, even by SIGKILL.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import secrets
import signal
import struct
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from . import watchdog
from .authorship import authors_frame

_LENGTH = struct.Struct(">I")
#: the largest frame a worker may send (a result is plain data; more is a runaway)
MAX_FRAME = 1 << 30

#: a frame's kinds, worker to parent
MESSAGE, RETURNED, RAISED, VIOLATED = "message", "returned", "raised", "violated"

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_PR_SET_CHILD_SUBREAPER = 36


# ---------------------------------------------------------------------------- frames
def write_frame(fd: int, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_LENGTH.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def read_frame(fd: int) -> bytes | None:
    """One whole frame's bytes (blocking), or None at the pipe's end."""
    header = _read_exact(fd, _LENGTH.size)
    if header is None:
        return None
    (n,) = _LENGTH.unpack(header)
    return _read_exact(fd, n)


def _read_exact(fd: int, n: int) -> bytes | None:
    out = bytearray()
    while len(out) < n:
        chunk = os.read(fd, n - len(out))
        if not chunk:
            return None
        out += chunk
    return bytes(out)


class FrameBuffer:
    """Bytes read from a non-blocking pipe, cut into whole frames."""

    def __init__(self):
        self.data = bytearray()
        self.oversized = False

    def feed(self, fd: int) -> bool:
        """Read what is there; True when the pipe reached its end."""
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                return False
            except OSError:
                return True
            if not chunk:
                return True
            self.data += chunk

    def frames(self) -> list[bytes]:
        out = []
        while len(self.data) >= _LENGTH.size:
            (n,) = _LENGTH.unpack_from(self.data)
            if n > MAX_FRAME:
                self.oversized = True
                self.data.clear()
                break
            if len(self.data) < _LENGTH.size + n:
                break
            out.append(bytes(self.data[_LENGTH.size:_LENGTH.size + n]))
            del self.data[:_LENGTH.size + n]
        return out


def new_nonce() -> int:
    return secrets.randbits(63)


# ---------------------------------------------------------------------------- the worker's own state
class _Channel:
    """The running worker's end of its pipes and the task under way."""

    def __init__(self, tasks: int, results: int):
        self.tasks, self.results = tasks, results
        self.seq = self.nonce = None
        self.forked_at: str | None = None  # where the task's code forked, if it did


_CHANNEL: _Channel | None = None
_SANCTIONED = threading.local()  # depth of forks the verifier itself is making on this thread


@contextlib.contextmanager
def verifier_fork():
    """Within the block, forks are the verifier's own (a pool inside a worker), not the task's."""
    _SANCTIONED.depth = getattr(_SANCTIONED, "depth", 0) + 1
    try:
        yield
    finally:
        _SANCTIONED.depth -= 1


def _sanctioned() -> bool:
    return getattr(_SANCTIONED, "depth", 0) > 0


def _after_fork_in_parent() -> None:
    channel = _CHANNEL
    if channel is not None and channel.seq is not None and not _sanctioned() and channel.forked_at is None:
        channel.forked_at = authors_frame(sys._getframe(1)) or "in code the claim ran"


def _after_fork_in_child() -> None:
    # Whoever forked, the child must not hold this worker's channel: only the worker answers
    # for its tasks.  A pool the verifier starts here makes channels of its own.
    global _CHANNEL
    channel = _CHANNEL
    if channel is None:
        return
    _CHANNEL = None
    for fd in (channel.tasks, channel.results):
        with contextlib.suppress(OSError):
            os.close(fd)
    if not _sanctioned():
        _COPIES.append(True)


_COPIES: list[bool] = []  # non-empty in a copy forked by a task's code: it ends where it meets the protocol again

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_parent=_after_fork_in_parent, after_in_child=_after_fork_in_child)


def send_message(message) -> None:
    """In a worker, a message to the parent about the running task (progress); elsewhere nothing."""
    channel = _CHANNEL
    if channel is not None and channel.seq is not None:
        write_frame(channel.results, (MESSAGE, channel.seq, channel.nonce, message))
    elif _MESSAGE_SINK is not None:
        _MESSAGE_SINK(message)


_MESSAGE_SINK: Callable[[Any], None] | None = None


@contextlib.contextmanager
def message_sink(sink: Callable[[Any], None] | None):
    """Within the block (a task run in-process), :func:`send_message` calls ``sink``."""
    global _MESSAGE_SINK
    saved, _MESSAGE_SINK = _MESSAGE_SINK, sink
    try:
        yield
    finally:
        _MESSAGE_SINK = saved


# ---------------------------------------------------------------------------- a worker's life
def die_with_parent(parent: int) -> None:
    """A worker ends when the process that forked it dies, even by SIGKILL (Linux); elsewhere
    it keeps the default.  Otherwise a killed ``verify`` leaves workers computing for nobody."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl in this libc
            return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def become_subreaper() -> bool:
    """Orphaned descendants of this process are re-parented to it, not to init (Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):  # pragma: no cover
        return False


def child_setup(parent: int, close: Sequence[int], quiet: bool) -> None:
    """A new worker: its own session (its descendants are killed with it), dies with its parent,
    ignores Ctrl-C, reads nothing, prints to stderr (or, ``quiet``, nowhere)."""
    watchdog.reset_in_child()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for fd in close:
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(OSError):
        os.setsid()
    die_with_parent(parent)
    become_subreaper()
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
        with contextlib.suppress(OSError):
            setattr(sys, name, open(fd, mode, buffering=1, closefd=False, errors="backslashreplace"))


@dataclass(frozen=True)
class Inherited:
    """A task's function and item, by their place in the list the worker was forked with (for
    what does not pickle: a lambda, a claim)."""

    index: int


def worker_main(tasks: int, results: int, inherited: Sequence = ()) -> None:
    """Take task after task until the parent says stop; end after any task that did not return
    cleanly (a worker that met a BaseException or a violation may be in any state)."""
    global _CHANNEL
    channel = _CHANNEL = _Channel(tasks, results)
    baseline_threads = set(threading.enumerate())
    while True:
        data = read_frame(tasks)
        if data is None:
            return
        seq, nonce, limit, fn, item = pickle.loads(data)
        if seq is None:  # stop
            return
        if isinstance(fn, Inherited):
            fn, item = inherited[fn.index]
        channel.seq, channel.nonce, channel.forked_at = seq, nonce, None
        try:
            with watchdog.time_box(None if limit is None else time.monotonic() + limit):
                frame = (RETURNED, fn(item))
        except BaseException as exc:  # the author's code may raise anything, SystemExit included
            if _COPIES:
                os._exit(0)
            timed = isinstance(exc, watchdog.TimeLimitExceeded)
            where = exc.where if timed else authors_frame(exc.__traceback__)
            detail = "" if timed else (str(exc).splitlines() or [""])[0][:500]
            frame = (RAISED, type(exc).__name__, detail, where)
        if _COPIES:  # a copy forked by the task's code came back here: it answers nothing
            os._exit(0)
        violation = left_behind(channel, baseline_threads)
        if violation is not None:
            frame = (VIOLATED, violation)
        try:
            write_frame(results, (frame[0], seq, nonce, frame[1:] if frame[0] != RETURNED else frame[1]))
        except Exception as exc:  # a result that does not pickle
            write_frame(results, (RAISED, seq, nonce, (type(exc).__name__, f"its result could not be sent back: {exc}"[:500], "")))
            return
        channel.seq = channel.nonce = None
        if frame[0] != RETURNED:
            return


def left_behind(channel: _Channel, baseline_threads: set) -> str | None:
    """What the task left that must not outlive it, killed where it can be: None when nothing."""
    said = []
    if channel.forked_at is not None:
        said.append(f"forked its process ({channel.forked_at}); a claim must compute in the process it is given")
    strays = kill_descendants()
    if strays:
        said.append("left " + ", ".join(strays[:3]) + (f" and {len(strays) - 3} more" if len(strays) > 3 else "")
                    + " running after its task (killed)")
    threads = [t for t in threading.enumerate() if t.is_alive() and t not in baseline_threads]
    if threads:
        said.append(f"left {len(threads)} thread(s) running after its task ({', '.join(t.name for t in threads[:3])})")
    return "; ".join(said) or None


def kill_descendants(rounds: int = 50) -> list[str]:
    """Kill every child of this process (and, as a subreaper, every orphaned descendant that
    comes back to it) until none is left; each as "process PID (COMMAND)"."""
    found: list[str] = []
    for _ in range(rounds):
        children = children_of(os.getpid())
        if not children:
            break
        for pid in children:
            found.append(f"process {pid} ({_command(pid)})")
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)
    return list(dict.fromkeys(found))


def children_of(pid: int) -> list[int]:
    """The live children of ``pid`` (Linux /proc; elsewhere none are seen)."""
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                out.extend(int(c) for c in fh.read().split())
    except OSError:
        return []
    return sorted(set(out))


def descendants_of(pid: int) -> list[int]:
    """Every live descendant of ``pid``, parents before children."""
    out, todo = [], [pid]
    while todo:
        for child in children_of(todo.pop()):
            if child not in out:
                out.append(child)
                todo.append(child)
    return out


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            text = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = ["FrameBuffer", "Inherited", "MAX_FRAME", "MESSAGE", "RAISED", "RETURNED", "VIOLATED", "become_subreaper", "child_setup", "children_of",
           "descendants_of", "die_with_parent", "kill_descendants", "message_sink", "new_nonce", "read_frame", "send_message",
           "verifier_fork", "worker_main", "write_frame"]
