"""The distance-2 GPU algorithms (vb-bit, nb-bit, jp-d2): valid colorings of d2, pd2 and
pd2-rows patterns at several block sizes (hub rows and more than one 64-color window among
them), jp-d2 equal to the serial greedy column for column in every order, the round traces,
bounded rounds, the memory check before allocating, the registry entries, and sync=graph (the
default: one CUDA graph a coloring, its loop captured once per pattern and configuration;
tests/algorithms/gpu/test_sync.py compares it with the host's protocols)."""

from __future__ import annotations

import inspect
from dataclasses import replace

import numpy as np
import pytest
from scipy import sparse

from gcbench.algorithms import registry
from gcbench.algorithms.cpu.greedy_d2 import greedy_d2_colors
from gcbench.algorithms.execute import execute, prepare
from gcbench.algorithms.gpu import deveci, distance2, loops, runtime
from gcbench.algorithms.pattern_validation import recovers, validate_pattern
from gcbench.algorithms.priority import PATTERN_ORDERS, pattern_rank
from gcbench.algorithms.rounds import GRAPH, SYNCS
from gcbench.errors import GpuUnavailableError, InsufficientMemoryError, RoundCapError, SpecError
from gcbench.graphs import generators
from gcbench.graphs.graph import Graph
from gcbench.graphs.pattern import Pattern, adjacency, closed_neighbourhoods, from_entries

RUNS = {"vb-bit": distance2.vb_bit, "nb-bit": distance2.nb_bit, "jp-d2": distance2.jp_d2}
NAMES = sorted(RUNS)
PROBLEMS = ("d2", "pd2", "pd2-rows")
BLOCK_SIZES = [32, 64, 256, 1024]


def _graph(family: str, **params: object) -> Graph:
    return generators.get_family(family).generate(params)


# d2 inputs beyond the small family graphs: a hub row of 301 columns (the warp paths), a
# 100-clique of the square (100 colors: a second window), a mesh, and a skewed kron graph.
D2_GRAPHS = {
    "star-300": ("star", {"leaves": 300}),
    "complete-100": ("complete", {"n": 100}),
    "grid-40": ("grid2d", {"side": 40}),
    "kron-10": ("kron", {"scale": 10}),
}


def _d2(name: str) -> Pattern:
    family, params = D2_GRAPHS[name]
    return closed_neighbourhoods(_graph(family, **params))


def _random(seed: int, m: int, n: int, nnz: int) -> Pattern:
    rng = np.random.default_rng(seed)
    return from_entries(m, n, rng.integers(0, m, nnz), rng.integers(0, n, nnz), name=f"r{seed}")


# pd2 inputs: rectangular patterns, small and larger, one with a dense row of 200 columns
def _rectangular(name: str) -> Pattern:
    if name == "small":
        return _random(1, 53, 63, 300)
    if name == "tall":
        return _random(2, 3000, 800, 12000)
    rng = np.random.default_rng(3)  # "hub-row": row 0 holds 200 of the 1500 columns
    rows = np.concatenate([np.zeros(200, dtype=np.int64), rng.integers(1, 2000, 8000)])
    cols = np.concatenate([rng.choice(1500, 200, replace=False), rng.integers(0, 1500, 8000)])
    return from_entries(2000, 1500, rows, cols, name="hub-row")


RECTANGULAR = ["small", "tall", "hub-row"]


def _resolved(coloring):
    """``coloring`` after its ``resolve`` (sync=graph reads its rounds after the call)."""
    if coloring.resolve is not None:
        resolve, coloring.resolve = coloring.resolve, None
        resolve(coloring)
    return coloring


def _color(name: str, pattern: Pattern, block_size: int | None = None, **params):
    """(host colors, resolved Coloring) of ``name`` on ``pattern`` uploaded to the device."""
    dp = runtime.pattern_to_device(pattern)
    sized = {} if block_size is None else {"block_size": block_size}
    coloring = _resolved(RUNS[name](dp, **sized, **params))
    colors = coloring.colors.get()
    assert colors.dtype == np.int32 and colors.shape == (pattern.n_cols,)
    return colors, coloring


