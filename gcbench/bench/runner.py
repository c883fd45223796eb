"""``gcbench run`` as a library call: expand a suite, run its cases in worker processes, and
append one validated row per repetition to the results CSV (docs/architecture.md, "Data path").

Cases are grouped by graph; each graph gets a spawned worker that loads it once and runs all
its cases (:mod:`gcbench.bench.graphrun`). A worker that dies or overruns the wall-clock
timeout is killed, its case recorded (status error/timeout), and a fresh worker carries on.
The parent never initialises CUDA. The graphs run one at a time, or on one worker per GPU
(``--gpus``, :mod:`gcbench.bench.gpus`), or as tasks of a Dask cluster (``--cluster``,
:mod:`gcbench.bench.cluster`); ``--shard`` keeps a share of them (:mod:`gcbench.bench.shard`).
Whatever the engine, rows are written here, by :class:`_Session`.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from itertools import groupby
from pathlib import Path
from typing import Any

from gcbench.algorithms.availability import installed, skip_notes, unusable
from gcbench.bench.cost import estimate_nnz
from gcbench.bench.gpus import resolve_gpus, run_pool, visible_list
from gcbench.bench.graphrun import GraphRun, GraphWork
from gcbench.bench.options import RunOptions, Settings
from gcbench.bench.plugins import load_plugins
from gcbench.bench.process import Interrupted
from gcbench.bench.progress import Display
from gcbench.bench.results import (
    FAILING,
    Environment,
    Failures,
    Flagged,
    Key,
    ResultsFile,
    TraceFile,
    capture_environment,
    drop_cases,
    refuse_existing,
    row_key,
)
from gcbench.bench.shard import parse_shard, select
from gcbench.bench.suite import (
    ON_CPU,
    Case,
    GraphEntry,
    Suite,
    Usable,
    expand,
    load_suite,
    offline,
    skipped,
)
from gcbench.bench.worker import GraphInfo, LoadJob
from gcbench.errors import GpuUnavailableError, SpecError
from gcbench.grammar import AUTO, GRAPH_PROBLEMS
from gcbench.graphs.formats import check_path
from gcbench.graphs.sources import offline_ready, parse_spec
from gcbench.memory import format_bytes
from gcbench.outputs import require_parent
from gcbench.resources import data_dir

DEFAULT_SUITE = "quick"
BUILD_PHASES = frozenset({"fetching", "generating", "reading"})  # worker phases that build
LARGE_GRAPH_ENTRIES = float(1 << 25)  # a graph this large takes long enough to be said
CACHE_NOTE_BYTES = 100 << 20  # a run that caches more says where and how much
CASE_OVERHEAD_NNZ = float(1 << 20)  # a case's fixed cost in the ETA, as entries of a graph
PROBE_TIMEOUT_S = 120.0
_PROBE = """
import sys
from gcbench.algorithms.gpu import runtime
try:
    print(runtime.device_facts().name)
except Exception as exc:
    sys.exit(str(exc))
"""


@dataclass
class RunSummary:
    """What a run did: the files, row counts per status and the failures grouped (whole file,
    resumed rows included), how many rows this call wrote, and notes worth showing
    (stand-ins, skipped algorithms)."""

    path: Path
    trace_path: Path | None
    backend: str
    cases: int
    counts: Counter[str] = field(default_factory=Counter)
    written: int = 0
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)
    notes_shown: bool = False
    failures: Failures = field(default_factory=Failures)
    flagged: Flagged = field(default_factory=Flagged)
    measured: set[Key] = field(default_factory=set)  # the cases this invocation wrote rows of
    cached_note: str | None = None

    @property
    def exit_code(self) -> int:
        """130 if interrupted, 1 if any row is not ok (invalid, error, timeout, oom or
        unsupported: docs/cli.md), else 0."""
        if self.interrupted:
            return 130
        return 1 if any(self.counts[s] for s in FAILING) else 0

    def load_failure_lines(self) -> list[str]:
        """One line per graph that did not load in this run (``run`` prints them on stderr,
        each graph's rows record it)."""
        return self.failures.load_lines()

    def failure_lines(self) -> list[str]:
        """The rows that are not ok, grouped by (graph, algorithm, status) with the first error
        of each, in at most ``FAILURE_LINES`` lines (none when all are ok)."""
        return self.failures.lines()

    def flag_lines(self) -> list[str]:
        """One line per kind of problem the cases measured in this invocation carry
        (docs/statistics.md), none when clean: rows a resumed file held are not news."""
        return self.flagged.lines()


@dataclass(frozen=True)
class DeviceChoice:
    """The backend a run uses, the line that says so, and why GPU algorithms cannot run
    (None when they can; a CPU run that gives no reason says it is on the CPU)."""

    backend: str
    message: str
    why_no_gpu: str | None = None

    @property
    def gpu_problem(self) -> str | None:
        if self.backend == "gpu":
            return None
        return self.why_no_gpu or ON_CPU


def probe_gpu() -> tuple[bool, str]:
    """Whether a GPU is usable, asked of a short subprocess so this process never initialises
    CUDA; returns (usable, device name or the reason it is not). Without CuPy installed the
    answer needs no subprocess."""
    if not installed("cupy"):
        return False, (
            "CuPy is not installed; pip install 'gcbench[cuda12]' or 'gcbench[cuda13]' to "
            "match the driver"
        )
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get(
        "PYTHONPATH")]))}  # fmt: skip
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE],
            capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, env=env,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return False, f"the GPU probe did not answer within {PROBE_TIMEOUT_S:g} s"
    if done.returncode == 0:
        return True, (done.stdout.strip().splitlines() or ["GPU"])[-1]
    lines = done.stderr.strip().splitlines()
    return False, lines[-1] if lines else f"the GPU probe exited with code {done.returncode}"


