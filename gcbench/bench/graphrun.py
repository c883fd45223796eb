"""One graph's cases in one isolated worker process: the unit of work of every engine.

A plain run, each ``--gpus`` slot and each Dask task drive a :class:`GraphRun`; it hands
every row to a :class:`Sink` (the parent's session, or a Dask task's queue back to the
client), so what a row holds and how failures become rows is decided here once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from gcbench.bench.process import WorkerLost, WorkerProcess
from gcbench.bench.suite import Case
from gcbench.bench.worker import CaseJob, GraphInfo, LoadJob

MIN_LOAD_TIMEOUT_S = 600.0
PCI_ORDER = {"CUDA_DEVICE_ORDER": "PCI_BUS_ID"}  # CUDA numbers GPUs as nvidia-smi does

Todo = tuple[tuple[Case, tuple[int, ...]], ...]  # cases with the repetitions left to run


@dataclass(frozen=True)
class Settings:
    """Per-run settings every worker of a run shares."""

    warmup: int
    timeout_s: float
    trace: bool
    count_setup: bool = False
    metrics: tuple[str, ...] = ()


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
    ) -> None:
        self.sink = sink
        self.work = work
        self.settings = settings
        self.env = pin_env(pin)
        self.gpu_index = gpu_index
        self.worker: WorkerProcess | None = None
        self.info: GraphInfo | None = None
        self.failure: dict[str, str] = {}

    def run(self) -> None:
        todo = self.work.todo
        try:
            for index, (case, reps) in enumerate(todo):
                self.sink.current(case)
                if self.worker is None and not self._start():
                    return self._fail_rest(todo[index:])
                self._run_case(case, reps)
                self.sink.advance(1, self.work.weight)
            if self.worker is not None:
                self.worker.stop()
                self.worker = None
        finally:
            if self.worker is not None:
                self.worker.kill()
                self.worker = None

    def _record(
        self, case: Case, fields: Mapping[str, Any], trace: list[dict[str, Any]] | None = None
    ) -> None:
        self.sink.record(case, self.info, {**fields, "gpu_index": self.gpu_index}, trace)

    def _start(self) -> bool:
        """Spawn a worker and load the graph; on failure keep why in ``self.failure``."""
        load = self.work.load
        self.sink.phase(f"starting a worker for {load.spec}")
        self.worker = WorkerProcess(self.sink.interrupted, self.env)
        limit = max(self.settings.timeout_s, MIN_LOAD_TIMEOUT_S)
        try:
            self.worker.send(load)
            message = self._receive(limit, f"loading {load.spec}")
        except WorkerLost as lost:
            message = ("load_failed", lost.status, lost.message)
        if message[0] == "loaded":
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

    def _fail_rest(self, todo: Todo) -> None:
        """Loading failed: every remaining repetition of this graph gets that status."""
        for case, reps in todo:
            for rep in reps:
                self._record(case, {**self.failure, "rep": rep})
            self.sink.advance(1, self.work.weight)

    def _run_case(self, case: Case, reps: tuple[int, ...]) -> None:
        assert self.worker is not None
        job = CaseJob(
            case.algorithm, dict(case.params), case.block_size, reps, self.settings.warmup,
            self.settings.trace, self.settings.count_setup, case.backend, self.settings.metrics,
        )  # fmt: skip
        left = list(reps)
        what = f"{case.algorithm} on {case.graph}"
        try:
            self.worker.send(job)
            while True:
                message = self._receive(self.settings.timeout_s, what)
                if message[0] == "row":
                    self._record(case, message[1], message[2])
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
                self._record(case, {"rep": rep, "status": lost.status, "error": lost.message})
