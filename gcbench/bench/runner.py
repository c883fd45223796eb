"""``gcbench run`` as a library call: expand a suite, run its cases in worker processes, and
append one validated row per repetition to the results CSV (DESIGN §4–5).

Cases are grouped by graph; each graph gets a spawned worker that loads it once and runs all
its cases. A worker that dies or overruns the wall-clock timeout is killed, its case recorded
(status error/timeout), and a fresh worker carries on. The parent never initialises CUDA.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import groupby
from pathlib import Path
from typing import Any

from gcbench.bench.plugins import load_plugins
from gcbench.bench.process import Interrupted, WorkerLost, WorkerProcess
from gcbench.bench.progress import Display
from gcbench.bench.results import (
    FAILING,
    Environment,
    ResultsFile,
    TraceFile,
    capture_environment,
)
from gcbench.bench.suite import (
    WILDCARD,
    AlgorithmEntry,
    Case,
    GraphEntry,
    Suite,
    expand,
    load_suite,
    parse_block_sizes,
    skipped_gpu_algorithms,
)
from gcbench.bench.worker import CaseJob, GraphInfo, LoadJob
from gcbench.errors import GpuUnavailableError, SpecError

DEFAULT_SUITE = "quick"
MIN_LOAD_TIMEOUT_S = 600.0
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
    """What a run did: the files, row counts per status (whole file, resumed rows included),
    how many rows this call wrote, and notes worth showing (stand-ins, skipped algorithms)."""

    path: Path
    trace_path: Path | None
    backend: str
    cases: int
    counts: Counter[str] = field(default_factory=Counter)
    written: int = 0
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)
    notes_shown: bool = False

    @property
    def exit_code(self) -> int:
        """130 if interrupted, 1 if any row is invalid, error or timeout, else 0."""
        if self.interrupted:
            return 130
        return 1 if any(self.counts[s] for s in FAILING) else 0


@dataclass(frozen=True)
class DeviceChoice:
    backend: str
    message: str


def probe_gpu() -> tuple[bool, str]:
    """Whether a GPU is usable, asked of a short subprocess so this process never initialises
    CUDA; returns (usable, device name or the reason it is not)."""
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


def choose_device(device: str = "auto") -> DeviceChoice:
    """Resolve ``gpu|cpu|auto`` to a backend, with a one-line message saying which and why."""
    if device == "cpu":
        return DeviceChoice("cpu", "running the CPU algorithms (--device cpu)")
    if device not in ("gpu", "auto"):
        raise SpecError(f"--device {device!r}: choose gpu, cpu or auto")
    usable, detail = probe_gpu()
    if usable:
        return DeviceChoice("gpu", f"running on the GPU ({detail})")
    if device == "gpu":
        raise GpuUnavailableError(f"--device gpu, but no GPU is usable: {detail}")
    reason = detail.split(";")[0]  # the cause, without the advice to pass --device cpu
    return DeviceChoice("cpu", f"no usable GPU ({reason}); running the CPU algorithms")


def default_out(suite_name: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path("results") / f"{stamp}-{suite_name}.csv"


def build_suite(
    suite: str | Path | None,
    graphs: Sequence[str],
    algorithms: Sequence[str],
    reps: int | None,
    warmup: int | None,
    timeout: float | None,
) -> Suite:
    """The suite named (default ``quick``) with the command line's replacements applied:
    ``graphs`` and ``algorithms`` replace the suite's lists ("all" = every algorithm of the
    device's backend); a run that replaces either without naming a suite is called "custom"."""
    base = load_suite(suite or DEFAULT_SUITE)
    names = [WILDCARD if a == "all" else a for a in algorithms]
    return base.with_overrides(
        name=base.name if suite is not None or not (graphs or algorithms) else "custom",
        reps=reps,
        warmup=warmup,
        timeout_s=timeout,
        graphs=tuple(GraphEntry(g) for g in graphs) or None,
        algorithms=tuple(AlgorithmEntry(n) for n in dict.fromkeys(names)) or None,
    )


