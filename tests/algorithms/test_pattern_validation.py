"""The Pattern validator and the compression check against brute-force oracles: distance-2
on a graph from its dense square, partial distance-2 from every pair of columns of a row."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcbench.algorithms.pattern_validation import nonzero_values, recovers, validate_pattern
from gcbench.algorithms.validation import summarise
from gcbench.errors import InputError
from gcbench.graphs.graph import Graph, from_edges
from gcbench.graphs.pattern import Pattern, adjacency, closed_neighbourhoods, from_entries


def _dense(pattern: Pattern) -> np.ndarray:
    out = np.zeros((pattern.n_rows, pattern.n_cols), dtype=bool)
    rows = np.repeat(np.arange(pattern.n_rows), pattern.row_counts)
    out[rows, pattern.indices] = True
    return out


def _within_two(graph: Graph) -> np.ndarray:
    """u ≠ v at distance 1 or 2, from (A + I)² of the dense adjacency (the test's oracle)."""
    a = np.eye(graph.n)
    rows = np.repeat(np.arange(graph.n), graph.degrees)
    a[rows, graph.indices] = 1
    near = (a @ a) > 0
    np.fill_diagonal(near, False)
    return near


def _pair_conflicts(near: np.ndarray, colors: np.ndarray) -> int:
    same = (colors[:, None] == colors[None, :]) & (colors[:, None] >= 0)
    return int(np.count_nonzero(np.triu(near & same, 1)))


def _counted_conflicts(pattern: Pattern, colors: np.ndarray) -> int:
    """The definition, entry by entry: (r, c) conflicts when a column of row r with a smaller
    id has c's color."""
    dense = _dense(pattern)
    total = 0
    for r in range(pattern.n_rows):
        cols = np.flatnonzero(dense[r])
        for i, c in enumerate(cols):
            if colors[c] >= 0 and any(colors[d] == colors[c] for d in cols[:i]):
                total += 1
    return total


@st.composite
def _colored_graphs(draw: st.DrawFn) -> tuple[Graph, np.ndarray]:
    n = draw(st.integers(1, 25))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    graph = from_edges(n, [p[0] for p in pairs], [p[1] for p in pairs])
    colors = draw(st.lists(st.integers(-1, 5), min_size=n, max_size=n))
    return graph, np.array(colors, dtype=np.int32)


@st.composite
def _colored_patterns(draw: st.DrawFn) -> tuple[Pattern, np.ndarray]:
    m, n = draw(st.integers(0, 12)), draw(st.integers(1, 15))
    entries = draw(
        st.lists(st.tuples(st.integers(0, max(m - 1, 0)), st.integers(0, n - 1)), max_size=40)
    )
    entries = entries if m else []
    pattern = from_entries(m, n, [e[0] for e in entries], [e[1] for e in entries])
    colors = draw(st.lists(st.integers(-1, 4), min_size=n, max_size=n))
    return pattern, np.array(colors, dtype=np.int64)


@settings(max_examples=80, deadline=None)
@given(_colored_graphs(), st.booleans())
def test_d2_validity_matches_the_square(case, parallel) -> None:  # type: ignore[no-untyped-def]
    graph, colors = case
    result = validate_pattern(closed_neighbourhoods(graph), colors, parallel=parallel)
    pairs = _pair_conflicts(_within_two(graph), colors)
    assert (result.conflicts == 0) == (pairs == 0)
    assert result.valid == (pairs == 0 and not np.any(colors < 0))
    assert result.conflicts == _counted_conflicts(closed_neighbourhoods(graph), colors)


@settings(max_examples=80, deadline=None)
@given(_colored_patterns(), st.booleans())
def test_pd2_counts_match_the_definition(case, parallel) -> None:  # type: ignore[no-untyped-def]
    pattern, colors = case
    result = validate_pattern(pattern, colors, parallel=parallel)
    dense = _dense(pattern)
    share = (dense.T.astype(float) @ dense.astype(float)) > 0  # columns sharing a row
    np.fill_diagonal(share, False)
    assert (result.conflicts == 0) == (_pair_conflicts(share, colors) == 0)
    assert result.conflicts == _counted_conflicts(pattern, colors)
    expected = summarise(0, colors)
    assert (result.uncolored, result.colors, result.max_color) == (
        expected.uncolored,
        expected.colors,
        expected.max_color,
    )
    assert (result.min_class, result.max_class, result.class_cv) == (
        expected.min_class,
        expected.max_class,
        expected.class_cv,
    )
    assert result.recovered is None


def test_distance_one_conflict_alone_is_caught() -> None:
    """kokkos-kernels #624: a check of distance exactly 2 (A², no diagonal) passes a coloring
    whose neighbours share a color; the rows of A + I hold every vertex with its neighbours."""
    path = from_edges(3, [0, 1], [1, 2])
    colors = np.array([0, 0, 1], dtype=np.int32)  # 0–1 adjacent and alike; 0, 2 differ
    assert validate_pattern(adjacency(path), colors).conflicts == 0  # pd2 of A: no repeat
    result = validate_pattern(closed_neighbourhoods(path), colors)
    assert result.conflicts == 2 and not result.valid  # rows N[0] and N[1] both hold 0 and 1
    assert not recovers(closed_neighbourhoods(path), colors)


def test_crafted_conflict_counts() -> None:
    # Row 0: columns 0..3 colored 0, 0, 0, 1 -> 2; row 1: columns 1, 4 colored 0, -1 -> 0;
    # row 2: columns 3, 4, 5 colored 1, -1, 1 -> 1.
    pattern = from_entries(3, 6, [0, 0, 0, 0, 1, 1, 2, 2, 2], [0, 1, 2, 3, 1, 4, 3, 4, 5])
    colors = np.array([0, 0, 0, 1, -1, 1])
    for parallel in (True, False):
        result = validate_pattern(pattern, colors, parallel=parallel)
        assert (result.conflicts, result.uncolored, result.colors, result.max_color) == (3, 1, 2, 1)
        assert (result.min_class, result.max_class) == (2, 3)


def test_rectangular_pd2_and_its_rows() -> None:
    # J is 2 × 4: row 0 holds columns 0, 1, 2; row 1 columns 2, 3.
    pattern = from_entries(2, 4, [0, 0, 0, 1, 1], [0, 1, 2, 2, 3])
    good = np.array([0, 1, 2, 0])  # columns 0 and 3 share no row
    assert validate_pattern(pattern, good).valid
    assert recovers(pattern, good)
    bad = np.array([0, 1, 2, 2])  # columns 2 and 3 share row 1
    assert validate_pattern(pattern, bad).conflicts == 1
    assert not recovers(pattern, bad)
    rows = pattern.transposed()  # pd2-rows: rows 0 and 1 share column 2
    assert validate_pattern(rows, np.array([0, 0])).conflicts == 1
    assert validate_pattern(rows, np.array([0, 1])).valid


def test_wrong_length_is_an_error() -> None:
    pattern = from_entries(2, 3, [0], [1])
    with pytest.raises(InputError, match="2 colors given for 3 columns"):
        validate_pattern(pattern, np.zeros(2, dtype=np.int32))
    with pytest.raises(InputError, match="4 colors given for 3 columns"):
        recovers(pattern, np.zeros(4, dtype=np.int32))


def test_empty_patterns() -> None:
    none = from_entries(0, 0, [], [])
    result = validate_pattern(none, np.zeros(0, dtype=np.int32))
    assert (result.conflicts, result.uncolored, result.colors, result.valid) == (0, 0, 0, True)
    assert recovers(none, np.zeros(0, dtype=np.int32))
    no_rows = from_entries(0, 3, [], [])
    assert validate_pattern(no_rows, np.zeros(3, dtype=np.int32), parallel=False).valid
    assert recovers(no_rows, np.zeros(3, dtype=np.int32))


def test_parallel_and_serial_agree_on_a_larger_pattern() -> None:
    rng = np.random.default_rng(5)
    rows, cols = rng.integers(0, 3000, 40_000), rng.integers(0, 2000, 40_000)
    rows[:500] = 7  # one long row among short ones
    pattern = from_entries(3000, 2000, rows, cols)
    colors = rng.integers(-1, 60, 2000)
    assert validate_pattern(pattern, colors) == validate_pattern(pattern, colors, parallel=False)
    assert validate_pattern(pattern, colors).conflicts == _counted_conflicts(pattern, colors)


@settings(max_examples=60, deadline=None)
@given(_colored_patterns())
def test_recovers_exactly_when_valid(case) -> None:  # type: ignore[no-untyped-def]
    pattern, colors = case
    assert recovers(pattern, colors) == validate_pattern(pattern, colors).valid
    distinct = np.arange(pattern.n_cols)
    assert recovers(pattern, distinct)
    assert recovers(pattern, distinct * 1_000_000_007)  # sparse ids: only equality matters


def test_uncolored_column_does_not_recover() -> None:
    pattern = from_entries(2, 3, [0, 1], [0, 2])  # column 1 has no nonzero
    assert recovers(pattern, np.array([0, 0, 0]))
    assert not recovers(pattern, np.array([0, -1, 0]))


def test_nonzero_values_are_positive_and_deterministic() -> None:
    rows = np.array([0, 1, 2**31 - 1, 5, 5], dtype=np.int32)
    cols = np.array([0, 0, 2**31 - 1, 7, 8], dtype=np.int64)
    values = nonzero_values(rows, cols)
    assert values.dtype == np.float64
    assert np.all((values >= 1.0) & (values < 2.0))
    assert np.array_equal(values, nonzero_values(rows.tolist(), cols.tolist()))
    expected = [
        1 + ((r * 7919 + c * 104729) % 1021) / 1021
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True)
    ]
    assert values.tolist() == expected
