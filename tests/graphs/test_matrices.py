"""Generated matrix families (gcbench/graphs/matrices.py): stencil Jacobians and skewed random
matrices, their counts, determinism, checks and memory estimates."""

from __future__ import annotations

import itertools
import tracemalloc

import numpy as np
import pytest

from gcbench import memory
from gcbench.errors import InsufficientMemoryError, SpecError
from gcbench.graphs.matrices import MATRIX_FAMILIES, generate_pattern, get_matrix_family
from gcbench.graphs.pattern import check_pattern

STENCILS = [(2, 5), (2, 9), (3, 7), (3, 27)]


def stencil(dim: int, side: int, points: int, rows: str = "all"):
    pattern = generate_pattern(
        "stencil", {"dim": dim, "side": side, "points": points, "rows": rows}
    )
    check_pattern(pattern)
    return pattern


def expected_nnz(dim: int, side: int, points: int, rows: str) -> int:
    """Square: the star has every point plus 2 neighbours per adjacent pair along each axis;
    the box has (3·side − 2)^dim (per axis side + 2(side − 1) valid offsets). Interior: every
    interior point the whole stencil."""
    if rows == "interior":
        return max(side - 2, 0) ** dim * points
    if points == 3**dim:
        return (3 * side - 2) ** dim
    return side**dim + 2 * dim * side ** (dim - 1) * (side - 1)


@pytest.mark.parametrize(("dim", "points"), STENCILS)
@pytest.mark.parametrize("side", [1, 2, 3, 5, 12])
@pytest.mark.parametrize("rows", ["all", "interior"])
def test_stencil_counts(dim, points, side, rows):
    pattern = stencil(dim, side, points, rows)
    n = side**dim
    assert pattern.nnz == expected_nnz(dim, side, points, rows)
    assert pattern.n_cols == n
    if rows == "all":
        assert pattern.n_rows == n and pattern.symmetric
        assert pattern.max_row == points or (side < 3 and pattern.max_row < points)
        rows_ids = np.repeat(np.arange(n), pattern.row_counts)
        assert np.count_nonzero(rows_ids == pattern.indices) == n  # the whole diagonal
    else:
        assert pattern.n_rows == max(side - 2, 0) ** dim and not pattern.symmetric
        assert np.all(pattern.row_counts == points)


def brute_force_stencil(dim: int, side: int, points: int, rows: str) -> list[list[int]]:
    """Each row's columns by coordinates, one grid point at a time."""
    box = list(itertools.product((-1, 0, 1), repeat=dim))
    offsets = box if points == 3**dim else [o for o in box if sum(map(abs, o)) <= 1]
    lo, hi = (0, side) if rows == "all" else (1, side - 1)
    out = []
    for point in itertools.product(range(lo, hi), repeat=dim):  # lexicographic order
        row = []
        for offset in offsets:
            q = [p + o for p, o in zip(point, offset, strict=True)]
            if all(0 <= c < side for c in q):
                row.append(sum(c * side ** (dim - 1 - k) for k, c in enumerate(q)))
        out.append(sorted(row))
    return out


@pytest.mark.parametrize(("dim", "points"), STENCILS)
@pytest.mark.parametrize("rows", ["all", "interior"])
def test_stencil_rows_are_the_grid_neighbourhoods_in_lexicographic_order(dim, points, rows):
    pattern = stencil(dim, 4, points, rows)
    got = [
        pattern.indices[pattern.indptr[r] : pattern.indptr[r + 1]].tolist()
        for r in range(pattern.n_rows)
    ]
    assert got == brute_force_stencil(dim, 4, points, rows)


def test_interior_stencil_example():
    """side 4, 5 points: interior points (1,1), (1,2), (2,1), (2,2) are ids 5, 6, 9, 10."""
    pattern = stencil(2, 4, 5, "interior")
    assert (pattern.n_rows, pattern.n_cols) == (4, 16)
    assert pattern.indices[:5].tolist() == [1, 4, 5, 6, 9]
    assert pattern.indices[-5:].tolist() == [6, 9, 10, 11, 14]


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ({"side": "8", "points": "5"}, "gen:stencil?dim=2&points=5&rows=all&side=8"),
        (
            {"dim": 3, "side": 4, "points": 27, "rows": " interior "},
            "gen:stencil?dim=3&points=27&rows=interior&side=4",
        ),
    ],
)
def test_stencil_names_itself_by_its_canonical_spec(given, canonical):
    pattern = generate_pattern("stencil", given)
    assert pattern.name == pattern.source == canonical
    family = MATRIX_FAMILIES["stencil"]
    assert family.spec(family.resolve(given)) == canonical


