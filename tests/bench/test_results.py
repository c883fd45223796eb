"""The row schema, CSV appending, resume bookkeeping and status classification."""

from __future__ import annotations

import csv
import re
import subprocess

import pandas as pd
import pytest

from gcbench.bench.results import (
    COLUMNS,
    COLUMNS_V1,
    COLUMNS_V2,
    COLUMNS_V3,
    COLUMNS_V4,
    COLUMNS_V5,
    TRACE_COLUMNS,
    Flagged,
    ResultsFile,
    TraceFile,
    capture_environment,
    format_value,
    git_commit,
    repair_last_line,
    repetition_fields,
    row_key,
    schema_version_of,
    trace_rows,
)
from gcbench.bench.worker import classify
from gcbench.errors import GraphTooLargeError, InputError, RoundCapError, UnsupportedError

# Schema v1's columns (docs/architecture.md, "CSV schema"), in order.
V1_COLUMNS = """run_id, timestamp, gcbench_version, git_commit, host,
device, device_name, driver_version, cuda_runtime, cupy_version,
graph, n, m, max_degree, avg_degree,
algorithm, backend, params, block_size, rep,
status, error,
time_ms, transfer_ms, total_ms,
iterations, colors, max_color, conflicts, uncolored"""


# Added by schema v2 (docs/runner.md), after schema v1's columns.
V2_COLUMNS = (
    "setup_ms", "count_setup", "compute_capability", "sm_clock_mhz", "command", "gpu_index",
    "min_class", "max_class", "class_cv",
    "levels_natural", "levels_colored", "trsv_natural_ms", "trsv_colored_ms",
)  # fmt: skip
# Added by schema v3 (docs/statistics.md): what each repetition ran under.
V3_COLUMNS = ("throttle", "round_trip_us", "load_avg", "cpu_util", "cpu_wait", "flags")
# Added by schema v4 (docs/architecture.md, "The graph"): what the graph allows.
V4_COLUMNS = ("chi_lower", "degeneracy", "chi_known")
# Added by schema v5 (docs/distance2.md): the problem.
V5_COLUMNS = ("problem", "nets", "recovered")
# Added by schema v6 (docs/architecture.md, "CSV schema"): how much of a GPU call was the host.
V6_COLUMNS = ("host_syncs", "device_ms")


def test_columns_are_the_design_schema_in_order():
    design = tuple(c.strip() for c in V1_COLUMNS.replace("\n", " ").split(","))
    v4 = design + V2_COLUMNS + V3_COLUMNS + V4_COLUMNS
    assert v4 + V5_COLUMNS + V6_COLUMNS + ("schema_version",) == COLUMNS
    assert v4 + V5_COLUMNS + ("schema_version",) == COLUMNS_V5
    assert v4 + ("schema_version",) == COLUMNS_V4
    assert design + V2_COLUMNS + V3_COLUMNS + ("schema_version",) == COLUMNS_V3
    assert design + V2_COLUMNS + ("schema_version",) == COLUMNS_V2
    assert design == COLUMNS_V1
    versions = [
        schema_version_of(c)
        for c in (COLUMNS, COLUMNS_V5, COLUMNS_V4, COLUMNS_V3, COLUMNS_V2, COLUMNS_V1)
    ]
    assert versions == [6, 5, 4, 3, 2, 1]
    assert schema_version_of(COLUMNS[:-2]) is None
    assert TRACE_COLUMNS[:8] == (
        "run_id",
        "graph",
        "problem",
        "algorithm",
        "params",
        "block_size",
        "rep",
        "round",
    )
    assert TRACE_COLUMNS[-1] == "active"


def row(rep, status="ok", **extra):
    return {
        "graph": "gen:cycle?n=5",
        "algorithm": "greedy",
        "params": "order=ldf",
        "block_size": None,
        "rep": rep,
        "status": status,
        "time_ms": 0.1 + rep,
        **extra,
    }


