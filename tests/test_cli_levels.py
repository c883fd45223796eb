"""``gcbench levels`` and ``gcbench run --metrics levels --param balance=...`` run for real,
in subprocesses, on the CPU."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


def gcbench(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, GCBENCH_DATA=str(data), PYTHONPATH=path)
    return subprocess.run([sys.executable, "-m", "gcbench", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False)  # fmt: skip


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


def test_levels_prints_natural_and_colored_levels(data):
    result = gcbench("levels", "gen:grid2d?side=40", "--algo", "greedy", "--param", "order=ldf",
                     "--no-solve", data=data)  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "matrix       gen:grid2d?side=40 (n = 1600, 3120 entries below the diagonal)"
    assert lines[1].startswith("algorithm    greedy (balance=none;order=ldf;")
    colors = int(lines[2].split()[1])
    natural, colored = (int(x.strip(",")) for x in lines[3].split()[2::2])
    assert natural == 79 and 2 <= colored <= colors
    assert lines[4] == "solve        not timed (--no-solve)"


def test_levels_errors_are_one_line(data):
    for args, message in [
        (("--algo", "greedy", "--reps", "0"), "error: --reps: 0 must be ≥ 1"),
        (("--algo", "greedy", "--param", "balance=tilt"), "error: greedy: balance=tilt is not"),
    ]:
        result = gcbench("levels", "gen:cycle?n=9", *args, data=data)
        assert result.returncode == 2 and result.stderr.startswith(message), result.stderr
        assert "Traceback" not in result.stderr


def test_run_with_metrics_and_balance_fills_the_columns(tmp_path, data):
    out = tmp_path / "r.csv"
    result = gcbench("run", "--graph", "gen:grid2d?side=30", "--algo", "greedy",
                     "--param", "balance=none,shuffle", "--metrics", "levels", "--reps", "2",
                     "--device", "cpu", "--quiet", "--out", str(out), data=data)  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = pd.read_csv(out)
    assert len(rows) == 4 and (rows.status == "ok").all()
    assert (rows.levels_natural == 59).all() and (rows.levels_colored <= rows.colors).all()
    assert rows.trsv_natural_ms.isna().all() and rows.trsv_colored_ms.isna().all()  # no GPU
    cv = rows.groupby(rows.params.str.contains("balance=shuffle")).class_cv.max()
    assert cv[True] < cv[False]


def test_an_unknown_metric_is_one_line(tmp_path, data):
    result = gcbench("run", "--graph", "gen:cycle?n=9", "--algo", "greedy", "--metrics", "depth",
                     "--device", "cpu", "--out", str(tmp_path / "r.csv"), data=data)  # fmt: skip
    assert result.returncode == 2
    assert "error: --metrics depth: unknown metric; known: levels" in result.stderr
    assert not (tmp_path / "r.csv").exists()
