"""The worker process: loads one graph, then runs the cases the parent sends it.

This is the only place the runner touches CUDA (docs/architecture.md, "Isolation and
failures"): the parent spawns it, talks to it over a pipe, and kills it on a timeout. Messages
to the parent:
``("loaded", GraphInfo)``, ``("load_failed", status, message)``, ``("tick",)`` after each
warm-up run, ``("row", fields, trace)`` per repetition, ``("done", outcome)`` per visit of a
case (:class:`VisitOutcome`: whether to replace the worker, whether the case is finished, the
seconds its repetitions took, the flags the whole case earned; docs/statistics.md), and
``("phase", text)`` when it starts fetching, generating or loading a graph, copying it to the
GPU or compiling (``text`` None: back to running the case), for the progress display.
"""

from __future__ import annotations

import faulthandler
import itertools
import os
import signal
import sys
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from typing import Any

from gcbench.bench.options import Settings
from gcbench.errors import (
    FetchError,
    GraphTooLargeError,
    InputError,
    RoundCapError,
    UnsupportedError,
)
from gcbench.grammar import DEFAULT_PROBLEM

MAX_MESSAGE = 500


@dataclass(frozen=True)
class LoadJob:
    """Load ``spec`` (or ``standin`` when ``spec`` cannot be fetched) as the input of
    ``problem``: a Graph for d1, a Pattern for the distance-2 problems (docs/distance2.md)."""

    spec: str
    standin: str | None
    offline: bool
    problem: str = DEFAULT_PROBLEM


@dataclass(frozen=True, kw_only=True)
class CaseJob:
    """Visit one case (``backend`` picks auto's spec) as the run's ``settings`` say: its
    warm-up, then one recorded run per entry of ``reps``, or, with ``reps`` None, as many as
    the visit asks for, numbered on from the case's earlier ones; ``history`` and ``spent_s``
    are the case's times and seconds from its earlier visits, ``visit`` counts them."""

    algorithm: str
    backend: str
    params: dict[str, Any]
    block_size: int | None
    settings: Settings = field(default_factory=Settings)
    reps: tuple[int, ...] | None = None
    history: tuple[float, ...] = ()
    spent_s: float = 0.0
    visit: int = 0


@dataclass(frozen=True)
class VisitOutcome:
    """What a visit of a case ended with: ``restart`` the worker (the CUDA context may be
    unusable), ``finished`` (no more visits: sure, out of time, a fixed count, or failed),
    ``spent_s`` the seconds its repetitions took, ``flags`` of the whole case (when finished)."""

    restart: bool
    finished: bool
    spent_s: float = 0.0
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class GraphInfo:
    """What the parent needs about the loaded graph for its rows."""

    standin: bool
    n: int
    m: int
    max_degree: int
    avg_degree: float
    note: str | None
    chi_lower: int | None = None
    degeneracy: int | None = None
    chi_known: int | None = None
    nets: int | None = None


def pattern_info(pattern: Any, problem: str, standin: bool, note: str | None) -> GraphInfo:
    """A Pattern's row facts (docs/distance2.md, "Rows"): for d2, the graph's own n, m and
    degrees (its pattern is A + I); for pd2 and pd2-rows, the columns colored, the nonzeros,
    the largest and mean column counts. ``nets`` is the pattern's rows, ``chi_lower`` its
    largest row count (Δ + 1 for d2), a lower bound on every valid coloring's colors."""
    n = pattern.n_cols
    if problem == "d2":
        edges = (pattern.nnz - n) // 2
        stats = (n, edges, max(pattern.max_col - 1, 0), 2 * edges / n if n else 0.0)
    else:
        stats = (n, pattern.nnz, pattern.max_col, pattern.nnz / n if n else 0.0)
    return GraphInfo(standin, *stats, note, chi_lower=pattern.max_row, nets=pattern.n_rows)


