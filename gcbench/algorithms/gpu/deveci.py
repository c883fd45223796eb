"""Deveci et al.'s vertex- and edge-based speculative coloring (deveci-cmu §3) on the GPU.

Vertex-based, over ``kernels/deveci_vb.cu``: ``vb`` (§3.1, the unbounded forbidden array) and
``vb-bit`` (§3.1.2, a 64-color window; ``conflicts=atomic|scan`` builds the next conflict list
by atomic append or by prefix sum, §3.1.1). A round colors the conflict list and detects its
conflicts; ``trace["active"]`` is the conflict list left after each round. The list's length
stays on the device (each round's slot: :mod:`~gcbench.algorithms.gpu.slots`).

Edge-based, over ``kernels/deveci_eb.cu`` and the lower-triangle edge list that the spec's
``setup`` builds once per graph: ``eb`` (§3.2), ``eb-cs`` (+ color sets, §3.2.1), ``eb-tent``
(+ tentative coloring with the report's correction, §3.2.2 and appendix) and ``eb-er``
(+ edge removal, §3.2.3). A round is AssignColors, DetectConflicts, ForbidColors (and
TentativeColor); ``trace["active"]`` is the edges a round works on, ``trace["uncolored"]`` the
vertices still uncolored after it. The rounds run under the host protocol ``sync``
(:func:`gcbench.algorithms.gpu.slots.drive`; docs/decisions.md, "Rounds without the host").
Decisions and the block-size study are in docs/deveci.md.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench.algorithms.gpu import loops, runtime, slots
from gcbench.algorithms.gpu.slots import SYNC_GRAPH as SYNC
from gcbench.algorithms.gpu.slots import Slots
from gcbench.algorithms.registry import UNCOLORED, AlgorithmSpec, Coloring, Param, register, runs
from gcbench.algorithms.rounds import GRAPH
from gcbench.errors import SpecError

VB_FAMILY, EB_FAMILY = "deveci_vb", "deveci_eb"
CS_WIDTH = 32  # eb-cs: colors per color set (§3.2.1)
TENTATIVE_WIDTH = 31  # eb-tent, eb-er: the top bit marks a tentative color (§3.2.2)
VB_BLOCK, EB_BLOCK = 8, 256  # default block sizes: docs/deveci.md, "Default block sizes"
VB_SCAN = 1024  # conflicts=scan: flags a block of vb_scan_* prefix-sums (its threads)
CONFLICT_LISTS = ("atomic", "scan")
EDGES_KEY = "deveci.edges"


@enum.unique
class Counter(enum.IntEnum):
    """The fields of an EB round's slot (``GCB_EB_C_<NAME>`` in kernels/deveci_eb.cu)."""

    UNCOLORED = 0  # vertices still uncolored after the round: 0 ends the coloring
    KEPT = 1  # edges eb-er's ForbidColors kept: the next round's list


# What kernels/deveci_eb.cu shares with this module: passed to every compile as -D defines.
runtime.share(EB_FAMILY, **runtime.slot_defines("GCB_EB_C_", Counter))
runtime.share(VB_FAMILY, GCB_VB_SCAN=VB_SCAN)


def launch_shape(items: int, block_size: int) -> tuple[tuple[int], tuple[int]]:
    """(grid, block) for a grid-stride kernel over ``items``: one thread per item, at most
    as many blocks as fill the device once."""
    grid = min(runtime.grid_for(items, block_size), runtime.persistent_grid(block_size))
    return (grid,), (block_size,)


# ------------------------------------------------------------------------------ vertex-based


