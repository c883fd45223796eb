"""``--cluster ADDRESS | local``: a run's graphs as tasks of a Dask cluster (docs/cluster.md).

The unit of work is one graph's cases (a :class:`~gcbench.bench.graphrun.GraphWork`), one
Dask task that needs one GPU (worker resource ``GPU=1``) on a GPU run. Inside the Dask worker
the task drives gcbench's own isolated worker process (docs/architecture.md, "Isolation and
failures"), pinned to the Dask worker's GPU, exactly as a plain run does: a crash or a hang is
a row, not a lost Dask worker.

Rows stream back to the client, which writes the one CSV (:class:`runner._Session`), through
a ``distributed.Queue`` named after the run. Each task attempt starts with a handshake: it
sends ``start`` (its token and worker address) and waits for the client's answer, the
repetitions of its graph not yet written (or none: stop). So a task that Dask re-runs after
its worker died (the scheduler does that by itself) runs only what is missing: nothing
written is lost or duplicated. One retry per graph; when a second worker is lost on the same
graph, the client stops it and records its missing repetitions as ``error`` rows that name
the lost workers. Dask, distributed and dask-cuda are the optional ``cluster`` extra,
imported only here and only when ``--cluster`` is given.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import logging
import multiprocessing
import os
import socket
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from gcbench.bench.cost import largest_first
from gcbench.bench.gpus import visible_list
from gcbench.bench.graphrun import GraphRun, GraphWork, Settings, Sink
from gcbench.bench.process import Interrupted, stop_signals_ignored
from gcbench.bench.suite import Case
from gcbench.bench.worker import GraphInfo, one_line
from gcbench.errors import GcbenchError, SpecError

LOCAL = "local"
LOOPBACK = "127.0.0.1"  # where a local cluster listens
EXTRA = "pip install 'gcbench[cluster]'"
ATTEMPTS = 2  # the first run of a graph and one retry after a lost worker
POLL_S = 0.2  # how often the client looks for rows, finished tasks and interrupts
REPLY_TIMEOUT_S = 600.0  # how long a task waits for the client's go-ahead
STOP_CHECK_S = 1.0  # how often a task asks whether the run was interrupted
CONNECT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Target:
    """Where the tasks run: a scheduler's address, or a local cluster (``address`` None) on
    these GPUs (GPU run) or with one worker per entry (CPU run; None: half the cores)."""

    address: str | None
    gpus: Sequence[str] | None = None


def check(address: str, gpus: Sequence[str] | None, backend: str) -> Target:
    """The cluster ``--cluster`` names (``gpus``: the GPUs or slots of a local one), after
    checking that distributed imports."""
    try:
        importlib.import_module("distributed")
    except ImportError as exc:
        raise GcbenchError(
            f"--cluster needs distributed, which does not import ({exc}): {EXTRA}"
        ) from None
    if address == LOCAL:
        return Target(None, gpus)
    if gpus is not None:
        raise SpecError(
            "--gpus applies to --cluster local only; a cluster's own workers hold its GPUs"
        )
    return Target(address)


@dataclass(frozen=True)
class TaskJob:
    """What one Dask task gets: its graph's work, the run's settings and names."""

    index: int
    name: str  # the run's queue; its variables and stop event are named after it
    work: GraphWork
    settings: Settings
    gpu: bool


def graph_task(job: TaskJob) -> None:
    """The Dask task (runs in a Dask worker): handshake, then the graph's cases in gcbench's
    own worker process, every row, note and progress step sent to the client's queue."""
    from distributed import Event, Queue, Variable, get_worker

    _allow_children()
    token = uuid.uuid4().hex
    queue = Queue(job.name)
    queue.put(["start", job.index, token, get_worker().address])
    answer = Variable(f"{job.name}-{token}")
    try:
        reps = answer.get(timeout=REPLY_TIMEOUT_S)
    finally:
        answer.delete()
    if reps is None:
        return
    todo = tuple(
        (case, None if left is None else tuple(left))
        for (case, _), left in zip(job.work.todo, reps, strict=True)
        if left is None or left
    )
    visible = visible_list()
    pin = visible[0] if job.gpu and visible else None
    gpu_index = (pin or "0") if job.gpu else None
    sink = _QueueSink(queue, Event(f"{job.name}-stop"), job, token)
    work = dataclasses.replace(job.work, todo=todo)
    try:
        GraphRun(sink, work, job.settings, pin=pin, gpu_index=gpu_index).run()
    except Interrupted:
        return
    queue.put(["end", job.index, token])


