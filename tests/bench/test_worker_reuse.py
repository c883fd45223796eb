"""On the CPU one worker serves the run's graphs in turn (its start and the numba kernels'
loading paid once); a crash still replaces it, and each graph's rows carry its own graph."""

from __future__ import annotations

import pandas as pd

from gcbench.bench import runner

GRAPHS = ["gen:cycle?n=40", "gen:grid2d?side=7", "gen:star?leaves=29"]
CPU = runner.DeviceChoice("cpu", "test")


def run_frame(tmp_path, name: str, algorithms: list[str]) -> pd.DataFrame:
    summary = runner.run(graphs=GRAPHS, algorithms=algorithms, out=tmp_path / f"{name}.csv",
                         progress=False, choice=CPU, reps=1, warmup=0)  # fmt: skip
    return pd.read_csv(summary.path, keep_default_na=False)


def test_one_cpu_worker_serves_every_graph(bench_env, tmp_path):
    frame = run_frame(tmp_path, "reuse", ["test-pid"])
    assert (frame.status == "ok").all(), frame.error.tolist()
    assert frame.iterations.nunique() == 1, frame.iterations.tolist()  # one process
    assert frame.n.tolist() == [40, 49, 30]  # each graph loaded in turn


def test_a_crash_still_gives_the_next_graph_a_fresh_worker(bench_env, tmp_path):
    frame = run_frame(tmp_path, "crash", ["test-pid", "test-exit"])
    pids = frame[frame.algorithm == "test-pid"].iterations.tolist()
    assert (frame[frame.algorithm == "test-exit"].status == "error").all()
    assert (frame[frame.algorithm == "test-pid"].status == "ok").all()
    assert len(set(pids)) == len(GRAPHS), pids  # each graph after a crash starts afresh