def run(
    suite: str | Path | None = None,
    graphs: Sequence[str] = (),
    algorithms: Sequence[str] = (),
    params: Mapping[str, Sequence[Any] | str] | None = None,
    block_sizes: str | Sequence[int] | None = None,
    reps: int | None = None,
    warmup: int | None = None,
    timeout: float | None = None,
    device: str = "auto",
    out: str | Path | None = None,
    resume: str | Path | None = None,
    trace: bool = False,
    offline: bool = False,
    progress: bool = True,
    choice: DeviceChoice | None = None,
) -> RunSummary:
    """Run a benchmark suite; the Python form of ``gcbench run`` (same arguments).

    ``params`` maps a parameter to its values (a list, or "v1,v2" as on the command line);
    ``choice`` is a device already resolved with :func:`choose_device` (else ``device`` is).
    Spec errors are raised before anything runs; per-case failures become rows.
    """
    load_plugins()
    the_suite = build_suite(suite, graphs, algorithms, reps, warmup, timeout)
    axes = {k: v.split(",") if isinstance(v, str) else list(v) for k, v in (params or {}).items()}
    sizes = None if block_sizes is None else parse_block_sizes(
        block_sizes if isinstance(block_sizes, str) else list(block_sizes))  # fmt: skip
    choice = choice or choose_device(device)
    cases = expand(the_suite, backend=choice.backend, block_sizes=sizes, param_axes=axes)
    path = _results_path(the_suite.name, out, resume)
    results = ResultsFile(path, resume=resume is not None)
    traces = TraceFile(path, resume=resume is not None) if trace else None
    summary = RunSummary(path, traces.path if traces else None, choice.backend, len(cases))
    summary.counts.update(results.previous)
    if not offline:
        summary.notes.extend(prefetch(case.graph for case in cases))
    if choice.backend == "cpu" and (skipped := skipped_gpu_algorithms(the_suite)):
        summary.notes.append(f"left out GPU algorithms on the CPU: {', '.join(skipped)}")
    session = _Session(the_suite, results, traces, summary, offline, capture_environment())
    try:
        with Display(len(cases), enabled=progress) as display, _sigint_flag() as stop:
            summary.notes_shown = display.active
            for note in summary.notes:
                display.note(note)
            session.display, session.stop = display, stop
            session.run(cases)
    except Interrupted:
        summary.interrupted = True
    finally:
        results.close()
        if traces:
            traces.close()
    return summary


def prefetch(specs: Iterable[str]) -> list[str]:
    """Download the remote graphs of a run into the cache, in the parent, before any worker
    starts (issue 7: suites fetch with ``gcbench fetch``'s code, and no download bar competes
    with the progress display). Returns a note per failure; the worker then falls back to the
    graph's stand-in, or records the failure."""
    from gcbench.fetch import fetch_all, is_remote

    remote = [spec for spec in dict.fromkeys(specs) if is_remote(spec)]
    if not remote:
        return []
    return [f"{r.spec}: {r.error}" for r in fetch_all(remote) if r.status == "failed"]


def _results_path(name: str, out: str | Path | None, resume: str | Path | None) -> Path:
    if resume is not None:
        if out is not None and Path(out) != Path(resume):
            raise SpecError(f"--out {out} and --resume {resume} differ; --resume appends to FILE")
        return Path(resume)
    return Path(out) if out is not None else default_out(name)


