"""``gcbench report`` run for real, in a subprocess."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pandas as pd
import pytest


@pytest.fixture
def gcbench(cli):
    """``gcbench(*args, cwd=...)``: ``gcbench report ARGS`` in a subprocess, 200 columns wide."""
    return lambda *args, cwd: cli("report", *args, cwd=cwd, env={**os.environ, "COLUMNS": "200"})


def test_csv_format_with_a_baseline(tmp_path, write_csv, mixed_rows, gcbench):
    done = gcbench(str(write_csv(mixed_rows)), "--format", "csv", "--baseline", "greedy",
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    frame = pd.read_csv(io.StringIO(done.stdout))
    assert len(frame) == 10 and "speedup" in frame.columns
    assert "note: baseline greedy (--baseline)" in done.stderr
    g1 = frame[(frame.graph == "g1") & (frame.algorithm == "greedy")].iloc[0]
    assert g1.speedup == 1.0


def test_default_newest_table_and_out(tmp_path, write_csv, reps, gcbench):
    (tmp_path / "results").mkdir()
    rows = [*reps("g1", "greedy", [1.0, 2.0], params="order=ff", iterations=""),
            *reps("g1", "greedy", [3.0], params="order=ldf", iterations="")]  # fmt: skip
    write_csv(rows, "results/x.csv")
    done = gcbench("--out", "rep", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Winners per graph" in done.stdout and "greedy[order=ldf]" in done.stdout
    assert "note: baseline greedy[order=ldf] (the default for CPU-only results)" in done.stdout
    assert done.stderr.splitlines() == [
        *(f"wrote {Path('rep') / name}"
          for name in ("summary.csv", "summary.md", "index.html", "time.png", "colors.png",
                       "front.png", "speedup.png")),
        *(f"note: no {what} profile: it compares configurations across graphs, and only one"
          " graph has a valid run" for what in ("time", "colors")),
    ]  # fmt: skip
    assert "`results/x.csv`" in (tmp_path / "rep" / "summary.md").read_text()


def test_errors_are_one_line(tmp_path, gcbench):
    done = gcbench(cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "error: no results CSV in results/: run `gcbench run` first or name the CSV files\n"
    )
    done = gcbench("--format", "html", cwd=tmp_path)
    assert done.returncode == 2 and "'html' is not one of" in done.stderr


def test_plot_formats_and_one_line_errors(tmp_path, write_csv, reps, gcbench):
    # two graphs, two configurations: the main figures, the profiles among them, and fewer
    # bars to draw than the mixed rows' (the formats are the same for every figure)
    rows = [row for g in ("g1", "g2") for order in ("ff", "ldf")
            for row in reps(g, "greedy", [1.0, 2.0], params=f"order={order}")]  # fmt: skip
    path = write_csv(rows)
    done = gcbench(str(path), "--out", "o", "--plot-format", "svg,pdf", "--format", "csv",
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = {line.split("/")[-1] for line in done.stderr.splitlines() if "wrote" in line}
    assert {"time.svg", "time.pdf", "profile_time.svg", "profile_colors.pdf"} <= written
    assert not any(name.endswith(".png") for name in written)
    done = gcbench(str(path), "--out", "o", "--plot-format", "png,gif", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        2, "error: unknown plot format 'gif'; use a comma list of png,svg,pdf\n"
    )  # fmt: skip
    setup = write_csv([{**r, "count_setup": "true"} for r in reps("g1", "a", [1.0])], "s.csv")
    done = gcbench(str(path), str(setup), cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: the results mix timing conventions:")
