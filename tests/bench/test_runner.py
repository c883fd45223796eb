"""The runner on CPU algorithms: rows, statuses, isolation, resume (docs/architecture.md,
"Data path")."""

from __future__ import annotations

import shutil
import sys

import numpy as np
import pandas as pd
import pytest

from gcbench.bench import runner
from gcbench.bench.results import COLUMNS
from gcbench.errors import SpecError
from gcbench.grammar import parse_param_string

GRAPH = "gen:cycle?n=11"  # odd cycle: greedy needs 3 colors
ALGORITHMS = [
    "greedy", "test-distinct", "test-exit", "test-segfault", "test-invalid", "test-sleep",
    "test-roundcap", "test-memory", "test-unsupported",
]  # fmt: skip
CPU = runner.DeviceChoice("cpu", "test")


class _CupyWatch:
    """A meta-path finder that records every attempt to import CuPy."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "cupy":
            self.attempts.append(name)
        return None


@pytest.fixture(scope="module")
def first(bench_env, tmp_path_factory):
    """One run over every misbehaviour: reps 2, warm-up 1, a 2 s timeout, traces."""
    out = tmp_path_factory.mktemp("run") / "r.csv"
    watch = _CupyWatch()
    sys.meta_path.insert(0, watch)
    try:
        summary = runner.run(
            graphs=[GRAPH], algorithms=ALGORITHMS, params={"seconds": "30", "order": "ldf"},
            reps=2, warmup=1, timeout=2, out=out, trace=True, progress=False, choice=CPU,
        )  # fmt: skip
    finally:
        sys.meta_path.remove(watch)
    return summary, read(out), watch


def read(path):
    frame = pd.read_csv(path)
    frame["error"] = frame["error"].fillna("")
    return frame


def by_algorithm(frame, name):
    rows = frame[frame.algorithm == name]
    assert rows["rep"].tolist() == [0, 1], name
    return rows


def test_ok_rows_are_timed_and_validated(first):
    _, frame, _ = first
    greedy = by_algorithm(frame, "greedy")
    assert (greedy.status == "ok").all() and (greedy.time_ms > 0).all()
    assert greedy.colors.tolist() == [3, 3]
    assert greedy.min_class.tolist() == [1, 1] and greedy.max_class.tolist() == [5, 5]
    assert greedy.class_cv.tolist() == [pytest.approx(np.std([5, 5, 1]) / (11 / 3))] * 2
    assert greedy.levels_natural.isna().all()  # no --metrics
    assert parse_param_string(greedy.params.iloc[0])["order"] == "ldf"
    distinct = by_algorithm(frame, "test-distinct")
    assert (distinct.status == "ok").all() and (distinct.colors == 11).all()
    assert (distinct.setup_ms >= 20).all()  # its setup sleeps 20 ms: timed on its own
    assert (distinct.time_ms < 20).all() and (distinct.transfer_ms < 20).all()
    total = distinct.time_ms + distinct.transfer_ms + distinct.setup_ms
    assert (distinct.total_ms - total).abs().max() < 1e-9
    assert (frame.count_setup == False).all()  # noqa: E712 (a column of booleans)
    assert (frame[["n", "m", "max_degree"]] == [11, 11, 2]).all().all()
    assert set(frame.device) == {"cpu"} and frame.block_size.isna().all()
    assert frame.run_id.nunique() == 1 and list(frame.columns) == list(COLUMNS)


@pytest.mark.parametrize(
    ("name", "status", "message"),
    [
        ("test-exit", "error", "worker exited with code 3"),
        ("test-segfault", "error", "killed by SIGSEGV; last output: Fatal Python error"),
        ("test-invalid", "invalid", "11 conflicts, 0 uncolored"),
        ("test-sleep", "timeout", "exceeded the 2 s wall-clock timeout"),
        ("test-roundcap", "timeout", "still 5 active after 3 rounds"),
        ("test-memory", "oom", "MemoryError"),
        ("test-unsupported", "unsupported", "needs a package"),
    ],
)
def test_failures_become_rows_and_the_run_goes_on(first, name, status, message):
    _, frame, _ = first
    rows = by_algorithm(frame, name)
    assert (rows.status == status).all()
    assert rows.error.str.contains(message, regex=False).all()


def test_summary_and_exit_code(first):
    summary, frame, _ = first
    assert summary.exit_code == 1 and summary.written == len(frame) == 2 * len(ALGORITHMS)
    assert summary.counts == {"ok": 4, "error": 4, "invalid": 2, "timeout": 4, "oom": 2,
                              "unsupported": 2}  # fmt: skip


def test_parent_never_imports_cupy(first):
    _, _, watch = first
    assert watch.attempts == [] and "cupy" not in sys.modules


def test_traces_one_row_per_round_and_series(first):
    summary, _, _ = first
    traces = pd.read_csv(summary.trace_path)
    distinct = traces[traces.algorithm == "test-distinct"]
    rounds = distinct[distinct.series != "class_size"]
    assert sorted(set(zip(rounds.series, rounds["round"], rounds.active, strict=True))) == [
        ("active", 0, 11.0), ("active", 1, 0.0), ("edges", 0, 11.0), ("edges", 1, 0.0),
    ]  # fmt: skip
    assert rounds.rep.value_counts().to_dict() == {0: 4, 1: 4}
    # every traced row also records its class sizes, largest first: 11 classes of one vertex
    sizes = distinct[distinct.series == "class_size"]
    assert sizes.rep.value_counts().to_dict() == {0: 11, 1: 11}
    assert set(sizes.active) == {1.0} and sorted(set(sizes["round"])) == list(range(11))
    greedy = traces[(traces.algorithm == "greedy") & (traces.series == "class_size")]
    assert greedy[greedy.rep == 0].active.tolist() == [5.0, 5.0, 1.0]  # cycle of 11, LDF


def test_resume_skips_what_is_recorded(first, tmp_path):
    summary, frame, _ = first
    path = tmp_path / "resumed.csv"
    shutil.copy(summary.path, path)
    again = runner.run(
        graphs=[GRAPH], algorithms=ALGORITHMS, params={"seconds": "30", "order": "ldf"},
        reps=2, timeout=2, resume=path, progress=False, choice=CPU,
    )  # fmt: skip
    assert again.written == 0 and again.counts == summary.counts
    more = runner.run(
        graphs=[GRAPH], algorithms=["greedy", "test-distinct"], params={"order": "ldf"},
        reps=3, resume=path, progress=False, choice=CPU,
    )  # fmt: skip
    assert more.written == 2
    resumed = read(path)
    keys = resumed[["graph", "algorithm", "params", "block_size", "rep"]]
    assert not keys.duplicated().any() and len(resumed) == len(frame) + 2
    assert set(resumed[resumed.rep == 2].algorithm) == {"greedy", "test-distinct"}


def test_standin_skipped_and_unloadable_graphs_offline(bench_env, tmp_path):
    suite = tmp_path / "s.toml"
    missing = tmp_path / "missing.mtx"  # exists, but is no Matrix Market file: an error row
    missing.write_text("not a matrix\n")
    suite.write_text(
        'graphs = [{spec = "ss:NoGroup/standin", standin = "gen:cycle?n=5"}, "ss:NoGroup/none",'
        f' "{missing}"]\nreps = 1\nwarmup = 0\n[[algorithms]]\nname = "test-distinct"\n'
    )
    summary = runner.run(suite=suite, out=tmp_path / "r.csv", offline=True, progress=False,
                         choice=CPU)  # fmt: skip
    frame = read(summary.path)
    assert frame.graph.tolist() == ["gen:cycle?n=5", str(missing)]  # no row for ss:NoGroup/none
    assert frame.status.tolist() == ["ok", "error"] and frame.n.tolist()[0] == 5
    assert "missing.mtx" in frame.error.iloc[1] and summary.exit_code == 1
    assert summary.notes == [
        "offline, not in the cache, run as stand-ins: ss:NoGroup/standin -> gen:cycle?n=5",
        "offline, not in the cache and without a stand-in, skipped (gcbench fetch caches them): "
        "ss:NoGroup/none (no stand-in given)",
    ]
    resumed = runner.run(suite=suite, resume=summary.path, offline=True, progress=False,
                         choice=CPU)  # fmt: skip
    assert resumed.written == 0


def test_all_means_the_algorithms_usable_here(no_peers):
    plan = runner.plan(graphs=[GRAPH], algorithms=["all"], choice=CPU)
    names = {case.algorithm for case in plan.cases}
    assert "greedy" in names and not names & {"nx-greedy", "igraph-greedy", "auto"}
    assert all(case.backend == "cpu" for case in plan.cases)
    assert plan.notes == [
        "skipped igraph-greedy, nx-greedy: they need igraph, networkx (not installed; "
        "pip install 'gcbench[peers]')"
    ]


def test_named_algorithms_that_cannot_run_are_skipped_with_one_note_each(no_peers):
    plan = runner.plan(graphs=[GRAPH], algorithms=["nx-greedy", "greedy", "ecl-gc"], choice=CPU)
    assert [case.algorithm for case in plan.cases] == ["greedy"]
    assert plan.notes == [
        "skipped nx-greedy: it needs networkx (not installed; pip install 'gcbench[peers]')",
        "skipped ecl-gc: it needs a GPU (the run is on the CPU)",
    ]
    with pytest.raises(SpecError, match=r"no algorithm can run here: nx-greedy needs networkx"):
        runner.plan(graphs=[GRAPH], algorithms=["nx-greedy"], choice=CPU)
