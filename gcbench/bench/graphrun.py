"""One graph's cases in one isolated worker process: the unit of work of every engine.

A plain run, each ``--gpus`` slot and each Dask task drive a :class:`GraphRun`; it hands
every row to a :class:`Sink` (the parent's session, or a Dask task's queue back to the
client), so what a row holds and how failures become rows is decided here once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from gcbench.bench.conditions import flag_text
from gcbench.bench.options import Settings
from gcbench.bench.process import WorkerLost, WorkerProcess
from gcbench.bench.suite import Case
from gcbench.bench.worker import CaseJob, GraphInfo, LoadJob, VisitOutcome

MIN_LOAD_TIMEOUT_S = 600.0
PCI_ORDER = {"CUDA_DEVICE_ORDER": "PCI_BUS_ID"}  # CUDA numbers GPUs as nvidia-smi does

# Cases with the repetitions left to run: their numbers, or None for as many as the
# protocol asks (--reps auto: a case not recorded yet runs whole).
Todo = tuple[tuple[Case, tuple[int, ...] | None], ...]


@dataclass(frozen=True)
class GraphWork:
    """One graph (or its stand-in) and its cases with the repetitions still to run;
    ``weight`` is what each case weighs in the progress display's ETA (its graph's size)."""

    load: LoadJob
    todo: Todo
    weight: float = 1.0

    @property
    def graph(self) -> str:
        return self.load.spec


class Sink(Protocol):
    """Where a GraphRun's rows, notes and progress go."""

    def record(
        self,
        case: Case,
        info: GraphInfo | None,
        fields: Mapping[str, Any],
        trace: list[dict[str, Any]] | None = None,
    ) -> None: ...

    def note(self, message: str) -> None: ...

    def current(self, case: Case) -> None: ...

    def phase(self, text: str | None) -> None: ...

    def advance(self, cases: int = 1, weight: float = 1.0) -> None: ...

    def interrupted(self) -> bool: ...


def pin_env(gpu: str | None) -> dict[str, str]:
    """The environment a worker pinned to ``gpu`` starts with: that one device visible, in
    nvidia-smi's numbering unless this process's environment chose another order; nothing
    for no pin."""
    if gpu is None:
        return {}
    order = {} if "CUDA_DEVICE_ORDER" in os.environ else PCI_ORDER
    return {**order, "CUDA_VISIBLE_DEVICES": gpu}