def _check(name: str, pattern: Pattern, colors: np.ndarray, coloring) -> None:
    """A valid coloring that recovers J, at least max_row colors, and the round trace."""
    result = validate_pattern(pattern, colors)
    assert result.valid, (name, pattern.name, result)
    assert result.colors >= pattern.max_row or pattern.nnz == 0
    assert recovers(pattern, colors)
    active = coloring.trace["active"]
    assert len(active) == coloring.iterations
    if pattern.n_cols == 0:
        assert coloring.iterations == 0
        return
    assert active[-1] == 0
    pairs = list(zip(active, active[1:], strict=False))
    if name == "jp-d2":  # each round lists the next one's columns: every column once at most
        assert min(active[:-1], default=1) > 0 and sum(active) < pattern.n_cols
    elif name == "nb-bit":  # a round in which every column was deferred colors none
        assert all(a >= b for a, b in pairs)
    else:  # every round colors one column for good at least
        assert all(a > b for a, b in pairs)


def _levels(pattern: Pattern, order: str) -> np.ndarray:
    """Each column's level in ``order``: 0 without a lower-ranked distance-2 neighbour, else one
    more than the highest level among them (the round of jp-d2 that colors it), from the
    product AᵀA, apart from the kernels' scans."""
    a = sparse.csr_matrix(
        (np.ones(pattern.nnz), pattern.indices, pattern.indptr), (pattern.n_rows, pattern.n_cols)
    )
    square = (a.T @ a).tocsr()
    rank = pattern_rank(pattern, order)
    level = np.zeros(pattern.n_cols, dtype=np.int64)
    for c in np.argsort(rank):
        near = square.indices[square.indptr[c] : square.indptr[c + 1]]
        lower = near[rank[near] < rank[c]]
        level[c] = 1 + level[lower].max() if lower.size else 0
    return level


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_d2_of_every_family_is_valid(family_graph, name):
    pattern = closed_neighbourhoods(family_graph)
    colors, coloring = _color(name, pattern)
    _check(name, pattern, colors, coloring)


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_pd2_of_every_family_adjacency_is_valid(family_graph, name):
    """pd2 on a graph's A (no diagonal): vertices with a common neighbour differ."""
    pattern = adjacency(family_graph)
    colors, coloring = _color(name, pattern)
    _check(name, pattern, colors, coloring)


@pytest.mark.gpu
@pytest.mark.parametrize("block_size", BLOCK_SIZES)
@pytest.mark.parametrize("graph", sorted(D2_GRAPHS))
@pytest.mark.parametrize("name", NAMES)
def test_d2_valid_at_every_block_size(name, graph, block_size):
    pattern = _d2(graph)
    colors, coloring = _color(name, pattern, block_size)
    _check(name, pattern, colors, coloring)


@pytest.mark.gpu
@pytest.mark.parametrize("block_size", BLOCK_SIZES)
@pytest.mark.parametrize("rectangular", RECTANGULAR)
@pytest.mark.parametrize("name", NAMES)
def test_pd2_and_pd2_rows_valid_at_every_block_size(name, rectangular, block_size):
    pattern = _rectangular(rectangular)
    for side in (pattern, pattern.transposed()):  # pd2, then pd2-rows
        colors, coloring = _color(name, side, block_size)
        _check(name, side, colors, coloring)


@pytest.mark.gpu
@pytest.mark.parametrize("order", PATTERN_ORDERS)
def test_jp_d2_equals_the_serial_greedy_on_every_family(family_graph, order):
    for pattern in (closed_neighbourhoods(family_graph), adjacency(family_graph)):
        colors, _ = _color("jp-d2", pattern, order=order)
        np.testing.assert_array_equal(colors, greedy_d2_colors(pattern, order))