@pytest.mark.parametrize(
    ("family", "given", "message"),
    [
        ("stencil", {"side": 4, "points": 7}, "2-dimensional stencil has 5 or 9 points, not 7"),
        ("stencil", {"dim": 3, "side": 4, "points": 9}, "has 7 or 27 points, not 9"),
        ("stencil", {"dim": 4, "side": 4, "points": 9}, r"dim=4 is outside \[2, 3\]"),
        ("stencil", {"side": 4, "points": 5, "rows": "edge"}, "rows=edge: choose all or interior"),
        ("stencil", {"dim": 3, "side": 2000, "points": 7}, "8000000000 grid points exceed"),
        ("stencil", {"side": 4}, "needs parameter 'points'"),
        ("stencil", {"side": 4, "points": 5, "radius": 1}, "unknown parameter 'radius'"),
        ("skewed", {"rows": 5, "cols": 3, "mean": 4}, "mean=4.0 exceeds cols=3"),
        ("skewed", {"rows": 5, "cols": 3, "mean": 0.5}, r"mean=0.5 is outside \[1.0, None\]"),
        ("skewed", {"rows": 5, "cols": 3, "mean": 2, "exponent": 1}, "exponent=1 is outside"),
        ("uniform", {"rows": 5, "cols": 3, "length": 4}, "length=4 exceeds cols=3"),
        ("uniform", {"rows": 5, "cols": 9, "dense": 1, "width": 10}, "width=10 exceeds cols=9"),
        ("uniform", {"rows": 5, "cols": 9, "dense": 6, "width": 9}, "dense=6 exceeds rows=5"),
        ("uniform", {"rows": 5, "cols": 9, "length": -1}, r"length=-1 is outside"),
        ("nothing", {}, "unknown matrix family 'nothing'; known: skewed, stencil, uniform"),
    ],
)
def test_bad_parameters_are_one_line_spec_errors(family, given, message):
    with pytest.raises(SpecError, match=message) as info:
        get_matrix_family(family).resolve(given)
    assert "\n" not in str(info.value)


def skewed(**params):
    pattern = generate_pattern("skewed", params)
    check_pattern(pattern)  # sorted rows, no entry twice
    return pattern


def test_skewed_is_deterministic_for_a_seed():
    a = skewed(rows=3000, cols=2000, mean=6, seed=4)
    b = skewed(rows=3000, cols=2000, mean=6, seed=4)
    c = skewed(rows=3000, cols=2000, mean=6, seed=5)
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert not np.array_equal(a.indices, c.indices[: a.indices.size])
    assert a.name == "gen:skewed?cols=2000&exponent=2.5&mean=6.0&rows=3000&seed=4"


@pytest.mark.parametrize(
    ("rows", "cols", "mean", "exponent"),
    [(5000, 4000, 8.0, 2.5), (4000, 60, 20.0, 1.5), (2000, 100_000, 30.0, 2.1), (3, 2, 1.5, 2.5)],
)
def test_skewed_shape_and_mean(rows, cols, mean, exponent):
    pattern = skewed(rows=rows, cols=cols, mean=mean, exponent=exponent)
    counts = pattern.row_counts
    assert (pattern.n_rows, pattern.n_cols) == (rows, cols)
    assert pattern.nnz == np.floor(mean * rows + 0.5)  # the lengths sum to mean·rows, rounded
    assert counts.min() >= 1 and counts.max() <= cols


def test_skewed_rows_have_a_heavy_tail():
    pattern = skewed(rows=20_000, cols=50_000, mean=8, exponent=2.5)
    counts = pattern.row_counts
    assert counts.max() > 50 * 8  # a Pareto tail: P(x > t) = t^-1.5
    assert np.median(counts) < 8  # most rows are short
    heavier = skewed(rows=20_000, cols=50_000, mean=8, exponent=1.8).row_counts
    assert heavier.max() > counts.max()


def test_skewed_caps_rows_at_the_columns_and_fills_dense_rows():
    pattern = skewed(rows=2000, cols=40, mean=25, exponent=1.5)
    counts = pattern.row_counts
    assert counts.max() == 40 and np.count_nonzero(counts == 40) > 10  # full rows
    assert np.count_nonzero(counts > 20) > 100  # rows drawn as complements


def test_skewed_columns_are_uniform():
    """Every column equally likely: column counts within a few standard deviations."""
    pattern = skewed(rows=20_000, cols=200, mean=30, exponent=3.0)
    per_column = pattern.col_counts
    expected = pattern.nnz / 200
    assert np.all(np.abs(per_column - expected) < 6 * np.sqrt(expected))


