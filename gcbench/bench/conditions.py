"""What each repetition ran under, read in the worker around its timed call (schema v3,
docs/statistics.md): the GPU's clock and slowdowns, the machine's load, the CPU time the
worker got and how long its threads waited for a CPU, and the flags these earn.

- ``cpu_util``: the process's CPU time during the timed call (``time.process_time``, exact)
  over its wall time × the threads the algorithm runs on; CPU rows only.
- ``cpu_wait``: the time this process's threads were runnable but waiting for a CPU, from the
  scheduler's accounting (``/proc/self/task/<tid>/schedstat``), over the wall time since the
  previous repetition ended × the algorithm's threads. The scheduler adds a wait when the
  thread gets its CPU, so one repetition's share is coarse, but the windows follow one
  another: their sum over a visit of the case is exact, and the case is ``contended`` when a
  visit's exceeds :data:`CONTENDED_WAIT` of its time × threads. Where schedstat does not
  exist, ``cpu_util`` under :data:`CONTENDED_UTIL` stands in.
- ``load_avg``: the 1-minute load average over the usable cores (slow to move: context only).
- the machine: /proc/stat's busy time of the usable cores, less this worker's and its parent's
  CPU time, is what other processes (and the hypervisor's other guests: steal) took; a case
  whose visits saw them keep more than :data:`CONTENDED_OTHERS` of the cores it left free busy
  is ``contended`` too. A short repetition that the scheduler lets run whole is not slowed by
  a busy machine, but a parallel one waiting at a barrier for a preempted thread is, by
  orders of magnitude.
- ``sm_clock_mhz`` and ``throttle`` from NVML (:mod:`gcbench.algorithms.gpu.clocks`), and
  another process computing on the GPU, also ``contended``.
- ``round_trip_us``: after each GPU repetition, the host's round trip to the device (a
  one-element kernel and its copy back: :class:`gcbench.algorithms.gpu.runtime.RoundTrip`),
  what every round of an algorithm that reads back costs on the host; their median over the
  case's repetitions is the floor its interval stops at (:meth:`Conditions.floor_ms`).
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gcbench.bench.results import FLAGS

CONTENDED_WAIT = 0.05  # the case's threads waited for a CPU more than this share of its time
CONTENDED_UTIL = 0.8  # without schedstat: CPU rows that got less than this of their threads
CONTENDED_OTHERS = 0.5  # other processes kept this share of the cores the case left busy
MACHINE_WINDOW_S = 0.1  # judged once a case has run this long (/proc/stat counts in ticks)
WAIT_WINDOW_S = 0.02  # the wait judged once a case has run this long (one wake-up is not it)
EVENT_RESOLUTION_MS = 5e-4  # CUDA events: "a resolution of around 0.5 microseconds"
TIMER_RESOLUTION_MS = time.get_clock_info("perf_counter").resolution * 1e3
_TASKS = Path("/proc/self/task")
_STAT = Path("/proc/stat")
_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01


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


def busy_s(cores: set[int]) -> float | None:
    """Seconds the CPUs ``cores`` have spent busy so far, whoever ran (/proc/stat: user, nice,
    system, irq, softirq and steal: the hypervisor's other guests count too); None without
    /proc/stat."""
    try:
        lines = _STAT.read_text().splitlines()
    except OSError:
        return None
    ticks, found = 0, False
    for line in lines:
        name, _, rest = line.partition(" ")
        if name[:3] == "cpu" and name[3:].isdigit() and int(name[3:]) in cores:
            user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, rest.split()[:8])
            ticks += user + nice + system + irq + softirq + steal
            found = True
    return ticks * _TICK_S if found else None


def process_s(pid: int) -> float:
    """Seconds of CPU process ``pid`` has used (0 where it cannot be read)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) * _TICK_S


def usable_core_set() -> set[int]:
    """The cores this process may run on."""
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return set(range(os.cpu_count() or 1))


def usable_cores() -> int:
    """How many cores this process may run on."""
    return len(usable_core_set())


def flag_text(flags: Iterable[str]) -> str:
    """Flags in :data:`FLAGS` order, ";"-joined, each once ("" for none)."""
    given = set(flags)
    return ";".join(f for f in FLAGS if f in given)