@pytest.mark.gpu
@pytest.mark.parametrize("order", ["random", "largest-first"])
def test_jp_d2_colors_each_level_in_its_round(order):
    """Round 0 colors the columns without a lower-ranked neighbour and lists the next level;
    round k lists level k + 1: the trace is the levels' sizes, the same every run."""
    patterns = [_d2(graph) for graph in sorted(D2_GRAPHS)]
    patterns += [_rectangular(name) for name in RECTANGULAR]
    for pattern in patterns:
        level = _levels(pattern, order)
        sizes = np.bincount(level)
        _, coloring = _color("jp-d2", pattern, order=order)
        assert coloring.iterations == sizes.size, pattern.name
        assert coloring.trace["active"] == [*sizes[1:].tolist(), 0], pattern.name


@pytest.mark.gpu
@pytest.mark.parametrize("block_size", [32, 1024])
@pytest.mark.parametrize("order", PATTERN_ORDERS)
def test_jp_d2_equals_the_serial_greedy_column_for_column(order, block_size):
    patterns = [_d2(graph) for graph in sorted(D2_GRAPHS)]
    patterns += [_rectangular(name) for name in RECTANGULAR]
    patterns += [pattern.transposed() for pattern in patterns[len(D2_GRAPHS) :]]
    for pattern in patterns:
        colors, coloring = _color("jp-d2", pattern, block_size, order=order)
        np.testing.assert_array_equal(colors, greedy_d2_colors(pattern, order), pattern.name)
        _check("jp-d2", pattern, colors, coloring)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["vb-bit", "jp-d2"])
