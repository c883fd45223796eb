"""Serial greedy of a Pattern's columns: valid distance-2 and partial distance-2 colorings in
every order, equal to a plain-Python first fit in the same visit order, and registered beside
the distance-1 greedy under the same name."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcbench.algorithms import registry
from gcbench.algorithms.cpu import greedy, greedy_d2
from gcbench.algorithms.cpu.greedy_d2 import greedy_d2_colors
from gcbench.algorithms.pattern_validation import recovers, validate_pattern
from gcbench.algorithms.priority import PATTERN_ORDERS, pattern_order
from gcbench.graphs.graph import Graph, from_edges
from gcbench.graphs.pattern import Pattern, closed_neighbourhoods, from_entries
from gcbench.graphs.sources import load_graph


def _reference(pattern: Pattern, visit: list[int]) -> list[int]:
    """First fit in ``visit`` order over every column sharing a row (plain Python)."""
    rows_of: list[list[int]] = [[] for _ in range(pattern.n_cols)]
    members = []
    for r in range(pattern.n_rows):
        cols = pattern.indices[pattern.indptr[r] : pattern.indptr[r + 1]].tolist()
        members.append(cols)
        for c in cols:
            rows_of[c].append(r)
    colors = [-1] * pattern.n_cols
    for c in visit:
        used = {colors[w] for r in rows_of[c] for w in members[r] if w != c}
        colors[c] = next(k for k in range(pattern.n_cols + 1) if k not in used)
    return colors


def _d2_conflicts(graph: Graph, colors: np.ndarray) -> int:
    """Pairs at distance 1 or 2 that share a color, from the dense (A + I)² (the oracle)."""
    a = np.eye(graph.n)  # float: BLAS products, exact for these counts
    a[np.repeat(np.arange(graph.n), graph.degrees), graph.indices] = 1
    near = (a @ a) > 0
    same = colors[:, None] == colors[None, :]
    return int(np.count_nonzero(np.triu(near & same, 1)))


def _random_pattern(seed: int, m: int, n: int, nnz: int) -> Pattern:
    rng = np.random.default_rng(seed)
    return from_entries(m, n, rng.integers(0, m, nnz), rng.integers(0, n, nnz), name=f"r{seed}")


@pytest.mark.parametrize("order", PATTERN_ORDERS)
def test_d2_of_every_family_is_valid(family_graph: Graph, order: str) -> None:
    pattern = closed_neighbourhoods(family_graph)
    colors = greedy_d2_colors(pattern, order)
    assert colors.dtype == np.int32 and colors.shape == (family_graph.n,)
    result = validate_pattern(pattern, colors)
    assert result.valid
    assert result.colors >= pattern.max_row  # Δ + 1 vertices of a closed neighbourhood
    if family_graph.n <= 600:
        assert _d2_conflicts(family_graph, colors) == 0


@pytest.mark.parametrize("spec", ["gen:rgg?scale=10&seed=0", "gen:grid2d?side=20"])
def test_d2_of_cached_generated_graphs(data_dir, spec: str) -> None:  # type: ignore[no-untyped-def]
    graph = load_graph(spec)
    pattern = closed_neighbourhoods(graph)
    for order in PATTERN_ORDERS:
        colors = greedy_d2_colors(pattern, order)
        result = validate_pattern(pattern, colors, parallel=False)
        assert result.valid and result.colors >= pattern.max_row
        assert recovers(pattern, colors)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("order", PATTERN_ORDERS)
def test_pd2_and_pd2_rows_of_random_rectangular_patterns(seed: int, order: str) -> None:
    pattern = _random_pattern(seed, 40 + 13 * seed, 70 - 7 * seed, 300)
    for side in (pattern, pattern.transposed()):
        colors = greedy_d2_colors(side, order)
        result = validate_pattern(side, colors)
        assert result.valid and result.colors >= side.max_row
        assert recovers(side, colors)
        assert colors.tolist() == _reference(side, pattern_order(side, order).tolist())


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 25).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n),
        )
    )
)
def test_natural_order_matches_reference_on_graphs(case) -> None:  # type: ignore[no-untyped-def]
    n, pairs = case
    graph = from_edges(n, [p[0] for p in pairs], [p[1] for p in pairs])
    pattern = closed_neighbourhoods(graph)
    colors = greedy_d2_colors(pattern)
    assert colors.tolist() == _reference(pattern, list(range(n)))
    assert _d2_conflicts(graph, colors) == 0


def test_largest_first_visits_by_pattern_order() -> None:
    # Column 4 shares rows with every other column; natural order colors it last, so its
    # color differs from largest-first's, which colors it first (color 0).
    pattern = from_entries(4, 5, [0, 0, 1, 1, 2, 2, 3, 3], [0, 4, 1, 4, 2, 4, 3, 4])
    assert pattern_order(pattern, "largest-first")[0] == 4
    assert greedy_d2_colors(pattern, "largest-first").tolist() == [1, 1, 1, 1, 0]
    assert greedy_d2_colors(pattern, "natural").tolist() == [0, 0, 0, 0, 1]


def test_one_full_row_takes_every_color() -> None:
    """The marker array's bound is tight here: n columns in one row need colors 0..n-1."""
    n = 9
    pattern = from_entries(1, n, np.zeros(n, dtype=np.int64), np.arange(n))
    for order in PATTERN_ORDERS:
        assert sorted(greedy_d2_colors(pattern, order).tolist()) == list(range(n))


