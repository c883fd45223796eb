"""The distance-2 column orders (docs/distance2.md, "Orders"): each against a plain-Python
computation from explicit neighbour sets (the dense boolean product AᵀA), deterministic,
permutations, and the serial greedy valid in each."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcbench.algorithms import pattern_orders
from gcbench.algorithms.cpu.greedy_d2 import greedy_d2_colors
from gcbench.algorithms.pattern_validation import validate_pattern
from gcbench.algorithms.priority import PATTERN_ORDERS, pattern_order, pattern_rank
from gcbench.graphs.graph import Graph, from_edges
from gcbench.graphs.pattern import Pattern, closed_neighbourhoods, from_entries


def _neighbours(pattern: Pattern) -> list[set[int]]:
    """Each column's distance-2 neighbours from the dense boolean product AᵀA (the oracle)."""
    a = np.zeros((pattern.n_rows, pattern.n_cols))  # float: BLAS, exact for these counts
    rows = np.repeat(np.arange(pattern.n_rows), np.diff(pattern.indptr))
    a[rows, pattern.indices] = 1
    near = (a.T @ a) > 0
    np.fill_diagonal(near, False)
    return [set(np.flatnonzero(near[c]).tolist()) for c in range(pattern.n_cols)]


def _largest_first(pattern: Pattern) -> list[int]:
    near = _neighbours(pattern)
    return sorted(range(len(near)), key=lambda c: (-len(near[c]), c))


def _met(pattern: Pattern, descending: bool) -> list[list[int]]:
    """Each column's distance-2 neighbours in the order a scan meets them first: its rows,
    then each row's columns, ascending (or both descending)."""
    members = [
        pattern.indices[pattern.indptr[r] : pattern.indptr[r + 1]].tolist()
        for r in range(pattern.n_rows)
    ]
    rows_of: list[list[int]] = [[] for _ in range(pattern.n_cols)]
    for r, cols in enumerate(members):
        for c in cols:
            rows_of[c].append(r)
    met = []
    for c in range(pattern.n_cols):
        seen: list[int] = []
        for r in sorted(rows_of[c], reverse=descending):
            for u in sorted(members[r], reverse=descending):
                if u != c and u not in seen:
                    seen.append(u)
        met.append(seen)
    return met


def _smallest_last(pattern: Pattern) -> list[int]:
    """Remove, while any remain, the remaining column with fewest remaining neighbours, the
    one whose count changed last among those (stamps: the ids at the start); the order is
    the removals reversed."""
    near, met = _neighbours(pattern), _met(pattern, descending=False)
    stamp = list(range(pattern.n_cols))
    clock = pattern.n_cols
    remaining = set(range(pattern.n_cols))
    removed = []
    while remaining:
        c = min(remaining, key=lambda v: (len(near[v] & remaining), -stamp[v]))
        remaining.discard(c)
        removed.append(c)
        for u in met[c]:
            if u in remaining:
                stamp[u], clock = clock, clock + 1
    return removed[::-1]


def _incidence_degree(pattern: Pattern) -> list[int]:
    """Take, while any are left, the column with most ordered neighbours, the one whose count
    changed last among those (stamps: the ids reversed at the start)."""
    near, met = _neighbours(pattern), _met(pattern, descending=True)
    n = pattern.n_cols
    stamp = [n - 1 - c for c in range(n)]
    clock = n
    ordered: list[int] = []
    done: set[int] = set()
    left = set(range(n))
    while left:
        c = min(left, key=lambda v: (-len(near[v] & done), -stamp[v]))
        left.discard(c)
        done.add(c)
        ordered.append(c)
        for u in met[c]:
            if u in left:
                stamp[u], clock = clock, clock + 1
    return ordered


REFERENCES = {
    "largest-first": _largest_first,
    "smallest-last": _smallest_last,
    "incidence-degree": _incidence_degree,
}


