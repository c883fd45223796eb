"""cuSPARSE csrcolor through ctypes: valid everywhere, and its reported count is honest."""

from __future__ import annotations

import numpy as np
import pytest

import gcbench
from gcbench import algorithms
from gcbench.algorithms.execute import prepare, run_timed, setup
from gcbench.graph import from_edges

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


@pytest.mark.parametrize("n", [0, 1, 50])
def test_empty_and_isolated(n):
    result = gcbench.color(from_edges(n, [], []), "cusparse")
    assert result.validation.valid
    assert result.validation.colors == (1 if n else 0)


def test_reported_count_equals_distinct_colors_written():
    graph = gcbench.load_graph("gen:rgg?scale=14&seed=0")
    spec = algorithms.get("cusparse")
    prepared = prepare(graph, "gpu")
    setup(spec, prepared)
    coloring, time_ms = run_timed(spec, prepared, 256, {})
    colors = coloring.colors.get()
    assert time_ms > 0
    assert coloring.trace["reported_colors"] == [float(np.unique(colors).size)]