def test_header_once_rows_in_order_and_resume_reads_keys(tmp_path):
    path = tmp_path / "r.csv"
    results = ResultsFile(path)
    results.append(row(0))
    results.append(row(1, "invalid", error="3 conflicts, 0 uncolored"))
    results.close()
    with pytest.raises(InputError, match="already exists"):
        ResultsFile(path)
    resumed = ResultsFile(path, resume=True)
    assert resumed.recorded == {
        ("gen:cycle?n=5", "d1", "greedy", "order=ldf", "", "0"),
        ("gen:cycle?n=5", "d1", "greedy", "order=ldf", "", "1"),
    }
    assert resumed.previous == {"ok": 1, "invalid": 1}
    resumed.append(row(2))
    resumed.close()
    lines = path.read_text().splitlines()
    assert lines[0] == ",".join(COLUMNS) and len(lines) == 4
    frame = pd.read_csv(path)
    assert list(frame.columns) == list(COLUMNS)
    assert frame["time_ms"].tolist() == [0.1, 1.1, 2.1]
    assert frame["block_size"].isna().all() and frame["rep"].tolist() == [0, 1, 2]


def test_resume_refuses_missing_and_foreign_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        ResultsFile(tmp_path / "none.csv", resume=True)
    foreign = tmp_path / "other.csv"
    foreign.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="not gcbench's result schema"):
        ResultsFile(foreign, resume=True)


def test_resume_refuses_a_v5_file_naming_what_v6_added(tmp_path):
    old = tmp_path / "v5.csv"
    old.write_text(",".join(COLUMNS_V5) + "\n")
    added = "the host's share (host_syncs, device_ms)"
    with pytest.raises(InputError, match=re.escape(f"schema v5, this gcbench writes v6 ({added})")):
        ResultsFile(old, resume=True)


def repetition(host_syncs, device_ms):
    """A valid repetition whose Coloring carries the timing protocol's host columns."""
    from gcbench.algorithms.execute import Repetition
    from gcbench.algorithms.registry import Coloring
    from gcbench.algorithms.validation import Validation

    coloring = Coloring(colors=None, iterations=2, host_syncs=host_syncs, device_ms=device_ms)
    return Repetition(coloring, None, Validation(0, 0, 3, 2, 1, 2, 0.2), 2.5, 0.5, 0.1)


def test_a_repetitions_host_columns_reach_its_row(tmp_path):
    path = tmp_path / "r.csv"
    results = ResultsFile(path)
    for rep, run in enumerate([repetition(7, 1.75), repetition(None, None)]):
        fields = repetition_fields(run, rep=rep, transfer_ms=0.25, count_setup=False)
        results.append({**row(rep), **fields})
    results.close()
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["host_syncs"], r["device_ms"]) for r in rows] == [("7", "1.75"), ("", "")]
    assert rows[0]["time_ms"] == "2.5" and rows[0]["total_ms"] == "3.35"


def test_resume_cuts_a_partial_last_line(tmp_path):
    path = tmp_path / "r.csv"
    results = ResultsFile(path)
    results.append(row(0))
    results.close()
    whole = path.read_text()
    path.write_text(whole + "abc,2024-01-01T00:00,0.1,")
    resumed = ResultsFile(path, resume=True)
    resumed.close()
    assert path.read_text() == whole
    assert len(resumed.recorded) == 1


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"a\nb\n", b"a\nb\n"),
        (b"a\nb", b"a\n"),
        (b"abc", b""),
        (b"", b""),
        (b"h\n" + b"x" * 200_000, b"h\n"),
    ],
)
def test_repair_last_line(tmp_path, content, expected):
    path = tmp_path / "f.csv"
    path.write_bytes(content)
    repair_last_line(path)
    assert path.read_bytes() == expected


def test_values_and_keys():
    assert format_value(None) == ""
    assert float(format_value(0.1 + 0.2)) == 0.1 + 0.2
    assert format_value(3) == "3"
    key = ("gen:cycle?n=5", "d1", "greedy", "order=ldf", "256", "4")
    assert row_key(row(4, block_size=256)) == key  # a row without a problem solved d1
    assert row_key(row(4, block_size=256, problem="d2"))[1] == "d2"


def test_trace_file_is_a_sibling_with_one_row_per_round_and_series(tmp_path):
    traces = TraceFile(tmp_path / "run.csv")
    key = {"run_id": "r", "graph": "g", "algorithm": "a", "params": "", "block_size": 64}
    for trow in trace_rows({**key, "rep": 0}, {"active": [5, 0], "edges": [7]}):
        traces.append(trow)
    traces.close()
    with open(tmp_path / "run.trace.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["round"], r["series"], r["active"]) for r in rows] == [
        ("0", "active", "5.0"),
        ("1", "active", "0.0"),
        ("0", "edges", "7.0"),
    ]


