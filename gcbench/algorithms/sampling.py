"""How many runs a case gets (docs/statistics.md): the warm-up until the device is steady,
then repetitions until the median is sure, spread over passes, and the flags a case earns.

``--warmup auto`` runs at least :data:`MIN_WARMUP` unrecorded runs (one, when a run takes
:data:`LONG_RUN_MS` or more) and goes on while the GPU's SM clock is under :data:`CLOCK_SHARE`
of its target or the latest run set a new low by more than :data:`STEADY_TOLERANCE` (times
still falling), for at most :data:`WARMUP_TIME_S`.

``--reps auto`` visits a case in at least :data:`MIN_PASSES` passes over the graph's cases, a
few repetitions each time, until the 95 % interval of the median of all its repetitions lies
within ``noise`` of it, the interval is within the harness's own floor (``floor_ms``: one
host round trip on the GPU, the timer's resolution on the CPU; flag ``floor``), or
``case_time_s`` is spent. A case whose runs outlast its time stops at :data:`CAPPED_REPS`
(flag ``capped`` when that leaves no interval). The host's speed moves in regimes of seconds
(docs/statistics.md, "Causes found"); repetitions spread over the whole graph's time sample
several of them, where repetitions in a row sample one. A number instead of ``auto`` is that
many runs in one visit, no more, no less.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from gcbench import stats

AUTO = "auto"
MIN_REPS = 5  # repetitions a case gets at least, over all its visits
MIN_VISIT_REPS = 2  # repetitions of one visit at least
MIN_PASSES = 3  # visits of an auto case at least: its repetitions spread over the graph's time
CAPPED_REPS = 3  # repetitions of a case past its case time at least (a median of three)
MAX_PASSES = 8  # visits at most
MAX_REPS = 100_000  # a bound that a case reaches only with sub-microsecond runs
MIN_WARMUP = 2  # two runs: the second tells whether times still fall
LONG_RUN_MS = 50.0  # a run this long is its own warm-up
WARMUP_TIME_S = 1.0
STEADY_TOLERANCE = 0.02
CLOCK_SHARE = 0.9
DEFAULT_NOISE = stats.CHANGE / 2  # 2.5 %: two runs within the change that counts
DRIFT_SIZE = stats.CHANGE  # a trend smaller than a change that counts is not a drift
DEFAULT_CASE_TIME_S = 1.5


@dataclass(frozen=True)
class Sampling:
    """The run counts of one case: ``reps``/``warmup`` a fixed count or None for auto;
    ``noise`` the target half-width of the median's interval (a share of the median);
    ``case_time_s`` the wall time after which auto repetitions stop short of it."""

    reps: int | None = None
    warmup: int | None = None
    noise: float = DEFAULT_NOISE
    case_time_s: float = DEFAULT_CASE_TIME_S

    @classmethod
    def of(
        cls,
        reps: int | str | None,
        warmup: int | str | None,
        noise: float = DEFAULT_NOISE,
        case_time_s: float = DEFAULT_CASE_TIME_S,
    ) -> Sampling:
        """From option values (``"auto"`` or None: auto)."""
        return cls(
            None if reps in (None, AUTO) else int(reps),
            None if warmup in (None, AUTO) else int(warmup),
            noise,
            case_time_s,
        )

    def warming(
        self,
        times: Sequence[float],
        elapsed_s: float,
        clock_mhz: float | None = None,
        target_mhz: float | None = None,
    ) -> bool:
        """Whether to run another warm-up, given the warm-up times so far, the seconds they
        took, and the SM clock now with its target (None where unknown: the CPU)."""
        if self.warmup is not None:
            return len(times) < self.warmup
        if not times:
            return True
        if len(times) < MIN_WARMUP and times[-1] < LONG_RUN_MS:
            return True
        if elapsed_s >= WARMUP_TIME_S:
            return False
        if clock_mhz is not None and target_mhz and clock_mhz < CLOCK_SHARE * target_mhz:
            return True
        return len(times) > 1 and times[-1] < (1 - STEADY_TOLERANCE) * min(times[:-1])

    def sure(self, times: Sequence[float]) -> bool:
        """Whether the median of ``times`` is known within the noise target."""
        if len(times) < MIN_REPS:
            return False
        width = stats.relative_halfwidth(times)
        return width is not None and width <= self.noise

    def at_floor(self, times: Sequence[float], floor_ms: float) -> bool:
        """Whether the median of ``times`` is known within ``floor_ms``, the harness's own
        resolution (one host round trip on the GPU): more repetitions would narrow the
        interval below what the harness can promise, so they stop there (flag ``floor``)."""
        if len(times) < MIN_REPS or floor_ms <= 0:
            return False
        width = stats.relative_halfwidth(times)
        return width is not None and width * statistics.median(times) <= floor_ms

    def settled(self, times: Sequence[float], floor_ms: float = 0.0) -> bool:
        """Sure, or at the floor: no more repetitions needed."""
        return self.sure(times) or self.at_floor(times, floor_ms)

    def visit(self, history: Sequence[float] = (), spent_s: float = 0.0, index: int = 0) -> Visit:
        """The visit ``index`` of a case that has ``history`` (its times so far) and has
        spent ``spent_s`` seconds on them."""
        return Visit(self, tuple(history), spent_s, index)

    def finished(
        self, times: Sequence[float], spent_s: float, visits: int, floor_ms: float = 0.0
    ) -> bool:
        """Whether a case with these times, seconds spent and visits needs no more
        (``floor_ms``: the harness's resolution, :meth:`at_floor`)."""
        if self.reps is not None or visits >= MAX_PASSES or len(times) >= MAX_REPS:
            return True
        out_of_time = spent_s >= self.case_time_s
        if out_of_time and len(times) >= CAPPED_REPS:
            return True  # a slow case: its time is spent, fewer passes than usual
        if visits < MIN_PASSES:
            return False
        return self.settled(times, floor_ms) or out_of_time

    def flags(self, times: Sequence[float], floor_ms: float = 0.0) -> tuple[str, ...]:
        """The case's own flags: ``drift`` when its halves differ (the Mann–Whitney test) by
        more than :data:`DRIFT_SIZE`; ``noisy`` when the median's interval is wider than the
        noise target, ``floor`` instead when that interval is within the harness's resolution
        ``floor_ms``, ``capped`` instead when its time ran out before it had an interval (a
        fixed count too small for an interval is not judged)."""
        out = []
        if stats.drifted(times, DRIFT_SIZE):
            out.append("drift")
        width = stats.relative_halfwidth(times)
        if width is None and self.reps is None:
            out.append("capped")
        elif width is not None and width > self.noise:
            out.append("floor" if self.at_floor(times, floor_ms) else "noisy")
        return tuple(out)


@dataclass(frozen=True)
class Visit:
    """One visit of a case: how many repetitions it runs, knowing the case's earlier times
    (``history``) and seconds (``spent_s``); ``index`` counts visits from 0. Its warm-up is
    ``sampling.warming``'s."""

    sampling: Sampling
    history: tuple[float, ...] = ()
    spent_s: float = 0.0
    index: int = 0

    def more(self, times: Sequence[float], elapsed_s: float, floor_ms: float = 0.0) -> bool:
        """Whether to run another repetition in this visit, given its times so far, the
        seconds since the first began and the harness's resolution (``floor_ms``). Auto: at
        least :data:`MIN_VISIT_REPS` (one once the case's time is spent); then on until all
        the case's times are settled (:meth:`Sampling.settled`), this visit's share of the
        case time (a :data:`MIN_PASSES`-th) is spent, or the case's."""
        s = self.sampling
        if s.reps is not None:
            return len(times) < s.reps
        spent = self.spent_s + elapsed_s
        if not times or (len(times) < MIN_VISIT_REPS and spent < s.case_time_s):
            return True
        if spent >= s.case_time_s or elapsed_s >= s.case_time_s / MIN_PASSES:
            return False
        pooled = (*self.history, *times)
        return len(pooled) < MAX_REPS and not s.settled(pooled, floor_ms)
