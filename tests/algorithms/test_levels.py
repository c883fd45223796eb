"""Levels of a level-scheduled lower-triangular solve, natural vs reordered by color classes;
the factor L the solves are timed on; the GPU timing."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from hypothesis import given, settings
from hypothesis import strategies as st

import gcbench
from gcbench import api
from gcbench.algorithms import levels
from gcbench.algorithms.cpu.greedy import ORDERS, greedy_colors
from gcbench.errors import GcbenchError, InputError
from gcbench.graphs.graph import from_edges


def checkerboard(side: int) -> np.ndarray:
    v = np.arange(side * side)
    return ((v // side + v % side) % 2).astype(np.int32)


@pytest.mark.parametrize("side", [1, 2, 5, 64, 257])
def test_a_grid_has_2_side_minus_1_levels_and_2_after_a_2_coloring(side):
    graph = gcbench.load_graph(f"gen:grid2d?side={side}")
    assert levels.level_count(graph) == 2 * side - 1
    colored = levels.level_count(graph, levels.color_order(checkerboard(side)))
    assert colored == min(2, side * side)


def reference_levels(graph, order) -> int:
    """The longest chain through L = strictly lower triangle of P A Pᵀ, by scipy: the
    DAG's longest path, relaxing rows in order over an explicit permuted matrix."""
    n = graph.n
    a = sp.csr_matrix((np.ones(graph.nnz), graph.indices, graph.indptr), shape=(n, n))
    p = sp.csr_matrix((np.ones(n), (np.arange(n), order)), shape=(n, n))
    lower = sp.tril(p @ a @ p.T, k=-1).tocsr()
    depth = np.ones(n, dtype=np.int64)
    for i in range(n):
        row = lower.indices[lower.indptr[i] : lower.indptr[i + 1]]
        if row.size:
            depth[i] = depth[row].max() + 1
    return int(depth.max()) if n else 0


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 60), st.sampled_from(ORDERS))
def test_levels_match_a_scipy_reference_and_colored_levels_never_exceed_the_colors(seed, n, order):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(0, 3 * n + 1))
    graph = from_edges(n, rng.integers(0, max(n, 1), m), rng.integers(0, max(n, 1), m))
    colors = greedy_colors(graph, order)
    by_color = levels.color_order(colors)
    shuffled = rng.permutation(n).astype(np.int32)
    assert levels.level_count(graph) == reference_levels(graph, np.arange(n))
    assert levels.level_count(graph, shuffled) == reference_levels(graph, shuffled)
    colored = levels.level_count(graph, by_color)
    assert colored == reference_levels(graph, by_color)
    assert colored <= len(set(colors.tolist()))


def test_the_factor_is_the_permuted_lower_triangle_and_solves_to_ones():
    graph = gcbench.load_graph("gen:delaunay?scale=9")
    order = levels.color_order(greedy_colors(graph, "sd"))
    indptr, indices, data = levels.lower_factor(graph, order)
    lower = sp.csr_matrix((data, indices, indptr), shape=(graph.n, graph.n))
    assert lower.has_sorted_indices and indptr.dtype == indices.dtype == np.int32
    a = sp.csr_matrix((np.ones(graph.nnz), graph.indices, graph.indptr), shape=lower.shape)
    p = sp.csr_matrix((np.ones(graph.n), (np.arange(graph.n), order)), shape=lower.shape)
    pattern = sp.tril(p @ a @ p.T, k=-1) + sp.identity(graph.n)
    assert ((pattern != 0) != (lower != 0)).nnz == 0 and lower.nnz == graph.m + graph.n
    x = spla.spsolve_triangular(lower, np.ones(graph.n), lower=True)
    assert np.array_equal(x, np.ones(graph.n))


def test_an_empty_matrix_has_no_levels():
    graph = from_edges(0, [], [])
    assert levels.level_count(graph) == 0
    assert levels.LevelMeter(graph, solve=False).measure(np.zeros(0, np.int32)).levels_colored == 0


def test_bad_orders_and_colorings_are_input_errors():
    graph = gcbench.load_graph("gen:cycle?n=6")
    with pytest.raises(InputError, match="not a permutation"):
        levels.level_count(graph, np.array([0, 0, 1, 2, 3, 4], dtype=np.int32))
    meter = levels.LevelMeter(graph, solve=False)
    with pytest.raises(InputError, match="complete coloring"):
        meter.measure(np.array([0, 1, 0, 1, 0, -1]))
    with pytest.raises(InputError, match="solve reps"):
        levels.LevelMeter(graph, solve=False, reps=0)


def test_the_meter_computes_the_natural_order_once():
    graph = gcbench.load_graph("gen:grid2d?side=20")
    meter = levels.LevelMeter(graph, solve=False)
    first = meter.measure(checkerboard(20))
    assert first == levels.LevelMetrics(39, 2, None, None)
    assert meter.natural() is meter.natural()
    assert first.columns() == {"levels_natural": 39, "levels_colored": 2,
                               "trsv_natural_ms": None, "trsv_colored_ms": None}  # fmt: skip


def test_report_without_solving(data_dir):
    rep = api.levels("gen:grid2d?side=30", "greedy", solve=False, order="ldf")
    assert rep.metrics.levels_natural == 59 and rep.metrics.levels_colored <= rep.colors
    assert rep.params["order"] == "ldf" and rep.solve_note == "not timed (--no-solve)"


def test_report_refuses_an_invalid_coloring(data_dir):
    from gcbench.algorithms.registry import AlgorithmSpec, Coloring, register, unregister

    def broken(graph, **_):
        return Coloring(np.zeros(graph.n, dtype=np.int32), 1)

    register(AlgorithmSpec("test-broken", "cpu", "test", broken))
    try:
        with pytest.raises(GcbenchError, match="invalid coloring .*nothing to reorder by"):
            api.levels("gen:cycle?n=6", "test-broken", solve=False)
    finally:
        unregister("test-broken")


@pytest.mark.gpu
def test_the_gpu_solves_are_timed_and_checked(data_dir):
    rep = api.levels("gen:grid2d?side=256", "ecl-gc", reps=3)
    m = rep.metrics
    assert rep.solve_note == "" and m.levels_natural == 511 and m.levels_colored <= rep.colors
    assert m.trsv_natural_ms > 0 and m.trsv_colored_ms > 0


@pytest.mark.gpu
def test_solve_ms_of_an_empty_matrix_is_zero():
    assert levels.solve_ms(from_edges(0, [], []), np.zeros(0, np.int32)) == 0.0


def test_the_metrics_name_the_csv_columns():
    """LevelMetrics' fields are the columns --metrics levels fills (results.LEVEL_COLUMNS)."""
    from gcbench.bench.results import LEVEL_COLUMNS

    assert tuple(levels.LevelMetrics(3, 2, 1.5, None).columns()) == LEVEL_COLUMNS