@contextmanager
def _sigint_flag() -> Iterator[threading.Event]:
    """While running, SIGINT sets an event the wait loops check (so a row is never cut in
    half); outside the main thread the default KeyboardInterrupt is left alone."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


class _Session:
    """Runs the cases graph by graph and records every row."""

    def __init__(
        self,
        suite: Suite,
        results: ResultsFile,
        traces: TraceFile | None,
        summary: RunSummary,
        offline: bool,
        env: Environment,
    ) -> None:
        self.suite = suite
        self.results = results
        self.traces = traces
        self.summary = summary
        self.offline = offline
        self.env = env
        self.display: Any = None
        self.stop = threading.Event()

    def run(self, cases: list[Case]) -> None:
        for (graph, standin), group in groupby(cases, key=lambda c: (c.graph, c.standin)):
            todo = [(case, self._reps_to_do(case)) for case in group]
            skipped = sum(1 for _, reps in todo if not reps)
            if skipped:
                self.display.advance(skipped)
            todo = [(case, reps) for case, reps in todo if reps]
            if todo:
                _GraphRun(self, LoadJob(graph, standin, self.offline)).run(todo)

    def _reps_to_do(self, case: Case) -> tuple[int, ...]:
        recorded = self.results.recorded
        return tuple(
            rep
            for rep in range(self.suite.reps)
            if case.key(rep) not in recorded
            and (case.standin is None or case.key(rep, case.standin) not in recorded)
        )

    def note(self, message: str) -> None:
        if message not in self.summary.notes:
            self.summary.notes.append(message)
            self.display.note(message)

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
            "algorithm": case.algorithm,
            "params": case.params_text,
            "block_size": case.block_size,
        }
        stats = {} if info is None else {
            "n": info.n, "m": info.m, "max_degree": info.max_degree, "avg_degree": info.avg_degree,
        }  # fmt: skip
        row = {"device": case.backend, **self.env.columns(), **identity, **stats, **fields}
        row["backend"] = case.backend
        self.results.append(row)
        self.summary.counts[row["status"]] += 1
        self.summary.written += 1
        if trace and self.traces is not None:
            for trow in trace:
                self.traces.append({"run_id": self.env.run_id, **identity, **trow})


class _GraphRun:
    """The cases of one graph, in one worker (replaced when it dies or times out)."""

    def __init__(self, session: _Session, load: LoadJob) -> None:
        self.session = session
        self.load = load
        self.timeout_s = session.suite.timeout_s
        self.worker: WorkerProcess | None = None
        self.info: GraphInfo | None = None
        self.failure: dict[str, str] = {}

    def run(self, todo: list[tuple[Case, tuple[int, ...]]]) -> None:
        try:
            for index, (case, reps) in enumerate(todo):
                self.session.display.current(case.graph, case.algorithm)
                if self.worker is None and not self._start():
                    return self._fail_rest(todo[index:])
                self._run_case(case, reps)
                self.session.display.advance()
            if self.worker is not None:
                self.worker.stop()
                self.worker = None
        finally:
            if self.worker is not None:
                self.worker.kill()
                self.worker = None

    def _start(self) -> bool:
        """Spawn a worker and load the graph; on failure keep why in ``self.failure``."""
        self.worker = WorkerProcess(self.session.stop.is_set)
        limit = max(self.timeout_s, MIN_LOAD_TIMEOUT_S)
        try:
            self.worker.send(self.load)
            message = self.worker.receive(limit, f"loading {self.load.spec}")
        except WorkerLost as lost:
            message = ("load_failed", lost.status, lost.message)
        if message[0] == "loaded":
            self.info = message[1]
            if self.info.note:
                self.session.note(self.info.note)
            return True
        self.failure = {"status": message[1], "error": message[2]}
        self.worker.kill()
        self.worker = None
        return False

    def _fail_rest(self, todo: list[tuple[Case, tuple[int, ...]]]) -> None:
        """Loading failed: every remaining repetition of this graph gets that status."""
        for case, reps in todo:
            for rep in reps:
                self.session.record(case, None, {**self.failure, "rep": rep})
            self.session.display.advance()

    def _run_case(self, case: Case, reps: tuple[int, ...]) -> None:
        assert self.worker is not None
        suite = self.session.suite
        job = CaseJob(
            case.algorithm, dict(case.params), case.block_size, reps, suite.warmup,
            self.session.traces is not None, case.backend,
        )  # fmt: skip
        left = list(reps)
        what = f"{case.algorithm} on {case.graph}"
        try:
            self.worker.send(job)
            while True:
                message = self.worker.receive(self.timeout_s, what)
                if message[0] == "row":
                    self.session.record(case, self.info, message[1], message[2])
                    left.remove(message[1]["rep"])
                elif message[0] == "done":
                    if message[1]:
                        self.worker.stop()
                        self.worker = None
                    return
        except WorkerLost as lost:
            self.worker.kill()
            self.worker = None
            for rep in left:
                fields = {"rep": rep, "status": lost.status, "error": lost.message}
                self.session.record(case, self.info, fields)