class _VertexRound:
    """One VB round's launches over two alternating conflict lists (pass p works on lists[p %
    2]: the kernels pick by p), for the pass that ``gate`` names, with grids for ``bound``
    list entries (the host's protocols: the shortest list learned; sync=graph: n)."""

    def __init__(
        self, dg: runtime.DeviceGraph, colors: Any, block_size: int, *, bitmap: bool, scan: bool
    ) -> None:
        cp = runtime.cupy()
        n = dg.n
        self.n, self.block_size, self.scan = n, block_size, scan
        self.lists = (cp.arange(n, dtype=np.int32), cp.empty(n, dtype=np.int32))
        self.graph = (dg.indptr, dg.indices, colors)
        # vb: deg(v) + 1 stamps each, compared with pass p's stamp p + 1
        self.forbidden = () if bitmap else (cp.zeros(dg.nnz + n, dtype=np.int32),)
        self.assign = runtime.kernel(VB_FAMILY, "vbbit_assign" if bitmap else "vb_assign")
        if scan:
            self.detect = runtime.kernel(VB_FAMILY, "vb_detect_flag")
            self.scans = tuple(
                runtime.kernel(VB_FAMILY, name)
                for name in ("vb_scan_blocks", "vb_scan_sums", "vb_scan_add", "vb_scatter")
            )
            self.flags, self.position = cp.empty(n, np.int32), cp.empty(n, np.int32)
            self.sums = cp.empty(runtime.grid_for(n, VB_SCAN), np.int32)
        else:
            self.detect = runtime.kernel(VB_FAMILY, "vb_detect_append")

    def restart(self, first: Any) -> None:
        """Enqueue what a coloring starts from: every vertex on the first list (``first`` holds
        0..n-1), no stamp of an earlier coloring."""
        self.lists[0][...] = first
        for stamps in self.forbidden:
            stamps.fill(0)

    def launch(self, gate: tuple[Any, ...], bound: int) -> None:
        grid, block = launch_shape(bound, self.block_size)
        lists = self.lists
        self.assign(grid, block, (*lists, *self.graph, *self.forbidden, *gate))
        if not self.scan:
            self.detect(grid, block, (*lists, *self.graph, *gate))
            return
        blocks, scan = (runtime.grid_for(bound, VB_SCAN),), (VB_SCAN,)
        scan_blocks, scan_sums, scan_add, scatter = self.scans
        self.detect(grid, block, (*lists, *self.graph, self.flags, *gate))
        scan_blocks(blocks, scan, (self.flags, self.position, self.sums, *gate))
        scan_sums((1,), scan, (self.sums, *gate))
        scan_add(blocks, scan, (self.position, self.sums, *gate))
        scatter(grid, block, (*lists, self.flags, self.position, *gate))


def _vertex_based(
    dg: runtime.DeviceGraph,
    block_size: int,
    algorithm: str,
    *,
    bitmap: bool,
    scan: bool,
    sync: str,
) -> Callable[[], Coloring]:
    """The timed call of the VB round loop (under sync=graph the captured loop is found or
    built now). The conflict list starts as every vertex; the largest id on it always keeps its
    color, so n rounds suffice (the cap n + 1 only guards against bugs). The list only shrinks,
    so under the host's protocols the last length learned sizes the next launches."""
    n = dg.n
    if not n or sync != GRAPH:
        return functools.partial(_vertex_host, dg, block_size, algorithm, bitmap, scan, sync)
    loops.require()

    def build() -> tuple[Any, loops.DeviceRounds, loops.Loop]:
        colors = runtime.uncolored(n)
        step = _VertexRound(dg, colors, block_size, bitmap=bitmap, scan=scan)
        first = step.lists[0].copy()
        rounds = loops.DeviceRounds(start=(n,), cap=n + 1)

        def init() -> None:
            colors.fill(UNCOLORED)
            step.restart(first)
            rounds.reset()

        def body(handle: int) -> None:
            step.launch(rounds.gate(0), n)
            rounds.step(handle)

        return colors, rounds, loops.Loop(init, body)

    colors, rounds, loop = loops.cached(dg, (VB_FAMILY, algorithm, block_size, bitmap, scan), build)
    return loops.launcher(colors, rounds, loop, algorithm=algorithm)


def _vertex_host(
    dg: runtime.DeviceGraph, block_size: int, algorithm: str, bitmap: bool, scan: bool, sync: str
) -> Coloring:
    n = dg.n
    colors = runtime.uncolored(n)
    if n == 0:
        return Coloring(colors, 0, {"active": []})
    step = _VertexRound(dg, colors, block_size, bitmap=bitmap, scan=scan)
    counts = Slots((n, 0))

    def launch(rnd: int) -> None:
        step.launch(counts.gate(rnd), counts.smallest(n))

    return slots.coloring(launch, counts, cap=n + 1, algorithm=algorithm, colors=colors, sync=sync)