def _random(seed: int, m: int, n: int, nnz: int) -> Pattern:
    rng = np.random.default_rng(seed)
    return from_entries(m, n, rng.integers(0, m, nnz), rng.integers(0, n, nnz), name=f"r{seed}")


def _patterns() -> list[Pattern]:
    """Rectangular, with empty rows and columns, dense, sparse, and their transposes; the
    closed neighbourhoods of a few small graphs."""
    shapes = [(30, 40, 60), (40, 25, 200), (12, 50, 40), (60, 60, 90), (5, 30, 100), (50, 8, 70)]
    patterns = [_random(seed, *shape) for seed, shape in enumerate(shapes)]
    patterns += [p.transposed() for p in patterns]
    for seed in range(4):
        rng = np.random.default_rng(100 + seed)
        n = 30 + 10 * seed
        graph = from_edges(n, rng.integers(0, n, 2 * n), rng.integers(0, n, 2 * n))
        patterns.append(closed_neighbourhoods(graph))
    return patterns


PATTERNS = _patterns()


@pytest.mark.parametrize("index", range(len(PATTERNS)))
def test_distinct_degrees_count_the_dense_product(index: int) -> None:
    pattern = PATTERNS[index]
    expected = [len(s) for s in _neighbours(pattern)]
    degrees = pattern_orders.distinct_degrees(pattern)
    assert degrees.dtype == np.int64 and degrees.tolist() == expected


@pytest.mark.parametrize("order", sorted(REFERENCES))
@pytest.mark.parametrize("index", range(len(PATTERNS)))
def test_orders_equal_the_plain_python_simulation(index: int, order: str) -> None:
    pattern = PATTERNS[index]
    visit = pattern_order(pattern, order)
    assert visit.dtype == np.int32
    assert visit.tolist() == REFERENCES[order](pattern)


@settings(max_examples=60, deadline=None)
@given(
    st.tuples(st.integers(1, 12), st.integers(1, 14)).flatmap(
        lambda shape: st.tuples(
            st.just(shape),
            st.lists(
                st.tuples(st.integers(0, shape[0] - 1), st.integers(0, shape[1] - 1)),
                max_size=4 * shape[1],
            ),
        )
    )
)
def test_orders_equal_the_simulation_on_small_matrices(case) -> None:  # type: ignore[no-untyped-def]
    """Many ties: small matrices of few distinct degrees."""
    (m, n), entries = case
    pattern = from_entries(m, n, [e[0] for e in entries], [e[1] for e in entries])
    for order, reference in REFERENCES.items():
        assert pattern_order(pattern, order).tolist() == reference(pattern), order


def _rebuilt(pattern: Pattern, seed: int) -> Pattern:
    """The same matrix from its entries shuffled and repeated: another build, same arrays."""
    rows = np.repeat(np.arange(pattern.n_rows), np.diff(pattern.indptr))
    cols = pattern.indices.astype(np.int64)
    pick = np.random.default_rng(seed).permutation(np.concatenate([np.arange(rows.size)] * 2))
    return from_entries(pattern.n_rows, pattern.n_cols, rows[pick], cols[pick])


@pytest.mark.parametrize("order", PATTERN_ORDERS)
def test_every_order_is_a_deterministic_permutation(order: str) -> None:
    for pattern in PATTERNS[::3]:
        visit = pattern_order(pattern, order)
        assert visit.dtype == np.int32
        assert sorted(visit.tolist()) == list(range(pattern.n_cols))
        np.testing.assert_array_equal(pattern_order(pattern, order), visit)
        np.testing.assert_array_equal(pattern_order(_rebuilt(pattern, 7), order), visit)
        rank = pattern_rank(pattern, order)
        np.testing.assert_array_equal(rank[visit], np.arange(pattern.n_cols))


def test_ties_throughout_give_the_natural_order() -> None:
    """One full row: every column has the same degree and incidence throughout, so every
    degree order is the natural one; columns in no row (degree 0) too."""
    full = from_entries(1, 7, np.zeros(7, dtype=np.int64), np.arange(7))
    empty = from_entries(2, 5, [], [])
    for pattern in (full, empty):
        for order in REFERENCES:
            assert pattern_order(pattern, order).tolist() == list(range(pattern.n_cols)), order


