"""On the CPU one worker serves the run's graphs in turn (its start and the numba kernels'
loading paid once); a crash still replaces it, and each graph's rows carry its own graph."""

from __future__ import annotations

import pandas as pd

from gcbench.bench import runner

GRAPHS = ["gen:cycle?n=40", "gen:grid2d?side=7", "gen:star?leaves=29"]
CPU = runner.DeviceChoice("cpu", "test")


def run_frame(tmp_path, name: str, algorithms: list[str], graphs=GRAPHS) -> pd.DataFrame:
    summary = runner.run(graphs=graphs, algorithms=algorithms, out=tmp_path / f"{name}.csv",
                         progress=False, choice=CPU, reps=1, warmup=0)  # fmt: skip
    return pd.read_csv(summary.path, keep_default_na=False)


def test_one_cpu_worker_serves_every_graph(bench_env, tmp_path):
    frame = run_frame(tmp_path, "reuse", ["test-pid"])
    assert (frame.status == "ok").all(), frame.error.tolist()
    assert frame.iterations.nunique() == 1, frame.iterations.tolist()  # one process
    assert frame.n.tolist() == [40, 49, 30]  # each graph loaded in turn


def test_a_crash_still_gives_the_next_graph_a_fresh_worker(bench_env, tmp_path):
    graphs = GRAPHS[:2]  # a crash, then the next graph: two graphs show it (a worker less)
    frame = run_frame(tmp_path, "crash", ["test-pid", "test-exit"], graphs)
    pids = frame[frame.algorithm == "test-pid"].iterations.tolist()
    assert (frame[frame.algorithm == "test-exit"].status == "error").all()
    assert (frame[frame.algorithm == "test-pid"].status == "ok").all()
    assert len(pids) == len(set(pids)) == len(graphs), pids  # each graph after a crash afresh


def test_loading_another_graph_forgets_the_last_ones_state(bench_env):
    """What a worker keeps per graph (prepared forms, setups, the conditions' per-case totals,
    the peers' cached forms) goes when it loads the next graph."""
    from multiprocessing import Pipe

    from gcbench.algorithms import peers
    from gcbench.bench.worker import LoadJob, _Worker

    ours, theirs = Pipe()
    worker = _Worker(theirs)
    worker.load(LoadJob("gen:cycle?n=40", None, True))
    first = worker.graph
    assert first.n == 40
    worker.prepared["cpu"], worker.setup["greedy"], worker.conditions["cpu"] = 1, 2, 3
    peers._nx_graph(first)  # networkx: the test extra's peers
    assert peers._nx_graph.cache_info().currsize == 1
    worker.load(LoadJob("gen:grid2d?side=7", None, True))
    assert worker.graph.n == 49
    assert not worker.prepared and not worker.setup and not worker.conditions
    assert peers._nx_graph.cache_info().currsize == 0