def _allow_children() -> None:
    """Let this Dask worker start gcbench's worker process. Dask's nanny starts workers as
    daemonic processes, which multiprocessing forbids to have children; the flag guards
    nothing else, and the child never outlives the task (the task stops or kills it on every
    path, and PR_SET_PDEATHSIG kills it with the Dask worker)."""
    process = multiprocessing.current_process()
    if process.daemon:
        process.daemon = False


class _QueueSink:
    """A GraphRun's sink inside a Dask task: every call becomes a queue message."""

    def __init__(self, queue: Any, stop: Any, job: TaskJob, token: str) -> None:
        self.queue = queue
        self.stop = stop
        self.job = job
        self.token = token
        self.host = socket.gethostname()
        self.cases = {id(case): i for i, (case, _) in enumerate(job.work.todo)}
        self._checked = 0.0
        self._stopped = False

    def _send(self, kind: str, *payload: Any) -> None:
        self.queue.put([kind, self.job.index, self.token, *payload])

    def record(
        self,
        case: Case,
        info: GraphInfo | None,
        fields: Mapping[str, Any],
        trace: list[dict[str, Any]] | None = None,
    ) -> None:
        plain = {k: _plain(v) for k, v in {**fields, "host": self.host}.items()}
        facts = None if info is None else dataclasses.asdict(info)
        traced = None if trace is None else [{k: _plain(v) for k, v in t.items()} for t in trace]
        self._send("row", self.cases[id(case)], facts, plain, traced)

    def note(self, message: str) -> None:
        self._send("note", message)

    def current(self, case: Case) -> None:
        self._send("current", self.cases[id(case)])

    def phase(self, text: str | None) -> None:
        self._send("phase", text)

    def advance(self, cases: int = 1, weight: float = 1.0) -> None:
        self._send("advance", cases, weight)

    def interrupted(self) -> bool:
        now = time.monotonic()
        if not self._stopped and now - self._checked >= STOP_CHECK_S:
            self._checked = now
            self._stopped = self.stop.is_set()
        return self._stopped


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python number it holds (queue messages travel as msgpack)."""
    return value.item() if hasattr(value, "item") else value


@dataclass
class _Graph:
    """The client's view of one graph's task."""

    job: TaskJob
    future: Any
    workers: list[str] = field(default_factory=list)  # the Dask worker of each attempt
    info: GraphInfo | None = None
    written: set[tuple[int, int]] = field(default_factory=set)  # (case index, rep)
    settled: bool = False

    def left(self) -> list[list[int] | None]:
        """Per case, the repetitions not yet written; for a case whose count the protocol
        decides (``--reps auto``), None while it has no row (it runs whole), else [] (its
        rows arrive together when it finishes)."""
        out: list[list[int] | None] = []
        for i, (_, reps) in enumerate(self.job.work.todo):
            if reps is None:
                started = any(case == i for case, _ in self.written)
                out.append([] if started else None)
            else:
                out.append([rep for rep in reps if (i, rep) not in self.written])
        return out


def run_cluster(
    client: Any, sink: Sink, works: Sequence[GraphWork], settings: Settings, backend: str
) -> None:
    """Run ``works`` as tasks of ``client``'s cluster (largest first) and record their rows
    through ``sink``; returns when every graph is settled; Interrupted when interrupted."""
    if works:
        _Client(client, sink, works, settings, backend).run()


class _Client:
    """The client's loop: submit, then read the queue and settle graphs until all are."""

    def __init__(
        self, client: Any, sink: Sink, works: Sequence[GraphWork], settings: Settings,
        backend: str,
    ) -> None:  # fmt: skip
        from distributed import Event, Queue

        self.client = client
        self.sink = sink
        self.name = f"gcbench-{uuid.uuid4().hex}"
        self.queue = Queue(self.name, client=client)
        self.stop = Event(f"{self.name}-stop", client=client)
        resources = {"GPU": 1} if backend == "gpu" else None
        ordered = largest_first(works)
        self.graphs = []
        for index, work in enumerate(ordered):
            job = TaskJob(index, self.name, work, settings, backend == "gpu")
            future = client.submit(
                graph_task, job, key=f"{self.name}-graph-{index}", resources=resources,
                priority=len(ordered) - index, pure=False,
            )  # fmt: skip
            self.graphs.append(_Graph(job, future))

    def run(self) -> None:
        try:
            while not all(g.settled for g in self.graphs):
                if self.sink.interrupted():
                    raise Interrupted
                busy = self._drain()
                for graph in self.graphs:
                    if not graph.settled and graph.future.done():
                        self._drain()  # what the task sent before it ended
                        if not graph.settled:
                            self._fail(graph, self._failure(graph))
                if not busy:
                    time.sleep(POLL_S)
        finally:
            if not all(g.settled for g in self.graphs):  # interrupted, or the scheduler lost
                with contextlib.suppress(Exception):
                    self.stop.set()
                    self.client.cancel([g.future for g in self.graphs])

    def _drain(self) -> bool:
        try:
            messages = self.queue.get(batch=True)
        except (OSError, TimeoutError) as exc:  # distributed's CommClosedError is an OSError
            raise GcbenchError(
                f"lost the Dask scheduler ({type(exc).__name__}: {exc}); the rows written so far "
                "are kept: rerun the same command with --resume FILE to finish"
            ) from None
        for message in messages:
            self._handle(*message)
        return bool(messages)

    def _handle(self, kind: str, index: int, token: str, *payload: Any) -> None:
        graph = self.graphs[index]
        if kind == "start":
            self._start(graph, token, payload[0])
        elif graph.settled:
            return  # a stopped attempt's late message
        elif kind == "row":
            case_index, facts, fields, trace = payload
            key = (case_index, fields["rep"])
            if key in graph.written:
                return
            graph.written.add(key)
            graph.info = None if facts is None else GraphInfo(**facts)
            self.sink.record(graph.job.work.todo[case_index][0], graph.info, fields, trace)
        elif kind == "note":
            self.sink.note(payload[0])
        elif kind == "current":
            self.sink.current(graph.job.work.todo[payload[0]][0])
        elif kind == "phase":
            self.sink.phase(payload[0])
        elif kind == "advance":
            self.sink.advance(payload[0], payload[1])
        elif kind == "end":
            graph.settled = True

    def _start(self, graph: _Graph, token: str, worker: str) -> None:
        """Answer an attempt's handshake: what is left to run, or stop."""
        from distributed import Variable

        graph.workers.append(worker)
        left = graph.left()
        missing = [reps for reps in left if reps is None or reps]
        go = not graph.settled and bool(missing) and len(graph.workers) <= ATTEMPTS
        if len(graph.workers) == ATTEMPTS and go:
            what = (
                f"{len(missing)} unfinished cases"
                if any(reps is None for reps in missing)
                else f"{sum(map(len, missing))} missing repetitions"
            )
            self.sink.note(
                f"{graph.job.work.graph}: Dask worker {graph.workers[0]} was lost; "
                f"retrying its {what} on {worker}"
            )
        Variable(f"{self.name}-{token}", client=self.client).set(left if go else None)
        if not graph.settled and not go:
            lost = " and ".join(graph.workers[:-1])
            self._fail(graph, f"Dask worker lost while running this graph ({lost}); not retried")

    def _failure(self, graph: _Graph) -> str:
        where = f" on {', '.join(graph.workers)}" if graph.workers else ""
        error = graph.future.exception() if graph.future.status == "error" else None
        if error is None:
            return f"Dask task ended{where} without finishing its graph"
        return one_line(f"Dask task failed{where}: {type(error).__name__}: {error}")

    def _fail(self, graph: _Graph, message: str) -> None:
        """Record every missing repetition of ``graph`` as an error naming ``message``."""
        graph.settled = True
        for (case, _), reps in zip(graph.job.work.todo, graph.left(), strict=True):
            for rep in (0,) if reps is None else reps:  # an unfinished auto case: one row
                fields = {"rep": rep, "status": "error", "error": message,
                          "count_setup": graph.job.settings.count_setup}  # fmt: skip
                self.sink.record(case, graph.info, fields)
            if reps is None or reps:
                self.sink.advance(1, graph.job.work.weight)


