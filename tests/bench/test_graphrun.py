"""gcbench/bench/graphrun.py: one graph's cases in a worker, every step told to the sink."""

from __future__ import annotations

from gcbench.algorithms import get
from gcbench.algorithms.sampling import MIN_PASSES, MIN_VISIT_REPS, Sampling
from gcbench.bench.graphrun import GraphRun, GraphWork
from gcbench.bench.options import Settings
from gcbench.bench.suite import Case
from gcbench.bench.worker import LoadJob


class _Recorder:
    """A GraphRun sink that keeps everything it is told."""

    def __init__(self) -> None:
        self.phases: list[str | None] = []
        self.rows: list[dict] = []
        self.cases: list[str] = []  # the params of each row's case
        self.visited: list[str] = []  # the params of each case visited, in turn
        self.advanced: list[tuple[int, float]] = []

    def record(self, case, info, fields, trace=None) -> None:
        self.rows.append(dict(fields))
        self.cases.append(case.params_text)

    def note(self, message) -> None:
        pass

    def current(self, case) -> None:
        self.phases.append(f"case {case.algorithm}")
        self.visited.append(case.params_text)

    def phase(self, text) -> None:
        self.phases.append(text)

    def advance(self, cases=1, weight=1.0) -> None:
        self.advanced.append((cases, weight))

    def interrupted(self) -> bool:
        return False


def test_the_worker_reports_its_phases(bench_env):
    graph = "gen:cycle?n=17"
    cases = [
        Case(graph, None, name, "cpu", get(name).resolve_params({}), None)
        for name in ("greedy", "greedy", "test-distinct")
    ]
    todo = tuple((case, (0,)) for case in cases)
    sink = _Recorder()
    settings = Settings(sampling=Sampling(warmup=0), timeout_s=60)
    GraphRun(sink, GraphWork(LoadJob(graph, None, False), todo, 7.0), settings).run()
    assert [row["status"] for row in sink.rows] == ["ok", "ok", "ok"]
    assert sink.phases[:6] == [
        "case greedy", f"starting a worker for {graph}", f"generating {graph}",
        "compiling greedy", None, "case greedy",
    ]  # fmt: skip
    assert sink.phases[6] is None  # primed already: nothing to compile
    assert sink.phases[7:] == ["case test-distinct", "compiling test-distinct", None]
    assert sink.advanced == [(1, 7.0)] * 3
    GraphRun(sink, GraphWork(LoadJob(graph, None, False), todo[:1]), settings).run()
    assert f"loading {graph}" in sink.phases  # cached now


def test_auto_cases_are_visited_in_passes_and_recorded_when_finished(bench_env):
    """--reps auto: every case of the graph is visited in turn, pass after pass (at least
    MIN_PASSES visits each), and its rows, numbered on across visits, land when it finishes."""
    graph = "gen:cycle?n=19"
    cases = [
        Case(graph, None, "test-draw", "cpu",
             get("test-draw").resolve_params({"seed": seed, "median_ms": 1.0}), None)
        for seed in (0, 1)
    ]  # fmt: skip
    first, second = (case.params_text for case in cases)
    sink = _Recorder()
    settings = Settings(sampling=Sampling(noise=0.5, case_time_s=1.0), timeout_s=60)
    work = GraphWork(LoadJob(graph, None, False), tuple((case, None) for case in cases))
    GraphRun(sink, work, settings).run()
    assert sink.visited[: 2 * MIN_PASSES] == [first, second] * MIN_PASSES
    for params in (first, second):
        reps = [row["rep"] for row, case in zip(sink.rows, sink.cases, strict=True)
                if case == params]  # fmt: skip
        assert reps == list(range(len(reps))) and len(reps) >= MIN_PASSES * MIN_VISIT_REPS
    assert sink.advanced == [(1, 1.0)] * 2
