"""``cf``: communication-free coloring (luby-cf §"Communication free") over kernels/cf.cu.

Pass 0 colors every tile of ``tile`` consecutive vertices inside one thread block, in shared
memory, seeing only in-tile neighbours (Jones-Plassmann with first fit, largest in-tile degree
first); the tile size is bounded by shared memory, as the report says, not by the block size.
Cross-tile edges can then conflict: one endpoint of each is listed, and pass p colors the list
(highest degree first, so its dense core shares few tiles), tiled again, with the fresh colors
[p*T, p*T + T), until no conflict is left (each pass keeps at least the listed vertex of
largest hash, and a list of at most one tile has none, so the passes end). Last, as the report
suggests, a greedy pass pulls colors down one color class at a time. ``iterations`` counts
tile passes; ``trace["active"]`` the conflicting vertices after each. Decisions:
docs/independent-set.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.gpu.independent_set import WARP_DEGREE
from gcbench.algorithms.registry import WARP, AlgorithmSpec, Coloring, Param, register

FAMILY = "cf"
TILE_BYTES = 24  # shared memory per tile vertex (kernels/cf.cu, struct Tile)
MAX_TILE = 48 * 1024 // TILE_BYTES  # the shared memory every CUDA device gives a block
_PASS_KERNELS = ("tiles", "tile_adjacency", "list_tiles", "conflicts", "positions")


def _pull_down(dg: runtime.DeviceGraph, colors: Any, classes: int, block_size: int) -> None:
    """Greedy first fit by color class, lowest first: class c's vertices (an independent set)
    move together to the smallest color no neighbour holds, which is never above c."""
    cp = runtime.cupy()
    n, b = np.int32(dg.n), block_size
    bucket = runtime.kernel(FAMILY, "cf_bucket")
    buckets = 2 * classes  # bucket 2c + heavy: color c, split by degree >= WARP_DEGREE
    slots = cp.zeros(buckets, dtype=np.int32)
    order = cp.empty(dg.n, dtype=np.int32)
    grid = (runtime.grid_for(dg.n, b),)
    common = (n, dg.indptr, colors, np.int32(WARP_DEGREE))
    bucket(grid, (b,), (*common, np.int32(0), slots, order))
    sizes = slots.get()
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int32)
    slots.set(starts[:-1])
    bucket(grid, (b,), (*common, np.int32(1), slots, order))
    thread = runtime.kernel(FAMILY, "cf_pull_thread")
    warp = runtime.kernel(FAMILY, "cf_pull_warp")
    for k in np.flatnonzero(sizes[2:]) + 2:  # class 0 stays where it is
        size, heavy = int(sizes[k]), bool(k % 2)
        members = order[starts[k] : starts[k + 1]]
        grid = (runtime.grid_for(size * 32 if heavy else size, b),)
        (warp if heavy else thread)(
            grid, (b,), (np.int32(size), members, dg.indptr, dg.indices, colors)
        )


def cf(dg: runtime.DeviceGraph, *, block_size: int = 256, tile: int = 2048) -> Coloring:
    """Communication-free coloring: tile passes until no cross-tile conflict, then pull-down."""
    cp = runtime.cupy()
    n, b = dg.n, block_size
    colors = runtime.uncolored(n)
    if n == 0:
        return Coloring(colors, 0, {"active": []})
    kernels = {name: runtime.kernel(FAMILY, f"cf_{name}") for name in _PASS_KERNELS}
    shared = tile * TILE_BYTES
    width = np.int32(tile)
    graph = (dg.indptr, dg.indices)
    losers = cp.empty(n, dtype=np.int32)
    count = cp.zeros(1, dtype=np.int32)
    lists: dict[str, Any] = {}  # what conflict passes need, made at the first one
    listed = [n]  # vertices the next pass colors

    def conflict_pass(rnd: int, size: np.int32, grid: tuple[int]) -> None:
        if not lists:
            lists.update(
                pos=cp.full(n, -1, dtype=np.int32),
                degree=cp.diff(dg.indptr),
                inner=cp.empty(n, dtype=np.int32),
                offsets=cp.zeros(n + 1, dtype=np.int32),
                adj=cp.empty(max(dg.nnz, 1), dtype=np.int32),
            )
        pos, inner, offsets, adj = (lists[k] for k in ("pos", "inner", "offsets", "adj"))
        ids = losers[: int(size)]
        # highest degree first, then id: the dense core of the conflicts shares few tiles
        key = (dg.max_degree - lists["degree"][ids]).astype(np.int64) << 32 | ids
        current = (cp.sort(key) & 0xFFFFFFFF).astype(np.int32)
        kernels["positions"](grid, (b,), (size, current, pos, np.int32(1)))
        adjacency = (size, width, current, pos, *graph)
        kernels["tile_adjacency"](grid, (b,), (*adjacency, np.int32(0), inner, offsets, adj))
        offsets[1 : int(size) + 1] = cp.cumsum(inner[: int(size)], dtype=np.int32)
        kernels["tile_adjacency"](grid, (b,), (*adjacency, np.int32(1), inner, offsets, adj))
        tiles = (runtime.grid_for(int(size), tile),)
        args = (size, width, current, offsets, adj, colors, np.int32(rnd * tile))
        kernels["list_tiles"](tiles, (b,), args, shared_mem=shared)
        args = (size, current, np.int32(0), *graph, colors, losers, count)
        kernels["conflicts"](grid, (b,), args)
        kernels["positions"](grid, (b,), (size, current, pos, np.int32(0)))

    def step(rnd: int) -> int:
        size = np.int32(listed[0])
        grid = (runtime.grid_for(listed[0], b),)
        count.fill(0)
        if rnd == 0:
            tiles = (runtime.grid_for(n, tile),)
            kernels["tiles"](tiles, (b,), (size, width, *graph, colors), shared_mem=shared)
            args = (size, colors, np.int32(1), *graph, colors, losers, count)  # no list read
            kernels["conflicts"](grid, (b,), args)
        else:
            conflict_pass(rnd, size, grid)
        listed[0] = int(count.get()[0])
        return listed[0]

    passes, active = runtime.run_rounds(step, cap=n + 1, algorithm="cf", colors=colors)
    _pull_down(dg, colors, passes * tile, b)
    return Coloring(colors, passes, {"active": active})


register(
    AlgorithmSpec(
        name="cf",
        backend="gpu",
        family="independent set (luby-cf-eec289q-report) communication free",
        run=cf,
        params=(
            Param(
                "tile",
                2048,
                int,
                low=32,
                high=MAX_TILE,
                help="vertices a thread block colors in shared memory",
            ),
        ),
        deterministic=True,
        block_size_matters=True,
        default_block_size=256,
        block_size_step=WARP,
        iterations_meaning="tile passes (the pull-down pass not counted)",
        description="Communication-free: block-local coloring in shared memory, cross-block "
        "conflicts recolored with fresh colors, then a greedy pull-down",
        kernel=FAMILY,
    )
)
