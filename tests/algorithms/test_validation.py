"""The numpy validator against a direct edge-by-edge count."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcbench.algorithms.validation import validate
from gcbench.errors import InputError
from gcbench.graphs.graph import from_edges


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=80),
    st.lists(st.integers(-1, 4), min_size=n, max_size=n),
)))  # fmt: skip
def test_counts_match_edge_by_edge(case):
    n, pairs, colors = case
    g = from_edges(n, [p[0] for p in pairs], [p[1] for p in pairs])
    u, v = g.edges()
    c = np.array(colors)
    expected = sum(1 for a, b in zip(u, v, strict=True) if c[a] == c[b] and c[a] >= 0)
    result = validate(g, c)
    assert result.conflicts == expected
    assert result.uncolored == int(np.sum(c < 0))
    assert result.colors == len({x for x in colors if x >= 0})
    assert result.max_color == max([x for x in colors if x >= 0], default=-1)
    assert result.valid == (expected == 0 and result.uncolored == 0)


def test_empty_graph_has_zero_colors():
    result = validate(from_edges(0, [], []), np.zeros(0, dtype=np.int32))
    assert (result.colors, result.conflicts, result.uncolored, result.valid) == (0, 0, 0, True)


def test_wrong_length_is_an_error():
    with pytest.raises(InputError, match="3 colors given for 2 vertices"):
        validate(from_edges(2, [0], [1]), np.zeros(3, dtype=np.int32))


def _numpy_validation(graph, colors: np.ndarray) -> tuple[int, int, int, int]:
    """The reference: every CSR entry compared through np.repeat (nnz-sized temporaries)."""
    c = colors.astype(np.int64)
    rows = np.repeat(c, graph.degrees)
    conflicts = int(np.count_nonzero((rows == c[graph.indices]) & (rows >= 0))) // 2
    colored = c[c >= 0]
    distinct = int(np.unique(colored).size)
    return conflicts, int(c.size - colored.size), distinct, int(colored.max(initial=-1))


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 200).flatmap(lambda n: st.tuples(
        st.just(n),
        st.integers(0, 8 * n),
        st.integers(0, 2**32 - 1),
        st.sampled_from([np.int32, np.int64, np.int16]),
        st.sampled_from([3, 64, 2**40]),
    ))
)  # fmt: skip
def test_numba_validator_equals_numpy(case):
    """Random graphs and colorings: few colors (many conflicts), many, sparse huge ids (the
    np.unique path of the distinct count), uncolored vertices, several dtypes."""
    n, entries, seed, dtype, top = case
    rng = np.random.default_rng(seed)
    g = from_edges(n, rng.integers(0, n, entries), rng.integers(0, n, entries))
    high = min(top, np.iinfo(dtype).max)
    colors = rng.integers(-1, high, n, endpoint=True).astype(dtype)
    result = validate(g, colors)
    expected = _numpy_validation(g, colors)
    assert (result.conflicts, result.uncolored, result.colors, result.max_color) == expected


def _numpy_balance(colors: np.ndarray) -> tuple[int, int, float]:
    """The reference: class sizes by np.unique, CV as numpy's population std over the mean."""
    colored = colors[colors >= 0]
    if not colored.size:
        return 0, 0, 0.0
    sizes = np.unique(colored, return_counts=True)[1].astype(np.float64)
    return int(sizes.min()), int(sizes.max()), float(sizes.std(ddof=0) / sizes.mean())


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 300).flatmap(lambda n: st.tuples(
        st.just(n),
        st.integers(0, 2**32 - 1),
        st.sampled_from([1, 2, 7, 300, 2**40]),
        st.floats(0.0, 1.0),
    ))
)  # fmt: skip
def test_balance_columns_equal_numpy(case):
    """min_class, max_class and class_cv against numpy, with uncolored vertices, gaps in the
    color ids, one class, and sparse huge ids."""
    n, seed, top, skew = case
    rng = np.random.default_rng(seed)
    g = from_edges(n, rng.integers(0, max(n, 1), 2 * n), rng.integers(0, max(n, 1), 2 * n))
    colors = rng.integers(-1, top, n, endpoint=True)
    colors[rng.random(n) < skew] = 0  # one class much larger than the others
    result = validate(g, colors)
    low, high, cv = _numpy_balance(colors)
    assert (result.min_class, result.max_class) == (low, high)
    assert result.class_cv == pytest.approx(cv, rel=1e-12, abs=1e-15)


def test_balance_of_known_classes():
    g = from_edges(6, [], [])
    result = validate(g, np.array([0, 0, 0, 2, 2, 5]))
    assert (result.colors, result.min_class, result.max_class) == (3, 1, 3)
    assert result.class_cv == pytest.approx(np.std([3, 2, 1]) / 2)
    even = validate(g, np.array([1, 1, 0, 0, 3, 3]))
    assert (even.min_class, even.max_class, even.class_cv) == (2, 2, 0.0)
    none = validate(g, np.full(6, -1))
    assert (none.colors, none.min_class, none.max_class, none.class_cv) == (0, 0, 0, 0.0)


def test_serial_validation_never_starts_numba_threads():
    """The serial scan is its own compiled function: a process that loads it from numba's
    cache after another process cached the parallel one starts no thread pool (it would spin
    into the next timed call)."""
    import subprocess
    import sys

    check = (
        "import numpy as np, numba.np.ufunc.parallel as pool\n"
        "from gcbench.graphs.sources import load_graph\n"
        "from gcbench.algorithms.validation import validate\n"
        "g = load_graph('gen:cycle?n=33')\n"
        "assert validate(g, np.arange(33) % 3, parallel={}).valid\n"
        "print(pool._is_initialized)\n"
    )
    for parallel, started in ((True, "True"), (False, "False")):
        done = subprocess.run([sys.executable, "-c", check.format(parallel)],
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.split()[-1] == started
