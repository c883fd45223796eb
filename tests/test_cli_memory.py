"""Inputs that would exhaust memory, or that are junk, end quickly with one ``error:`` line
and exit 2, leaving nothing in the data cache or the output directory (issue 14). Each runs
in a subprocess under an address-space limit (tests/conftest.py), so a regression fails here
instead of taking the machine down."""

from __future__ import annotations

import pytest

BANNER = "%%MatrixMarket matrix coordinate pattern general"
FILES = {
    "huge.mtx": f"{BANNER}\n3000000000 3000000000 1\n2 1\n",
    "rows.mtx": f"{BANNER}\n100000000000 100000000000 1\n2 1\n",
    "entries.mtx": f"{BANNER}\n1000 1000 100000000000\n2 1\n",
    "vertices.col": "p edge 3000000000 1\ne 1 2\n",
    "edges.col": "p edge 1000 100000000000\ne 1 2\n",
}


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("gen:rgg?scale=30", "gen:rgg?scale=30&seed=0: needs about "),
        ("gen:rgg?scale=40", "scale=40 is outside [0, 30] (n = 2^scale vertices; int32 ids)"),
        ("gen:kron?scale=40", "scale=40 is outside [0, 30]"),
        ("gen:kron?scale=30&edgefactor=48", "of memory, budget "),
        ("gen:complete?n=1000000", "of memory, budget "),
        ("gen:mycielski?k=31", "of memory, budget "),
    ],
)
def test_generators_beyond_memory_or_ids(run_limited, spec, fragment):
    done = run_limited("info", spec)
    done.one_error(fragment)
    assert run_limited.leftovers() == []


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("huge.mtx", "declares 3000000000 vertices; gcbench numbers vertices with int32 ids"),
        ("rows.mtx", "declares 100000000000 vertices"),
        ("entries.mtx", "entries.mtx: needs about "),
        ("vertices.col", "declares 3000000000 vertices"),
        ("edges.col", "edges.col: needs about "),
    ],
)
def test_files_declaring_too_much(run_limited, name, fragment):
    path = run_limited.out / name
    path.write_text(FILES[name])
    done = run_limited("info", name)
    done.one_error(fragment)
    assert run_limited.leftovers(path) == []


def test_binary_garbage_is_not_echoed(run_limited):
    junk = bytes(range(256)) * 40
    path = run_limited.out / "junk.txt"
    path.write_bytes(junk)
    done = run_limited("info", "junk.txt")
    done.one_error("junk.txt line 1: vertex id is not an integer in '")
    line = done.error_lines[0]
    assert all(32 <= ord(c) < 127 for c in line), line  # escaped: no raw junk reaches a terminal
    shown = line.split(" in ", 1)[1].split("; ", 1)[0]
    assert len(shown) <= 4 * 40 + 5  # at most 40 input bytes, each escaped to <= 4 characters
    assert run_limited.leftovers(path) == []


def test_a_low_budget_refuses_a_small_graph(run_limited):
    done = run_limited("info", "gen:rgg?scale=12", env={"GCBENCH_MAX_MEMORY": "10M"})
    done.one_error("budget 10.0 MiB (GCBENCH_MAX_MEMORY=10M)")
    assert run_limited.leftovers() == []


def test_a_malformed_budget_is_one_error(run_limited):
    done = run_limited("info", "gen:cycle?n=5", env={"GCBENCH_MAX_MEMORY": "lots"})
    done.one_error("GCBENCH_MAX_MEMORY='lots' is not a size")
