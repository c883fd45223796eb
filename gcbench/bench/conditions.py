"""What each repetition ran under, read in the worker around its timed call (schema v3,
docs/statistics.md): the GPU's clock and slowdowns, the machine's load, the CPU time the
worker got and how long its threads waited for a CPU, and the flags these earn.

- ``cpu_util``: the process's CPU time during the timed call (``time.process_time``, exact)
  over its wall time × the threads the algorithm runs on; CPU rows only.
- ``cpu_wait``: the time this process's threads were runnable but waiting for a CPU, from the
  scheduler's accounting (``/proc/self/task/<tid>/schedstat``), over the wall time since the
  previous repetition ended. The scheduler adds a wait when the thread gets its CPU, so one
  repetition's share is coarse, but the windows follow one another: their sum over a case is
  exact, and a case is ``contended`` when it exceeds :data:`CONTENDED_WAIT` of the case's
  time. Where schedstat does not exist, ``cpu_util`` under :data:`CONTENDED_UTIL` stands in.
- ``load_avg``: the 1-minute load average over the usable cores (slow to move: context only).
- ``sm_clock_mhz`` and ``throttle`` from NVML (:mod:`gcbench.algorithms.gpu.clocks`), and
  another process computing on the GPU, also ``contended``.
- ``round_trip_us``: after each GPU repetition, the host's round trip to the device (a
  one-element kernel and its copy back: :class:`gcbench.algorithms.gpu.runtime.RoundTrip`),
  what every round of an algorithm that reads back costs on the host.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gcbench.bench.results import FLAGS

CONTENDED_WAIT = 0.05  # the case's threads waited for a CPU more than this share of its time
CONTENDED_UTIL = 0.8  # without schedstat: CPU rows that got less than this of their threads
_TASKS = Path("/proc/self/task")


def waited_ns() -> int | None:
    """The ns this process's threads have waited for a CPU so far; None without schedstat."""
    total, found = 0, False
    try:
        tids = os.listdir(_TASKS)
    except OSError:
        return None
    for tid in tids:
        try:
            total += int((_TASKS / tid / "schedstat").read_text().split()[1])
            found = True
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile, or no schedstat
    return total if found else None


QUIET_WAIT_S = 0.1  # the longest a case waits for this process's other threads to go idle


def quiesce(limit_s: float = QUIET_WAIT_S) -> float:
    """Wait, at most ``limit_s``, until no other thread of this process is running: numba's
    OpenMP threads spin for milliseconds after a parallel loop (the graph's loading, its
    normalisation), and a case timed meanwhile shares its cores with them. Returns the
    seconds waited."""
    start = time.perf_counter()
    me = str(threading.get_native_id())
    while time.perf_counter() - start < limit_s:
        try:
            tids = [t for t in os.listdir(_TASKS) if t != me]
        except OSError:
            break
        if not any(_running(tid) for tid in tids):
            break
        time.sleep(0.001)
    return time.perf_counter() - start


def _running(tid: str) -> bool:
    try:
        stat = (_TASKS / tid / "stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] == "R"


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def flag_text(flags: Iterable[str]) -> str:
    """Flags in :data:`FLAGS` order, ";"-joined, each once ("" for none)."""
    given = set(flags)
    return ";".join(f for f in FLAGS if f in given)


class Conditions:
    """The meter of one case's repetitions (:class:`gcbench.algorithms.execute.Meter`):
    ``gpu`` is the NVML view of the case's GPU (None for a CPU case, or without NVML),
    ``threads`` the OS threads a CPU algorithm runs on, ``round_trip`` the GPU's
    :class:`~gcbench.algorithms.gpu.runtime.RoundTrip` (None for a CPU case)."""

    def __init__(
        self, backend: str, gpu: Any = None, threads: int = 1, round_trip: Any = None
    ) -> None:
        self.backend = backend
        self.gpu = gpu
        self.round_trip = round_trip
        self.threads = threads
        self.target_mhz: int | None = gpu.target_mhz if gpu is not None else None
        self.cores = usable_cores()
        self._wall = self._cpu = 0.0
        self._window = time.perf_counter()
        self._waited = waited_ns()
        self.case_wall = 0.0
        self.case_waited: float | None = None
        self.low_util = False
        self._others: int | None = None

    def begin_case(self, threads: int = 1) -> None:
        """Start the accounting of a new case whose algorithm runs on ``threads``."""
        self.threads = threads
        self._window = time.perf_counter()
        self._waited = waited_ns()
        self.case_wall, self.case_waited, self.low_util = 0.0, None, False
        self._others = self.gpu.others() if self.gpu is not None else None

    def start(self) -> None:
        self._cpu = time.process_time()
        self._wall = time.perf_counter()

    def stop(self) -> dict[str, Any]:
        now = time.perf_counter()
        wall, cpu = now - self._wall, time.process_time() - self._cpu
        waited = waited_ns()
        columns: dict[str, Any] = {"load_avg": os.getloadavg()[0] / self.cores}
        window, self._window = now - self._window, now
        if waited is not None and self._waited is not None and window > 0:
            share = (waited - self._waited) / 1e9
            columns["cpu_wait"] = share / window
            self.case_waited = (self.case_waited or 0.0) + share
        self._waited = waited
        self.case_wall += window
        if self.backend == "cpu" and wall > 0:
            columns["cpu_util"] = cpu / (wall * self.threads)
            self.low_util |= columns["cpu_util"] < CONTENDED_UTIL
        if self.gpu is not None:
            columns["sm_clock_mhz"] = self.gpu.sm_mhz()
            columns["throttle"] = self.gpu.throttle()
        if self.round_trip is not None:
            columns["round_trip_us"] = self.round_trip.us()
        columns["flags"] = "throttled" if columns.get("throttle") else ""
        return columns

    def contended(self) -> bool:
        """Whether the case so far waited for CPUs (or, without schedstat, a CPU row got too
        little CPU), or another process computes on its GPU."""
        if self.case_waited is not None:
            cpu = self.case_waited > CONTENDED_WAIT * self.case_wall
        else:
            cpu = self.low_util
        others = self.gpu.others() if self.gpu is not None else None
        return cpu or bool(others) or bool(self._others)

    def clock_mhz(self) -> int | None:
        return self.gpu.sm_mhz() if self.gpu is not None else None
