"""Iterated greedy recoloring (Culberson & Luo 1996) on host colorings: never more colors,
always valid, and the same colors whatever the order inside a class (what the GPU relies on)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gcbench
from gcbench import algorithms
from gcbench.algorithms import recolor
from gcbench.algorithms.cpu.greedy_d2 import greedy_d2_colors
from gcbench.algorithms.pattern_validation import validate_pattern
from gcbench.algorithms.reduction import reduce_colors
from gcbench.algorithms.validation import validate
from gcbench.graphs.graph import from_edges
from gcbench.graphs.pattern import from_entries


def random_graph(n: int, m: int, seed: int):
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, max(n, 1), size=(2, m))
    return from_edges(n, rows, cols, name="random", source="random")


def first_fit(graph, order: np.ndarray) -> np.ndarray:
    """Plain-Python first fit over ``order``: a valid coloring to start from."""
    colors = np.full(graph.n, -1, dtype=np.int32)
    for v in order:
        taken = {int(colors[u]) for u in graph.indices[graph.indptr[v] : graph.indptr[v + 1]]}
        colors[v] = next(c for c in range(graph.n + 1) if c not in taken)
    return colors


def reference_pass(graph, colors: np.ndarray, classes: np.ndarray, rng) -> np.ndarray:
    """One iterated greedy pass written apart from the numba one: classes in ``classes``'
    order, the vertices of each class in a random order."""
    fresh = np.full(graph.n, -1, dtype=np.int32)
    for c in classes:
        members = np.flatnonzero(colors == c)
        for v in rng.permutation(members):
            taken = {int(fresh[u]) for u in graph.indices[graph.indptr[v] : graph.indptr[v + 1]]}
            fresh[v] = next(k for k in range(graph.n + 1) if k not in taken)
    return fresh


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 60), m=st.integers(0, 300), seed=st.integers(0, 2**32 - 1))
def test_never_more_colors_always_valid_and_equal_to_the_reference(n, m, seed):
    graph = random_graph(n, m, seed)
    rng = np.random.default_rng(seed)
    start = first_fit(graph, rng.permutation(n))
    k = validate(graph, start).colors
    recolored, passes = recolor.recolor_colors(graph, start)
    check = validate(graph, recolored)
    assert check.valid and check.colors == passes.colors_after <= k == passes.colors_before
    # replay the passes with the independent pass and random orders inside each class
    colors, sizes = start.copy(), np.bincount(start)
    for p in range(passes.passes):
        colors = reference_pass(graph, colors, recolor.class_order(sizes, p), rng)
        sizes = np.bincount(colors)
        assert validate(graph, colors).colors <= k
    assert np.array_equal(colors, recolored)


def test_class_orders():
    sizes = np.array([3, 5, 5, 1])
    assert recolor.class_order(sizes, 0).tolist() == [3, 2, 1, 0]
    assert recolor.class_order(sizes, 1).tolist() == [1, 2, 0, 3]
    random = recolor.class_order(sizes, 3)
    assert sorted(random.tolist()) == [0, 1, 2, 3]
    assert not np.array_equal(random, recolor.class_order(sizes, 7))  # keyed by the pass
    assert np.array_equal(random, recolor.class_order(sizes, 3))  # and only by the pass


def test_a_path_in_three_colors_gets_two_in_one_reverse_pass():
    # a-b-c-d as 0 1 2 0: c (class 2) takes 0, b takes 1, then a and d (class 0) take 0 and 1
    graph = from_edges(4, np.array([0, 1, 2]), np.array([1, 2, 3]), name="path", source="path")
    start = np.array([0, 1, 2, 0], dtype=np.int32)
    steps = recolor._HostSteps(graph, start.copy())
    sizes = steps.recolor(recolor.class_order(steps.sizes(), 0))
    assert steps.colors.tolist() == [0, 1, 0, 1] and sizes.tolist() == [2, 2, 0]
    recolored, report = reduce_colors(graph, start, "ig")
    assert validate(graph, recolored).colors == 2
    assert (report.colors_before, report.colors_after) == (3, 2)


def test_a_crown_in_pairs_keeps_its_colors():
    # the crown K(n, n) minus a perfect matching in vertex order: each class is a matched pair,
    # every vertex sees every earlier pair's color, so no order of the classes helps: iterated
    # greedy never increases colors, it does not promise fewer (docs/decisions.md)
    graph = gcbench.load_graph("gen:crown?n=30")
    start = first_fit(graph, np.arange(graph.n))
    recolored, report = reduce_colors(graph, start, "ig")
    assert report.colors_before == report.colors_after == 30
    assert report.rounds == recolor.PATIENCE and validate(graph, recolored).valid


def test_an_incomplete_coloring_is_left_as_it_is():
    graph = random_graph(10, 20, 1)
    colors = np.full(10, -1, dtype=np.int32)
    recolored, report = reduce_colors(graph, colors, "ig")
    assert report is None and np.array_equal(recolored, colors)


def test_the_loop_stops_after_its_patience_and_counts_its_passes():
    graph = gcbench.load_graph("gen:kron?scale=10")
    start = first_fit(graph, np.random.default_rng(0).permutation(graph.n))
    _, report = reduce_colors(graph, start, "ig")
    assert report.colors_after < report.colors_before
    assert recolor.PATIENCE <= report.rounds <= recolor.MAX_PASSES


def test_every_algorithm_takes_reduce_ig():
    spec = algorithms.get("greedy", "cpu")
    graph = gcbench.load_graph("gen:kron?scale=10")
    plain = spec.run(graph, order="r", seed=3)
    from gcbench.algorithms.cpu.backend import BACKEND

    reduced = BACKEND.reduce(graph, plain, "ig", None)
    assert validate(graph, reduced.colors).colors <= validate(graph, plain.colors).colors
    assert reduced.trace["colors_before"] and reduced.trace["reduce_ms"][0] > 0


@pytest.mark.parametrize("n", [0, 1])
def test_tiny_graphs(n):
    graph = random_graph(n, 0, 0)
    colors = np.zeros(n, dtype=np.int32)
    recolored, report = reduce_colors(graph, colors, "ig")
    assert recolored.tolist() == colors.tolist() and report.colors_after == n


def reference_pattern_pass(pattern, colors, classes, rng) -> np.ndarray:
    """One pass over a pattern's columns written apart from the numba one: a column's
    neighbours are the columns of its rows, found through a dense 0/1 product."""
    dense = np.zeros((pattern.n_rows, pattern.n_cols), dtype=np.int64)
    for r in range(pattern.n_rows):
        dense[r, pattern.indices[pattern.indptr[r] : pattern.indptr[r + 1]]] = 1
    shares = (dense.T @ dense) > 0
    fresh = np.full(pattern.n_cols, -1, dtype=np.int32)
    for c in classes:
        for v in rng.permutation(np.flatnonzero(colors == c)):
            taken = {int(fresh[u]) for u in np.flatnonzero(shares[v]) if u != v}
            fresh[v] = next(k for k in range(pattern.n_cols + 1) if k not in taken)
    return fresh


@settings(max_examples=40, deadline=None)
@given(
    m=st.integers(1, 30),
    n=st.integers(1, 40),
    nnz=st.integers(0, 150),
    seed=st.integers(0, 2**32 - 1),
)
def test_pattern_columns_never_more_colors_and_equal_to_the_reference(m, n, nnz, seed):
    rng = np.random.default_rng(seed)
    pattern = from_entries(m, n, rng.integers(0, m, nnz), rng.integers(0, n, nnz), name="r")
    start = greedy_d2_colors(pattern, "random")
    k = int(start.max()) + 1
    recolored, passes = recolor.recolor_colors(pattern, start)
    check = validate_pattern(pattern, recolored, parallel=False)
    assert check.valid and check.colors == passes.colors_after <= k == passes.colors_before
    colors, sizes = start.copy(), np.bincount(start)
    for p in range(passes.passes):
        colors = reference_pattern_pass(pattern, colors, recolor.class_order(sizes, p), rng)
        sizes = np.bincount(colors)
    assert np.array_equal(colors, recolored)


def test_distance2_reduce_ig_on_the_cpu():
    from gcbench import color

    plain = color("gen:grid2d?side=30", "greedy", problem="pd2", order="random")
    reduced = color("gen:grid2d?side=30", "greedy", problem="pd2", order="random", reduce="ig")
    assert reduced.validation.valid and reduced.validation.recovered
    assert reduced.validation.colors <= plain.validation.colors
    assert reduced.trace["colors_before"] == [plain.validation.colors]
    assert reduced.trace["reduce_rounds"][0] >= recolor.PATIENCE


def test_a_coloring_at_its_floor_runs_no_pass():
    # a pattern colored with as many colors as its largest row: nothing to gain
    pattern = from_entries(2, 3, np.array([0, 0, 1]), np.array([0, 1, 2]), name="two rows")
    recolored, passes = recolor.recolor_colors(pattern, np.array([0, 1, 0], dtype=np.int32))
    assert passes == recolor.Passes(2, 2, 0) and recolored.tolist() == [0, 1, 0]
    # a graph with an edge never goes under two colors
    graph = from_edges(3, np.array([0, 1]), np.array([1, 2]), name="path", source="path")
    _, passes = recolor.recolor_colors(graph, np.array([0, 1, 0], dtype=np.int32))
    assert passes.passes == 0
