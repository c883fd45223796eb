"""gcbench/bench/graphrun.py: one graph's cases in a worker, every step told to the sink."""

from __future__ import annotations

from gcbench.algorithms import get
from gcbench.bench.graphrun import GraphRun, GraphWork, Settings
from gcbench.bench.suite import Case
from gcbench.bench.worker import LoadJob


class _Recorder:
    """A GraphRun sink that keeps everything it is told."""

    def __init__(self) -> None:
        self.phases: list[str | None] = []
        self.rows: list[dict] = []
        self.advanced: list[tuple[int, float]] = []

    def record(self, case, info, fields, trace=None) -> None:
        self.rows.append(dict(fields))

    def note(self, message) -> None:
        pass

    def current(self, case) -> None:
        self.phases.append(f"case {case.algorithm}")

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
    GraphRun(sink, GraphWork(LoadJob(graph, None, False), todo, 7.0), Settings(0, 60, False)).run()
    assert [row["status"] for row in sink.rows] == ["ok", "ok", "ok"]
    assert sink.phases[:6] == [
        "case greedy", f"starting a worker for {graph}", f"generating {graph}",
        "compiling greedy", None, "case greedy",
    ]  # fmt: skip
    assert sink.phases[6] is None  # primed already: nothing to compile
    assert sink.phases[7:] == ["case test-distinct", "compiling test-distinct", None]
    assert sink.advanced == [(1, 7.0)] * 3
    GraphRun(sink, GraphWork(LoadJob(graph, None, False), todo[:1]), Settings(0, 60, False)).run()
    assert f"loading {graph}" in sink.phases  # cached now
