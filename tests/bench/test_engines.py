"""The engines beyond one worker at a time (issue 16): ``--gpus`` (slots named by fake GPU
indices on the CPU), ``--cluster`` (a Dask LocalCluster of processes) and ``--shard K/N`` +
``merge``: each must record exactly the rows of a plain run, and lose nothing to a crash.

To stay fast on two cores the runs are small: the quick suite's serial CPU baseline (greedy;
the other CPU algorithms add seconds of JIT compiling or imports to every worker and nothing
to what is tested) and test plugins for two failing statuses, the crash last so that no graph
needs a second worker.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import time

import pandas as pd
import pytest

from gcbench.bench import runner
from gcbench.bench.merge import merge
from gcbench.bench.shard import split
from gcbench.bench.suite import Case

GRAPHS = ["gen:cycle?n=11", "gen:grid2d?side=12", "gen:complete?n=7"]
ALGORITHMS = ["greedy", "test-invalid", "test-visible", "test-exit"]
KEY = ["graph", "algorithm", "params", "block_size", "rep"]
CPU = runner.DeviceChoice("cpu", "test")
RUN = dict(graphs=GRAPHS, algorithms=ALGORITHMS, reps=2, warmup=0, progress=False, choice=CPU)


def read(path) -> pd.DataFrame:
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    return frame.sort_values(KEY).reset_index(drop=True)


def rows(frame: pd.DataFrame) -> list[tuple[str, ...]]:
    """The row set the engines must agree on: key and status."""
    return sorted(map(tuple, frame[[*KEY, "status"]].to_numpy()))


@pytest.fixture(scope="module")
def plain(bench_env, tmp_path_factory):
    out = tmp_path_factory.mktemp("plain") / "plain.csv"
    summary = runner.run(out=out, **RUN)
    frame = read(out)
    assert summary.written == len(frame) == len(GRAPHS) * len(ALGORITHMS) * 2
    assert set(frame.status) == {"ok", "error", "invalid", "unsupported"}
    assert set(frame.gpu_index) == {""}
    assert pinning(frame) == {
        (
            "",
            f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')} "
            f"CUDA_DEVICE_ORDER={os.environ.get('CUDA_DEVICE_ORDER')}",
        )
    }
    return frame


def pinning(frame: pd.DataFrame) -> set[tuple[str, str]]:
    """(gpu_index, the pinning test-visible saw) of its rows."""
    rows = frame[frame.algorithm == "test-visible"]
    return set(zip(rows.gpu_index, rows.error, strict=True))


def pinned_to(*gpus: str) -> set[tuple[str, str]]:
    """What pinning() is for workers pinned to ``gpus``."""
    order = os.environ.get("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    return {(g, f"CUDA_VISIBLE_DEVICES={g} CUDA_DEVICE_ORDER={order}") for g in gpus}


def test_gpus_pool_records_the_plain_rows_one_graph_per_slot(plain, tmp_path):
    out = tmp_path / "gpus.csv"
    summary = runner.run(out=out, gpus="0,1", **RUN)
    frame = read(out)
    assert rows(frame) == rows(plain) and summary.written == len(plain)
    assert set(frame.gpu_index) == {"0", "1"}  # both slots took graphs ...
    assert (frame.groupby("graph").gpu_index.nunique() == 1).all()  # ... whole graphs
    assert pinning(frame) == pinned_to("0", "1")
    crashed = frame[frame.algorithm == "test-exit"]
    assert crashed.error.str.contains("worker exited with code 3").all()
    assert any("side by side" in note for note in summary.notes)


def test_local_dask_cluster_records_the_plain_rows(plain, tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "cluster.csv"
    summary = runner.run(out=out, cluster="local", gpus="0,1", **RUN)
    frame = read(out)
    assert rows(frame) == rows(plain) and summary.written == len(plain)
    assert summary.exit_code == 1 and not summary.interrupted
    crashed = frame[frame.algorithm == "test-exit"]  # a crash is a row, not a lost Dask worker
    assert crashed.error.str.contains("worker exited with code 3").all()


def test_the_engines_run_auto_cases_whole(bench_env, dask_cluster, tmp_path):
    """--reps auto (the default) on --gpus and on a Dask cluster of two worker processes (the
    module's, as --cluster local starts: test_local_dask_cluster_records_the_plain_rows; the
    plain run: test_graphrun): each case gets its rows together, numbered from 0, once; a
    crashing case one error row."""
    auto = {**RUN, "reps": "auto", "warmup": "auto", "case_time": 0.2,
            "algorithms": ["greedy", "test-exit"], "graphs": GRAPHS[:2]}  # fmt: skip
    for name, engine in (("gpus", {"gpus": "0,1"}), ("cluster", {"cluster": dask_cluster})):
        frame = read(runner.run(out=tmp_path / f"{name}.csv", **engine, **auto).path)
        for (_, algorithm), case in frame.groupby(["graph", "algorithm"]):
            reps = sorted(case.rep.astype(int))
            assert reps == list(range(len(reps))), (name, algorithm)
            if algorithm == "test-exit":
                assert reps == [0] and (case.status == "error").all(), name
            else:
                assert len(reps) >= 6 and (case.status == "ok").all(), name


def test_local_dask_cluster_on_gpus_pins_one_worker_per_gpu(bench_env, tmp_path):
    """A GPU run's local cluster (distributed's own nannies when dask-cuda is absent; CPU test
    algorithms, which a GPU run runs too): tasks need the GPU resource, and each gcbench
    worker is pinned to its Dask worker's GPU."""
    pytest.importorskip("distributed")
    if importlib.util.find_spec("dask_cuda") is not None:
        pytest.skip("dask-cuda is installed: its LocalCUDACluster needs real GPUs")
    out = tmp_path / "r.csv"
    summary = runner.run(
        graphs=GRAPHS[:2], algorithms=["test-visible", "test-distinct"], reps=1, warmup=0,
        out=out, progress=False, choice=runner.DeviceChoice("gpu", "test"), cluster="local",
        gpus="0,1",
    )  # fmt: skip
    frame = read(out)
    assert (
        summary.written == len(frame) == 4
        and (frame.groupby("graph").gpu_index.nunique() == 1).all()
    )
    assert pinning(frame) == pinned_to("0", "1")