def bind_vb(
    dg: runtime.DeviceGraph, *, block_size: int = VB_BLOCK, sync: str = GRAPH
) -> Callable[[], Coloring]:
    """VB (deveci-cmu §3.1): smallest color free of the neighbours' colors, found with an
    unbounded forbidden array (deg(v) + 1 stamps per vertex, 4(nnz + n) bytes in all; CuPy's
    OutOfMemoryError, the runner's ``oom``, where that cannot be had)."""
    return _vertex_based(dg, block_size, "vb", bitmap=False, scan=False, sync=sync)


def bind_vb_bit(
    dg: runtime.DeviceGraph,
    *,
    block_size: int = VB_BLOCK,
    conflicts: str = "atomic",
    sync: str = GRAPH,
) -> Callable[[], Coloring]:
    """VB-BIT (deveci-cmu §3.1.2): a 64-bit forbidden map over colors [offset, offset + 64),
    the window sliding by 64 when full; the next conflict list by ``conflicts`` (§3.1.1)."""
    if conflicts not in CONFLICT_LISTS:
        raise SpecError(f"vb-bit: conflicts={conflicts} is not one of atomic|scan")
    return _vertex_based(dg, block_size, "vb-bit", bitmap=True, scan=conflicts == "scan", sync=sync)


vb, vb_bit = runs(bind_vb), runs(bind_vb_bit)


# -------------------------------------------------------------------------------- edge-based


@dataclass(frozen=True)
class EdgeList:
    """The lower-triangle edge list on the device: ``pairs`` is (m, 2) int32 rows (lo, hi),
    lo < hi, ordered by hi then lo; ``count`` a one-element int32 array holding m."""

    pairs: Any
    count: Any

    @property
    def m(self) -> int:
        return int(self.pairs.shape[0])


def _build_edges(dg: runtime.DeviceGraph) -> EdgeList:
    cp = runtime.cupy()
    entries = cp.arange(dg.nnz, dtype=np.int32)
    rows = cp.searchsorted(dg.indptr[1:], entries, side="right").astype(np.int32)
    lower = dg.indices < rows
    pairs = cp.stack([dg.indices[lower], rows[lower]], axis=1)
    return EdgeList(cp.ascontiguousarray(pairs), cp.asarray([pairs.shape[0]], dtype=np.int32))


def edge_list(dg: runtime.DeviceGraph) -> EdgeList:
    """The graph's edge list, built once (the EB specs' setup: timed with the transfer)."""
    return dg.extra(EDGES_KEY, _build_edges)


GRAPH_ROOM = 1 << 16  # sync=graph: rounds past 2n its slots have room for (8 bytes each)


def graph_round_cap(dg: runtime.DeviceGraph) -> int:
    """The rounds a captured EB loop has slots for: the cap, but at most 2n + GRAPH_ROOM, so
    its slots (8 bytes a round, allocated up front) never grow with the edges (the cap's nnz
    term); a coloring that needed more would end as a timeout (sync=device runs to the cap)."""
    return min(edge_round_cap(dg), 2 * dg.n + GRAPH_ROOM)


def edge_round_cap(dg: runtime.DeviceGraph) -> int:
    """Rounds before an EB run counts as hung. Each round either fixes the largest uncolored
    id's color or moves some vertex to its next color set, so n plus the set moves suffice;
    2n + nnz + 16 leaves a wide margin over any of this family's runs."""
    return 2 * dg.n + dg.nnz + 16


def _edge_traces(m: int, removal: bool, kept: Callable[[int], list[float]]) -> Callable:
    """The EB traces from (rounds, uncolored after each): ``active``, the edges each round
    works on (all m; with edge removal m and then what each round kept, ``kept(rounds)``), and
    ``uncolored``."""

    def traces(rounds: int, left: list[float]) -> dict[str, list[float]]:
        active = [float(m), *kept(rounds - 1)] if removal else [float(m)] * rounds
        return {"active": active if rounds else [], "uncolored": left}

    return traces


