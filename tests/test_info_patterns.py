"""``gcbench info --problem`` (issue 46): info describes the matrix a distance-2 problem colors
(rows, columns, entries, the largest row and column, the problem's lower bound), and without
``--problem`` a matrix is one line that names ``gcbench info ... --problem pd2``."""

from __future__ import annotations

import os
import shlex

import pytest

import gcbench
from gcbench.api import PatternStats
from gcbench.graphs.pattern import from_entries

STENCIL = "gen:stencil?side=100&points=5&rows=interior"
# A 3 × 4 matrix: row 1 has columns 1 and 4 (the largest row, 2), column 4 rows 1 and 3.
RECTANGULAR = """%%MatrixMarket matrix coordinate pattern general
3 4 4
1 1
2 3
3 4
1 4
"""


@pytest.fixture
def gcbench_cli(cli, tmp_path):
    """``gcbench_cli(*args)``: the command line in a subprocess, caching under tmp_path."""
    env = {**os.environ, "GCBENCH_DATA": str(tmp_path / "data")}
    return lambda *args: cli(*args, env=env, cwd=tmp_path, timeout=300)


@pytest.fixture
def rectangular(tmp_path):
    path = tmp_path / "r.mtx"
    path.write_text(RECTANGULAR)
    return path


def fields(stdout: str) -> dict[str, str]:
    """info's lines as {label: value} (the label fills the first 16 characters)."""
    return {line[:16].strip(): line[16:].strip() for line in stdout.splitlines()}


def test_info_describes_a_matrix_family_for_pd2(gcbench_cli):
    result = gcbench_cli("info", STENCIL, "--problem", "pd2")
    assert result.returncode == 0, result.stderr
    got = fields(result.stdout)
    # interior rows of a 100 × 100 five-point stencil: 98² rows, 5 entries each
    assert got["rows"] == str(98 * 98) and got["columns"] == str(100 * 100)
    assert got["entries"] == str(5 * 98 * 98)
    assert got["largest row"] == "5 entries" and got["largest column"] == "5 entries"
    assert got["lower bound"].startswith("5 colors (the largest row")
    assert got["problem"] == "partial distance-2 coloring of the columns (pd2)"


@pytest.mark.parametrize(
    ("problem", "bound"),
    [("pd2", "2 colors (the largest row"), ("pd2-rows", "2 colors (the largest column")],
)
def test_info_describes_a_rectangular_mtx_as_given(gcbench_cli, rectangular, problem, bound):
    result = gcbench_cli("info", str(rectangular), "--problem", problem)
    assert result.returncode == 0, result.stderr
    got = fields(result.stdout)
    assert (got["rows"], got["columns"], got["entries"]) == ("3", "4", "4")
    assert got["largest row"] == "2 entries" and got["largest column"] == "2 entries"
    assert got["lower bound"].startswith(bound)


@pytest.mark.parametrize("spec", [STENCIL, "RECTANGULAR"])
def test_info_without_problem_names_the_command_that_describes_a_matrix(
    gcbench_cli, rectangular, spec
):
    spec = str(rectangular) if spec == "RECTANGULAR" else spec
    result = gcbench_cli("info", spec)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [result.stderr.strip()]  # one line
    assert result.stderr.strip().endswith(
        f": describe it with gcbench info {shlex.quote(spec)} --problem pd2"
    )


def test_info_of_a_graph_for_d2_is_its_a_plus_i(gcbench_cli):
    got = fields(gcbench_cli("info", "gen:grid2d?side=20", "--problem", "d2").stdout)
    # 400 vertices, 760 edges: A + I has 400 + 2 · 760 entries, Δ + 1 = 5 in a row
    assert (got["rows"], got["columns"], got["entries"]) == ("400", "400", str(400 + 2 * 760))
    assert got["lower bound"].startswith("5 colors (Δ + 1")


def test_info_describes_one_problem(gcbench_cli):
    result = gcbench_cli("info", STENCIL, "--problem", "pd2,pd2-rows")
    assert result.returncode == 2 and "info describes one problem" in result.stderr


def test_the_library_gives_pattern_stats_with_the_run_rows_bound():
    # the transpose of RECTANGULAR's pattern, given as a Pattern
    pattern = from_entries(3, 4, [0, 1, 2, 0], [0, 2, 3, 3], name="m")
    stats = gcbench.info(pattern, problem="pd2-rows")
    assert isinstance(stats, PatternStats)
    assert (stats.rows, stats.columns, stats.max_row, stats.max_col) == (3, 4, 2, 2)
    assert stats.lower == pattern.transposed().max_row  # what pd2-rows colors
