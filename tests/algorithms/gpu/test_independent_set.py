"""The independent-set GPU family: valid on every generated family, deterministic for a seed,
bounded on forced ties, and the per-algorithm round structure of docs/independent-set.md."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gcbench import algorithms, validate
from gcbench.algorithms.execute import execute
from gcbench.algorithms.gpu import independent_set

ROOT = Path(__file__).resolve().parents[3]
FAMILY = ["jpl", "jpl-minmax", "gunrock", "cohen", "luby", "very-random"]
KRON_HUB = "gen:kron?scale=16&edgefactor=48"  # in the test set (conftest.py)


def run(on_gpu, spec: str, name: str, block_size: int = 256, **params):
    graph, prepared = on_gpu(spec)
    algo = algorithms.get(name)
    outcome = execute(algo, prepared, block_size, algo.resolve_params(params))
    return graph, outcome


@pytest.mark.gpu
@pytest.mark.parametrize("name", FAMILY)
def test_valid_on_every_family(on_gpu, family_spec, name):
    graph, outcome = run(on_gpu, family_spec, name)
    check = validate(graph, outcome.colors)
    assert check.valid and outcome.validation.valid, (check, outcome.validation)
    active = outcome.coloring.trace["active"]
    assert outcome.coloring.iterations == len(active)
    if graph.n:
        assert active[-1] == 0 and all(a >= b for a, b in zip(active, active[1:], strict=False))
    if name in ("jpl", "luby", "very-random"):  # color = round
        assert check.max_color == outcome.coloring.iterations - 1
    if name == "jpl-minmax":  # colors 2i and 2i + 1
        assert check.max_color <= 2 * outcome.coloring.iterations - 1


@pytest.mark.gpu
def test_kron_test_graph_has_a_huge_hub(on_gpu):
    graph, _ = on_gpu(KRON_HUB)
    assert graph.max_degree > 10_000


@pytest.mark.gpu
@pytest.mark.parametrize("name", FAMILY)
@pytest.mark.parametrize("spec", ["gen:rgg?scale=14", KRON_HUB])
def test_deterministic_for_a_fixed_seed(on_gpu, spec, name):
    assert algorithms.get(name).deterministic
    _, first = run(on_gpu, spec, name)
    _, second = run(on_gpu, spec, name)
    np.testing.assert_array_equal(first.colors, second.colors)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["jpl", "jpl-minmax", "gunrock", "luby", "very-random"])
def test_the_seed_changes_the_coloring(on_gpu, name):
    _, first = run(on_gpu, "gen:rgg?scale=14", name, seed=0)
    _, second = run(on_gpu, "gen:rgg?scale=14", name, seed=1)
    assert not np.array_equal(first.colors, second.colors)


@pytest.mark.gpu
@pytest.mark.parametrize("block_size", [32, 128, 1024])
@pytest.mark.parametrize("name", ["jpl", "jpl-minmax", "cohen"])
def test_block_size_changes_nothing_but_speed(on_gpu, name, block_size):
    _, base = run(on_gpu, KRON_HUB, name, block_size=256)
    _, other = run(on_gpu, KRON_HUB, name, block_size=block_size)
    np.testing.assert_array_equal(base.colors, other.colors)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 2, 3, 5, 1000, 65_537])
def test_permutation_values_are_a_permutation(n):
    vals = independent_set.permutation_values(n, seed=7).get()
    np.testing.assert_array_equal(np.sort(vals), np.arange(n, dtype=np.uint32))
    other = independent_set.permutation_values(n, seed=8).get()
    assert n < 5 or not np.array_equal(vals, other)


@pytest.mark.gpu
@pytest.mark.parametrize("shift", [0, 1, 4, 1000])
def test_jpl_minmax_any_shift_is_valid(on_gpu, shift):
    graph, outcome = run(on_gpu, "gen:delaunay?scale=12", "jpl-minmax", shift=shift)
    assert validate(graph, outcome.colors).valid


@pytest.mark.gpu
@pytest.mark.parametrize(
    "spec", ["gen:grid2d?side=64", "gen:complete?n=60", "gen:rgg?scale=12", "gen:cycle?n=101"]
)
def test_gunrock_forced_ties_terminate_valid(on_gpu, spec):
    graph, prepared = on_gpu(spec)
    coloring = independent_set.gunrock(prepared.handle, block_size=256, equal_values=True)
    coloring.resolve(coloring)  # sync=graph: the rounds are read after the call
    colors = coloring.colors.get()
    assert validate(graph, colors).valid
    # every value equal: only the id tie-break orders vertices, so the largest id of each
    # component is a local maximum in round 0 and takes color 0
    assert colors[graph.n - 1] == 0
    assert coloring.iterations < graph.n


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["gen:rgg?scale=14", KRON_HUB, "gen:grid2d?side=100"])
def test_cohen_more_hashes_take_no_more_rounds(on_gpu, spec):
    _, one = run(on_gpu, spec, "cohen", hashes=1)
    _, four = run(on_gpu, spec, "cohen", hashes=4)
    assert four.coloring.iterations <= one.coloring.iterations


@pytest.mark.gpu
def test_jpl_minmax_takes_fewer_rounds_than_jpl(on_gpu):
    _, single = run(on_gpu, "gen:rgg?scale=14", "jpl")
    _, double = run(on_gpu, "gen:rgg?scale=14", "jpl-minmax")
    assert double.coloring.iterations < single.coloring.iterations


@pytest.mark.gpu
def test_gcbench_run_writes_timed_rows(tmp_path, tmp_path_factory):
    out = tmp_path / "rows.csv"
    data = tmp_path_factory.getbasetemp() / "gcbench-data"
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, GCBENCH_DATA=str(data), PYTHONPATH=path)
    command = [sys.executable, "-m", "gcbench", "run", "--algo", "jpl", "--graph"]
    command += ["gen:rgg?scale=12", "--reps", "2", "--device", "gpu", "--out", str(out), "--quiet"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    with out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) >= 2 and {row["algorithm"] for row in rows} == {"jpl"}
    for row in rows:
        assert row["status"] == "ok", row
        assert float(row["time_ms"]) > 0 and float(row["transfer_ms"]) > 0
        assert int(row["iterations"]) > 0 and int(row["conflicts"]) == 0
