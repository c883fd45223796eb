"""The runner's progress display: the one thing below ``cli.py`` that writes to the terminal.

A rich progress bar on stderr (cases done/total, current graph and algorithm, elapsed, ETA)
plus one-line notes printed above it; silent when stderr is not a terminal or when asked.
"""

from __future__ import annotations

import sys
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class Display:
    """Context manager around a rich Progress; ``active`` says whether anything is shown."""

    def __init__(self, total: int, *, enabled: bool = True) -> None:
        self.active = enabled and sys.stderr.isatty()
        console = Console(stderr=True)
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("cases"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            disable=not self.active,
            transient=False,
        )
        self._task = self._progress.add_task("starting", total=total)

    def __enter__(self) -> Display:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def current(self, graph: str, algorithm: str) -> None:
        """Show which graph and algorithm run now."""
        self._progress.update(self._task, description=f"{graph} · {algorithm}")

    def advance(self, cases: int = 1) -> None:
        self._progress.advance(self._task, cases)

    def note(self, message: str) -> None:
        """A one-line message above the bar (only when the display is active)."""
        if self.active:
            self._progress.console.print(message, markup=False, highlight=False)