def uniform(**params):
    pattern = generate_pattern("uniform", params)
    check_pattern(pattern)  # sorted rows, no entry twice
    return pattern


@pytest.mark.parametrize(
    ("rows", "cols", "length", "dense", "width"),
    [(100_000, 100_000, 8, 1, 5000), (20_000, 5000, 8, 0, 0), (5000, 20_000, 8, 0, 0),
     (300, 40, 30, 3, 40), (4, 4, 0, 2, 4)],
)  # fmt: skip
def test_uniform_rows_have_their_lengths(rows, cols, length, dense, width):
    """Every row holds `length` distinct columns but the first `dense`, which hold `width`
    (rows of more than half the columns are drawn as complements)."""
    pattern = uniform(rows=rows, cols=cols, length=length, dense=dense, width=width)
    assert (pattern.n_rows, pattern.n_cols) == (rows, cols)
    expected = np.full(rows, length)
    expected[:dense] = width
    np.testing.assert_array_equal(pattern.row_counts, expected)


def test_uniform_is_deterministic_and_its_columns_uniform():
    a = uniform(rows=20_000, cols=200, length=30, seed=4)
    b = uniform(rows=20_000, cols=200, length=30, seed=4)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert not np.array_equal(a.indices, uniform(rows=20_000, cols=200, length=30).indices)
    assert a.name == "gen:uniform?cols=200&dense=0&length=30&rows=20000&seed=4&width=0"
    expected = a.nnz / 200
    assert np.all(np.abs(a.col_counts - expected) < 6 * np.sqrt(expected))


ESTIMATED = [
    ("stencil", {"dim": 2, "side": 300, "points": 9}),
    ("stencil", {"dim": 3, "side": 40, "points": 27}),
    ("stencil", {"dim": 3, "side": 40, "points": 27, "rows": "interior"}),
    ("stencil", {"dim": 2, "side": 300, "points": 5, "rows": "interior"}),
    ("skewed", {"rows": 50_000, "cols": 30_000, "mean": 12}),
    ("skewed", {"rows": 20_000, "cols": 50, "mean": 30, "exponent": 1.5}),
    ("uniform", {"rows": 50_000, "cols": 30_000, "length": 8, "dense": 2, "width": 20_000}),
]


@pytest.mark.parametrize(("family", "params"), ESTIMATED)
def test_estimates_cover_the_measured_peak(family, params):
    fam = MATRIX_FAMILIES[family]
    generate_pattern(family, params)  # numba compiled (or loaded) outside the measurement
    tracemalloc.start()
    try:
        generate_pattern(family, params)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = fam.estimate(fam.resolve(params))
    assert peak <= estimate - memory.HEADROOM, (peak, estimate)


def test_budget_is_asked_before_allocating(monkeypatch):
    monkeypatch.setenv(memory.ENV, "100M")
    with pytest.raises(InsufficientMemoryError, match=r"gen:stencil\?dim=3&.*: needs about"):
        generate_pattern("stencil", {"dim": 3, "side": 1000, "points": 27})
    with pytest.raises(InsufficientMemoryError, match=r"gen:skewed\?.*: needs about"):
        generate_pattern("skewed", {"rows": 10**8, "cols": 10**6, "mean": 10})


OPTIMAL = {  # colorings with as many colors as the stencil has points (docs/graphs.md)
    (2, 5): lambda c: (c[0] + 2 * c[1]) % 5,
    (2, 9): lambda c: c[0] % 3 * 3 + c[1] % 3,
    (3, 7): lambda c: (c[0] + 2 * c[1] + 3 * c[2]) % 7,
    (3, 27): lambda c: c[0] % 3 * 9 + c[1] % 3 * 3 + c[2] % 3,
}


@pytest.mark.parametrize(("dim", "points"), STENCILS)
@pytest.mark.parametrize("rows", ["all", "interior"])
def test_stencil_columns_color_with_as_many_colors_as_points(dim, points, rows):
    """The lower bound max_row is the optimum: no two columns of a row share a color."""
    side = 7 if dim == 2 else 5
    pattern = stencil(dim, side, points, rows)
    ids = np.arange(side**dim)
    colors = OPTIMAL[dim, points]([ids // side ** (dim - 1 - k) % side for k in range(dim)])
    assert np.unique(colors).size == points == pattern.max_row
    row_of = np.repeat(np.arange(pattern.n_rows), pattern.row_counts)
    pairs = np.unique(row_of * points + colors[pattern.indices])
    assert pairs.size == pattern.nnz  # each color at most once per row
