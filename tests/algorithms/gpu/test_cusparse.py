"""cuSPARSE csrcolor through ctypes: valid everywhere, and its reported count is honest."""

from __future__ import annotations

import numpy as np
import pytest

import gcbench
from gcbench import algorithms
from gcbench.algorithms.execute import prepare, run_timed, setup
from gcbench.algorithms.gpu import cusparse
from gcbench.errors import UnsupportedError
from gcbench.graphs.graph import from_edges

pytestmark = pytest.mark.gpu

SPECS = [
    "gen:rgg?scale=12&seed=0",
    "gen:kron?scale=14&edgefactor=48&seed=0",
    "gen:grid2d?side=64",
    "gen:delaunay?scale=12&seed=0",
    "gen:regular?n=1000&d=4&seed=0",
    "gen:er?n=2000&avg_degree=8&seed=0",
    "gen:complete?n=200",
    "gen:cycle?n=101",
    "gen:bipartite?a=30&b=40",
    "gen:mycielski?k=7",
    "gen:queen?n=12",
    "gen:crown?n=20",
    "gen:star?leaves=100000",
]


@pytest.mark.parametrize("spec", SPECS)
def test_valid_on_every_family(spec):
    result = gcbench.color(spec, "cusparse")
    assert result.validation.valid, result.validation
    assert result.iterations is None


def test_kron_with_huge_degree_is_valid():
    graph = gcbench.load_graph("gen:kron?scale=17&edgefactor=48&seed=0")
    assert graph.max_degree > 10_000
    assert gcbench.color(graph, "cusparse").validation.valid


def test_empty_graph_and_isolated_vertices():
    empty = gcbench.color(from_edges(0, [], []), "cusparse")
    assert empty.validation.valid and empty.validation.colors == 0
    # 48 isolated vertices beside one edge
    isolated = gcbench.color(from_edges(50, [0], [1]), "cusparse")
    assert isolated.validation.valid


@pytest.mark.parametrize("n", [1, 50])
def test_edgeless_graph_is_reported_unsupported(n):
    # csrcolor colors nothing when nnz = 0; the runner records status=unsupported.
    with pytest.raises(UnsupportedError, match="colored none"):
        gcbench.color(from_edges(n, [], []), "cusparse")


def test_reported_count_is_largest_color_plus_one():
    graph = gcbench.load_graph("gen:rgg?scale=14&seed=0")
    spec = algorithms.get("cusparse")
    prepared = prepare(graph, "gpu").fresh()
    setup(spec, prepared)
    coloring, time_ms = run_timed(spec, prepared, 256, spec.resolve_params({}))
    colors = coloring.colors.get()
    assert time_ms > 0
    # Not the distinct count: csrcolor's colors can have gaps (45 distinct of 0..47 seen).
    assert coloring.trace["reported_colors"] == [float(colors.max() + 1)]
    assert np.unique(colors).size <= colors.max() + 1


def test_default_colors_only_and_reorder_adds_the_permutation():
    graph = gcbench.load_graph("gen:delaunay?scale=12&seed=0")
    spec = algorithms.get("cusparse")
    view = prepare(graph, "gpu").fresh()
    setup(spec, view)
    plain, _ = run_timed(spec, view, None, spec.resolve_params({}))
    # NULL reordering: the library had nowhere to write a permutation
    assert (cusparse.reordering(view.handle).get() == -1).all()
    again, _ = run_timed(spec, view, None, spec.resolve_params({}))  # descriptor, info reused
    np.testing.assert_array_equal(again.colors.get(), plain.colors.get())
    ordered, _ = run_timed(spec, view, None, spec.resolve_params({"reorder": "true"}))
    colors = ordered.colors.get()
    np.testing.assert_array_equal(colors, plain.colors.get())
    perm = cusparse.reordering(view.handle).get()
    assert np.array_equal(np.sort(perm), np.arange(graph.n))
    assert (np.diff(colors[perm]) >= 0).all()  # vertices grouped by color
