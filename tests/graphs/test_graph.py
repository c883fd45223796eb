"""Normalisation (docs/architecture.md, "The graph"): the invariant, idempotence, what it
reports, size refusal."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gcbench.errors import GraphTooLargeError, InputError
from gcbench.graphs.graph import Graph, check_gpu_size, check_invariant, from_csr, from_edges

entries = st.integers(min_value=1, max_value=40).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=0, max_size=120),
    )
)


def _reference(n: int, pairs: list[tuple[int, int]]) -> sp.csr_matrix:
    rows = np.array([p[0] for p in pairs], dtype=np.int64)
    cols = np.array([p[1] for p in pairs], dtype=np.int64)
    a = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    a = (a + a.T).tocoo()
    off = a.row != a.col
    a = sp.csr_matrix((a.data[off], (a.row[off], a.col[off])), shape=(n, n))
    a.sort_indices()
    return a


@settings(max_examples=150, deadline=None)
@given(entries)
def test_normalisation_gives_invariant_and_matches_scipy(case):
    n, pairs = case
    g = from_edges(n, [p[0] for p in pairs], [p[1] for p in pairs])
    check_invariant(g)
    ref = _reference(n, pairs)
    assert np.array_equal(g.indptr, ref.indptr)
    assert np.array_equal(g.indices, ref.indices)


@settings(max_examples=100, deadline=None)
@given(entries)
def test_normalisation_is_idempotent(case):
    n, pairs = case
    g = from_edges(n, [p[0] for p in pairs], [p[1] for p in pairs])
    again = from_csr(g.indptr, g.indices)
    assert np.array_equal(again.indptr, g.indptr)
    assert np.array_equal(again.indices, g.indices)
    assert again.normalisation.self_loops == 0
    assert again.normalisation.duplicates == 0
    assert not again.normalisation.directed


def test_report_counts_loops_duplicates_and_direction():
    g = from_edges(4, [0, 0, 1, 2, 2, 3], [1, 1, 1, 3, 3, 0])
    assert g.normalisation.self_loops == 1
    assert g.normalisation.duplicates == 2  # (0,1) and (2,3) twice
    assert g.normalisation.directed
    assert g.normalisation.asymmetric_added == 3  # reverses of (0,1), (2,3), (3,0)
    assert g.m == 3
    sym = from_edges(3, [0, 1, 1, 2], [1, 0, 2, 1])
    assert not sym.normalisation.directed
    assert sym.normalisation.asymmetric_added == 0


def test_statistics():
    g = from_edges(5, [0, 0, 0, 1], [1, 2, 3, 2])
    assert (g.n, g.m, g.nnz) == (5, 4, 8)
    assert g.max_degree == 3
    assert g.avg_degree == pytest.approx(8 / 5)
    assert list(g.degree_histogram()) == [1, 1, 2, 1]
    u, v = g.edges()
    assert sorted(zip(u.tolist(), v.tolist(), strict=True)) == [(0, 1), (0, 2), (0, 3), (1, 2)]


def test_empty_and_isolated():
    empty = from_edges(0, [], [])
    assert (empty.n, empty.m, empty.max_degree, empty.avg_degree) == (0, 0, 0, 0.0)
    isolated = from_edges(3, [], [])
    check_invariant(isolated)
    assert isolated.indptr.tolist() == [0, 0, 0, 0]


def test_out_of_range_and_negative_are_input_errors():
    with pytest.raises(InputError, match=r"entry 1 \(2, 0\) names a vertex out of range 0..1"):
        from_edges(2, [0, 2], [1, 0])
    with pytest.raises(InputError, match="out of range"):
        from_edges(2, np.array([0], np.int32), np.array([-1], np.int32))
    with pytest.raises(InputError, match="negative"):
        from_edges(-1, [], [])
    with pytest.raises(InputError, match="must be integers"):
        from_edges(2, [0.5], [1.0])
    with pytest.raises(GraphTooLargeError, match="int32 vertex ids"):
        from_edges(2**31, [], [])


@pytest.mark.parametrize(
    ("n", "entries", "hubs"),
    [
        (600, 60_000, 0),  # rows of ~200 keys: sort and radix (11-bit keys: one pass)
        (5_000, 200_000, 50),  # two radix passes
        (2**22, 100_000, 20),  # 23-bit keys: three passes; hub rows of ~5000 keys
    ],
)
def test_long_rows_match_scipy(n, entries, hubs):
    """Rows long enough for the radix sort (gcbench/graphs/_normalise.py), with duplicates,
    loops and both directions, against scipy's A + Aᵀ."""
    rng = np.random.default_rng(n)
    rows = rng.integers(0, n, entries)
    if hubs:
        rows[: entries // 2] = rng.integers(0, hubs, entries // 2)
    cols = rng.integers(0, n, entries)
    cols[:100] = rows[:100]  # self loops
    rows, cols = np.concatenate([rows, cols[:500]]), np.concatenate([cols, rows[:500]])
    g = from_edges(n, rows.astype(np.int32), cols.astype(np.int32))
    check_invariant(g)
    ref = _reference(n, list(zip(rows.tolist(), cols.tolist(), strict=True)))
    assert np.array_equal(g.indptr, ref.indptr)
    assert np.array_equal(g.indices, ref.indices)
    stored = {(u, v) for u, v in zip(rows.tolist(), cols.tolist(), strict=True) if u != v}
    assert g.normalisation.self_loops == int(np.count_nonzero(rows == cols))
    assert g.normalisation.duplicates == rows.size - g.normalisation.self_loops - len(stored)
    assert g.normalisation.asymmetric_added == g.nnz - len(stored)


def test_a_row_beyond_the_radix_scratch_bound():
    """A star whose centre row exceeds RADIX_MAX is sorted by comparison instead."""
    from gcbench.graphs._normalise import RADIX_MAX

    leaves = RADIX_MAX + 1000
    order = np.random.default_rng(0).permutation(leaves).astype(np.int32) + 1
    g = from_edges(leaves + 1, np.zeros(leaves, np.int32), order)
    assert g.degrees[0] == leaves
    assert np.array_equal(g.indices[:leaves], np.arange(1, leaves + 1))
    assert np.array_equal(g.indices[leaves:], np.zeros(leaves))


def test_gpu_size_refused_with_clear_error():
    # Views with a fake nnz: the check reads sizes only, so no 2^31-entry array is needed.
    big = Graph("huge", np.array([0, 2**31], dtype=np.int64), np.zeros(1, dtype=np.int32))
    small = from_edges(2, [0], [1])
    check_gpu_size(small)
    huge = Graph(big.name, big.indptr, np.lib.stride_tricks.as_strided(
        np.zeros(1, dtype=np.int32), shape=(2**31,), strides=(0,)))  # fmt: skip
    with pytest.raises(GraphTooLargeError, match="huge.*int32"):
        check_gpu_size(huge)