class Conditions:
    """The meter of one case's repetitions (:class:`gcbench.algorithms.execute.Meter`):
    ``gpu`` is the NVML view of the case's GPU (None for a CPU case, or without NVML),
    ``round_trip`` the GPU's :class:`~gcbench.algorithms.gpu.runtime.RoundTrip` (None for a
    CPU case). One per backend in a worker, for all the visits of its cases."""

    def __init__(self, backend: str, gpu: Any = None, round_trip: Any = None) -> None:
        self.backend = backend
        self.gpu = gpu
        self.round_trip = round_trip
        self.threads = 1
        self.target_mhz: int | None = gpu.target_mhz if gpu is not None else None
        self.core_set = usable_core_set()
        self.cores = len(self.core_set)
        self._wall = self._cpu = 0.0
        self._window = time.perf_counter()
        self._waited = waited_ns()
        self.visit_wall = 0.0
        self.visit_waited: float | None = None
        self.low_util = False
        self._gpu_others: int | None = None
        self._case: Any = None
        self._machine: tuple[float | None, float, float, float] = (None, 0.0, 0.0, 0.0)
        self._totals: dict[Any, tuple[float, float, float, float]] = {}  # case -> _account
        self._trips: dict[Any, list[float]] = {}  # case -> its repetitions' round trips (µs)
        self._waiting: set[Any] = set()  # cases a timed call of which waited for the device

    def begin_case(self, case: Any = None, threads: int = 1) -> None:
        """Start the accounting of a visit of ``case`` (a key: a case's visits add up), whose
        algorithm runs on ``threads``."""
        self.threads, self._case = threads, case
        self._window = time.perf_counter()
        self._waited = waited_ns()
        self.visit_wall, self.visit_waited, self.low_util = 0.0, None, False
        self._gpu_others = self.gpu.others() if self.gpu is not None else None
        self._machine = (busy_s(self.core_set), time.process_time(), process_s(os.getppid()),
                         time.perf_counter())  # fmt: skip

    def start(self) -> None:
        self._cpu = time.process_time()
        self._wall = time.perf_counter()

    def stop(self, device_wait: bool = True) -> dict[str, Any]:
        """The repetition's condition columns; ``device_wait``: whether its timed call waited
        for the device (a blocking read, or a call not held until queued), which sets the
        case's floor (:meth:`floor_ms`) and its flag ``host`` (:meth:`waits_for_device`)."""
        if device_wait:
            self._waiting.add(self._case)
        now = time.perf_counter()
        wall, cpu = now - self._wall, time.process_time() - self._cpu
        waited = waited_ns()
        columns: dict[str, Any] = {"load_avg": os.getloadavg()[0] / self.cores}
        window, self._window = now - self._window, now
        if waited is not None and self._waited is not None and window > 0:
            share = max(0, waited - self._waited) / 1e9  # a thread that ended takes its sum
            columns["cpu_wait"] = share / (window * self.threads)
            self.visit_waited = (self.visit_waited or 0.0) + share
        self._waited = waited
        self.visit_wall += window
        if self.backend == "cpu" and wall > 0:
            columns["cpu_util"] = cpu / (wall * self.threads)
            self.low_util |= columns["cpu_util"] < CONTENDED_UTIL
        if self.gpu is not None:
            columns["sm_clock_mhz"] = self.gpu.sm_mhz()
            columns["throttle"] = self.gpu.throttle()
        if self.round_trip is not None:
            columns["round_trip_us"] = self.round_trip.us()
            self._trips.setdefault(self._case, []).append(columns["round_trip_us"])
        columns["flags"] = "throttled" if columns.get("throttle") else ""
        return columns

    def _account(self) -> tuple[float, float, float, float]:
        """Add this visit to its case's totals: (seconds its threads waited, seconds × threads
        run, seconds other processes took, seconds × the cores the case left free)."""
        busy0, own0, parent0, wall0 = self._machine
        busy = busy_s(self.core_set)
        others = 0.0
        if busy0 is not None and busy is not None:
            own = time.process_time() - own0
            others = max(0.0, busy - busy0 - own - (process_s(os.getppid()) - parent0))
        free = (time.perf_counter() - wall0) * max(self.cores - self.threads, 1)
        visit = (self.visit_waited or 0.0, self.visit_wall * self.threads, others, free)
        w, r, o, f = self._totals.get(self._case, (0.0, 0.0, 0.0, 0.0))
        total = (w + visit[0], r + visit[1], o + visit[2], f + visit[3])
        self._totals[self._case] = total
        return total

    def contended(self) -> bool:
        """Whether, over the case's visits so far, its threads waited for CPUs more than
        :data:`CONTENDED_WAIT` of their time (or, without schedstat, a CPU row got too little
        CPU), other processes kept more than :data:`CONTENDED_OTHERS` of the free cores busy
        (each judged once the case has run long enough to count), or another process
        computes on its GPU."""
        waited, ran, others, free = self._account()
        if self.visit_waited is not None:
            cpu = ran >= WAIT_WINDOW_S and waited > CONTENDED_WAIT * ran
        else:
            cpu = self.low_util
        machine = free >= MACHINE_WINDOW_S and others > CONTENDED_OTHERS * free
        gpu = self.gpu.others() if self.gpu is not None else None
        return cpu or machine or bool(gpu) or bool(self._gpu_others)

    def clock_mhz(self) -> int | None:
        return self.gpu.sm_mhz() if self.gpu is not None else None

    def waits_for_device(self) -> bool:
        """Whether a GPU case's timed calls waited for the device (flag ``host``): its times
        hold the host's round trips and move with the host's speed between runs."""
        return self.round_trip is not None and self._case in self._waiting

    def floor_ms(self) -> float:
        """The harness's resolution for the case's time: on the GPU, the median of the host
        round trips measured after its repetitions so far (a blocking read moves a repetition
        by about that much) plus the events' resolution, or the events' resolution alone for a
        case none of whose timed calls waited for the device (held until queued, they hold no
        host time); on the CPU, the timer's resolution."""
        trips = self._trips.get(self._case)
        if self.round_trip is None or not trips:
            return TIMER_RESOLUTION_MS
        if not self.waits_for_device():
            return EVENT_RESOLUTION_MS
        return statistics.median(trips) / 1e3 + EVENT_RESOLUTION_MS
