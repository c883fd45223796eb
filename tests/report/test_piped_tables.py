"""Tables through a pipe (issue 46): with stdout not a terminal and COLUMNS unset (a CI log,
``| tee``), ``gcbench compare`` and ``gcbench report`` keep every cell on one line instead of
folding it into 80 columns' fragments; COLUMNS, where set, is still the width."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

GRAPHS = ["gen:rgg?scale=12&seed=0", "gen:kron?edgefactor=16&scale=11&seed=0"]
PARAMS = ["balance=none;order=ldf;reduce=none", "balance=shuffle;order=ldf;reduce=none",
          "balance=none;order=smallest_last;reduce=h2"]  # fmt: skip
LABELS = ["greedy[balance=none,order=ldf,reduce=none]",
          "greedy[balance=shuffle,order=ldf,reduce=none]",
          "greedy[balance=none,order=smallest_last,reduce=h2]"]  # fmt: skip
NOTE_FLAGS = "contended;drift"  # a note: "flags: contended, drift"
# A group that never finished: its note, "3 timeout: " and this, is longer than the 32
# characters a note is folded at on a narrow terminal.
TIMEOUT = "round cap 100 reached after 12.5 s in round 100"


def make_rows(reps, scale: float) -> list[dict]:
    """Every case of GRAPHS × PARAMS, its times ``scale`` times (1, 2, 3) ms."""
    out = []
    for graph in GRAPHS:
        for i, params in enumerate(PARAMS):
            times = [scale * (1 + i) * t for t in (1.0, 1.1, 0.9, 1.05, 0.95)]
            out += reps(graph, "greedy", times, params=params, flags=NOTE_FLAGS if i == 2 else "")
    return out


@pytest.fixture
def results(write_csv, reps):
    """Two result files of the same cases, the second a little slower."""
    return write_csv(make_rows(reps, 1.0), "a.csv"), write_csv(make_rows(reps, 1.2), "b.csv")


@pytest.fixture
def report_results(write_csv, reps):
    """The cases of ``results`` and one group that timed out on every repetition."""
    failed = reps(GRAPHS[0], "nx-greedy", [None] * 3, params="strategy=saturation_largest_first",
                  status="timeout", error=TIMEOUT)  # fmt: skip
    return write_csv(make_rows(reps, 1.0) + failed, "r.csv")


def piped(*args: str, columns: str | None = None) -> str:
    """``gcbench ARGS`` with stdout a pipe and COLUMNS unset (or ``columns``): its stdout."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    done = subprocess.run([sys.executable, "-m", "gcbench", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def body_rows(stdout: str) -> list[list[str]]:
    """The cells of every table body line (``│ a │ b │``), stripped."""
    return [
        [cell.strip() for cell in line.strip().strip("│").split("│")]
        for line in stdout.splitlines()
        if line.startswith("│")
    ]


def test_compare_keeps_every_cell_on_one_line_through_a_pipe(results):
    base, new = results
    rows = body_rows(piped("compare", str(base), str(new)))
    assert len(rows) == len(GRAPHS) * len(PARAMS)  # no continuation lines
    assert {(r[0], r[1]) for r in rows} == {(g, c) for g in GRAPHS for c in LABELS}
    assert all(all(cell for cell in r[:-1]) for r in rows)  # only flags may be empty


def test_report_keeps_every_cell_on_one_line_through_a_pipe(report_results):
    out = piped("report", str(report_results))
    rows = body_rows(out)
    assert rows and all(r[0] for r in rows), out  # a folded cell leaves its first cell empty
    configs = {r[0] for r in rows}
    assert set(LABELS) <= configs, configs
    notes = {r[-1] for r in rows}
    assert "flags: contended, drift" in notes, out
    assert f"3 timeout: {TIMEOUT}" in notes, out  # not folded at 32 characters


def test_columns_is_still_the_width_through_a_pipe(results):
    base, new = results
    out = piped("compare", str(base), str(new), columns="80")
    assert max(len(line) for line in out.splitlines()) <= 80