def test_git_commit_says_when_the_tree_is_not_the_commit(tmp_path):
    assert git_commit(tmp_path) == ""  # not a checkout

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "a.py").write_text("x = 1\n")
    git("add", "a.py")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    head = git_commit(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{40}", head)
    (tmp_path / "b.py").write_text("untracked files leave it clean\n")
    assert git_commit(tmp_path) == head
    (tmp_path / "a.py").write_text("x = 2\n")
    assert git_commit(tmp_path) == head + "+dirty"


def test_environment():
    env = capture_environment()
    assert re.fullmatch(r"[0-9a-f]{32}", env.run_id) and env.host
    assert env.git_commit == "" or re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", env.git_commit)
    columns = env.columns()
    assert columns["timestamp"].endswith("+00:00") and columns["gcbench_version"]


class OutOfMemoryError(Exception):
    """Named like cupy.cuda.memory.OutOfMemoryError (recognised by name)."""


@pytest.mark.parametrize(
    ("exc", "status", "message"),
    [
        (
            RoundCapError("jpl: still 3 active after 100 rounds"),
            "timeout",
            "jpl: still 3 active after 100 rounds",
        ),
        (UnsupportedError("pip install x"), "unsupported", "pip install x"),
        (GraphTooLargeError("nnz too large"), "unsupported", "nnz too large"),
        (MemoryError("no room"), "oom", "MemoryError: no room"),
        (
            OutOfMemoryError("out of memory allocating 8 bytes"),
            "oom",
            "OutOfMemoryError: out of memory allocating 8 bytes",
        ),
        (ValueError("bad\nthing  here"), "error", "ValueError: bad thing here"),
    ],
)
def test_classify(exc, status, message):
    assert classify(exc) == (status, message)


def test_failures_are_grouped_in_at_most_twenty_lines():
    from gcbench.bench.results import FAILURE_LINES, Failures

    failures = Failures()
    failures.add({"graph": "g", "algorithm": "a", "status": "ok", "error": ""})
    assert failures.lines() == []
    for i in range(30):
        for rep in range(2):
            failures.add({"graph": f"g{i}", "algorithm": "a", "status": "error",
                          "error": f"boom {i}\nTraceback ...\n{rep}"})  # fmt: skip
    lines = failures.lines()
    assert len(lines) == FAILURE_LINES == 20
    assert lines[0] == "60 rows not ok (graph, algorithm: status × rows: first error):"
    assert lines[1] == "  g0  a: error ×2: boom 0"
    assert lines[-1] == "  ... and 12 more (see the error column)"


def test_the_run_says_which_flags_its_cases_carry_and_how_far_the_round_trip_moved():
    flagged = Flagged()
    case = {"graph": "g", "algorithm": "a", "params": "", "block_size": ""}
    for rep in range(40):
        flags = "drift;noisy" if rep < 20 else ""
        flagged.add({**case, "rep": rep, "flags": flags, "round_trip_us": 40.0, "time_ms": 1.0})
    assert flagged.lines() == [
        "1 case drifted: their first and second halves of repetitions differ beyond the noise "
        "(drift: g a): rerun them on a quiet machine, or give each case longer (--case-time)",
        "1 case stayed noisier than the target: their median's interval is wider than --noise "
        "(noisy: g a): give each case longer (--case-time) or accept a wider --noise",
    ]
    for rep in range(40):  # a second case whose round trips were twice as long
        flagged.add({**case, "algorithm": "b", "rep": rep, "flags": "", "round_trip_us": 80.0})
    assert flagged.lines()[-1].startswith("the host's round trip to the GPU ranged 40-80 us")


def test_the_run_names_the_least_sure_cases_of_a_flag_and_says_nothing_of_the_floor():
    flagged = Flagged()
    cases = [("b", "x=1;y=0", 0.5), ("b", "x=2;y=0", 0.3), ("c", "y=0", 0.2), ("d", "", 0.1),
             ("e", "", 0.0)]  # fmt: skip
    for name, params, spread in cases:
        for rep in range(12):
            row = {"graph": "g", "algorithm": name, "params": params, "block_size": "",
                   "rep": rep, "time_ms": 1.0 + spread * (rep % 2)}  # fmt: skip
            flagged.add({**row, "flags": "floor" if name == "e" else "noisy"})
    assert flagged.lines() == [
        "4 cases stayed noisier than the target: their median's interval is wider than --noise "
        "(noisy: g b[x=1], g b[x=2], g c and 1 more): give each case longer (--case-time) or "
        "accept a wider --noise"
    ]
