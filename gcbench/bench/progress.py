"""The runner's progress display: the one thing below ``cli.py`` that writes to the terminal.

A rich progress bar on stderr: the phase the run is in (fetching, generating or loading a
graph, copying it to the GPU, compiling, running a case) and for how long, cases done/total,
elapsed time and an honest ETA (:class:`Eta`); one-line notes are printed above it. When
stderr is not a terminal, a plain line says how far the run is at most every
:data:`PLAIN_EVERY_S` (a CI log or ``| tee`` shows progress without a bar), and the building
of large graphs is said, a line each; ``--quiet`` shows nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column
from rich.text import Text

PLAIN_EVERY_S = 10.0  # the plain progress line's period when stderr is not a terminal


class Eta:
    """Time left, from the work done so far, honest about what it does not know.

    Each case has a weight (the runner gives the estimated size of its graph), so the time of
    small graphs is not taken for that of large ones. The rate is seconds per unit of weight
    over the cases that ran (resumed ones, counted as done, do not enter it). There is no
    estimate before the first case ends; once the case running now has taken longer than its
    share, the remaining cases' time is only a lower bound.
    """

    def __init__(self, total: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.clock = clock
        self.started = clock()
        self.ran = 0.0  # weight of the cases that ran
        self.skipped = 0.0  # weight counted as done without running
        self.last = self.started  # when the last case ended
        self.current = 0.0  # weight of the case running now
        self.current_since = self.started

    def begin(self, weight: float) -> None:
        """A case of ``weight`` starts now."""
        self.current, self.current_since = weight, self.clock()

    def finish(self, weight: float) -> None:
        """Cases of total ``weight`` ran to their end now."""
        self.ran += weight
        self.last = self.clock()

    def skip(self, weight: float) -> None:
        """Cases of total ``weight`` need not run (already recorded)."""
        self.skipped += weight

    def left(self) -> tuple[float | None, bool]:
        """(seconds left or None when unknown, whether that is only a lower bound)."""
        remaining = max(0.0, self.total - self.ran - self.skipped)
        if remaining == 0:
            return 0.0, False
        if self.ran <= 0:
            return None, False
        rate = (self.last - self.started) / self.ran
        current = min(self.current, remaining)
        expected = rate * current
        spent = self.clock() - self.current_since
        rest = rate * (remaining - current)
        if spent <= expected:
            return rest + expected - spent, False
        return rest, True

    def text(self) -> str:
        seconds, lower_bound = self.left()
        if seconds is None or (lower_bound and seconds < 1):
            return "ETA ?"
        shown = str(timedelta(seconds=round(seconds)))
        return f"ETA > {shown}" if lower_bound else f"ETA {shown}"


class _EtaColumn(ProgressColumn):
    def __init__(self, eta: Eta) -> None:
        super().__init__()
        self.eta = eta

    def render(self, task: Task) -> Text:
        return Text(self.eta.text(), style="progress.remaining")


class _PhaseColumn(ProgressColumn):
    """How long the current phase has lasted."""

    def __init__(self, display: Display) -> None:
        super().__init__()
        self.display = display

    def render(self, task: Task) -> Text:
        spent = round(time.monotonic() - self.display.phase_since)
        return Text(f"({timedelta(seconds=spent)})", style="progress.elapsed")


class Display:
    """Context manager around a rich Progress; ``active`` says whether anything is shown.
    ``weight`` is the total weight of the cases (default: one per case); safe to call from
    the threads of a multi-GPU run."""

    def __init__(self, total: int, *, weight: float | None = None, enabled: bool = True) -> None:
        self.active = enabled and sys.stderr.isatty()
        self.plain = enabled and not self.active
        self._total = total
        self._done = 0
        self._said = time.monotonic()
        self.eta = Eta(float(total) if weight is None else weight)
        self.phase_text = self.case_text = "starting"
        self.phase_since = time.monotonic()
        self._lock = threading.Lock()
        self._progress = Progress(
            TextColumn("{task.description}", table_column=Column(no_wrap=True, ratio=1)),
            _PhaseColumn(self),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            TextColumn("cases"),
            TimeElapsedColumn(),
            _EtaColumn(self.eta),
            console=Console(stderr=True),
            disable=not self.active,
            transient=False,
            expand=True,
        )
        self._task = self._progress.add_task(self.phase_text, total=total)

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

    def phase(self, text: str | None, *, long: bool = False) -> None:
        """Show what the run does now (e.g. "generating gen:rgg?scale=20&seed=0"); None: the
        case itself again (what :meth:`current` named). A ``long`` phase (building a large
        graph) is also a line of its own on stderr when the bar is not shown, so that a run
        not on a terminal does not go silent for minutes."""
        with self._lock:
            self.phase_text = self.case_text if text is None else text
            self.phase_since = time.monotonic()
            self._progress.update(self._task, description=self.phase_text)
        if long and text is not None and not self.active:
            print(f"{text} ...", file=sys.stderr, flush=True)

    def current(self, text: str, weight: float = 1.0) -> None:
        """A case of ``weight`` starts; ``text`` names it."""
        with self._lock:
            self.eta.begin(weight)
            self.case_text = text
        self.phase(text)

    def advance(self, cases: int = 1, weight: float = 1.0) -> None:
        """``cases`` cases of ``weight`` each ran to their end."""
        with self._lock:
            self.eta.finish(cases * weight)
            self._progress.advance(self._task, cases)
            self._done += cases
            now = time.monotonic()
            if not self.plain or now - self._said < PLAIN_EVERY_S or self._done >= self._total:
                return
            self._said = now
        elapsed = timedelta(seconds=round(now - self.eta.started))
        print(f"{self._done}/{self._total} cases, {elapsed} elapsed, {self.eta.text()}",
              file=sys.stderr, flush=True)  # fmt: skip

    def skip(self, cases: int, weight: float = 1.0) -> None:
        """``cases`` cases of ``weight`` each are done without running (resumed)."""
        with self._lock:
            self.eta.skip(cases * weight)
            self._progress.advance(self._task, cases)

    def note(self, message: str) -> None:
        """A one-line message above the bar (only when the display is active)."""
        if self.active:
            self._progress.console.print(message, markup=False, highlight=False)
