"""The χ lower bound and the degeneracy (gcbench/graphs/bounds.py): exact where the issue says
they must be, a true clique always, networkx's core numbers, and kept with the cache."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from gcbench.graphs import bounds
from gcbench.graphs._bounds import peel
from gcbench.graphs.formats.npz import load_cache, save_cache
from gcbench.graphs.graph import Graph, from_edges
from gcbench.graphs.sources import load_graph


def of(nx_graph: nx.Graph) -> Graph:
    g = nx.convert_node_labels_to_integers(nx_graph)
    edges = np.array(list(g.edges()), dtype=np.int64).reshape(-1, 2)
    return from_edges(g.number_of_nodes(), edges[:, 0], edges[:, 1])


@pytest.mark.parametrize(
    ("nx_graph", "clique", "degeneracy"),
    [
        (nx.complete_graph(9), 9, 8),
        (nx.complete_bipartite_graph(6, 11), 2, 6),
        (nx.mycielski_graph(7), 2, None),  # triangle-free, χ = 7
        (nx.grid_2d_graph(12, 7), 2, 2),
        (nx.empty_graph(4), 1, 0),
        (nx.empty_graph(0), 0, 0),
        (nx.petersen_graph(), 2, 3),
    ],
    ids=["K9", "K6,11", "mycielski7", "grid", "no-edges", "empty", "petersen"],
)
def test_exact_where_the_bound_must_be(nx_graph, clique, degeneracy):
    found = of(nx_graph).bounds
    assert found.clique == clique
    if degeneracy is not None:
        assert found.degeneracy == degeneracy


def test_a_planted_clique_is_found_in_a_sparse_graph():
    g = nx.gnm_random_graph(3000, 9000, seed=3)
    planted = range(100, 125)
    g.add_edges_from((u, v) for u in planted for v in planted if u < v)
    assert of(g).bounds.clique == 25


@pytest.mark.parametrize("seed", range(6))
def test_clique_is_one_and_cores_match_networkx(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    g = nx.gnp_random_graph(n, float(rng.uniform(0.01, 0.3)), seed=seed)
    graph, cores = of(g), nx.core_number(g)
    members = bounds.clique(graph)
    assert len(set(members.tolist())) == members.size == graph.bounds.clique
    assert all(g.has_edge(int(u), int(v)) for i, u in enumerate(members) for v in members[i + 1 :])
    core, order, position = peel(graph.indptr, graph.indices)
    assert core.tolist() == [cores[v] for v in range(n)]
    assert graph.bounds.degeneracy == max(cores.values())
    assert np.array_equal(order[position], np.arange(n))
    later = [sum(position[u] > position[v] for u in g[v]) for v in range(n)]
    assert all(k <= core[v] for v, k in enumerate(later))  # smallest-last: ≤ δ + 1 colors


def test_the_search_stops_within_its_budget(monkeypatch):
    """With no work allowed the search stops after the first vertex it visits (the last of
    the peeling order, which has no later neighbours): a clique of one, still a lower bound;
    with the default budget it finds the planted clique."""
    g = nx.gnp_random_graph(300, 0.5, seed=1)
    g.add_edges_from((u, v) for u in range(30) for v in range(30) if u < v)
    graph = of(g)
    assert bounds.clique(graph).size == 30
    monkeypatch.setattr(bounds, "WORK_FLOOR", 0)
    monkeypatch.setattr(bounds, "WORK_PER_ENTRY", 0)
    assert bounds.clique(graph).size == 1


def test_bounds_are_cached_with_the_graph(tmp_path):
    graph = load_graph("gen:rgg?scale=10&seed=0", data_dir=tmp_path)
    cached = load_cache(next((tmp_path / "generated").glob("*.npz")), spec=graph.name)
    assert "bounds" in cached.__dict__  # read from the file, not computed
    assert cached.bounds == graph.bounds and cached.bounds.clique >= 2


def test_a_cache_from_before_bounds_gets_them_once(tmp_path):
    graph = of(nx.complete_graph(5))
    path = tmp_path / "old.npz"
    save_cache(graph, path, spec="old")
    with np.load(path) as npz:  # rewrite it as an older gcbench did: without the bounds
        arrays = {k: npz[k] for k in npz.files if not k.startswith("bounds_")}
    np.savez(path, **arrays)
    assert load_cache(path, spec="old").bounds.clique == 5
    with np.load(path) as npz:
        assert int(npz["bounds_clique"]) == 5 and int(npz["bounds_degeneracy"]) == 4


def test_renaming_keeps_known_bounds():
    graph = of(nx.complete_graph(4))
    assert graph.with_name("other").__dict__.get("bounds") is None
    known = graph.bounds
    assert graph.with_name("other").__dict__["bounds"] is known