def test_shards_merged_equal_the_plain_run_and_cover_each_case_once(plain, tmp_path):
    paths = []
    for k in (1, 2, 3):
        paths.append(tmp_path / f"shard{k}.csv")
        summary = runner.run(out=paths[-1], shard=f"{k}/3", **RUN)
        assert summary.notes[0].startswith(f"shard {k}/3: ")
    graphs = [set(read(p).graph) for p in paths]
    assert sum(map(len, graphs)) == len(GRAPHS) == len(set().union(*graphs))
    merged = tmp_path / "all.csv"
    assert merge(paths, merged) == len(plain)
    frame = read(merged)
    assert rows(frame) == rows(plain) and not frame[KEY].duplicated().any()


def test_shard_split_is_deterministic_and_cost_balanced():
    def case(graph: str) -> Case:
        return Case(graph, None, "greedy", "cpu", {}, None)

    big, mid, small = "gen:rgg?scale=20&seed=0", "gen:rgg?scale=19&seed=0", "gen:cycle?n=5"
    cases = [case(g) for g in (small, mid, big, "gen:rgg?scale=18&seed=0", small)]
    shares = split(cases, 2)
    assert shares == split(list(reversed(cases)), 2)  # order of the suite does not matter
    assert shares[0] == [(big, None)] and (mid, None) in shares[1]  # largest alone
    assert split(cases, 5)[4] == []  # more shares than graphs: some run nothing


@pytest.fixture(scope="module")
def dask_cluster(bench_env, tmp_path_factory):
    """A LocalCluster of two single-threaded worker processes whose algorithms may kill them
    (test-kill-parent, counting its kills under GCBENCH_TEST_KILLS)."""
    distributed = pytest.importorskip("distributed")
    kills = tmp_path_factory.mktemp("kills")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GCBENCH_TEST_KILLS", str(kills))
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            yield cluster.scheduler_address


