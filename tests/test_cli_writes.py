"""What the command line writes, where, and its one-line answers to small mistakes (issue 32):
``--out`` never makes directories, ``gcbench cache`` lists and removes cached graphs, a run
says what it cached, large graph builds are said when there is no progress bar, and graph
paths, block sizes and ``color``'s output read the same everywhere."""

from __future__ import annotations

import os
import time

import pytest

from gcbench.bench import runner
from gcbench.bench.progress import Display
from gcbench.graphs.fetch import cached_graphs
from gcbench.graphs.sources import load_graph

CPU = ["--device", "cpu", "--quiet"]


@pytest.fixture
def gcbench(cli, tmp_path):
    """``gcbench(*args)`` in a subprocess, its cache in tmp_path/data."""
    env = {**os.environ, "GCBENCH_DATA": str(tmp_path / "data")}
    return lambda *args: cli(*args, env=env, cwd=tmp_path, timeout=300)


def one_error(done, fragment: str) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], lines
    return lines[0]


def test_out_never_makes_directories(gcbench, tmp_path):
    missing = tmp_path / "no" / "such" / "r.csv"
    done = gcbench("run", "--graph", "gen:cycle?n=5", "--algo", "greedy", *CPU,
                   "--out", str(missing))  # fmt: skip
    one_error(done, f"{missing.parent} does not exist; create it first")
    assert done.stdout == "" and not (tmp_path / "no").exists()  # refused before anything
    results = tmp_path / "r.csv"
    done = gcbench("run", "--graph", "gen:cycle?n=5", "--algo", "greedy", "--reps", "1", *CPU,
                   "--out", str(results))  # fmt: skip
    assert done.returncode == 0, done.stderr
    report_dir = tmp_path / "none" / "report"
    one_error(gcbench("report", "--out", str(report_dir), str(results)), "does not exist")
    assert not (tmp_path / "none").exists()


def test_cache_lists_and_removes_graphs(gcbench, tmp_path, monkeypatch):
    assert gcbench("info", "gen:cycle?n=5").returncode == 0  # cached once built
    monkeypatch.setenv("GCBENCH_DATA", str(tmp_path / "data"))
    load_graph("gen:cycle?n=6")  # a second graph, cached here (one process start less)
    listed = gcbench("cache")
    assert listed.returncode == 0 and "gen:cycle?n=5" in listed.stdout
    assert listed.stdout.strip().splitlines()[-1].startswith("2 graphs, ")
    one = gcbench("cache", "gen:cycle?n=6")
    assert "gen:cycle?n=6" in one.stdout and "gen:cycle?n=5" not in one.stdout
    assert "removed 0 cached graphs" in gcbench("cache", "--older-than", "1").stdout
    old = time.time() - 3 * 86400
    six = [g.path for g in cached_graphs(tmp_path / "data") if g.spec == "gen:cycle?n=6"]
    os.utime(six[0], (old, old))  # last read or written three days ago
    aged = gcbench("cache", "--older-than", "2")
    assert aged.returncode == 0 and "removed 1 cached graphs" in aged.stdout, aged.stdout
    one_error(gcbench("cache", "gen:cycle?n=7", "--clear"), "not in the cache")
    assert "removed 1 cached graphs" in gcbench("cache", "--clear").stdout
    assert "no cached graphs" in gcbench("cache").stdout


def test_a_run_says_how_much_it_cached_past_the_threshold(tmp_path):
    small, big = tmp_path / "a.npz", tmp_path / "b.npz"
    before = {small: (10, 1)}
    assert runner.cached_note(before, {small: (10, 1), big: (10, 2)}) is None
    note = runner.cached_note(before, {small: (10, 1), big: (runner.CACHE_NOTE_BYTES, 2)})
    assert note is not None and note.startswith("cached 100.0 MiB of graphs in ")
    assert "gcbench cache --clear" in note


def test_building_a_large_graph_is_said_without_a_progress_bar(capsys):
    with Display(1, enabled=True) as display:  # stderr is not a terminal under pytest
        assert not display.active
        display.phase("generating gen:rgg?scale=24&seed=0", long=True)
        display.phase("loading gen:cycle?n=5")
    assert capsys.readouterr().err == "generating gen:rgg?scale=24&seed=0 ...\n"


def test_graph_paths_read_the_same_in_every_command(gcbench, tmp_path):
    (tmp_path / "noise.npz").write_bytes(os.urandom(2000))
    line = one_error(gcbench("info", "noise.npz"), "is not a gcbench graph cache")
    assert "allow_pickle" not in line
    (tmp_path / "folder").mkdir()
    one_error(gcbench("info", "folder"), "graph file folder is a directory, not a file")
    for args in (
        ["info", "gone.mtx"],
        ["run", "--graph", "gone.mtx", "--algo", "greedy", *CPU, "--out", "x.csv"],
    ):
        one_error(gcbench(*args), "graph file gone.mtx not found; check the path")  # fmt: skip


def test_block_size_is_for_algorithms_that_have_one(gcbench):
    one_error(gcbench("color", "gen:cycle?n=5", "--algo", "greedy", "--block-size", "256"),
              "--block-size: greedy has no block size")  # fmt: skip
    done = gcbench("run", "--graph", "gen:cycle?n=5", "--algo", "greedy", "--block-size", "256",
                   "--reps", "1", *CPU, "--out", "b.csv")  # fmt: skip
    assert done.returncode == 0
    assert "note: --block-size does not apply to greedy (no block size)" in done.stdout


def test_color_names_the_graph_and_prints_no_empty_line(gcbench):
    done = gcbench("color", "gen:cycle?n=5", "--algo", "greedy")
    lines = done.stdout.splitlines()
    assert lines[0] == "graph        gen:cycle?n=5 (n = 5, m = 5)"
    assert all(line.split(maxsplit=1)[1:] for line in lines)  # no label without a value
    assert "iterations" not in done.stdout  # serial greedy counts none
    assert "iterations   " in gcbench("color", "gen:cycle?n=5", "--algo", "gm-sync").stdout


def test_a_usage_error_of_run_is_its_only_line(gcbench):
    done = gcbench("run", "--graph", "gen:cycle?n=5", "--algo", "no-such-algo", "--out", "u.csv")
    one_error(done, "unknown algorithm 'no-such-algo'")
    assert done.stdout == ""  # not after the device line
