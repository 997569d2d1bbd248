"""A progress bar that appears only for searches longer than a second, on a terminal."""

from __future__ import annotations

import time

from rich.console import Console
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