@dataclass(frozen=True)
class _EdgeRun:
    """An EB coloring's buffers as launches: ``enqueue(gate)`` one round (the pass ``gate``
    names), ``restart()`` the buffers back to a coloring's start (sync=graph, whose buffers
    serve every call), ``finish()`` what follows the rounds; ``colors`` the int colors."""

    colors: Any
    enqueue: Callable[[tuple[Any, ...]], None]
    restart: Callable[[], None]
    finish: Callable[[], None] | None = None


def _edge_based(
    dg: runtime.DeviceGraph,
    algorithm: str,
    make: Callable[[], _EdgeRun],
    sync: str,
    *,
    removal: bool = False,
    key: tuple[Any, ...] = (),
) -> Callable[[], Coloring]:
    """The timed call of the EB rounds of ``make()`` under ``sync``, followed by its
    ``finish`` (also when the cap stops them: the error's coloring shows where). A round's slot
    holds the vertices uncolored after it and the edges eb-er's round kept (slot 0: all
    uncolored, all m edges). Under sync=graph the buffers and launches are made once per graph
    and configuration (``key``) and captured into a :class:`~gcbench.algorithms.gpu.loops.Loop`,
    found or built now."""
    edges = edge_list(dg)
    start, cap = (dg.n, edges.m), graph_round_cap(dg)
    if sync != GRAPH or not dg.n:
        return functools.partial(_edge_host, dg, algorithm, make, sync, removal)
    loops.require()

    def build() -> tuple[Any, loops.DeviceRounds, loops.Loop]:
        run = make()
        rounds = loops.DeviceRounds(start=start, cap=cap)

        def init() -> None:
            run.restart()
            rounds.reset()

        def body(handle: int) -> None:
            run.enqueue(rounds.gate(0))
            rounds.step(handle)

        return run.colors, rounds, loops.Loop(init, body, run.finish)

    colors, rounds, loop = loops.cached(dg, (EB_FAMILY, algorithm, *key), build)
    kept = functools.partial(rounds.series, field=Counter.KEPT)
    traces = _edge_traces(edges.m, removal, kept)
    return loops.launcher(colors, rounds, loop, algorithm=algorithm, traces=traces)


def _edge_host(
    dg: runtime.DeviceGraph,
    algorithm: str,
    make: Callable[[], _EdgeRun],
    sync: str,
    removal: bool,
) -> Coloring:
    edges = edge_list(dg)
    run = make()
    counts = Slots((dg.n, edges.m))
    try:
        done, left = (
            (0, [])
            if dg.n == 0
            else slots.drive(
                lambda rnd: run.enqueue(counts.gate(rnd)),
                counts,
                cap=edge_round_cap(dg),
                algorithm=algorithm,
                colors=run.colors,
                sync=sync,
            )
        )
    finally:
        if run.finish is not None:
            run.finish()
    traces = _edge_traces(edges.m, removal, functools.partial(counts.series, field=Counter.KEPT))
    if not removal or done == 0:
        return Coloring(run.colors, done, traces(done, left))

    def resolve(coloring: Coloring) -> None:  # eb-er's kept edges, read after the timed call
        coloring.trace.update(traces(done, left))

    return Coloring(run.colors, done, {"uncolored": left}, resolve=resolve)