def _hub_pattern(seed: int) -> Pattern:
    """A row of 700 columns among 900, and 3,000 random entries in 60 other rows: colors
    past the low word (64) and past the first block of the high masks (64 + 512)."""
    rng = np.random.default_rng(seed)
    hub = rng.choice(900, 700, replace=False)
    rows = np.concatenate([np.zeros(700, dtype=np.int64), rng.integers(1, 61, 3000)])
    cols = np.concatenate([hub, rng.integers(0, 900, 3000)])
    return from_entries(61, 900, rows, cols, name=f"hub{seed}")


def _crossing_pattern(seed: int) -> Pattern:
    """Rows of 700, 500 and 300 columns among 900, sharing many, and 3,000 random entries in
    60 other rows: a column past the masks reads several long rows and some short ones."""
    rng = np.random.default_rng(seed)
    long = [rng.choice(900, size, replace=False) for size in (700, 500, 300)]
    rows = np.concatenate([np.full(c.size, r) for r, c in enumerate(long)] +
                          [rng.integers(3, 63, 3000)])  # fmt: skip
    cols = np.concatenate([*long, rng.integers(0, 900, 3000)])
    return from_entries(63, 900, rows, cols, name=f"crossing{seed}")


@pytest.mark.parametrize("long_row", [1, 128, 10**9])
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("order", PATTERN_ORDERS)
def test_colors_past_the_masks_are_first_fit(
    monkeypatch: pytest.MonkeyPatch, seed: int, order: str, long_row: int
) -> None:
    """Whatever the row masks hold (no high block: every color from 64 on through the
    stamping scan of the rows' logs; one block: from 576 on; all the blocks needed) and
    whichever rows past them are read as bitmaps (every row, the long ones, none), the
    colors are the plain first fit's."""
    monkeypatch.setattr(greedy_d2, "LONG_ROW", long_row)
    real = greedy_d2.high_blocks
    for pattern in (_hub_pattern(seed), _crossing_pattern(seed)):
        expected = _reference(pattern, pattern_order(pattern, order).tolist())
        assert max(expected) >= 699  # the row of 700 takes 700 colors
        for cap in (0, 1, None):
            capped = real if cap is None else lambda *a, cap=cap: min(real(*a), cap)
            monkeypatch.setattr(greedy_d2, "high_blocks", capped)
            assert greedy_d2_colors(pattern, order).tolist() == expected, (pattern.name, cap)


def test_long_rows_are_the_longest_within_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = np.array([5, 300, 128, 127, 900, 300])
    assert greedy_d2.long_rows(counts, 0).tolist() == [-1] * 6  # nothing past the masks
    assert greedy_d2.long_rows(counts, 10).tolist() == [-1, 0, 1, -1, 2, 3]
    monkeypatch.setattr(greedy_d2, "LONG_BUDGET_BYTES", 2 * (8 * 10 + 8))  # two bitmaps
    assert greedy_d2.long_rows(counts, 10).tolist() == [-1, 0, -1, -1, 1, -1]


def test_high_blocks_within_the_budget() -> None:
    blocks = greedy_d2.high_blocks
    assert [blocks(10, 100, bound) for bound in (0, 63, 64, 575, 576)] == [0, 0, 1, 1, 2]
    rows = 1 << 20  # a block of 512 colors is 64 MiB: the budget holds one
    assert blocks(rows, rows, 10**6) == 1
    assert blocks(rows, 16 * rows, 10**6) == 2  # 8 bytes a nonzero: 128 MiB
    assert blocks(0, 0, 0) == 0


def test_degenerate_patterns() -> None:
    assert greedy_d2_colors(from_entries(0, 0, [], [])).size == 0
    assert greedy_d2_colors(from_entries(0, 3, [], [])).tolist() == [0, 0, 0]
    assert greedy_d2_colors(from_entries(2, 1, [0, 1], [0, 0])).tolist() == [0]


def test_registered_for_the_pattern_problems_only() -> None:
    for problem in ("d2", "pd2", "pd2-rows"):
        spec = registry.get("greedy", "cpu", problem=problem)
        assert spec.run is greedy_d2.run
        assert spec.iterations_meaning == "none (serial)" and spec.deterministic
        assert [p.name for p in spec.params] == ["order", "reduce"]  # no balance
        assert spec.param("reduce").choices == ("none", "ig")
    assert registry.get("greedy", "cpu").run is greedy.run  # d1 stays the vertex greedy
    coloring = greedy_d2.run(closed_neighbourhoods(from_edges(3, [0, 1], [1, 2])))
    assert coloring.iterations is None
    assert coloring.colors.tolist() == [0, 1, 2]
