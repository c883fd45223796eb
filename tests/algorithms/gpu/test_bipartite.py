"""The bipartite check on the GPU (auto's objective=fewest, issue 45 item 4): two valid colors
exactly when the graph is bipartite (against networkx's BFS check), None otherwise; auto
fewest gives two colors on bipartite graphs and the rule's pick on the others."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import gcbench
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.gpu.bipartite import two_colors
from gcbench.algorithms.validation import validate

pytestmark = pytest.mark.gpu

LARGER = (
    "gen:grid2d?side=1000",
    "gen:cycle?n=200000",  # even: bipartite
    "gen:cycle?n=200001",  # odd: not
    "gen:crown?n=500",
    "gen:bipartite?a=300&b=700",
    "gen:star?leaves=100000",
    "gen:rgg?scale=16",
    "gen:kron?scale=14",
)


def check(graph, prepared) -> None:
    device = two_colors(prepared.handle)
    rows, cols = graph.edges()
    reference = nx.Graph()
    reference.add_nodes_from(range(graph.n))
    reference.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
    expected = nx.is_bipartite(reference)
    assert (device is not None) == expected, graph.name
    if device is not None:
        colors = runtime.cupy().asnumpy(device)
        result = validate(graph, colors)
        assert result.valid and set(np.unique(colors)) <= {0, 1}, graph.name
        assert result.colors == (2 if graph.nnz else min(graph.n, 1)), graph.name


def test_every_family(on_gpu, family_spec):
    check(*on_gpu(family_spec))


@pytest.mark.parametrize("spec", LARGER)
def test_larger_graphs(on_gpu, spec):
    check(*on_gpu(spec))


def test_one_blocking_read(on_gpu):
    graph, prepared = on_gpu("gen:grid2d?side=1000")
    with runtime.watch() as watch:
        two_colors(prepared.handle)
    assert watch.syncs == 1


@pytest.mark.parametrize(
    ("spec", "two"),
    [("gen:grid2d?side=90", True), ("gen:cycle?n=200000", True), ("gen:rgg?scale=14", False)],
)
def test_auto_fewest_colors_a_bipartite_graph_with_two(spec, two):
    result = gcbench.color(spec, "auto", device="gpu", objective="fewest")
    assert result.validation.valid
    assert (result.params["choice"] == "two-colors") == two
    if two:
        assert result.validation.colors == 2
    fast = gcbench.color(spec, "auto", device="gpu", objective="fast")
    assert fast.params["choice"] != "two-colors"  # only objective=fewest checks
