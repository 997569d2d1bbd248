"""How one task ended, as data: the value it returned, the exception it raised, or how its
process ended (its exit status, the signal that killed it, the deadline that passed)."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Any

from ..errors import VerifierError

#: signals that mean "native code crashed", as a reader should be told
CRASH_SIGNALS = {signal.SIGSEGV: "segmentation fault", signal.SIGABRT: "aborted", signal.SIGBUS: "bus error",
                 signal.SIGFPE: "arithmetic fault", signal.SIGILL: "illegal instruction"}


@dataclass(frozen=True)
class Outcome:
    """How one task ended: ``status`` is returned, raised, exited, killed, timed out, or
    violated (its code did what no task may: forked its process, left a process or a thread
    running after the task, or wrote into the worker's channel; ``detail`` says which)."""

    status: str  # returned | raised | exited | killed | timed out | violated
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
        return self.status == "timed out" or self.exception == "TimeLimitExceeded"  # the watchdog's exception, by name

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
        if self.status == "violated":
            return f"{self.detail}{at}"
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


class AbruptEnd(VerifierError):
    """A call run apart did not come back: it ended or crashed its process, raised a
    BaseException (SystemExit, KeyboardInterrupt), or ran past its time limit."""

    def __init__(self, outcome: Outcome, subject: str):
        super().__init__(f"{subject} {outcome.describe()}")
        self.outcome = outcome


__all__ = ["AbruptEnd", "CRASH_SIGNALS", "Outcome", "signal_name"]