class GraphRun:
    """The cases of one graph, in one worker (replaced when it dies or times out).

    ``pin`` is the CUDA_VISIBLE_DEVICES entry the worker gets (None: inherit the parent's);
    ``gpu_index`` goes into every row's ``gpu_index`` column (None: empty).
    """

    def __init__(
        self,
        sink: Sink,
        work: GraphWork,
        settings: Settings,
        *,
        pin: str | None = None,
        gpu_index: str | None = None,
        worker: WorkerProcess | None = None,
        keep: bool = False,
    ) -> None:
        self.sink = sink
        self.work = work
        self.settings = settings
        self.env = pin_env(pin)
        self.gpu_index = gpu_index
        self.worker = worker  # a live worker to load this graph into, or None: spawn one
        self.keep = keep
        self.loaded = False
        self.info: GraphInfo | None = None
        self.failure: dict[str, str] = {}

    def run(self) -> WorkerProcess | None:
        """The graph's cases in passes: each pass visits every case not yet finished (an
        auto case needs several visits, a fixed count one), in suite order; a case's rows are
        recorded when it finishes. With ``keep``, the worker is handed back alive for the
        next graph (the CPU's runs: docs/architecture.md, "Isolation and failures")."""
        left = [_Pending(case, reps) for case, reps in self.work.todo]
        try:
            while left:
                for item in list(left):
                    self.sink.current(item.case)
                    if not self.loaded and not self._start():
                        self._fail_rest(left)
                        return None
                    self._visit(item)
                    if item.finished:
                        self._finish(item)
                        left.remove(item)
            if self.worker is not None and self.keep:
                kept, self.worker = self.worker, None
                return kept
            if self.worker is not None:
                self.worker.stop()
                self.worker = None
            return None
        finally:
            if self.worker is not None:
                self.worker.kill()
                self.worker = None

    def _record(
        self, case: Case, fields: Mapping[str, Any], trace: list[dict[str, Any]] | None = None
    ) -> None:
        columns = {"count_setup": self.settings.count_setup, **fields, "gpu_index": self.gpu_index}
        self.sink.record(case, self.info, columns, trace)

    def _start(self) -> bool:
        """Load the graph, into a worker spawned now unless one was handed over; on failure
        keep why in ``self.failure``."""
        load = self.work.load
        if self.worker is None:
            self.sink.phase(f"starting a worker for {load.spec}")
            self.worker = WorkerProcess(self.sink.interrupted, self.env)
        limit = max(self.settings.timeout_s, MIN_LOAD_TIMEOUT_S)
        try:
            self.worker.send(load)
            message = self._receive(limit, f"loading {load.spec}")
        except WorkerLost as lost:
            message = ("load_failed", lost.status, lost.message)
        if message[0] == "loaded":
            self.loaded = True
            self.info = message[1]
            if self.info.note:
                self.sink.note(self.info.note)
            return True
        self.failure = {"status": message[1], "error": message[2]}
        self.worker.kill()
        self.worker = None
        return False

    def _receive(self, timeout_s: float, what: str) -> tuple[Any, ...]:
        """The worker's next message other than a phase (those go to the display); each
        message starts a new ``timeout_s`` window."""
        assert self.worker is not None
        while True:
            message = self.worker.receive(timeout_s, what)
            if message[0] != "phase":
                return message
            self.sink.phase(message[1])

    def _fail_rest(self, left: list[_Pending]) -> None:
        """Loading failed: every case not finished records what it has and the failure for
        each repetition left (one row, the next rep, for a case whose count the protocol
        decides)."""
        for item in left:
            item.rows.extend(({**self.failure, "rep": rep}, None) for rep in item.to_go())
            self._finish(item)

    def _finish(self, item: _Pending) -> None:
        """Record a finished case's rows, each with the flags the whole case earned."""
        for fields, trace in item.rows:
            flags = flag_text([*fields.get("flags", "").split(";"), *item.flags])
            self._record(item.case, {**fields, "flags": flags}, trace)
        self.sink.advance(1, self.work.weight)

    def _visit(self, item: _Pending) -> None:
        """One visit of a case in the worker; its rows are kept in ``item`` until the case
        finishes, so an interrupted case leaves no row. A worker lost on the way finishes the
        case with the loss for each repetition left."""
        assert self.worker is not None
        case = item.case
        job = CaseJob(
            algorithm=case.algorithm, backend=case.backend, params=dict(case.params),
            block_size=case.block_size, settings=self.settings, reps=item.reps,
            history=tuple(item.times), spent_s=item.spent_s, visit=item.visits,
        )  # fmt: skip
        what = f"{case.algorithm} on {case.graph}"
        try:
            self.worker.send(job)
            while True:
                message = self._receive(self.settings.timeout_s, what)
                if message[0] == "row":
                    item.add(message[1], message[2])
                elif message[0] == "done":
                    item.visited(message[1])
                    if message[1].restart:
                        self.worker.stop()
                        self.worker, self.loaded = None, False
                    return
        except WorkerLost as lost:
            self.worker.kill()
            self.worker, self.loaded = None, False
            item.rows.extend(({"rep": r, "status": lost.status, "error": lost.message}, None)
                             for r in item.to_go())  # fmt: skip
            item.finished = True


@dataclass
class _Pending:
    """A case of the graph as its visits go: the rows and times so far, the seconds and
    visits spent, the flags earned, and whether it is finished."""

    case: Case
    reps: tuple[int, ...] | None
    rows: list[tuple[dict[str, Any], list[dict[str, Any]] | None]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    spent_s: float = 0.0
    visits: int = 0
    flags: set[str] = field(default_factory=set)
    finished: bool = False

    def add(self, fields: dict[str, Any], trace: list[dict[str, Any]] | None) -> None:
        self.rows.append((fields, trace))
        if fields.get("time_ms") is not None:
            self.times.append(fields["time_ms"])

    def visited(self, outcome: VisitOutcome) -> None:
        self.visits += 1
        self.spent_s = outcome.spent_s or self.spent_s
        self.flags.update(outcome.flags)
        self.finished = outcome.finished

    def to_go(self) -> list[int]:
        """The repetitions a failure stands for: the fixed ones not recorded yet, or, for a
        case whose count the protocol decides, the next one."""
        if self.reps is None:
            return [len(self.rows)]
        done = {fields["rep"] for fields, _ in self.rows}
        return [rep for rep in self.reps if rep not in done]
