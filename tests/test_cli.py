"""The ``gcbench`` command line run for real, in a subprocess (info, color, list algorithms,
levels and ``run --metrics levels``, one-line errors and --debug)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from gcbench.algorithms.availability import installed


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def gcbench(cli, data):
    """``gcbench(*args)``: the command line in a subprocess, caching graphs under ``data``."""
    return lambda *args: cli(*args, env={**os.environ, "GCBENCH_DATA": str(data)}, timeout=300)


def test_info_reports_statistics_and_normalisation(tmp_path, gcbench):
    path = tmp_path / "g.el"
    path.write_text("# a loop, a duplicate, one direction only\n1 1\n1 2\n1 2\n2 3\n")
    result = gcbench("info", str(path))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "vertices         3" in out and "edges            2" in out
    assert "max degree       2" in out and "chi lower bound  2" in out
    assert "dropped 1 self loops, 1 duplicate entries; input directed" in out


def test_color_validates_and_writes_one_color_per_line(tmp_path, gcbench):
    out = tmp_path / "colors.txt"
    result = gcbench("color", "gen:cycle?n=11", "--algo", "greedy", "--param", "order=ldf",
                     "--out", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "colors       3" in result.stdout and "valid        yes" in result.stdout
    lines = out.read_text().split()
    assert len(lines) == 11 and {int(x) for x in lines} == {0, 1, 2}


@pytest.mark.parametrize(("spec", "colors"), [("gen:empty?n=0", 0), ("gen:empty?n=5", 1)])
def test_empty_graph_and_isolated_vertices(spec, colors, gcbench):
    result = gcbench("color", spec, "--algo", "greedy")
    assert result.returncode == 0, result.stderr
    assert f"colors       {colors} " in result.stdout and "valid        yes" in result.stdout


def test_list_algorithms_shows_the_registry(gcbench):
    result = gcbench("list", "algorithms")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    heads = {line.split()[0]: line for line in lines if line and not line.startswith(" ")}
    assert {"greedy", "ecl-gc", "jpl", "cusparse", "vb-bit", "gm-sync"} <= set(heads)
    assert all(("usable here" in head) for head in heads.values())
    assert heads["greedy"].split()[1:] == ["cpu", "usable", "here"]
    block = "\n".join(lines[lines.index(heads["ecl-gc"]) :][:10])
    for label in ("family", "problems", "param", "iterations", "code"):
        assert f"\n    {label}" in block, label
    assert "shortcuts=both (both|sc1|sc2|none)" in block and "ecl_gc.cu" in block
    if not installed("cupy"):
        assert "NOT usable here: needs a GPU (CuPy is not installed" in heads["ecl-gc"]
    assert any(line.startswith("cusparse") and "gpu peer" in line for line in lines)
    # greedy is listed twice: the d1 algorithm and the distance-2 serial reference
    greedy = [i for i, line in enumerate(lines) if line.startswith("greedy ")]
    assert len(greedy) == 2
    assert "    problems    d2, pd2, pd2-rows" in lines[greedy[1] : greedy[1] + 4]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("info", "no/such/file.mtx"), "no/such/file.mtx"),
        (("info", "graph.xyz"), "graph.xyz"),
        (("info", "gen:nosuchfamily"), "nosuchfamily"),
        (("info", "gen:rgg?scale=x"), "scale"),
        (("color", "gen:cycle?n=5", "--algo", "nosuchalgo"), "unknown algorithm 'nosuchalgo'"),
        (("color", "gen:cycle?n=5", "--algo", "greedy", "--param", "order=zz"), "order=zz"),
    ],
)
def test_errors_are_one_line_without_traceback(args, message, gcbench):
    result = gcbench(*args)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert "Traceback" not in result.stderr


def test_debug_shows_the_traceback(gcbench):
    result = gcbench("--debug", "info", "no/such/file.mtx")
    assert result.returncode != 0 and "Traceback" in result.stderr


def test_levels_prints_natural_and_colored_levels(gcbench):
    result = gcbench("levels", "gen:grid2d?side=40", "--algo", "greedy", "--param", "order=ldf",
                     "--no-solve")  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "matrix       gen:grid2d?side=40 (n = 1600, 3120 entries below the diagonal)"
    assert lines[1].startswith("algorithm    greedy (balance=none;order=ldf;")
    colors = int(lines[2].split()[1])
    natural, colored = (int(x.strip(",")) for x in lines[3].split()[2::2])
    assert natural == 79 and 2 <= colored <= colors
    assert lines[4] == "solve        not timed (--no-solve)"


def test_levels_errors_are_one_line(gcbench):
    for args, message in [
        (("--algo", "greedy", "--reps", "0"), "error: --reps: 0 must be ≥ 1"),
        (("--algo", "greedy", "--param", "balance=tilt"), "error: greedy: balance=tilt is not"),
    ]:
        result = gcbench("levels", "gen:cycle?n=9", *args)
        assert result.returncode == 2 and result.stderr.startswith(message), result.stderr
        assert "Traceback" not in result.stderr


def test_run_with_metrics_and_balance_fills_the_columns(tmp_path, gcbench):
    out = tmp_path / "r.csv"
    result = gcbench("run", "--graph", "gen:grid2d?side=30", "--algo", "greedy",
                     "--param", "balance=none,shuffle", "--metrics", "levels", "--reps", "2",
                     "--device", "cpu", "--quiet", "--out", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = pd.read_csv(out)
    assert len(rows) == 4 and (rows.status == "ok").all()
    assert (rows.levels_natural == 59).all() and (rows.levels_colored <= rows.colors).all()
    assert rows.trsv_natural_ms.isna().all() and rows.trsv_colored_ms.isna().all()  # no GPU
    cv = rows.groupby(rows.params.str.contains("balance=shuffle")).class_cv.max()
    assert cv[True] < cv[False]


def test_an_unknown_metric_is_one_line(tmp_path, gcbench):
    result = gcbench("run", "--graph", "gen:cycle?n=9", "--algo", "greedy", "--metrics", "depth",
                     "--device", "cpu", "--out", str(tmp_path / "r.csv"))  # fmt: skip
    assert result.returncode == 2
    assert "error: --metrics depth: unknown metric; known: levels" in result.stderr
    assert not (tmp_path / "r.csv").exists()
