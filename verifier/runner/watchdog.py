"""The watchdog: a deadline inside a process, kept by SIGALRM.

:func:`time_box` raises :class:`TimeLimitExceeded` in whatever Python code runs when the
block's deadline has passed, naming the author's code it stopped; boxes nest and the
earliest deadline wins.  Native code that never returns to Python ignores it: the pool's
parent kills a worker still busy a few seconds later (:mod:`.pool`).
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from typing import Callable, Iterator

from .authorship import authors_frame

#: seconds between reminders to code that caught :class:`TimeLimitExceeded` and went on
REMIND_EVERY = 0.25


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


BOXES: list[float] = []  # deadlines of the enclosing time boxes, innermost last
_OUTER: tuple | None = None  # (handler, timer, when) in place before the outermost box


def can_box() -> bool:
    """SIGALRM reaches only the main thread: elsewhere a time box cannot interrupt anything."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _on_alarm(signum, frame):
    if not BOXES:
        return
    earliest = min(BOXES)
    if time.monotonic() < earliest:  # early (a timer of an outer box): wait for the real one
        _arm()
        return
    raise TimeLimitExceeded(earliest, authors_frame(frame))


def _arm() -> None:
    if BOXES:
        signal.setitimer(signal.ITIMER_REAL, max(min(BOXES) - time.monotonic(), 1e-4), REMIND_EVERY)
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
    if not BOXES:
        _OUTER = (signal.signal(signal.SIGALRM, _on_alarm), signal.getitimer(signal.ITIMER_REAL), time.monotonic())
    BOXES.append(deadline)
    depth = len(BOXES)
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
    del BOXES[depth - 1:]
    if BOXES:
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



def reset_in_child() -> None:
    """A forked worker starts with no box: its parent's deadlines are not its own."""
    global _OUTER
    BOXES.clear()
    _OUTER = None
    signal.signal(signal.SIGALRM, signal.SIG_DFL)


__all__ = ["OutOfTime", "REMIND_EVERY", "TimeLimitExceeded", "call_within", "can_box", "reset_in_child", "time_box"]
