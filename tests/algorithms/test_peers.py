"""Peers (networkx, igraph): colorings checked by our validator; a missing package is
UnsupportedError with the install hint."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import gcbench
from gcbench.algorithms import get, peers
from gcbench.errors import UnsupportedError
from gcbench.graphs import generators

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
