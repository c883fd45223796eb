"""cf, communication-free coloring: valid on every generated family, deterministic, and its
passes and pull-down behave as docs/independent-set.md says; its setup makes the buffers and
the set-up runs color exactly as the allocating implementation it replaced."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from gcbench import algorithms, validate
from gcbench.algorithms.execute import execute, run_timed, run_with_setup, setup
from gcbench.algorithms.gpu import cf, runtime
from gcbench.algorithms.gpu.independent_set import WARP_DEGREE
from gcbench.algorithms.rounds import SYNCS, run_rounds


def run(on_gpu, spec: str, block_size: int = 256, **params):
    graph, prepared = on_gpu(spec)
    algo = algorithms.get("cf")
    outcome = execute(algo, prepared, block_size, algo.resolve_params(params))
    return graph, outcome


@pytest.mark.gpu
@pytest.mark.parametrize(("block_size", "tile"), [(32, 32), (256, 2048), (1024, 1000)])
def test_valid_on_every_family(on_gpu, family_spec, block_size, tile):
    graph, outcome = run(on_gpu, family_spec, block_size, tile=tile)
    check = validate(graph, outcome.colors)
    assert check.valid and outcome.validation.valid, (check, outcome.validation)
    active = outcome.coloring.trace["active"]
    assert outcome.coloring.iterations == len(active)
    if graph.n:
        assert active[-1] == 0
    # after the pull-down every vertex holds the smallest color its neighbours leave free
    # below its own, so the colors in use are 0..k-1 with no gap and never exceed max degree
    assert check.max_color == check.colors - 1
    assert check.max_color <= graph.max_degree


@pytest.mark.gpu
def test_one_tile_needs_one_pass(on_gpu):
    graph, outcome = run(on_gpu, "gen:complete?n=200", 64, tile=200)
    assert outcome.coloring.iterations == 1
    assert validate(graph, outcome.colors).colors == 200


@pytest.mark.gpu
def test_cross_tile_conflicts_are_recolored_in_more_passes(on_gpu):
    graph, outcome = run(on_gpu, "gen:complete?n=200", 64, tile=32)
    assert outcome.coloring.iterations > 1
    assert outcome.coloring.trace["active"][0] > 0
    assert validate(graph, outcome.colors).colors == 200


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["gen:rgg?scale=14", "gen:kron?scale=16&edgefactor=48"])
def test_deterministic(on_gpu, spec):
    _, first = run(on_gpu, spec)
    _, second = run(on_gpu, spec)
    np.testing.assert_array_equal(first.colors, second.colors)


def first_fit_in_id_order(graph) -> np.ndarray:
    """Serial greedy: each vertex in id order takes the smallest color no neighbour holds."""
    colors = np.full(graph.n, -1, dtype=np.int32)
    for v in range(graph.n):
        taken = set(colors[graph.indices[graph.indptr[v] : graph.indptr[v + 1]]].tolist())
        colors[v] = next(c for c in range(graph.n) if c not in taken)
    return colors


@pytest.mark.gpu
@pytest.mark.parametrize("sync", ["device", "round"])  # one launch; a launch per class
@pytest.mark.parametrize("spec", ["gen:grid2d?side=40", "gen:queen?n=12", "gen:rgg?scale=11"])
def test_pull_down_of_the_identity_coloring_is_greedy_in_id_order(on_gpu, spec, sync):
    """With one vertex per class, pulling down class by class is serial first fit (the one
    launch crosses a grid barrier per class: n - 1 of them)."""
    import cupy as cp

    graph, prepared = on_gpu(spec)
    colors = cp.arange(graph.n, dtype=np.int32)
    cf.bind(prepared.handle, block_size=64, sync=sync).pull_down(colors, graph.n)
    np.testing.assert_array_equal(colors.get(), first_fit_in_id_order(graph))


def test_spec_sets_up_and_binds():
    spec = algorithms.get("cf")
    assert spec.setup is cf.scratch and spec.bind is cf.bind


# ------------------------------------------------------------------ the set-up path (issue 34)


def _gate(p: int, before: Any, left: Any) -> tuple:
    """A pass's arguments as the host names them (kernels/common.cuh, gcb_locate): no round
    counter, slots ``before`` (its count first) and ``left``, no mirror."""
    return (np.uint64(0), np.int32(p), np.int32(1), np.uint64(before.data.ptr),
            np.uint64(left.data.ptr), np.uint64(0))  # fmt: skip


def reference_cf(dg, block_size: int, tile: int) -> tuple[np.ndarray, int, list[float]]:
    """A frozen reference, kept on purpose beside the code it checks: cf as it was before it
    had a setup (everything allocated inside the call, commit 81ce910), each pass's list
    sorted by rank on the host's count, whose colors, passes and per-pass conflicts the set-up,
    device-listed implementation must reproduce exactly. Only its kernel calls follow the
    kernels' arguments as they are now (the pass's count in a slot, the losers marked)."""
    cp = runtime.cupy()
    n, b = dg.n, block_size
    colors = runtime.uncolored(n)
    if n == 0:
        return colors.get(), 0, []
    names = ("tiles", "tile_adjacency", "list_tiles", "conflicts", "positions")
    kernels = {name: runtime.kernel("cf", f"cf_{name}") for name in names}
    shared = tile * cf.TILE_BYTES
    width = np.int32(tile)
    graph = (dg.indptr, dg.indices)
    lost = cp.zeros(n, dtype=np.int32)
    before, left = cp.zeros(2, dtype=np.int32), cp.zeros(2, dtype=np.int32)
    lists: dict[str, Any] = {}
    listed = [n]

    def conflict_pass(rnd: int, size: int, grid: tuple[int], gate: tuple) -> None:
        if not lists:
            lists.update(
                pos=cp.full(n, -1, dtype=np.int32),
                degree=cp.diff(dg.indptr),
                inner=cp.empty(n, dtype=np.int32),
                offsets=cp.zeros(n + 1, dtype=np.int32),
                adj=cp.empty(max(dg.nnz, 1), dtype=np.int32),
            )
        pos, inner, offsets, adj = (lists[k] for k in ("pos", "inner", "offsets", "adj"))
        ids = cp.flatnonzero(lost).astype(np.int32)
        lost.fill(0)
        key = (dg.max_degree - lists["degree"][ids]).astype(np.int64) << 32 | ids
        current = (cp.sort(key) & 0xFFFFFFFF).astype(np.int32)
        kernels["positions"](grid, (b,), (current, pos, np.int32(1), *gate))
        adjacency = (width, current, pos, *graph)
        kernels["tile_adjacency"](grid, (b,), (*adjacency, np.int32(0), inner, offsets, adj, *gate))
        offsets[1 : size + 1] = cp.cumsum(inner[:size], dtype=np.int32)
        kernels["tile_adjacency"](grid, (b,), (*adjacency, np.int32(1), inner, offsets, adj, *gate))
        tiles = (runtime.grid_for(size, tile),)
        args = (width, current, offsets, adj, colors, np.int32(rnd * tile), *gate)
        kernels["list_tiles"](tiles, (b,), args, shared_mem=shared)
        args = (current, np.int32(0), *graph, colors, lost, *gate)
        kernels["conflicts"](grid, (b,), args)
        kernels["positions"](grid, (b,), (current, pos, np.int32(0), *gate))

    def step(rnd: int) -> int:
        size = listed[0]
        grid = (runtime.grid_for(size, b),)
        before[:1].fill(size)
        left.fill(0)
        gate = _gate(rnd, before, left)
        if rnd == 0:
            tiles = (runtime.grid_for(n, tile),)
            kernels["tiles"](tiles, (b,), (np.int32(n), width, *graph, colors), shared_mem=shared)
            args = (colors, np.int32(1), *graph, colors, lost, *gate)
            kernels["conflicts"](grid, (b,), args)
        else:
            conflict_pass(rnd, size, grid, gate)
        listed[0] = int(left.get()[0])
        return listed[0]

    passes, active = run_rounds(step, cap=n + 1, algorithm="cf", colors=colors)
    # the pull-down, as it was
    slots = cp.zeros(2 * passes * tile, dtype=np.int32)
    order = cp.empty(n, dtype=np.int32)
    grid = (runtime.grid_for(n, b),)
    common = (np.int32(n), dg.indptr, colors, np.int32(WARP_DEGREE))
    bucket = runtime.kernel("cf", "cf_bucket")
    bucket(grid, (b,), (*common, np.int32(0), slots, order))
    sizes = slots.get()
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int32)
    slots.set(starts[:-1])
    bucket(grid, (b,), (*common, np.int32(1), slots, order))
    for k in np.flatnonzero(sizes[2:]) + 2:
        size, heavy = int(sizes[k]), bool(k % 2)
        members = order[starts[k] : starts[k + 1]]
        launch = (runtime.grid_for(size * 32 if heavy else size, b),)
        pull = runtime.kernel("cf", "cf_pull_warp" if heavy else "cf_pull_thread")
        pull(launch, (b,), (np.int32(size), members, dg.indptr, dg.indices, colors))
    return colors.get(), passes, active


SETUP_SPECS = (
    "gen:rgg?scale=14",
    "gen:kron?scale=16&edgefactor=48",
    "gen:grid2d?side=100",
    "gen:complete?n=200",
    "gen:star?leaves=100000",
    "gen:cycle?n=1001",
    "gen:empty?n=0",
    "gen:empty?n=1000",
)
# one view runs them in turn: the buffers are reused across block sizes and tiles
CONFIGS = ((256, 2048), (32, 32), (1024, 1000), (64, 200), (256, 2048))


@pytest.mark.gpu
@pytest.mark.parametrize("spec", SETUP_SPECS)
def test_set_up_runs_color_as_the_allocating_implementation(on_gpu, spec):
    graph, prepared = on_gpu(spec)
    algo = algorithms.get("cf")
    view = prepared.fresh()
    assert "cf" not in view.handle.extras
    setup(algo, view)
    s = view.handle.extras["cf"]
    assert s is cf.scratch(view.handle)
    for i, (block_size, tile) in enumerate(CONFIGS):
        params = algo.resolve_params({"tile": tile, "sync": SYNCS[i % len(SYNCS)]})
        coloring, _ = run_timed(algo, view, block_size, params)
        colors = coloring.colors.get()
        assert coloring.colors is s.colors  # the output buffer is the setup's
        expected, passes, active = reference_cf(view.handle, block_size, tile)
        np.testing.assert_array_equal(colors, expected, err_msg=f"{block_size}, {tile}")
        assert coloring.iterations == passes and coloring.trace["active"] == active
        assert s.clean and (s.pos.get() == -1).all() and not s.lost.get().any()
        assert validate(graph, colors).valid


@pytest.mark.gpu
def test_a_run_after_one_stopped_mid_pass_colors_the_same(on_gpu):
    graph, prepared = on_gpu("gen:rgg?scale=14")
    view = prepared.fresh()
    s = cf.scratch(view.handle)
    s.pos.fill(7)  # as a run that failed between its positions(set=1) and positions(set=0)
    s.lost[::3] = 1  # ... and before its next pass listed the losers
    s.clean = False
    colors = cf.cf(view.handle, block_size=256, tile=256).colors.get()
    np.testing.assert_array_equal(colors, reference_cf(view.handle, 256, 256)[0])
    assert s.clean and (s.pos.get() == -1).all() and not s.lost.get().any()


@pytest.mark.gpu
def test_blocking_reads_per_protocol(on_gpu):
    """The passes' counts are read as the protocol says (one a pass under round, at most
    ⌈log₂ passes⌉ + 2 under device); the pull-down reads its class sizes under round only."""
    reads, passes = {}, {}
    for sync in SYNCS:
        _, outcome = run(on_gpu, "gen:complete?n=200", 64, tile=32, sync=sync)
        reads[sync], passes[sync] = outcome.coloring.host_syncs, outcome.coloring.iterations
    assert len(set(passes.values())) == 1 and passes["round"] >= 5, passes
    assert reads["round"] == passes["round"] + 1
    assert reads["batch"] <= math.ceil(math.log2(passes["batch"] + 1)) + 1
    assert reads["device"] <= math.ceil(math.log2(passes["device"])) + 2


@pytest.mark.gpu
def test_count_setup_sets_up_a_fresh_view_and_colors_the_same(on_gpu):
    _, prepared = on_gpu("gen:delaunay?scale=12")
    algo = algorithms.get("cf")
    coloring, setup_ms, total_ms = run_with_setup(algo, prepared, 256, algo.resolve_params({}))
    assert 0 <= setup_ms <= total_ms
    expected = reference_cf(prepared.handle, 256, 2048)[0]
    np.testing.assert_array_equal(coloring.colors.get(), expected)


@pytest.mark.gpu
def test_the_pull_down_buckets_grow_when_a_run_needs_more(on_gpu):
    _, prepared = on_gpu("gen:cycle?n=1001")
    s = cf.scratch(prepared.fresh().handle)
    assert s.slots.size == cf.SLOTS
    s.slots.fill(9)
    assert (s.zeroed_slots(100).get() == 0).all() and s.slots.size == cf.SLOTS
    grown = s.zeroed_slots(cf.SLOTS + 10)
    assert grown.size == cf.SLOTS + 10 and (grown.get() == 0).all()
    assert s.slots.size >= cf.SLOTS + 10