def test_a_heavy_column_moves_its_wide_window_on(monkeypatch, name):
    """A window of 1,024 colors a warp (the real ones hold 12,288 or more), on a star of 3,000
    leaves whose d2 needs 3,001 colors: vb-bit's warps pass three windows full before a free
    one (the ``base += wide`` path). jp-d2's rounds after the first hold one column each and go
    to a block, whose window at 64 threads holds 2,016 colors (one passed full: the ``base +=
    span`` path of jp_block_color) and at 128 threads 4,064; jp-d2 still equals the serial
    greedy."""
    monkeypatch.setattr(distance2, "wide_window", lambda block: (1024, block // 32 * 128))
    pattern = closed_neighbourhoods(_graph("star", leaves=3000))
    cases = [{}] if name == "vb-bit" else [
        {"order": order, "dense": dense}  # the hub row's bitmap read a window at a time too
        for order in ("random", "largest-first") for dense in (0, 512)
    ]  # fmt: skip
    if name == "jp-d2":  # block 64: a round's block window holds 2 × 1,024 - 32 colors
        cases += [{**case, "block_size": 64} for case in cases]
    for params in cases:
        order = params.get("order")
        block = params.pop("block_size", 128)
        colors, coloring = _color(name, pattern, block, **params)
        _check(name, pattern, colors, coloring)
        assert validate_pattern(pattern, colors).colors == 3001
        if order:
            np.testing.assert_array_equal(colors, greedy_d2_colors(pattern, order))


@pytest.mark.gpu
@pytest.mark.parametrize("dense", [0, distance2.DENSE])
def test_jp_d2_rounds_of_more_columns_than_blocks_go_a_warp_each(monkeypatch, dense):
    """k disjoint rows of 1,100 columns, k just past the blocks of a device-filling grid at
    1,024 threads: each round after the first colors one column of every row, more columns than
    blocks and fewer than warps, so each goes to a warp (jp_round's warp mode); with 1,024
    colors a warp, the last 76 colors pass a full window (by entries, or by the rows' bitmaps).
    Equal to the serial greedy, one round a column of a row."""
    monkeypatch.setattr(distance2, "wide_window", lambda block: (1024, block // 32 * 128))
    k, m = runtime.persistent_grid(1024) + 10, 1100
    pattern = from_entries(k, k * m, np.repeat(np.arange(k), m), np.arange(k * m), name="chains")
    colors, coloring = _color("jp-d2", pattern, 1024, order="natural", dense=dense)
    np.testing.assert_array_equal(colors, greedy_d2_colors(pattern, "natural"))
    assert colors.max() == m - 1 and coloring.iterations == m
    assert coloring.trace["active"] == [k] * (m - 1) + [0]


def _crossing_rows() -> Pattern:
    """Three long rows sharing columns (each column in up to three of them) among short random
    rows: a column's forbidden colors come from several bitmaps and from entries at once."""
    rng = np.random.default_rng(7)
    long_rows = [rng.choice(900, size, replace=False) for size in (600, 450, 300)]
    rows = np.concatenate([np.full(c.size, r) for r, c in enumerate(long_rows)] +
                          [rng.integers(3, 1200, 5000)])  # fmt: skip
    cols = np.concatenate([*long_rows, rng.integers(0, 900, 5000)])
    return from_entries(1200, 900, rows, cols, name="crossing")


@pytest.mark.gpu
@pytest.mark.parametrize("block_size", [32, 1024])
@pytest.mark.parametrize("dense", [0, 1, 100, 300])
def test_jp_d2_dense_rows_equal_the_serial_greedy(dense, block_size):
    """Rows of at least ``dense`` columns read as bitmaps (1: every row, light columns' rows
    included; 0: none) give the serial greedy's colors column for column, in every order."""
    patterns = [_d2("star-300"), _d2("kron-10"), _rectangular("hub-row"), _crossing_rows()]
    patterns.append(patterns[2].transposed())
    for pattern in patterns:
        for order in ("random", "largest-first", "natural"):
            colors, coloring = _color("jp-d2", pattern, block_size, order=order, dense=dense)
            expected = greedy_d2_colors(pattern, order)
            np.testing.assert_array_equal(colors, expected, f"{pattern.name} {order}")
            _check("jp-d2", pattern, colors, coloring)


@pytest.mark.gpu
@pytest.mark.parametrize("dense", [1, 300])
def test_jp_d2_dense_rows_end_holding_their_columns_colors(dense):
    """After a coloring (sync=graph: its captured buffers stay), each dense row's bitmap holds
    exactly its columns' colors and its words in use end one past its highest color's word."""
    pattern = _crossing_rows()
    dp = runtime.pattern_to_device(pattern)
    colors = _resolved(distance2.jp_d2(dp, dense=dense)).colors.get()
    (kept,) = dp.extras["loops"].values()
    *_, bits, top = (a.get() for a in kept.buffers)
    rows = distance2.dense_rows(dp, dense)
    assert rows.count > 0
    for r in np.flatnonzero(rows.slot >= 0):
        s = rows.slot[r]
        held = colors[pattern.indices[pattern.indptr[r] : pattern.indptr[r + 1]]]
        expected = np.zeros(rows.words, dtype=np.uint32)
        np.bitwise_or.at(expected, held >> 5, np.uint32(1) << (held & 31).astype(np.uint32))
        np.testing.assert_array_equal(bits[s * rows.words : (s + 1) * rows.words], expected)
        assert top[s] == held.max() // 32 + 1


@pytest.mark.gpu
def test_jp_d2_dense_rows_within_a_budget_are_the_longest(monkeypatch):
    """A budget of two bitmaps: only the two longest rows of the crossing pattern get one,
    and the colors stay the serial greedy's."""
    pattern = _crossing_rows()
    words = -(-distance2.color_bound(pattern) // 32)
    monkeypatch.setattr(distance2, "DENSE_BUDGET", 2 * 4 * (words + 1))
    dp = runtime.pattern_to_device(pattern)
    rows = distance2.dense_rows(dp, 1)
    assert rows.count == 2 and rows.threshold == 301
    assert np.flatnonzero(rows.slot >= 0).tolist() == [0, 1]
    coloring = _resolved(distance2.jp_d2(dp, dense=1))
    np.testing.assert_array_equal(coloring.colors.get(), greedy_d2_colors(pattern, "random"))


@pytest.mark.gpu
def test_jp_d2_ranks_are_uploaded_once_per_order():
    dp = runtime.pattern_to_device(_d2("grid-40"))
    first = distance2.ranks(dp, "largest-first")
    assert distance2.ranks(dp, "largest-first") is first
    assert distance2.ranks(dp, "natural") is not first
    assert dp.fresh().extras == {}  # a fresh view starts without them


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["hub-row", "small"])
def test_jp_d2_rows_by_rank(name):
    """Every row of ``ranked`` holds the row's columns in rank order, and ``place`` finds each
    entry of the column view there (a pattern whose rows are not sorted by column included)."""
    pattern = _rectangular(name)
    shuffled = replace(pattern, indices=pattern.indices.copy(), name=f"{name}-shuffled")
    rng = np.random.default_rng(0)
    for r in range(pattern.n_rows):  # the same rows, each in a random column order
        rng.shuffle(shuffled.indices[pattern.indptr[r] : pattern.indptr[r + 1]])
    for side in (pattern, shuffled):
        dp = runtime.pattern_to_device(side)
        ranked, place = (a.get() for a in distance2.ranked_rows(dp, "random"))
        rank = pattern_rank(side, "random")
        col_ptr, col_rows = (a.get() for a in (dp.col_ptr, dp.col_rows))
        for r in range(side.n_rows):
            row = slice(side.indptr[r], side.indptr[r + 1])
            expected = sorted(side.indices[row].tolist(), key=lambda c: rank[c])
            assert ranked[row].tolist() == expected
        for c in range(side.n_cols):
            for e in range(col_ptr[c], col_ptr[c + 1]):
                r = col_rows[e]
                assert side.indptr[r] <= place[e] < side.indptr[r + 1] and ranked[place[e]] == c


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_degenerate_patterns(name):
    for pattern, expected in (
        (from_entries(0, 0, [], []), []),
        (from_entries(0, 3, [], []), [0, 0, 0]),  # columns in no row: all color 0
        (from_entries(2, 1, [0, 1], [0, 0]), [0]),
    ):
        colors, coloring = _color(name, pattern)
        assert colors.tolist() == expected
        _check(name, pattern, colors, coloring)


@pytest.mark.gpu
@pytest.mark.parametrize("sync", [GRAPH, "device"])
@pytest.mark.parametrize("name", NAMES)
def test_round_cap_raises_with_the_partial_coloring(monkeypatch, name, sync):
    """The 301 columns of the star's hub row need 301 rounds of jp-d2 and five 64-color
    windows of nb-bit; vb-bit's ten warps (block size 32) all start on color 0 at once, so its
    first round ends in conflicts. A cap of one round stops each with a partial coloring (under
    graph, when the Coloring is resolved after the call)."""
    monkeypatch.setattr(distance2, "round_cap", lambda algorithm, n_cols: 1)
    pattern = _d2("star-300")
    with pytest.raises(RoundCapError, match=f"{name}: still .* after 1 rounds") as caught:
        _color(name, pattern, 32, sync=sync)
    partial = caught.value.coloring.get()
    assert partial.shape == (301,) and partial.min() == -1  # no deferred marker left
    result = validate_pattern(pattern, partial)
    assert result.conflicts == 0 and 0 < result.uncolored < 301


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_a_graph_loop_is_captured_once_and_starts_afresh_each_call(name):
    """Two binds of one configuration share the captured loop; each call starts from uncolored
    columns and the full worklist, and a Coloring already resolved keeps its colors when the
    next call writes the loop's buffers again."""
    pattern = _d2("kron-10")
    dp = runtime.pattern_to_device(pattern)
    bind = registry.get(name, "gpu", problem="d2").bind
    first = _resolved(bind(dp)())
    kept = first.colors.get()
    for _ in range(2):
        again = _resolved(bind(dp)())
        _check(name, pattern, again.colors.get(), again)
        if name == "jp-d2":  # deterministic colors and rounds
            np.testing.assert_array_equal(again.colors.get(), kept)
            assert again.iterations == first.iterations
    np.testing.assert_array_equal(first.colors.get(), kept)
    assert len(dp.extras["loops"]) == 1
    bind(dp, block_size=64)  # another configuration: another loop
    assert len(dp.extras["loops"]) == 2


def test_round_caps():
    assert distance2.round_cap("vb-bit", 10) == distance2.round_cap("jp-d2", 10) == 11
    assert distance2.round_cap("nb-bit", 10) == 21


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("problem", PROBLEMS)
def test_through_the_runner_with_device_validation(name, problem):
    """execute: primed on the primer pattern, timed, validated on the device (recovery too)."""
    graph = _graph("rgg", scale=10)
    pattern = {
        "d2": closed_neighbourhoods(graph),
        "pd2": _rectangular("tall"),
        "pd2-rows": _rectangular("tall").transposed(),
    }[problem]
    spec = registry.get(name, "gpu", problem=problem)
    rep = execute(spec, prepare(pattern, "gpu"), None, spec.resolve_params({}))
    assert rep.validation.valid and rep.validation.recovered is True
    assert replace(rep.validation, recovered=None) == validate_pattern(pattern, rep.colors)
    assert rep.coloring.iterations == len(rep.coloring.trace["active"]) > 0


# ------------------------------------------------------------------- without a GPU


@pytest.mark.parametrize("name", NAMES)
def test_scratch_that_cannot_fit_is_refused_before_allocating(monkeypatch, name):
    """bind checks the run's scratch first: a DevicePattern without device arrays is enough."""
    pattern = closed_neighbourhoods(_graph("grid2d", side=10))  # 100 columns: > 1000 bytes
    dp = runtime.DevicePattern(pattern, None, None, None, None)
    bind = registry.get(name, "gpu", problem="d2").bind
    monkeypatch.setattr(runtime, "device_free_bytes", lambda: 1000)
    with pytest.raises(InsufficientMemoryError, match=f"{name} on "):
        bind(dp)
    monkeypatch.setattr(runtime, "device_free_bytes", lambda: 1 << 40)
    monkeypatch.setenv("GCBENCH_MAX_GPU_MEMORY", "1K")
    with pytest.raises(InsufficientMemoryError, match="GCBENCH_MAX_GPU_MEMORY"):
        bind(dp)


@pytest.mark.parametrize("name", NAMES)
def test_registered_for_the_pattern_problems(name):
    for problem in PROBLEMS:
        spec = registry.get(name, "gpu", problem=problem)
        assert spec.backend == "gpu" and spec.kernel == "distance2"
        assert spec.problems == PROBLEMS and spec.bind is not None and spec.setup is None
        assert spec.block_size_matters and spec.block_size_step == registry.WARP
        assert spec.default_block_size == distance2.BLOCK
        assert spec.deterministic == (name == "jp-d2")
        own = ["order", "dense", "sync"] if name == "jp-d2" else ["sync"]
        assert [p.name for p in spec.params] == [*own, "reduce"]  # reduce=none|ig, no balance
        assert spec.iterations_meaning.startswith("rounds")
    with pytest.raises(SpecError, match="block size"):
        spec.check_block_size(48)


@pytest.mark.parametrize("name", NAMES)
def test_graph_is_the_default_and_every_host_protocol_stays(name):
    for problem in PROBLEMS:
        sync = registry.get(name, "gpu", problem=problem).param("sync")
        assert sync.default == GRAPH and sync.choices == (*SYNCS, GRAPH), (name, problem)
    assert inspect.signature(RUNS[name]).parameters["sync"].default == GRAPH
    bind = registry.get(name, "gpu", problem="d2").bind
    assert inspect.signature(bind).parameters["sync"].default == GRAPH


@pytest.mark.parametrize("name", NAMES)
def test_graph_where_it_cannot_run_is_refused_in_one_line_before_allocating(monkeypatch, name):
    """No cuda-bindings or an old driver: bind says why (and to pass sync=device) before it
    compiles or allocates anything (a DevicePattern without device arrays is enough)."""
    pattern = closed_neighbourhoods(_graph("grid2d", side=10))
    dp = runtime.DevicePattern(pattern, None, None, None, None)
    bind = registry.get(name, "gpu", problem="d2").bind
    monkeypatch.setattr(runtime, "device_free_bytes", lambda: 1 << 40)
    monkeypatch.setattr(loops, "unsupported", lambda: "no conditional nodes: pass sync=device")
    with pytest.raises(GpuUnavailableError, match="sync=device"):
        bind(dp)
    with pytest.raises(GpuUnavailableError, match="sync=device"):
        bind(dp, sync=GRAPH)


def _distinct_degrees(pattern: Pattern) -> np.ndarray:
    """Each column's distinct distance-2 neighbours, from AᵀA (apart from color_bound)."""
    a = sparse.csr_matrix(
        (np.ones(pattern.nnz), pattern.indices, pattern.indptr), (pattern.n_rows, pattern.n_cols)
    )
    square = (a.T @ a).tocsr()
    square.setdiag(0)
    square.eliminate_zeros()
    return np.diff(square.indptr)


@pytest.mark.parametrize("seed", range(4))
def test_color_bound_holds_every_greedy_coloring(seed):
    """The bound jp-d2 sizes its bitmaps by: above every column's distinct distance-2 degree
    (so above every greedy color), at most the columns."""
    empty = from_entries(3, 5, [0, 0, 1], [1, 2, 2])  # columns 0, 3 and 4 in no row
    patterns = [_random(seed, 40, 60, 30 + 100 * seed), _d2("star-300"), _crossing_rows(), empty]
    for pattern in patterns:
        bound = distance2.color_bound(pattern)
        assert _distinct_degrees(pattern).max() < bound <= pattern.n_cols, pattern.name
        for order in PATTERN_ORDERS:
            assert greedy_d2_colors(pattern, order).max() < bound


def test_dense_rows_are_the_rows_past_the_threshold_and_within_the_budget(monkeypatch):
    """Which rows get a bitmap (host only: a DevicePattern without device arrays is enough)."""
    pattern = _crossing_rows()  # rows of 600, 450 and 300 columns, the rest short
    dp = runtime.DevicePattern(pattern, None, None, None, None)
    none = distance2.dense_rows(dp, 0)
    assert none.count == none.words == 0 and (none.slot == -1).all()
    assert none.slot.size == pattern.n_rows
    rows = distance2.dense_rows(dp, 300)
    assert rows.count == 3 and rows.slot[:3].tolist() == [0, 1, 2] and (rows.slot[3:] == -1).all()
    assert rows.words == -(-distance2.color_bound(pattern) // 32) and rows.threshold == 300
    assert rows.nbytes == 4 * pattern.n_rows + 4 * 3 * (rows.words + 1)
    assert distance2.dense_rows(dp, 10**6).count == 0
    monkeypatch.setattr(distance2, "DENSE_BUDGET", 4 * (rows.words + 1))  # one bitmap
    one = distance2.dense_rows(runtime.DevicePattern(pattern, None, None, None, None), 300)
    assert one.count == 1 and one.slot[0] == 0 and one.threshold == 451


def test_jp_d2_takes_the_serial_greedy_orders():
    order = registry.get("jp-d2", "gpu", problem="d2").param("order")
    assert order.choices == PATTERN_ORDERS and order.default == "random"


def test_distance_one_vb_bit_is_still_deveci():
    assert registry.get("vb-bit", "gpu").kernel == deveci.VB_FAMILY
    assert registry.get("vb-bit", "gpu", problem="d2").kernel == distance2.FAMILY
    with pytest.raises(SpecError, match="does not solve"):
        registry.get("nb-bit", "gpu")
