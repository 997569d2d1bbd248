"""A progress bar that appears only for searches longer than a second, on a terminal."""

from __future__ import annotations

import time

from rich.console import Console
from rich.text import Text
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class DelayedProgress:
    """Binds the engine's progress callback to a rich bar shown after ``delay`` seconds."""

    def __init__(self, console: Console, delay: float = 1.0):
        self.console = console
        self.delay = delay
        self._progress: Progress | None = None

    def enabled(self) -> bool:
        return self.console.is_terminal

    def for_check(self, check):
        if not self.enabled():
            return None
        start = time.monotonic()
        state = {"task": None}

        def callback(done: int, total: int) -> None:
            if state["task"] is None:
                if time.monotonic() - start < self.delay:
                    return
                if self._progress is None:
                    self._progress = Progress(
                        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=self.console, transient=True,
                    )
                    self._progress.start()
                state["task"] = self._progress.add_task(check.label, total=total)
            self._progress.update(state["task"], completed=min(done, total))

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
