"""A progress bar that appears only for searches longer than a second, on a terminal."""

from __future__ import annotations

import contextlib
import time

from rich.console import Console
from rich.text import Text
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class DelayedProgress:
    """Binds the engine's progress callback to rich bars shown after ``delay`` seconds, on a terminal.

    One bar per running search, and one over the whole run: checks searched so far (of ``total``
    when known) and the time elapsed, so a long ``check``, ``lock`` or ``report`` is never a
    blank screen.  Searches run in worker processes report only when they finish; the overall
    bar still moves with each.
    """

    def __init__(self, console: Console, delay: float = 1.0, total: int | None = None, label: str = "checks searched"):
        self.console = console
        self.delay = delay
        self.total = total
        self.label = label
        self._progress: Progress | None = None
        self._overall = None
        self._finished: set = set()
        self._start = time.monotonic()

    def enabled(self) -> bool:
        return self.console.is_terminal

    def _bars(self) -> Progress:
        if self._progress is None:
            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=self.console, transient=True,
            )
            self._progress.start()
            self._overall = self._progress.add_task(self.label, total=self.total, completed=len(self._finished))
        return self._progress

    def for_check(self, check):
        if not self.enabled():
            return None
        start = time.monotonic()
        state = {"task": None}

        def callback(done: int, total: int) -> None:
            if done >= total and check.key not in self._finished:
                self._finished.add(check.key)
                if self._progress is not None:
                    self._progress.update(self._overall, completed=len(self._finished))
            if state["task"] is None:
                if time.monotonic() - start < self.delay and time.monotonic() - self._start < self.delay:
                    return
                if done >= total:  # finished before its bar was due: the overall bar is enough
                    self._bars()
                    return
                state["task"] = self._bars().add_task(check.label, total=total)
            self._progress.update(state["task"], completed=min(done, total), visible=done < total)

        return callback

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


class StreamingRows:
    """Rows printed as checks finish; on a terminal, an overall bar (checks done / total, elapsed) below them.

    Off a terminal (a pipe, a CI log) each row is written whole on one line, never wrapped at
    the 80 columns a console assumes there, and flushed at once so a log shows it as it comes.
    """

    def __init__(self, console: Console, total: int, header: str):
        self.console = console
        self.total = total
        self.header = header
        self._progress: Progress | None = None
        self._task = None

    def __enter__(self):
        if self.console.is_terminal:
            self.console.print(Text(self.header, style="bold"), no_wrap=True, overflow="ellipsis", crop=True)
            self._progress = Progress(TextColumn("checks"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                      console=self.console, transient=True)
            self._progress.start()
            self._task = self._progress.add_task("checks", total=self.total)
        else:
            self._plain(self.header)
        return self

    def add(self, row: Text) -> None:
        if self._progress is not None:
            self._progress.console.print(row, no_wrap=True, overflow="ellipsis", crop=True)
            self._progress.advance(self._task)
        else:
            self._plain(row.plain)

    def _plain(self, line: str) -> None:
        self.console.file.write(line + "\n")
        self.console.file.flush()

    def __exit__(self, *exc):
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


@contextlib.contextmanager
def proving_status(console: Console, check, time_limit: float):
    """A spinner with the elapsed time while one proof runs (a solver reports nothing until it is done)."""
    if not console.is_terminal:
        yield
        return
    with Progress(TextColumn(f"proving {check.label} (limit {time_limit:g} s)"), TimeElapsedColumn(), console=console, transient=True) as bar:
        bar.add_task("prove", total=None)
        yield


@contextlib.contextmanager
def proving_many(console: Console, results, proofs, enabled: bool = True):
    """A spinner while the survivors among ``results`` are proved (solvers report nothing until done)."""
    from ..proof_audit import wants_proof

    count = sum(1 for r in results if wants_proof(r)) if proofs.enabled else 0
    if not (enabled and count and console.is_terminal):
        yield
        return
    label = f"proving {count} surviving check(s) on their stated domains (at most {proofs.per_check:g} s each, {proofs.total:g} s in all)"
    with Progress(TextColumn(label), TimeElapsedColumn(), console=console, transient=True) as bar:
        bar.add_task("prove", total=None)
        yield