def choose_device(device: str = "auto", *, remote: bool = False) -> DeviceChoice:
    """Resolve ``gpu|cpu|auto`` to a backend, with a one-line message saying which and why.
    With ``remote`` (the cases run on a cluster's machines) ``gpu`` is taken as given: this
    machine need not have one."""
    if device == "cpu":
        return DeviceChoice("cpu", "running the CPU algorithms (--device cpu)", "--device cpu")
    if device not in ("gpu", "auto"):
        raise SpecError(f"--device {device!r}: choose gpu, cpu or auto")
    if device == "gpu" and remote:
        return DeviceChoice("gpu", "running on the cluster's GPUs (--device gpu)")
    usable, detail = probe_gpu()
    if usable:
        return DeviceChoice("gpu", f"running on the GPU ({detail})")
    if device == "gpu":
        raise GpuUnavailableError(
            f"--device gpu, but no GPU is usable: {detail}; --device cpu runs the CPU algorithms"
        )
    reason = detail.split(";")[0]  # the cause, without the advice on what to install
    return DeviceChoice("cpu", f"no usable GPU ({reason}); running the CPU algorithms", detail)


def default_out(suite_name: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path("results") / f"{stamp}-{suite_name}.csv"


def build_suite(opts: RunOptions) -> Suite:
    """The suite named (default ``quick``) with the (checked) options' changes applied
    (:meth:`RunOptions.applied_to`)."""
    return opts.applied_to(load_suite(opts.suite or DEFAULT_SUITE))


@dataclass
class Plan:
    """A run as decided before anything runs (:func:`plan`): the suite with the command
    line's changes, the device, the cases (a shard's share with ``--shard``), and the notes
    to show first (the shard, the algorithms that cannot run here); ``options`` are the
    run's, checked once here."""

    suite: Suite
    choice: DeviceChoice
    cases: list[Case]
    notes: list[str] = field(default_factory=list)
    shard: tuple[int, int] | None = None
    options: RunOptions = field(default_factory=RunOptions)

    @property
    def name(self) -> str:
        """The suite's name, with the share for a shard (the default results file name)."""
        if self.shard is None:
            return self.suite.name
        return f"{self.suite.name}-shard{self.shard[0]}of{self.shard[1]}"


def plan(
    options: RunOptions | None = None,
    /,
    *,
    choice: DeviceChoice | None = None,
    **changes: Any,
) -> Plan:
    """What :func:`run` will run, without running it: arguments as for :func:`run`. Spec
    errors are raised here. Algorithms that cannot run here (a package or the GPU missing)
    are left out with one note per remedy; on a cluster's machines only the device counts.
    Offline, a remote graph not in the cache runs as its stand-in or is left out, said up
    front (:func:`gcbench.bench.suite.offline`)."""
    opts = replace(options or RunOptions(), **changes).checked()
    if opts.out is not None and opts.resume is None:
        require_parent(Path(opts.out))
        refuse_existing(Path(opts.out))  # a usage error, before the run says anything
    elif opts.out is not None and Path(opts.out).resolve() != Path(opts.resume).resolve():
        raise SpecError(f"--out {opts.out} and --resume {opts.resume} differ; --resume appends")
    load_plugins()
    the_suite = build_suite(opts)
    shard = None if opts.shard is None else parse_shard(opts.shard)
    choice = choice or choose_device(opts.device, remote=opts.remote_cluster)
    notes: list[str] = []
    if opts.offline:
        the_suite, notes = offline(the_suite, offline_ready)
    usable: Usable = functools.partial(
        unusable, gpu_problem=choice.gpu_problem, packages=not opts.remote_cluster
    )
    cases = expand(
        the_suite, backend=choice.backend, block_sizes=opts.block_sizes, param_axes=opts.params,
        usable=usable,
    )  # fmt: skip
    if not opts.remote_cluster:
        check_files(the_suite.graphs)
    notes += skip_notes(skipped(the_suite, choice.backend, usable))
    if opts.block_sizes is not None:
        blind = sorted({case.algorithm for case in cases if case.block_size is None})
        if blind:
            notes.append(f"--block-size does not apply to {', '.join(blind)} (no block size)")
    if shard is not None:
        cases, note = select(cases, shard)
        notes.append(note)
    return Plan(the_suite, choice, cases, notes, shard, opts)


def run(
    options: RunOptions | None = None,
    /,
    *,
    choice: DeviceChoice | None = None,
    planned: Plan | None = None,
    **changes: Any,
) -> RunSummary:
    """Run a benchmark suite; the Python form of ``gcbench run``.

    ``options`` says what to run (the object the CLI builds); keyword arguments replace its
    fields (``run(graphs=[...], reps=1)``). ``choice`` is a device already resolved with
    :func:`choose_device` (else ``options.device`` is); ``planned`` the :func:`plan` of the
    same options, already made. Spec errors are raised before anything runs (:func:`plan`);
    per-case failures become rows.
    """
    the_plan = planned or plan(options, choice=choice, **changes)
    opts = the_plan.options
    with ExitStack() as stack:  # a cluster is reached before the results file is created
        engine = _engine(opts, the_plan.choice.backend, the_plan.notes, stack)
        before = None if opts.remote_cluster else cache_files()
        summary = _record(opts, the_plan, engine)
        if before is not None:
            summary.cached_note = cached_note(before, cache_files())
        return summary


def cache_files() -> dict[Path, tuple[int, int]]:
    """The graph files of the data directory: (size, mtime) of each ``.npz``."""
    root = data_dir()
    if not root.is_dir():
        return {}
    out = {}
    for path in root.rglob("*.npz"):
        with contextlib.suppress(OSError):
            stat = path.stat()
            out[path] = (stat.st_size, stat.st_mtime_ns)
    return out


def cached_note(before: Mapping[Path, tuple[int, int]], after: Mapping[Path, tuple[int, int]]
                ) -> str | None:  # fmt: skip
    """What a run cached, when more than :data:`CACHE_NOTE_BYTES`: where and how much (issue
    32: a run of a seed suite wrote 1.4 GB into the home directory without a word)."""
    added = sum(size for path, (size, mtime) in after.items() if before.get(path) != (size, mtime))
    if added < CACHE_NOTE_BYTES:
        return None
    return (
        f"cached {format_bytes(added)} of graphs in {data_dir()} (gcbench cache lists them, "
        "gcbench cache --clear removes them; GCBENCH_DATA moves the cache)"
    )


def check_files(graphs: Iterable[GraphEntry]) -> None:
    """Refuse, before anything runs, a graph named by a path that does not exist (and has no
    stand-in): a typo in a path is a usage error, like one in an algorithm name."""
    for entry in graphs:
        parsed = parse_spec(entry.spec)
        if entry.standin is None and parsed.kind == "path":
            check_path(Path(parsed.name))


def _record(opts: RunOptions, the_plan: Plan, engine: Engine) -> RunSummary:
    """Open the results (and trace) file, run the cases with ``engine``, close the files. A
    new file that a failure leaves without rows is removed (an interrupted run keeps it, for
    ``--resume``)."""
    the_suite, cases = the_plan.suite, the_plan.cases
    path = _results_path(the_plan.name, opts.out, opts.resume)
    resume = opts.resume is not None
    if opts.retry and path.is_file():
        keys = {case.case_key(g) for case in cases for g in (case.graph, case.standin) if g}
        drop_cases(path, opts.retry, keys)
    results = ResultsFile(path, resume=resume)
    traces = None
    summary = RunSummary(path, None, the_plan.choice.backend, len(cases))
    try:
        traces = TraceFile(path, resume=resume) if opts.trace else None
        summary.trace_path = traces.path if traces else None
        summary.counts.update(results.previous)
        summary.failures = results.failures
        summary.notes.extend(the_plan.notes)
        if not opts.offline:
            # a graph for d1 and d2; a pd2 case's matrix is fetched by its worker
            summary.notes.extend(
                prefetch(case.graph for case in cases if case.problem in GRAPH_PROBLEMS)
            )
        settings = Settings.of(the_suite, opts)
        env = capture_environment(opts.command)
        weights = graph_weights(cases)
        session = _Session(the_suite, results, traces, summary, opts.offline, env, weights)
        total = sum(weights[case.graph, case.standin] for case in cases)
        with (
            Display(len(cases), weight=total, enabled=opts.progress) as display,
            _sigint_flag() as stop,
        ):
            summary.notes_shown = display.active
            for note in summary.notes:
                display.note(note)
            session.display, session.stop = display, stop
            engine(session, session.works(cases), settings)
    except Interrupted:
        summary.interrupted = True
    except BaseException:
        if not resume and summary.written == 0:
            for appender in filter(None, (results, traces)):
                appender.close()
                appender.path.unlink(missing_ok=True)
        raise
    finally:
        results.close()
        if traces:
            traces.close()
    return summary


Engine = Callable[["_Session", list[GraphWork], Settings], None]


def _engine(opts: RunOptions, backend: str, notes: list[str], stack: ExitStack) -> Engine:
    """How the graphs run: a Dask cluster, one worker per listed GPU, or one at a time; checked
    (and a cluster reached or started, closed by ``stack``) before any file is opened."""
    local_gpus = opts.cluster == "local" and backend == "gpu"  # one Dask worker per GPU
    wanted = "all" if opts.gpus is None and local_gpus else opts.gpus
    gpus = None if wanted is None else resolve_gpus(wanted, backend)
    if gpus is not None and len(gpus) > 1 and backend == "cpu":
        notes.append(f"{len(gpus)} CPU workers run side by side; their times can interfere")
    if opts.cluster is not None:
        from gcbench.bench import cluster

        client = stack.enter_context(
            cluster.connect(cluster.check(opts.cluster, gpus, backend), backend)
        )
        return lambda session, works, settings: cluster.run_cluster(
            client, session, works, settings, backend
        )
    if gpus is not None:
        return lambda session, works, settings: run_pool(
            session, works, settings, gpus, session.stop
        )
    label = None if backend == "cpu" else (visible_list() or ["0"])[0]
    return lambda session, works, settings: _one_at_a_time(session, works, settings, label)


def _one_at_a_time(
    session: _Session, works: list[GraphWork], settings: Settings, gpu_index: str | None
) -> None:
    """The plain run: the graphs in suite order, one worker at a time. On the CPU (no GPU
    index) one worker serves the graphs in turn, so its start and the loading of the numba
    kernels are paid once (a crash still replaces it); a GPU graph gets a fresh worker and
    CUDA context."""
    worker = None
    try:
        for work in works:
            run = GraphRun(session, work, settings, gpu_index=gpu_index, worker=worker,
                           keep=gpu_index is None)  # fmt: skip
            worker = None
            worker = run.run()
    finally:
        if worker is not None:
            worker.stop()


def graph_weights(cases: Iterable[Case]) -> dict[tuple[str, str | None], float]:
    """What a case of each (graph, stand-in) weighs in the ETA: the graph's estimated stored
    entries (:func:`gcbench.bench.cost.estimate_nnz`), since loading and coloring it take time
    roughly in proportion, plus :data:`CASE_OVERHEAD_NNZ` for what every case costs whatever
    its graph (a worker's start, priming, the pipe)."""
    keys = dict.fromkeys((case.graph, case.standin) for case in cases)
    return {key: estimate_nnz(*key) + CASE_OVERHEAD_NNZ for key in keys}


def prefetch(specs: Iterable[str]) -> list[str]:
    """Download the remote graphs of a run into the cache, in the parent, before any worker
    starts (issue 7: suites fetch with ``gcbench fetch``'s code, and no download bar competes
    with the progress display). Returns a note per failure; the worker then falls back to the
    graph's stand-in, or records the failure."""
    from gcbench.graphs.fetch import failure_lines, fetch_all, is_remote

    remote = [spec for spec in dict.fromkeys(specs) if is_remote(spec)]
    if not remote:
        return []
    return failure_lines(fetch_all(remote))


def _results_path(name: str, out: str | Path | None, resume: str | Path | None) -> Path:
    if resume is not None:
        return Path(resume)  # plan() refused an --out that names another file
    return Path(out) if out is not None else default_out(name)  # results/ is made if missing


@contextmanager
def _sigint_flag() -> Iterator[threading.Event]:
    """While running, SIGINT and SIGTERM set an event the wait loops check (so a row is never
    cut in half, and the run ends as an interrupt: exit 130 with the resume command); outside
    the main thread the signals are left alone."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    stops = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in stops}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class _Session:
    """The parent's side of a run: turns the cases into graph works and records every row
    (the one place rows are written, whatever the engine; safe to call from several
    threads)."""

    def __init__(
        self,
        suite: Suite,
        results: ResultsFile,
        traces: TraceFile | None,
        summary: RunSummary,
        offline: bool,
        env: Environment,
        weights: Mapping[tuple[str, str | None], float] | None = None,
    ) -> None:
        self.suite = suite
        self.weights = weights or {}
        self.results = results
        self.traces = traces
        self.summary = summary
        self.offline = offline
        self.env = env
        self.display: Any = None
        self.stop = threading.Event()
        self._lock = threading.Lock()

    def works(self, cases: list[Case]) -> list[GraphWork]:
        """One work per graph, in suite order, with only the repetitions not yet recorded
        (the cases with none left count as done on the display)."""
        out = []
        by_instance = groupby(cases, key=lambda c: (c.graph, c.standin, c.problem))
        for (graph, standin, problem), group in by_instance:
            weight = self.weights.get((graph, standin), 1.0)
            todo = [(case, self._reps_to_do(case)) for case in group]
            skipped = sum(1 for _, reps in todo if reps == ())
            if skipped:
                self.display.skip(skipped, weight)
            todo = [(case, reps) for case, reps in todo if reps is None or reps]
            if todo:
                load = LoadJob(graph, standin, self.offline, problem)
                out.append(GraphWork(load, tuple(todo), weight))
        return out

    def _reps_to_do(self, case: Case) -> tuple[int, ...] | None:
        """The repetitions of ``case`` the file does not record yet: with a fixed count,
        their numbers; with ``reps = auto``, None (the whole case, as many as the protocol
        asks) unless the file records any of it, then () (done: a case's rows are written
        together)."""
        recorded = self.results.recorded
        if self.suite.reps == AUTO:
            done = self.results.cases
            graphs = (case.graph,) if case.standin is None else (case.graph, case.standin)
            return () if any(case.case_key(g) in done for g in graphs) else None
        return tuple(
            rep
            for rep in range(int(self.suite.reps))
            if case.key(rep) not in recorded
            and (case.standin is None or case.key(rep, case.standin) not in recorded)
        )

    def note(self, message: str) -> None:
        with self._lock:
            if message not in self.summary.notes:
                self.summary.notes.append(message)
                self.display.note(message)

    def current(self, case: Case) -> None:
        block = "" if case.block_size is None else f" block {case.block_size}"
        params = f" ({case.params_text}{block})" if case.params_text or block else ""
        graph = case.graph if case.standin is None else f"{case.graph} or {case.standin}"
        self.display.current(
            f"running {case.algorithm}{params} on {graph}",
            self.weights.get((case.graph, case.standin), 1.0),
        )

    def phase(self, text: str | None) -> None:
        verb, _, spec = (text or "").partition(" ")
        entries = estimate_nnz(spec) if verb in BUILD_PHASES else 0.0
        long = entries >= LARGE_GRAPH_ENTRIES
        if long:
            text = f"{text} (about {entries / 1e6:,.0f} million entries)"
        self.display.phase(text, long=long)

    def advance(self, cases: int = 1, weight: float = 1.0) -> None:
        self.display.advance(cases, weight)

    def interrupted(self) -> bool:
        return self.stop.is_set()

    def record(
        self,
        case: Case,
        info: GraphInfo | None,
        fields: Mapping[str, Any],
        trace: list[dict[str, Any]] | None = None,
    ) -> None:
        """Append one row (and its trace rows) built from the worker's ``fields``."""
        graph = case.standin if info is not None and info.standin else case.graph
        identity = {
            "graph": graph,
            "problem": case.problem,
            "algorithm": case.algorithm,
            "params": case.params_text,
            "block_size": case.block_size,
        }
        stats = {} if info is None else {
            "n": info.n, "m": info.m, "max_degree": info.max_degree, "avg_degree": info.avg_degree,
            "chi_lower": info.chi_lower, "degeneracy": info.degeneracy, "chi_known": info.chi_known,
            "nets": info.nets,
        }  # fmt: skip
        row = {"device": case.backend, **self.env.columns(), **identity, **stats, **fields}
        row["backend"] = case.backend
        with self._lock:
            self.results.append(row)
            self.summary.counts[row["status"]] += 1
            self.summary.failures.add(row, loaded=info is not None)
            self.summary.flagged.add(row)
            self.summary.measured.add(row_key(row)[:-1])
            self.summary.written += 1
            if trace and self.traces is not None:
                for trow in trace:
                    self.traces.append({"run_id": self.env.run_id, **identity, **trow})
