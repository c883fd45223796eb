"""The chromatic numbers generated families state (``Family.known_chi``, carried as
``chi_known``): checked against an exhaustive search on small members of each family."""

from __future__ import annotations

import pytest

from gcbench.graphs.generators import FAMILIES, get_family
from gcbench.graphs.graph import Graph
from gcbench.graphs.sources import known_chi, load_graph

SMALL = [
    ("complete", {"n": 0}), ("complete", {"n": 1}), ("complete", {"n": 5}),
    ("cycle", {"n": 3}), ("cycle", {"n": 6}), ("cycle", {"n": 9}),
    ("bipartite", {"a": 0, "b": 0}), ("bipartite", {"a": 0, "b": 3}),
    ("bipartite", {"a": 2, "b": 3}),
    ("crown", {"n": 1}), ("crown", {"n": 4}),
    ("mycielski", {"k": 1}), ("mycielski", {"k": 3}), ("mycielski", {"k": 4}),
    ("queen", {"n": 1}), ("queen", {"n": 3}), ("rook", {"n": 3}),
    ("star", {"leaves": 0}), ("star", {"leaves": 4}),
    ("empty", {"n": 0}), ("empty", {"n": 3}),
    ("grid2d", {"side": 1}), ("grid2d", {"rows": 1, "cols": 5}), ("grid2d", {"side": 3}),
]  # fmt: skip


def colorable(graph: Graph, k: int) -> bool:
    """Whether ``graph`` has a proper k-coloring (backtracking; small graphs only)."""
    colors = [-1] * graph.n
    rows = [graph.indices[graph.indptr[v] : graph.indptr[v + 1]].tolist() for v in range(graph.n)]

    def place(v: int) -> bool:
        if v == graph.n:
            return True
        used = {colors[u] for u in rows[v]}
        for c in range(min(k, max(colors[:v], default=-1) + 2)):  # new colors in order
            if c not in used:
                colors[v] = c
                if place(v + 1):
                    return True
        colors[v] = -1
        return False

    return place(0)


@pytest.mark.parametrize(("name", "params"), SMALL, ids=lambda x: str(x))
def test_stated_chi_is_the_chromatic_number(name, params):
    family = get_family(name)
    resolved = family.resolve({k: str(v) for k, v in params.items()})
    chi = family.known_chi(resolved)
    if chi is None:
        return  # stated nowhere (queen?n=3): nothing to check
    graph = family.generate(resolved)
    assert colorable(graph, chi) and (chi == 0 or not colorable(graph, chi - 1))
    assert graph.bounds.clique <= chi
    assert known_chi(family.spec(resolved)) == chi


def test_random_families_state_none_and_paths_none(tmp_path):
    assert all(FAMILIES[f].chi is None for f in ("rgg", "kron", "er", "rmat", "delaunay", "road"))
    assert known_chi("gen:rgg?scale=4&seed=0") is None
    assert known_chi(str(tmp_path / "g.el")) is None
    assert known_chi("gen:queen?n=7") == 7 and known_chi("gen:queen?n=6") is None
    assert load_graph("gen:cycle?n=5", data_dir=tmp_path).bounds.clique == 2
