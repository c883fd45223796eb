"""The Pattern type (gcbench/graphs/pattern.py): building, views, and the checks, against
scipy.sparse as the oracle."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from gcbench.errors import GraphTooLargeError, InputError
from gcbench.graphs import generators
from gcbench.graphs.graph import INT32_LIMIT, from_edges
from gcbench.graphs.pattern import (
    Pattern,
    adjacency,
    build_bytes,
    check_gpu_size,
    check_pattern,
    closed_neighbourhoods,
    from_entries,
)


def random_entries(m: int, n: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, m, count), rng.integers(0, n, count)


def scipy_csr(m: int, n: int, rows, cols) -> sp.csr_matrix:
    """The oracle: the pattern of the entries, duplicates summed, sorted."""
    matrix = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(m, n)).tocsr()
    matrix.sum_duplicates()
    matrix.sort_indices()
    return matrix


def assert_matches(pattern: Pattern, matrix: sp.spmatrix) -> None:
    assert (pattern.n_rows, pattern.n_cols) == matrix.shape
    np.testing.assert_array_equal(pattern.indptr, matrix.indptr)
    np.testing.assert_array_equal(pattern.indices, matrix.indices)


@pytest.mark.parametrize(
    ("m", "n", "count", "seed"), [(7, 11, 60, 0), (40, 3, 200, 1), (1, 1, 5, 2)]
)
def test_from_entries_sorts_and_keeps_one_of_each_entry(m, n, count, seed):
    rows, cols = random_entries(m, n, count, seed)
    pattern = from_entries(m, n, rows, cols, name="r", source="here")
    check_pattern(pattern)
    assert_matches(pattern, scipy_csr(m, n, rows, cols))
    assert (pattern.name, pattern.source, pattern.symmetric) == ("r", "here", False)
    assert pattern.indptr.dtype == np.int64 and pattern.indices.dtype == np.int32
    assert pattern.nnz < count  # duplicates were dropped


def test_from_entries_keeps_the_diagonal_and_symmetrises_nothing():
    pattern = from_entries(3, 3, [0, 1, 2, 0], [0, 1, 2, 2])
    assert pattern.indptr.tolist() == [0, 2, 3, 4]
    assert pattern.indices.tolist() == [0, 2, 1, 2]
    assert pattern.columns[0].tolist() == [0, 1, 2, 4]  # column 2 holds rows 0 and 2


def test_from_entries_takes_lists_and_empty_input():
    assert from_entries(0, 0, [], []).indptr.tolist() == [0]
    empty = from_entries(2, 5, [], [])
    assert (empty.nnz, empty.indptr.tolist(), empty.max_row, empty.max_col) == (0, [0, 0, 0], 0, 0)
    assert from_entries(1, 3, [0, 0], [2.0, 1.0]).indices.tolist() == [1, 2]


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((-1, 3, [], []), InputError, "negative dimension"),
        ((2, 3, [0, 1], [0]), InputError, "differ in length"),
        ((2, 3, [0, 2], [0, 0]), InputError, r"entry 1 \(2, 0\) is outside the 2 × 3 matrix"),
        ((2, 3, [0, 1], [3, 0]), InputError, r"entry 0 \(0, 3\) is outside"),
        ((2, 3, [0, -1], [0, 0]), InputError, r"entry 1 \(-1, 0\)"),
        ((INT32_LIMIT + 1, 3, [], []), GraphTooLargeError, "int32 ids"),
    ],
)
def test_from_entries_refusals_are_one_line(args, error, message):
    with pytest.raises(error, match=message) as info:
        from_entries(*args, name="bad")
    assert str(info.value).startswith("bad: ") and "\n" not in str(info.value)


def test_from_entries_stays_within_its_estimate():
    rows, cols = random_entries(500, 20_000, 400_000, 3)
    rows, cols = rows.astype(np.int32), cols.astype(np.int32)
    tracemalloc.start()
    try:
        from_entries(500, 20_000, rows, cols)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= build_bytes(500, rows.size)
    assert build_bytes(500, rows.size) - peak < (64 << 20) + 2 * rows.size  # not far above


def random_graph(n: int, m: int, seed: int):
    rows, cols = random_entries(n, n, m, seed)
    return from_edges(n, rows, cols, name=f"g{seed}")


GRAPHS = [
    random_graph(50, 120, 0),
    random_graph(300, 2000, 1),
    random_graph(30, 10, 2),  # isolated vertices
    generators.complete(6),
    generators.star(5),
    generators.empty(4),
    generators.empty(0),
]


def graph_matrix(graph) -> sp.csr_matrix:
    data = np.ones(graph.nnz)
    return sp.csr_matrix((data, graph.indices, graph.indptr), shape=(graph.n, graph.n))


@pytest.mark.parametrize("graph", GRAPHS, ids=lambda g: g.name)
def test_closed_neighbourhoods_is_the_pattern_of_a_plus_i(graph):
    pattern = closed_neighbourhoods(graph)
    check_pattern(pattern)
    expected = (graph_matrix(graph) + sp.identity(graph.n, format="csr")).tocsr()
    expected.sort_indices()
    assert_matches(pattern, expected)
    assert pattern.symmetric and pattern.name == graph.name
    assert pattern.max_row == (graph.max_degree + 1 if graph.n else 0)


@pytest.mark.parametrize("graph", GRAPHS, ids=lambda g: g.name)
def test_adjacency_shares_the_graphs_arrays(graph):
    pattern = adjacency(graph)
    check_pattern(pattern)
    assert pattern.indptr is graph.indptr and pattern.indices is graph.indices
    assert pattern.symmetric and (pattern.n_rows, pattern.n_cols) == (graph.n, graph.n)
    assert not np.any(np.repeat(np.arange(graph.n), graph.degrees) == graph.indices)  # no diagonal
    assert pattern.transposed() is pattern
    assert pattern.columns[0] is graph.indptr


@pytest.mark.parametrize(("m", "n", "seed"), [(9, 14, 4), (25, 6, 5), (3, 0, 6), (0, 4, 7)])
def test_columns_and_transpose_against_scipy(m, n, seed):
    rows, cols = random_entries(m, n, 4 * (m + n), seed) if m and n else ([], [])
    pattern = from_entries(m, n, rows, cols, name="p")
    csc = scipy_csr(m, n, rows, cols).tocsc()
    csc.sort_indices()
    col_ptr, col_rows = pattern.columns
    np.testing.assert_array_equal(col_ptr, csc.indptr)
    np.testing.assert_array_equal(col_rows, csc.indices)
    np.testing.assert_array_equal(pattern.col_counts, np.diff(csc.indptr))
    flipped = pattern.transposed()
    check_pattern(flipped)
    assert (flipped.n_rows, flipped.n_cols, flipped.name) == (n, m, "p")
    again = flipped.transposed("q")
    assert (again.n_rows, again.n_cols, again.name) == (m, n, "q")
    np.testing.assert_array_equal(again.indptr, pattern.indptr)
    np.testing.assert_array_equal(again.indices, pattern.indices)


def test_row_statistics():
    pattern = from_entries(3, 4, [0, 0, 0, 2, 2], [0, 1, 3, 1, 2])
    assert pattern.row_counts.tolist() == [3, 0, 2]
    assert (pattern.max_row, pattern.max_col, pattern.pairs, pattern.n) == (3, 2, 13, 4)


def broken(pattern: Pattern, **arrays) -> Pattern:
    fields = {"indptr": pattern.indptr, "indices": pattern.indices, **arrays}
    return Pattern("broken", pattern.n_rows, pattern.n_cols, fields["indptr"], fields["indices"])


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ({"indices": np.array([0, 2, 1, 1, 2], np.int32)}, "not strictly sorted"),
        ({"indices": np.array([0, 1, 1, 1, 2], np.int32)}, "not strictly sorted"),
        ({"indices": np.array([0, 1, 4, 1, 2], np.int32)}, "out of range"),
        ({"indices": np.array([0, 1, 2, 1, 2], np.int64)}, "wrong dtypes"),
        ({"indptr": np.array([0, 3, 2, 5], np.int64)}, "malformed indptr"),
        ({"indptr": np.array([0, 3, 5], np.int64)}, "malformed indptr"),
    ],
)
def test_check_pattern_finds_broken_invariants(damage, message):
    good = from_entries(3, 4, [0, 0, 0, 2, 2], [0, 1, 2, 1, 2])
    check_pattern(good)
    with pytest.raises(InputError, match=message):
        check_pattern(broken(good, **damage))


def test_check_pattern_checks_a_symmetric_claim():
    check_pattern(from_entries(2, 2, [0, 1, 1], [1, 0, 1], symmetric=True))
    with pytest.raises(InputError, match="not its own transpose"):
        check_pattern(from_entries(2, 2, [0], [1], symmetric=True))
    with pytest.raises(InputError, match="not its own transpose"):
        check_pattern(from_entries(2, 3, [], [], symmetric=True))


def test_a_symmetric_pattern_shares_its_rows_as_columns():
    pattern = from_entries(3, 3, [0, 1, 1, 2], [1, 0, 2, 1], symmetric=True)
    assert pattern.columns[1] is pattern.indices
    assert pattern.transposed() is pattern


def test_gpu_size_check():
    pattern = from_entries(1, 2, [0], [1])
    check_gpu_size(pattern)
    zeros = np.broadcast_to(np.int32(0), (INT32_LIMIT + 1,))  # no memory: one element
    huge = Pattern("huge", 1, 1, np.array([0, INT32_LIMIT + 1]), zeros)
    with pytest.raises(GraphTooLargeError, match="int32 GPU offsets"):
        check_gpu_size(huge)
