"""``cf``: communication-free coloring (luby-cf §"Communication free") over kernels/cf.cu.

Pass 0 colors every tile of ``tile`` consecutive vertices inside one thread block, in shared
memory, seeing only in-tile neighbours (Jones-Plassmann with first fit, largest in-tile degree
first); the tile size is bounded by shared memory, as the report says, not by the block size.
Cross-tile edges can then conflict: one endpoint of each is listed, and pass p colors the list
(highest degree first, so its dense core shares few tiles), tiled again, with the fresh colors
[p*T, p*T + T), until no conflict is left (each pass keeps at least the listed vertex of
largest hash, and a list of at most one tile has none, so the passes end). Last, as the report
suggests, a greedy pass pulls colors down one color class at a time: one launch whose blocks
wait for each other between two classes (a grid barrier, the grid sized to be resident), or,
under ``sync=round``, the papers' host loop: the class sizes read back, a launch per class.
``iterations`` counts tile passes; ``trace["active"]`` the conflicting vertices after each.
Decisions: docs/independent-set.md.

The passes run under the host protocol ``sync`` (:func:`gcbench.algorithms.gpu.slots.drive`;
docs/decisions.md, "Rounds without the host"): each pass finds its list's length in its slot
and the lost vertices are listed on the device in the graph's rank order (the order a sort of
their ranks gives), so the host launches passes without reading their counts, and the
pull-down reads nothing: a coloring makes the passes' reads alone. ``graph`` is not offered:
the passes' prefix sums are CuPy's, which allocate scratch memory that a captured graph cannot.

The spec's ``setup`` (:func:`scratch`) makes the graph's buffers and the rank order once;
``bind`` looks up the kernels, so a timed call only colors. The colors a run returns are the
graph's buffer, valid until the next run on it (copy them to keep them).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from gcbench.algorithms.gpu import runtime, slots
from gcbench.algorithms.gpu.independent_set import WARP_DEGREE
from gcbench.algorithms.registry import UNCOLORED, WARP, AlgorithmSpec, Coloring, Param, register
from gcbench.algorithms.rounds import SYNCS

FAMILY = "cf"
TILE_BYTES = 24  # shared memory per tile vertex (kernels/cf.cu, struct Tile)
MAX_TILE = 48 * 1024 // TILE_BYTES  # the shared memory every CUDA device gives a block
SLOTS = 2 * 8 * MAX_TILE  # pull-down buckets set up per graph: 8 passes at the largest tile

# What kernels/cf.cu shares with this module: passed to every compile as a -D define.
runtime.share(FAMILY, GCB_CF_TILE_BYTES=TILE_BYTES)


@dataclass
class _Scratch:
    """Per-graph device buffers, made by the spec's setup and reused by every run on the graph.
    ``colors`` is the output of every run on this graph: valid until the next run."""

    colors: Any  # int32[n]
    lost: Any  # int32[n]: 1 for the vertices the next pass colors (cf_conflicts marks them)
    by_rank: Any  # int32[n]: the vertices by (max degree - degree) << 32 | v: the lists' order
    marked: Any  # int32[n]: lost, in rank order (cf_select)
    place: Any  # int32[n]: its prefix sum: where each lost vertex goes in the list
    current: Any  # int32[n]: the list the pass colors (cf_gather)
    pos: Any  # int32[n]: a vertex's place in the pass's list; -1 off it, and between passes
    inner: Any  # int32[n]: in-tile degree of each list entry
    offsets: Any  # int32[n + 1]: where each entry's in-tile neighbours start (offsets[0] = 0)
    adj: Any  # int32[max(nnz, 1)]: the list's in-tile adjacency
    order: Any  # int32[n]: the pull-down's vertices, bucket by bucket
    slots: Any  # int32[>= SLOTS]: the pull-down's bucket sizes, then starts
    bar: Any  # uint32[2]: the grid barrier of the pull-down's one launch (cf_pull_all)
    clean: bool = True  # pos all -1, lost all 0 (False from a run's start to its end)

    def zeroed_slots(self, size: int) -> Any:
        """``slots[:size]``, zeroed; the buffer grows the first time a run needs more (more
        than 8 passes at the largest tile: a warm-up absorbs that allocation)."""
        if self.slots.size < size:
            self.slots = runtime.cupy().empty(max(size, 2 * self.slots.size), dtype=np.int32)
        slots = self.slots[:size]
        slots.fill(0)
        return slots


def _build(dg: runtime.DeviceGraph) -> _Scratch:
    cp = runtime.cupy()
    n = dg.n
    # highest degree first, then id: the dense core of the conflicts shares few tiles
    fewer = (dg.max_degree - cp.diff(dg.indptr)).astype(np.int64)
    rank = fewer << 32 | cp.arange(n, dtype=np.int64)
    return _Scratch(
        colors=cp.empty(n, dtype=np.int32),
        lost=cp.zeros(n, dtype=np.int32),
        by_rank=(cp.sort(rank) & 0xFFFFFFFF).astype(np.int32),
        marked=cp.zeros(n, dtype=np.int32),
        place=cp.zeros(n, dtype=np.int32),
        current=cp.empty(n, dtype=np.int32),
        pos=cp.full(n, -1, dtype=np.int32),
        inner=cp.empty(n, dtype=np.int32),
        offsets=cp.zeros(n + 1, dtype=np.int32),
        adj=cp.empty(max(dg.nnz, 1), dtype=np.int32),
        order=cp.empty(n, dtype=np.int32),
        slots=cp.empty(SLOTS, dtype=np.int32),
        bar=cp.zeros(2, dtype=np.uint32),
    )


def scratch(dg: runtime.DeviceGraph) -> _Scratch:
    """The graph's buffers, made once (the spec's setup: timed as ``setup_ms``)."""
    return dg.extra("cf", _build)


@dataclass(frozen=True)
class _Kernels:
    """The kernels of kernels/cf.cu (``cf_<field>``)."""

    tiles: Any
    tile_adjacency: Any
    list_tiles: Any
    conflicts: Any
    positions: Any
    select: Any
    gather: Any
    bucket: Any
    pull_thread: Any
    pull_warp: Any
    pull_all: Any


def _kernels() -> _Kernels:
    return _Kernels(**{f.name: runtime.kernel(FAMILY, f"cf_{f.name}") for f in fields(_Kernels)})


class _Run:
    """One coloring of ``dg`` with ``block_size`` threads a block and tiles of ``tile``
    vertices, over the graph's scratch, its passes under the host protocol ``sync``:
    :func:`bind` makes it, the timed call calls it. The tile passes are the rounds of
    :func:`~gcbench.algorithms.gpu.slots.coloring` (:meth:`launch`)."""

    def __init__(self, dg: runtime.DeviceGraph, block_size: int, tile: int, sync: str) -> None:
        self.dg, self.s, self.k = dg, scratch(dg), _kernels()
        self.block, self.tile, self.sync = block_size, tile, sync
        self.width, self.shared = np.int32(tile), tile * TILE_BYTES
        self.graph = (dg.indptr, dg.indices)
        self.grid = (runtime.grid_for(dg.n, block_size),)  # a list is at most n long
        self.tiles = (runtime.grid_for(dg.n, tile),)  # ... and so are its tiles
        resident = runtime.resident_per_sm(self.k.pull_all, block_size)
        self.resident = (min(self.grid[0], resident * runtime.device_facts().multiprocessors),)

    def __call__(self) -> Coloring:
        """Tile passes until no cross-tile conflict, then the pull-down."""
        n, s = self.dg.n, self.s
        if n == 0:
            return Coloring(s.colors, 0, {"active": []})
        if not s.clean:  # the last run stopped inside a pass
            s.pos.fill(-1)
            s.lost.fill(0)
        s.clean = False
        s.colors.fill(UNCOLORED)
        counts = slots.Slots((n, 0))  # what each pass left, on the device
        coloring = slots.coloring(
            lambda rnd: self.launch(counts, rnd),
            counts,
            cap=n + 1,
            algorithm="cf",
            colors=s.colors,
            sync=self.sync,
        )
        self.pull_down(s.colors, coloring.iterations * self.tile)
        s.clean = True
        return coloring

    def launch(self, counts: slots.Slots, rnd: int) -> None:
        """Pass ``rnd``: color its list (every vertex in pass 0), mark the losers of the
        conflicts that leaves and count them into the pass's slot of ``counts``."""
        s, k, b, grid = self.s, self.k, self.block, self.grid
        gate = counts.gate(rnd)
        if rnd == 0:
            args = (np.int32(self.dg.n), self.width, *self.graph, s.colors)
            k.tiles(self.tiles, (b,), args, shared_mem=self.shared)
            k.conflicts(grid, (b,), (s.colors, np.int32(1), *self.graph, s.colors, s.lost, *gate))
            return  # identity: the list (here colors) is not read
        self._list_pass(rnd, gate)

    def _list_pass(self, rnd: int, gate: tuple[Any, ...]) -> None:
        """Pass ``rnd`` >= 1: the lost vertices, highest degree first, in tiles of their own
        with the fresh colors [rnd * tile, rnd * tile + tile). The prefix sums run over n
        entries whatever the list's length (the host does not know it); past the list's end
        their output is never read."""
        cp = runtime.cupy()
        s, k, b, grid, n = self.s, self.k, self.block, self.grid, np.int32(self.dg.n)
        k.select(grid, (b,), (n, s.by_rank, s.lost, s.marked, *gate))
        cp.cumsum(s.marked, dtype=np.int32, out=s.place)
        k.gather(grid, (b,), (n, s.by_rank, s.marked, s.place, s.current, s.lost, *gate))
        k.positions(grid, (b,), (s.current, s.pos, np.int32(1), *gate))
        adjacency = (self.width, s.current, s.pos, *self.graph)
        k.tile_adjacency(grid, (b,), (*adjacency, np.int32(0), s.inner, s.offsets, s.adj, *gate))
        cp.cumsum(s.inner, dtype=np.int32, out=s.offsets[1:])
        k.tile_adjacency(grid, (b,), (*adjacency, np.int32(1), s.inner, s.offsets, s.adj, *gate))
        base = np.int32(rnd * self.tile)
        args = (self.width, s.current, s.offsets, s.adj, s.colors, base, *gate)
        k.list_tiles(self.tiles, (b,), args, shared_mem=self.shared)
        args = (s.current, np.int32(0), *self.graph, s.colors, s.lost, *gate)
        k.conflicts(grid, (b,), args)
        k.positions(grid, (b,), (s.current, s.pos, np.int32(0), *gate))

    def pull_down(self, colors: Any, classes: int) -> None:
        """Greedy first fit by color class, lowest first: class c's vertices (an independent
        set) move together to the smallest color no neighbour holds, which is never above c.
        ``classes`` bounds the colors in use."""
        dg, s, k, b = self.dg, self.s, self.k, self.block
        cp = runtime.cupy()
        buckets = s.zeroed_slots(2 * classes)  # bucket 2c + heavy: color c, split by degree
        common = (np.int32(dg.n), dg.indptr, colors, np.int32(WARP_DEGREE))
        k.bucket(self.grid, (b,), (*common, np.int32(0), buckets, s.order))
        if self.sync == "round":
            sizes = runtime.read_back(buckets)  # the papers' read: the launches are sized by it
        else:  # place[j]: the non-empty classes among colors 1 .. j + 1 (cf_pull_all finds each)
            place = cp.cumsum((buckets[2::2] + buckets[3::2]) > 0, dtype=np.int32)
        buckets[...] = cp.cumsum(buckets, dtype=np.int32) - buckets  # the starts, on the device
        k.bucket(self.grid, (b,), (*common, np.int32(1), buckets, s.order))  # ... now the ends
        if self.sync != "round":
            s.bar.fill(0)
            args = (np.int32(classes), place, buckets, s.order, *self.graph, colors, s.bar)
            k.pull_all(self.resident, (b,), args)
            return
        starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int32)
        for c in np.flatnonzero(sizes[2:]) + 2:  # class 0 stays where it is
            size, heavy = int(sizes[c]), bool(c % 2)
            members = s.order[starts[c] : starts[c + 1]]
            grid = (runtime.grid_for(size * 32 if heavy else size, b),)
            (k.pull_warp if heavy else k.pull_thread)(
                grid, (b,), (np.int32(size), members, dg.indptr, dg.indices, colors)
            )


def bind(
    dg: runtime.DeviceGraph, *, block_size: int = 256, tile: int = 2048, sync: str = "device"
) -> _Run:
    """:func:`cf` as a call with no arguments (the scratch and the kernels looked up now)."""
    return _Run(dg, block_size, tile, sync)


def cf(
    dg: runtime.DeviceGraph, *, block_size: int = 256, tile: int = 2048, sync: str = "device"
) -> Coloring:
    """Communication-free coloring: tile passes until no cross-tile conflict, then pull-down."""
    return bind(dg, block_size=block_size, tile=tile, sync=sync)()


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
            Param("sync", "device", choices=SYNCS, help=slots.SYNC_HELP),
        ),
        deterministic=True,
        block_size_matters=True,
        default_block_size=256,
        block_size_step=WARP,
        iterations_meaning="tile passes (the pull-down pass not counted)",
        description="Communication-free: block-local coloring in shared memory, cross-block "
        "conflicts recolored with fresh colors, then a greedy pull-down",
        setup=scratch,
        kernel=FAMILY,
        bind=bind,
    )
)