def test_hand_worked_example() -> None:
    """Rows {0, 1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}, {0, 1}: distinct degrees
    [3, 2, 3, 2, 2, 2] (counted with multiplicity, column 1 would have 3: row {0, 1} repeats
    the pair of row {0, 1, 2}; largest-first puts 2 before it).

    Smallest-last removes 5 (degree 2, the highest id on top), then 4 and 3 (degrees 1 as
    their neighbours go), 2 (degree 2, {0, 1}, on top), 1 and 0. Incidence-degree takes 0;
    its neighbours, met rows descending as 1, 5, 2, reach one ordered neighbour each, 2 last,
    so 2 comes next; then 1 (two: 0 and 2), 3 and 4 (one each, the last to reach it), 5."""
    rows = [[0, 1, 2], [2, 3], [3, 4], [4, 5], [5, 0], [0, 1]]
    pattern = from_entries(
        6, 6, [r for r, cols in enumerate(rows) for _ in cols], [c for cols in rows for c in cols]
    )
    assert pattern_orders.distinct_degrees(pattern).tolist() == [3, 2, 3, 2, 2, 2]
    assert pattern_order(pattern, "largest-first").tolist() == [0, 2, 1, 3, 4, 5]
    assert pattern_order(pattern, "smallest-last").tolist() == [0, 1, 2, 3, 4, 5]
    assert pattern_order(pattern, "incidence-degree").tolist() == [0, 2, 1, 3, 4, 5]


def test_d2_of_a_star_needs_every_color_in_every_order() -> None:
    """d2 of a star: the hub's closed neighbourhood holds every vertex (degree n − 1), each
    leaf sees all the others too; all degrees tie, so the order is natural and the greedy
    needs n colors in every order."""
    star = from_edges(6, np.zeros(5, dtype=np.int64), np.arange(1, 6))
    pattern = closed_neighbourhoods(star)
    for order in PATTERN_ORDERS:
        assert validate_pattern(pattern, greedy_d2_colors(pattern, order)).colors == 6


def test_largest_first_counts_distinct_neighbours_not_shared_rows() -> None:
    """Column 0 shares four rows with column 1 alone (one neighbour, four with multiplicity);
    column 2 shares one row with columns 3 and 4 (two neighbours): largest-first takes 2, 3
    and 4 first (the ranking by multiplicity, dropped in issue 44, took 0 and 1)."""
    rows = [[0, 1], [0, 1], [0, 1], [0, 1], [2, 3, 4]]
    pattern = from_entries(
        5, 5, [r for r, cols in enumerate(rows) for _ in cols], [c for cols in rows for c in cols]
    )
    assert pattern_order(pattern, "largest-first").tolist() == [2, 3, 4, 0, 1]


@pytest.mark.parametrize("order", PATTERN_ORDERS)
def test_greedy_in_each_order_is_valid(order: str) -> None:
    for pattern in PATTERNS:
        colors = greedy_d2_colors(pattern, order)
        result = validate_pattern(pattern, colors)
        assert result.valid and result.colors >= pattern.max_row


def test_d2_degree_of_a_graph_is_its_distance_two_neighbourhood() -> None:
    """On A + I the distinct degree is |{u ≠ v: dist(u, v) ≤ 2}|, from the dense (A + I)²."""
    rng = np.random.default_rng(5)
    graph: Graph = from_edges(40, rng.integers(0, 40, 60), rng.integers(0, 40, 60))
    a = np.eye(graph.n)
    a[np.repeat(np.arange(graph.n), graph.degrees), graph.indices] = 1
    within_two = ((a @ a) > 0).sum(axis=1) - 1
    degrees = pattern_orders.distinct_degrees(closed_neighbourhoods(graph))
    assert degrees.tolist() == within_two.tolist()