@contextmanager
def connect(target: Target, backend: str) -> Iterator[Any]:
    """A distributed Client of the target cluster (a local one started and closed here)."""
    from distributed import Client

    if target.address is not None:
        try:
            client = Client(target.address, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            raise GcbenchError(
                f"--cluster {target.address}: cannot reach the Dask scheduler ({exc})"
            ) from None
        with client:
            _check_resources(client, target.address, backend)
            yield client
        return
    with stop_signals_ignored():  # its processes are born ignoring Ctrl-C (process.py)
        cluster = _local_cluster(target.gpus, backend)
    with cluster, Client(cluster) as client:
        yield client


def _local_cluster(gpus: Sequence[str] | None, backend: str) -> Any:
    """One single-threaded Dask worker per GPU of ``gpus`` (each with resource GPU=1) on a GPU
    run; a LocalCluster of single-threaded processes on a CPU run (one per entry of ``gpus``,
    else half the cores)."""
    common = {"dashboard_address": None, "silence_logs": logging.ERROR}
    if backend == "gpu":
        assert gpus is not None  # the runner resolves "every visible GPU" for a local cluster
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError:
            return _gpu_workers(gpus)
        return LocalCUDACluster(
            CUDA_VISIBLE_DEVICES=",".join(gpus), threads_per_worker=1, resources={"GPU": 1},
            **common,
        )  # fmt: skip
    from distributed import LocalCluster

    count = len(gpus) if gpus is not None else max(1, (os.cpu_count() or 2) // 2)
    return LocalCluster(n_workers=count, threads_per_worker=1, processes=True, **common)


def _gpu_workers(gpus: Sequence[str]) -> Any:
    """Without dask-cuda: distributed's own nannies, one per GPU, each worker started with
    CUDA_VISIBLE_DEVICES naming its GPU (what LocalCUDACluster does, less its CPU affinity)."""
    from distributed import Nanny, Scheduler, SpecCluster

    def worker(gpu: str) -> dict[str, Any]:
        options = {
            "host": LOOPBACK, "nthreads": 1, "resources": {"GPU": 1}, "dashboard": False,
            "silence_logs": logging.ERROR, "env": {"CUDA_VISIBLE_DEVICES": gpu},
        }  # fmt: skip
        return {"cls": Nanny, "options": options}

    workers = {f"gpu-{gpu}": worker(gpu) for gpu in gpus}
    scheduler = {"cls": Scheduler, "options": {"host": LOOPBACK, "dashboard": False}}
    return SpecCluster(workers=workers, scheduler=scheduler, silence_logs=logging.ERROR)


def _check_resources(client: Any, address: str, backend: str) -> None:
    """A GPU run's tasks need workers with resource GPU; say so when none has it (they
    would wait for one forever)."""
    workers = client.scheduler_info().get("workers", {})
    if (
        backend == "gpu"
        and workers
        and not any(w.get("resources", {}).get("GPU", 0) >= 1 for w in workers.values())
    ):
        raise GcbenchError(
            f"--cluster {address}: no worker has the resource GPU; start one worker per GPU "
            "with --resources GPU=1 (docs/cluster.md)"
        )
