"""Peers (networkx, igraph; scipy's group_columns for the distance-2 problems): colorings
checked by our validator; a missing package is UnsupportedError with the install hint."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import gcbench
from gcbench.algorithms import get, peers, solves
from gcbench.algorithms.cpu.greedy_d2 import greedy_d2_colors
from gcbench.algorithms.pattern_validation import validate_pattern
from gcbench.algorithms.priority import PATTERN_ORDERS
from gcbench.errors import UnsupportedError
from gcbench.graphs import generators
from gcbench.graphs.pattern import Pattern, from_entries

GRAPHS = [generators.rgg(8), generators.kron(7), generators.crown(6), generators.empty(3),
          generators.empty(0)]  # fmt: skip


@pytest.mark.parametrize("g", GRAPHS, ids=lambda g: g.name)
@pytest.mark.parametrize(
    "strategy", ["largest_first", "random_sequential", "smallest_last", "DSATUR"]
)
def test_nx_greedy_valid(g, strategy: str) -> None:  # type: ignore[no-untyped-def]
    nx = pytest.importorskip("networkx")
    result = gcbench.color(g, "nx-greedy", strategy=strategy)
    assert result.validation.valid
    if strategy != "random_sequential" and g.n:
        rows, cols = g.edges()
        ref = nx.Graph()
        ref.add_nodes_from(range(g.n))
        ref.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
        expected = nx.greedy_color(ref, strategy=strategy)
        assert result.validation.colors == len(set(expected.values()))


def test_nx_random_sequential_follows_seed() -> None:
    pytest.importorskip("networkx")
    g = generators.rgg(10)
    a = gcbench.color(g, "nx-greedy", strategy="random_sequential", seed=4).colors
    b = gcbench.color(g, "nx-greedy", strategy="random_sequential", seed=4).colors
    assert np.array_equal(a, b)


def test_nx_interchange_refusal_is_unsupported() -> None:
    pytest.importorskip("networkx")
    with pytest.raises(UnsupportedError, match="interchange"):
        gcbench.color(generators.cycle(5), "nx-greedy", strategy="DSATUR", interchange=True)


@pytest.mark.parametrize("g", GRAPHS, ids=lambda g: g.name)
@pytest.mark.parametrize("method", peers.IGRAPH_METHODS)
def test_igraph_greedy_valid(g, method: str) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("igraph")
    result = gcbench.color(g, "igraph-greedy", method=method)
    assert result.validation.valid
    if method == "DSATUR" and g.name.startswith("gen:crown"):
        assert result.validation.colors == 2


@pytest.mark.parametrize(
    ("name", "module"), [("nx-greedy", "networkx"), ("igraph-greedy", "igraph")]
)
def test_missing_package_is_unsupported(monkeypatch, name: str, module: str) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` raise ImportError
    g = generators.cycle(6)  # a graph no earlier test built, so nothing cached is reused
    with pytest.raises(UnsupportedError, match=r"pip install 'gcbench\[peers\]'"):
        gcbench.color(g, name)


def test_peer_specs() -> None:
    for name in ("nx-greedy", "igraph-greedy"):
        spec = get(name)
        assert spec.peer and spec.backend == "cpu" and spec.deterministic


# --- scipy-group-columns: the distance-2 peer ----------------------------------------------


def _random_matrix(seed: int, m: int, n: int, nnz: int) -> Pattern:
    rng = np.random.default_rng(seed)
    return from_entries(m, n, rng.integers(0, m, nnz), rng.integers(0, n, nnz), name=f"r{seed}")


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("order", PATTERN_ORDERS)
def test_group_columns_equals_the_serial_greedy(seed: int, order: str) -> None:
    """Curtis-Powell-Reid's grouping is first fit in the order: the serial greedy's colors,
    column for column, on rectangular matrices both ways round (pd2 and, through the
    transpose, pd2-rows)."""
    rng = np.random.default_rng(100 + seed)
    m, n = (int(x) for x in rng.integers(1, 400, 2))
    pattern = _random_matrix(seed, m, n, int(rng.integers(1, 6 * max(m, n))))
    for side in (pattern, pattern.transposed()):
        colors = peers.run_group_columns(side, order=order).colors
        assert colors.dtype == np.int32
        assert validate_pattern(side, colors).valid
        np.testing.assert_array_equal(colors, greedy_d2_colors(side, order))


def test_group_columns_through_the_library_for_every_problem() -> None:
    """pd2 colors the columns, pd2-rows the rows (the transpose's columns), d2 the pattern of
    A + I: each equal to the serial greedy of the same problem and order."""
    matrix = _random_matrix(7, 300, 120, 1500)
    graph = generators.rgg(9)
    for instance, problem in ((matrix, "pd2"), (matrix, "pd2-rows"), (graph, "d2")):
        peer = gcbench.color(instance, "scipy-group-columns", problem=problem)
        greedy = gcbench.color(instance, "greedy", problem=problem, device="cpu")
        assert peer.validation.valid and peer.validation.recovered
        np.testing.assert_array_equal(peer.colors, greedy.colors)
    assert gcbench.color(matrix, "scipy-group-columns", problem="pd2-rows").colors.size == 300


def test_group_columns_of_degenerate_patterns() -> None:
    assert peers.run_group_columns(from_entries(0, 0, [], [])).colors.size == 0
    assert peers.run_group_columns(from_entries(0, 3, [], [])).colors.tolist() == [0, 0, 0]
    assert peers.run_group_columns(from_entries(2, 1, [0, 1], [0, 0])).colors.tolist() == [0]


def test_group_columns_spec() -> None:
    for problem in ("d2", "pd2", "pd2-rows"):
        spec = get("scipy-group-columns", problem=problem)
        assert spec.peer and spec.backend == "cpu" and spec.deterministic
        assert spec.requires == () and spec.extra == ""  # scipy is a core dependency
        assert [p.name for p in spec.params] == ["order", "reduce"]
        assert spec.param("order").choices == PATTERN_ORDERS
    assert not solves("scipy-group-columns", "d1")