def bind_eb(
    dg: runtime.DeviceGraph, *, block_size: int = EB_BLOCK, sync: str = GRAPH
) -> Callable[[], Coloring]:
    """EB (deveci-cmu §3.2): plain int colors and the unbounded forbidden array (deg(v) + 1
    flags per vertex, set by ForbidColors and kept, as colored vertices are final)."""
    edges = edge_list(dg)
    vertices = launch_shape(dg.n, block_size)
    grid, block = launch_shape(edges.m, block_size)

    def make() -> _EdgeRun:
        cp = runtime.cupy()
        colors = runtime.uncolored(dg.n)
        forbidden = cp.zeros(dg.nnz + dg.n, dtype=np.uint8)
        assign = runtime.kernel(EB_FAMILY, "eb_assign")
        detect = runtime.kernel(EB_FAMILY, "eb_detect")
        forbid = runtime.kernel(EB_FAMILY, "eb_forbid")

        def enqueue(gate: tuple[Any, ...]) -> None:
            assign(*vertices, (np.int32(dg.n), dg.indptr, colors, forbidden, *gate))
            detect(grid, block, (edges.count, edges.pairs, colors, *gate))
            forbid(grid, block, (edges.count, edges.pairs, colors, dg.indptr, forbidden, *gate))

        def restart() -> None:
            colors.fill(UNCOLORED)
            forbidden.fill(0)

        return _EdgeRun(colors, enqueue, restart)

    return _edge_based(dg, "eb", make, sync, key=(block_size,))


def _color_sets(
    dg: runtime.DeviceGraph,
    block_size: int,
    algorithm: str,
    *,
    width: int,
    tentative: bool,
    removal: bool,
    sync: str,
    paper_reset: bool = False,
) -> Callable[[], Coloring]:
    """The color-set round loop shared by eb-cs, eb-tent and eb-er (one-hot colors within
    sets of ``width``; see kernels/deveci_eb.cu). eb-er's rounds read their edge list and its
    length from the slot the last round kept it in (the kernels pick the buffer by the pass),
    so the host never reads it."""
    defines = {
        "GCB_EB_WIDTH": width,
        "GCB_EB_TENTATIVE": int(tentative),
        "GCB_EB_PAPER_RESET": int(paper_reset),
        "GCB_EB_REMOVAL": int(removal),
    }
    edges = edge_list(dg)
    n = np.int32(dg.n)
    vertices = launch_shape(dg.n, block_size)
    grid, block = launch_shape(edges.m, block_size)  # grid-stride: eb-er's lists only shrink

    def kernel(name: str) -> Any:
        return runtime.kernel(EB_FAMILY, name, **defines)

    def make() -> _EdgeRun:
        cp = runtime.cupy()
        colors = cp.zeros(dg.n, dtype=np.uint32)
        sets = cp.zeros(dg.n, dtype=np.int32)
        vf, tv = cp.zeros(dg.n, dtype=np.uint32), cp.zeros(dg.n, dtype=np.uint32)
        out = cp.empty(dg.n, dtype=np.int32)
        assign, detect, tent = kernel("cs_assign"), kernel("cs_detect"), kernel("tent_color")
        forbid = kernel("cs_forbid_compact" if removal else "cs_forbid_all")
        finish = kernel("cs_finish")
        # the edges, then eb-er's two kept lists (all edges again where there is no removal)
        lists = (edges.count, edges.pairs) + (
            (cp.empty_like(edges.pairs), cp.empty_like(edges.pairs))
            if removal
            else (edges.pairs, edges.pairs)
        )

        def enqueue(gate: tuple[Any, ...]) -> None:
            assign(*vertices, (n, colors, sets, vf, tv, *gate))
            detect(grid, block, (*lists, colors, sets, *gate))
            if removal:
                forbid(grid, block, (*lists, colors, sets, vf, *gate))
            else:
                forbid(grid, block, (edges.count, edges.pairs, colors, sets, vf, *gate))
            if tentative:
                tent(grid, block, (*lists, colors, sets, vf, tv, *gate))

        def restart() -> None:
            for array in (colors, sets, vf, tv):
                array.fill(0)

        def to_ints() -> None:
            finish(*vertices, (n, colors, sets, out))

        return _EdgeRun(out, enqueue, restart, to_ints)

    key = (block_size, width, tentative, removal, paper_reset)
    return _edge_based(dg, algorithm, make, sync, removal=removal, key=key)


def bind_eb_cs(
    dg: runtime.DeviceGraph, *, block_size: int = EB_BLOCK, sync: str = GRAPH
) -> Callable[[], Coloring]:
    """EB with color sets (deveci-cmu §3.2.1): one-hot 32-bit colors within a color set,
    forbidden bitmaps filled by atomic OR; a vertex whose set is full moves to the next."""
    return _color_sets(
        dg, block_size, "eb-cs", width=CS_WIDTH, tentative=False, removal=False, sync=sync
    )