def one_line(text: str) -> str:
    """Collapse whitespace to one line and cap the length (CSV ``error`` column)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_MESSAGE else flat[: MAX_MESSAGE - 1] + "…"


def classify(exc: BaseException) -> tuple[str, str]:
    """(status, one-line message) of an exception raised by a case (docs/architecture.md,
    "Isolation and failures").

    CuPy's OutOfMemoryError is recognised by class name so nothing here imports CuPy.
    """
    names = {cls.__name__ for cls in type(exc).__mro__}
    if isinstance(exc, RoundCapError):
        status = "timeout"
    elif isinstance(exc, UnsupportedError | GraphTooLargeError):
        status = "unsupported"
    elif isinstance(exc, MemoryError) or "OutOfMemoryError" in names:
        status = "oom"
    else:
        status = "error"
    text = str(exc) if "GcbenchError" in names else f"{type(exc).__name__}: {exc}"
    return status, one_line(text)


def needs_fresh_context(backend: str, status: str, exc: BaseException) -> bool:
    """Whether a failed GPU case replaces the worker: after an unexpected error or an
    out-of-memory the CUDA context may be unusable. A gcbench input error (a parameter or
    block size the algorithm refuses) is raised by gcbench's own checks, never by CUDA, so the
    worker and its loaded graph stay (a sweep's refused block sizes cost no restart)."""
    from gcbench.algorithms import devices

    fragile = devices.get(backend).fragile
    return fragile and status in ("error", "oom") and not isinstance(exc, InputError)


def class_size_series(colors: Any) -> list[float]:
    """The trace series ``class_size`` (CLASS_SIZE_SERIES): the sizes of the non-empty color
    classes, largest first (the report's balance plot draws them)."""
    import numpy as np

    from gcbench.algorithms.validation import color_class_sizes

    sizes = color_class_sizes(colors)
    return [float(s) for s in np.sort(sizes[sizes > 0])[::-1]]


def main(conn: Connection, parent_pid: int, log_path: str) -> None:
    """Worker entry point (spawned): serve jobs until told to stop or the pipe closes."""
    _detach(parent_pid, log_path)
    from gcbench.bench.plugins import load_plugins

    load_plugins()
    _Worker(conn).serve()


def _detach(parent_pid: int, log_path: str) -> None:
    """Own process group (the parent kills it whole; the terminal's Ctrl-C reaches only the
    parent), SIGINT and SIGTERM ignored (the parent stops it), die with the parent, and send
    stdout/stderr to the log the parent reads after a crash (so nothing the worker prints
    lands on the terminal)."""
    os.setpgid(0, 0)
    for stop in (signal.SIGINT, signal.SIGTERM):  # the parent's (process.WorkerProcess)
        signal.signal(stop, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent_pid:
        os._exit(0)
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND)
    os.unlink(log_path)  # the parent reads it through its own descriptor; nothing is left behind
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    faulthandler.enable()


class _Worker:
    """State kept across the cases of one graph: the graph, its prepared forms, and the
    set-up view of the algorithm whose cases are running (one at a time, so structures of
    an algorithm that is done are freed). Loading another graph drops all of it."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.graph: Any = None  # a Graph, or a Pattern for a distance-2 problem
        self.problem = DEFAULT_PROBLEM
        self.prepared: dict[str, Any] = {}
        self.setup: dict[str, Any] = {}
        self.meters: dict[str, Any] = {}  # backend -> LevelMeter of this graph
        self.conditions: dict[str, Any] = {}  # backend -> Conditions (per worker process)

    def serve(self) -> None:
        while True:
            try:
                job = self.conn.recv()
            except EOFError:
                return
            if isinstance(job, LoadJob):
                self.load(job)
            elif isinstance(job, CaseJob):
                self.conn.send(("done", self.run_case(job)))
            else:
                return

    def phase(self, text: str | None) -> None:
        self.conn.send(("phase", text))

    def _load(self, spec: str, offline: bool, problem: str) -> Any:
        from gcbench.graphs.sources import load_action, load_instance

        self.phase(f"{load_action(spec, problem=problem)} {spec}")
        return load_instance(spec, problem, offline=offline)

    def load(self, job: LoadJob) -> None:
        standin, note = False, None
        self.problem = job.problem
        self.graph = None  # a worker serving graphs in turn holds one at a time
        self.prepared.clear()
        self.setup.clear()
        self.meters.clear()
        self.conditions.clear()  # a case's totals (contention) are its graph's alone
        if "gcbench.algorithms.peers" in sys.modules:  # their cached forms of the last graph
            sys.modules["gcbench.algorithms.peers"].forget()
        try:
            try:
                self.graph = self._load(job.spec, job.offline, job.problem)
            except FetchError as exc:
                if job.standin is None:
                    raise
                standin = True  # offline, the run said so up front
                if not job.offline:
                    note = f"{job.spec} unavailable ({exc}); running stand-in {job.standin}"
                self.graph = self._load(job.standin, job.offline, job.problem)
        except Exception as exc:
            self.conn.send(("load_failed", *classify(exc)))
            return
        if job.problem != DEFAULT_PROBLEM:
            self.conn.send(("loaded", pattern_info(self.graph, job.problem, standin, note)))
            return
        from gcbench.graphs.sources import known_chi

        g = self.graph
        spec = job.standin if standin else job.spec
        clique = degeneracy = None
        try:
            if "bounds" not in g.__dict__:  # a file read as it is: no cache holds them
                self.phase(f"bounding {g.name}")
            clique, degeneracy = g.bounds.clique, g.bounds.degeneracy
        except Exception as exc:  # facts beside the rows, not a case: the rows go without
            missing = f"{spec}: no bounds on χ ({classify(exc)[1]}); its rows leave them empty"
            note = missing if note is None else f"{note}; {missing}"
        info = GraphInfo(
            standin, g.n, g.m, g.max_degree, g.avg_degree, note,
            clique, degeneracy, known_chi(spec),
        )  # fmt: skip
        self.conn.send(("loaded", info))

    def _cached(self, store: dict[str, Any], key: str, build: Any) -> Any:
        """``build()`` once per key; a failure is cached and re-raised for later cases."""
        if key not in store:
            try:
                store[key] = build()
            except Exception as exc:
                store[key] = exc
        if isinstance(store[key], Exception):
            raise store[key]
        return store[key]

    def _set_up(self, spec: Any, prepared: Any) -> tuple[Any, float]:
        """(view, setup_ms) of ``spec`` on this graph: its setup on a fresh view, timed from
        nothing cached (docs/architecture.md, "Timing protocol"), once per algorithm while its
        cases run."""
        from gcbench.algorithms import execute

        if spec.name not in self.setup:
            self.setup.clear()

        def build() -> tuple[Any, float]:
            view = prepared.fresh()
            return view, execute.setup(spec, view)

        return self._cached(self.setup, spec.name, build)

    def _meter(self, backend: str) -> Any:
        """The LevelMeter of this graph for rows of ``backend`` (GPU rows time the solves)."""
        from gcbench.algorithms import devices
        from gcbench.algorithms.levels import LevelMeter

        if backend not in self.meters:
            solve = devices.get(backend).times_solves
            self.meters[backend] = LevelMeter(self.graph, solve=solve)
        return self.meters[backend]

    def _conditions(self, backend: str) -> Any:
        """The meter of what each repetition of ``backend`` runs under (docs/statistics.md)."""
        from gcbench.algorithms import devices
        from gcbench.bench.conditions import Conditions

        if backend not in self.conditions:
            gpu, trip = devices.get(backend).monitors()
            self.conditions[backend] = Conditions(backend, gpu, trip)
        return self.conditions[backend]

    def run_case(self, job: CaseJob) -> VisitOutcome:
        """Visit the case of ``job``, sending one row per repetition; returns how the visit
        ended (after an unexpected GPU failure the worker is replaced: the CUDA context may be
        unusable)."""
        from gcbench.algorithms import canonical_params, devices, execute, get
        from gcbench.bench.conditions import quiesce
        from gcbench.bench.results import (
            CLASS_SIZE_SERIES,
            device_columns,
            repetition_fields,
            trace_rows,
        )

        spec = get(job.algorithm, job.backend, self.problem)
        device = devices.get(spec.backend)
        settings = job.settings
        done = 0
        columns: dict[str, Any] = {"device": spec.backend}  # GraphRun adds count_setup
        try:
            columns.update(device_columns(spec.backend))
            if device.copies_graph and spec.backend not in self.prepared:
                self.phase(f"copying {self.graph.name} to the {spec.backend.upper()}")
            prepared = self._cached(
                self.prepared, spec.backend, lambda: execute.prepare(self.graph, spec.backend)
            )
            if not execute.primed(spec, job.block_size, job.params):
                self.phase(f"compiling {spec.name}")
            execute.prime(spec, job.block_size, job.params)
            self.phase(None)
            count_setup = settings.count_setup
            view, setup_ms = (prepared, None) if count_setup else self._set_up(spec, prepared)
            meter = self._conditions(spec.backend)
            quiesce()  # nothing else of this process runs while the case is timed
            key = (spec.name, canonical_params(job.params), job.block_size)
            meter.begin_case(key, device.threads(job.params))
            sampling = settings.sampling
            if job.reps is not None:
                sampling = replace(sampling, reps=len(job.reps))
            runs = execute.repetitions(
                spec, view, job.block_size, job.params,
                sampling=sampling.visit(job.history, job.spent_s, job.visit),
                count_setup=count_setup, setup_ms=setup_ms, meter=meter,
                after_warmup=lambda: self.conn.send(("tick",)),
            )  # fmt: skip
            numbers = itertools.count(len(job.history)) if job.reps is None else iter(job.reps)
            times: list[float] = []
            elapsed = 0.0
            for rep, run in zip(numbers, runs, strict=False):
                fields = {
                    **columns,
                    **repetition_fields(run, rep=rep, transfer_ms=prepared.transfer_ms,
                                        count_setup=count_setup),
                }  # fmt: skip
                levels = "levels" in settings.metrics and not spec.colors_patterns
                if levels and run.validation.valid:
                    fields.update(self._meter(spec.backend).measure(run.colors).columns())
                trace = None
                if settings.trace:
                    sizes = class_size_series(run.colors)
                    series = {**run.coloring.trace, CLASS_SIZE_SERIES: sizes}
                    trace = list(trace_rows({"rep": rep}, series))
                self.conn.send(("row", fields, trace))
                times.append(run.time_ms)
                elapsed = run.elapsed_s
                done += 1
            spent = job.spent_s + elapsed  # the repetitions' time, not the warm-up's
            pooled = (*job.history, *times)
            floor = meter.floor_ms()
            finished = sampling.finished(pooled, spent, job.visit + 1, floor)
            flags = sampling.flags(pooled, floor) if finished else ()
            if meter.contended():
                flags = (*flags, "contended")
            if finished and meter.waits_for_device():
                flags = (*flags, "host")
        except Exception as exc:
            status, message = classify(exc)
            left = (len(job.history) + done,) if job.reps is None else job.reps[done:]
            for rep in left:
                fields = {**columns, "rep": rep, "status": status, "error": message}
                self.conn.send(("row", fields, None))
            return VisitOutcome(needs_fresh_context(spec.backend, status, exc), True)
        return VisitOutcome(False, finished, spent, flags)