def test_a_lost_dask_worker_costs_one_retry_a_second_loss_error_rows(dask_cluster, tmp_path):
    """One graph whose cases kill their Dask worker twice: after the first loss the graph is
    retried with only its missing repetitions; after the second, those left are errors."""
    suite = tmp_path / "kills.toml"
    suite.write_text(
        'graphs = ["gen:cycle?n=9"]\nreps = 2\nwarmup = 0\ncount_setup = true\n'
        '[[algorithms]]\nname = "test-distinct"\n'
        '[[algorithms]]\nname = "test-kill-parent"\nparams = { tag = "first" }\n'
        '[[algorithms]]\nname = "greedy"\n'
        '[[algorithms]]\nname = "test-kill-parent"\nparams = { tag = "second" }\n'
    )
    summary = runner.run(suite=suite, out=tmp_path / "r.csv", progress=False, choice=CPU,
                         cluster=dask_cluster)  # fmt: skip
    frame = read(summary.path)
    assert len(frame) == 8 and not frame[KEY].duplicated().any()
    first = frame[~frame.params.str.contains("tag=second")]
    assert (first.status == "ok").all()  # written before a loss, or by the retry
    retry = [note for note in summary.notes if "was lost; retrying" in note]
    assert len(retry) == 1 and "retrying its 6 missing repetitions" in retry[0], summary.notes
    second = frame[frame.params.str.contains("tag=second")]
    assert (second.status == "error").all() and summary.exit_code == 1
    assert second.error.str.fullmatch(
        r"Dask worker lost while running this graph \(tcp://\S+ and tcp://\S+\); not retried"
    ).all(), second.error.tolist()
    assert (frame.count_setup.astype(str) == "True").all()  # the lost rows' too


def test_merge_refuses_overlaps_mixed_schemas_and_cut_lines(plain, tmp_path):
    from gcbench.errors import InputError

    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    plain.iloc[:10].to_csv(a, index=False)
    plain.iloc[9:].to_csv(b, index=False)
    with pytest.raises(InputError, match=r"b.csv line 2 and .*a.csv line 11 hold the same rep"):
        merge([a, b], tmp_path / "out.csv")
    plain.iloc[10:].drop(columns="gpu_index").to_csv(b, index=False)
    with pytest.raises(InputError, match=r"different columns \(only .*a.csv has gpu_index\)"):
        merge([a, b], tmp_path / "out.csv")
    plain.iloc[10:].to_csv(b, index=False)
    with open(b, "a") as handle:
        handle.write("abc,2026")
    with pytest.raises(InputError, match="last line is cut short"):
        merge([a, b], tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()
    b.write_text(b.read_text().rsplit("\n", 1)[0] + "\n")
    assert merge([a, b], tmp_path / "out.csv") == len(plain)
    with pytest.raises(InputError, match="already exists"):
        merge([a, b], tmp_path / "out.csv")


def test_gpus_pool_survives_sigint_and_sigkill_and_resume_finishes(bench_env, tmp_path, cli):
    """Ctrl-C exits 130 with whole rows; SIGKILL takes every slot's worker with the parent;
    --resume finishes the file without duplicates (as for a plain run, test_cli_run)."""
    from test_cli_run import QUICK, SLOW, children, running, sleeps, start  # (bench_env's path)

    # 3 s of sleeping per graph in 10 cases (a case's rows land together): time to interrupt
    out, reps, cases = tmp_path / "r.csv", 6, 10
    faster = [sleeps(0.05, cases) if arg.startswith("seconds=") else arg for arg in SLOW]
    args = [*faster, "--graph", "gen:cycle?n=10", "--gpus", "0,1", "--reps", str(reps)]

    def wait_until(proc, done) -> None:
        deadline = time.monotonic() + 60
        while not (out.exists() and done(read(out))):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no rows came"
            time.sleep(0.05)

    proc = start(bench_env, "run", *args, "--out", str(out))
    wait_until(proc, lambda frame: set(frame.gpu_index) == {"0", "1"})  # both slots write
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    interrupted = len(read(out))
    assert 2 * reps <= interrupted < 2 * reps * cases and interrupted % reps == 0

    proc = start(bench_env, "run", *args, "--resume", str(out))
    wait_until(proc, lambda frame: len(frame) > interrupted)
    workers = children(proc.pid)
    assert workers
    proc.kill()
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while any(running(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(w) for w in workers), "a worker outlived it"

    done = cli("run", *args, "--resume", str(out), env={**os.environ, **QUICK})
    assert done.returncode == 0, done.stderr
    frame = read(out)
    assert len(frame) == 2 * reps * cases and not frame[KEY].duplicated().any()
    assert (frame.status == "ok").all()