def bind_eb_tent(
    dg: runtime.DeviceGraph,
    *,
    block_size: int = EB_BLOCK,
    width: int = TENTATIVE_WIDTH,
    paper_reset: bool = False,
    sync: str = GRAPH,
) -> Callable[[], Coloring]:
    """EB with color sets and tentative coloring (deveci-cmu §3.2.2) with the report's
    correction (appendix): a vertex with no free color always moves to its next color set.
    ``width`` and ``paper_reset`` (the uncorrected AssignColors, which livelocks) are for
    tests; the registry runs the defaults."""
    return _color_sets(
        dg,
        block_size,
        "eb-tent",
        width=width,
        tentative=True,
        removal=False,
        sync=sync,
        paper_reset=paper_reset,
    )


def bind_eb_er(
    dg: runtime.DeviceGraph, *, block_size: int = EB_BLOCK, sync: str = GRAPH
) -> Callable[[], Coloring]:
    """eb-tent plus edge removal (deveci-cmu §3.2.3): each round's ForbidColors also compacts
    the edge list to the edges that can still conflict (atomic append)."""
    return _color_sets(
        dg, block_size, "eb-er", width=TENTATIVE_WIDTH, tentative=True, removal=True, sync=sync
    )


eb, eb_cs = runs(bind_eb), runs(bind_eb_cs)
eb_tent, eb_er = runs(bind_eb_tent), runs(bind_eb_er)


# -------------------------------------------------------------------------------- registry

_FAMILY = "speculative (deveci-vb-eb-cmu-report; Deveci et al., IPDPS 2016)"
_VB_ROUNDS = "rounds (AssignColors + DetectConflicts over the conflict list)"
_EB_ROUNDS = "rounds (AssignColors, DetectConflicts, ForbidColors[, TentativeColor])"


def _register(
    name: str,
    bind: Callable[..., Callable[[], Coloring]],
    section: str,
    description: str,
    *,
    edge_based: bool,
    params: tuple[Param, ...] = (SYNC,),
) -> None:
    register(
        AlgorithmSpec(
            name=name,
            backend="gpu",
            family=f"{_FAMILY} {section}",
            run=runs(bind),
            bind=bind,
            params=params,
            deterministic=False,  # speculative: which of two racing writes lands varies
            block_size_matters=True,
            default_block_size=EB_BLOCK if edge_based else VB_BLOCK,
            iterations_meaning=_EB_ROUNDS if edge_based else _VB_ROUNDS,
            description=description,
            setup=edge_list if edge_based else None,
            kernel=EB_FAMILY if edge_based else VB_FAMILY,
        )
    )


_register(
    "vb",
    bind_vb,
    "§3.1",
    "Vertex-based speculative coloring with an unbounded forbidden array per vertex",
    edge_based=False,
)
_register(
    "vb-bit",
    bind_vb_bit,
    "§3.1.1-3.1.2",
    "Vertex-based speculative coloring with a sliding 64-color forbidden bitmap",
    edge_based=False,
    params=(
        Param(
            "conflicts",
            "atomic",
            choices=CONFLICT_LISTS,
            help="next conflict list by atomic append or by prefix sum",
        ),
        SYNC,
    ),
)
_register(
    "eb",
    bind_eb,
    "§3.2",
    "Edge-based speculative coloring: AssignColors over vertices, conflicts and bans over edges",
    edge_based=True,
)
_register(
    "eb-cs",
    bind_eb_cs,
    "§3.2.1",
    "Edge-based coloring with one-hot colors in 32-color sets and atomic-OR forbidden bitmaps",
    edge_based=True,
)
_register(
    "eb-tent",
    bind_eb_tent,
    "§3.2.2 + appendix",
    "eb-cs plus tentative coloring, with the report's color-set reset (no livelock)",
    edge_based=True,
)
_register(
    "eb-er",
    bind_eb_er,
    "§3.2.3",
    "eb-tent plus edge removal: the edge list shrinks each round to edges that can conflict",
    edge_based=True,
)
