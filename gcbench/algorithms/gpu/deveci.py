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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench.algorithms.gpu import runtime, slots
from gcbench.algorithms.gpu.slots import SYNC, Slots
from gcbench.algorithms.registry import AlgorithmSpec, Coloring, Param, register
from gcbench.errors import RoundCapError, SpecError

VB_FAMILY, EB_FAMILY = "deveci_vb", "deveci_eb"
CS_WIDTH = 32  # eb-cs: colors per color set (§3.2.1)
TENTATIVE_WIDTH = 31  # eb-tent, eb-er: the top bit marks a tentative color (§3.2.2)
VB_BLOCK, EB_BLOCK = 8, 256  # default block sizes: docs/deveci.md, "Default block sizes"
CONFLICT_LISTS = ("atomic", "scan")
EDGES_KEY = "deveci.edges"


@enum.unique
class Counter(enum.IntEnum):
    """The fields of an EB round's slot (``GCB_EB_C_<NAME>`` in kernels/deveci_eb.cu)."""

    UNCOLORED = 0  # vertices still uncolored after the round: 0 ends the coloring
    KEPT = 1  # edges eb-er's ForbidColors kept: the next round's list


# What kernels/deveci_eb.cu shares with this module: passed to every compile as -D defines.
runtime.share(EB_FAMILY, **runtime.slot_defines("GCB_EB_C_", Counter))


def launch_shape(items: int, block_size: int) -> tuple[tuple[int], tuple[int]]:
    """(grid, block) for a grid-stride kernel over ``items``: one thread per item, at most
    as many blocks as fill the device once."""
    grid = min(runtime.grid_for(items, block_size), runtime.persistent_grid(block_size))
    return (grid,), (block_size,)


# ------------------------------------------------------------------------------ vertex-based


def _vertex_based(
    dg: runtime.DeviceGraph,
    block_size: int,
    algorithm: str,
    *,
    bitmap: bool,
    scan: bool,
    sync: str,
) -> Coloring:
    """The VB round loop. The conflict list starts as every vertex; the largest id on it
    always keeps its color, so n rounds suffice (the cap n + 1 only guards against bugs). The
    list only shrinks, so the last length the host learned sizes the next launches."""
    cp = runtime.cupy()
    n = dg.n
    colors = runtime.uncolored(n)
    if n == 0:
        return Coloring(colors, 0, {"active": []})
    lists = (cp.arange(n, dtype=np.int32), cp.empty(n, dtype=np.int32))
    stamps = None if bitmap else cp.zeros(dg.nnz + n, dtype=np.int32)  # vb: deg(v) + 1 each
    assign = runtime.kernel(VB_FAMILY, "vbbit_assign" if bitmap else "vb_assign")
    if scan:
        detect = runtime.kernel(VB_FAMILY, "vb_detect_flag")
        scatter = runtime.kernel(VB_FAMILY, "vb_scatter")
        flags, position = cp.empty(n, dtype=np.int32), cp.empty(n, dtype=np.int32)
    else:
        detect = runtime.kernel(VB_FAMILY, "vb_detect_append")
    counts = Slots((n, 0))
    graph = (dg.indptr, dg.indices, colors)

    def launch(rnd: int) -> None:
        before, left, mirror = counts.args(rnd)
        current, following = lists[rnd % 2], lists[1 - rnd % 2]
        bound = counts.smallest(n)
        grid, block = launch_shape(bound, block_size)
        forbidden = () if bitmap else (stamps, np.int32(rnd + 1))  # this round's stamp
        assign(grid, block, (current, *graph, *forbidden, before, mirror))
        if scan:
            detect(grid, block, (current, *graph, flags, before, mirror))
            cp.cumsum(flags[:bound], dtype=np.int32, out=position[:bound])
            scatter(grid, block, (current, flags, position, following, before, left, mirror))
        else:
            detect(grid, block, (current, *graph, following, before, left, mirror))

    return slots.coloring(launch, counts, cap=n + 1, algorithm=algorithm, colors=colors, sync=sync)


def vb(dg: runtime.DeviceGraph, *, block_size: int = VB_BLOCK, sync: str = "device") -> Coloring:
    """VB (deveci-cmu §3.1): smallest color free of the neighbours' colors, found with an
    unbounded forbidden array (deg(v) + 1 stamps per vertex, 4(nnz + n) bytes in all; CuPy's
    OutOfMemoryError, the runner's ``oom``, where that cannot be had)."""
    return _vertex_based(dg, block_size, "vb", bitmap=False, scan=False, sync=sync)


def vb_bit(
    dg: runtime.DeviceGraph,
    *,
    block_size: int = VB_BLOCK,
    conflicts: str = "atomic",
    sync: str = "device",
) -> Coloring:
    """VB-BIT (deveci-cmu §3.1.2): a 64-bit forbidden map over colors [offset, offset + 64),
    the window sliding by 64 when full; the next conflict list by ``conflicts`` (§3.1.1)."""
    if conflicts not in CONFLICT_LISTS:
        raise SpecError(f"vb-bit: conflicts={conflicts} is not one of atomic|scan")
    return _vertex_based(dg, block_size, "vb-bit", bitmap=True, scan=conflicts == "scan", sync=sync)


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


def edge_round_cap(dg: runtime.DeviceGraph) -> int:
    """Rounds before an EB run counts as hung. Each round either fixes the largest uncolored
    id's color or moves some vertex to its next color set, so n plus the set moves suffice;
    2n + nnz + 16 leaves a wide margin over any of this family's runs."""
    return 2 * dg.n + dg.nnz + 16


class _Rounds:
    """What every EB round shares: launch shapes, the rounds' slots (:class:`Counter` fields:
    what is uncolored after a round, and eb-er's kept edges) and the edge-based round loop with
    its traces."""

    def __init__(self, dg: runtime.DeviceGraph, block_size: int, algorithm: str) -> None:
        self.dg, self.block_size, self.algorithm = dg, block_size, algorithm
        self.edges = edge_list(dg)
        self.vertices = launch_shape(dg.n, block_size)
        self.slots = Slots((dg.n, self.edges.m))  # slot 0: all uncolored, all edges in play

    def kept(self, rnd: int) -> Any:
        """Where round ``rnd`` reads eb-er's edge count: what round ``rnd - 1`` kept (slot 0
        holds them all)."""
        before, _, _ = self.slots.args(rnd)
        return np.uint64(int(before) + 4 * Counter.KEPT)

    def loop(
        self, launch: Callable[[int], None], colors: Any, sync: str, *, removal: bool
    ) -> tuple[int, dict[str, list[float]], Callable[[Coloring], None] | None]:
        """Run the rounds ``launch`` enqueues to completion: (rounds, traces, the resolve that
        reads eb-er's edges per round after the timed call)."""
        if self.dg.n == 0:
            return 0, {"active": [], "uncolored": []}, None
        cap = edge_round_cap(self.dg)
        rounds, left = slots.drive(
            launch, self.slots, cap=cap, algorithm=self.algorithm, colors=colors, sync=sync
        )
        if not removal:
            return rounds, {"active": [float(self.edges.m)] * rounds, "uncolored": left}, None

        def resolve(coloring: Coloring) -> None:
            kept = self.slots.series(rounds - 1, Counter.KEPT)  # what rounds 1.. work on
            coloring.trace["active"] = [float(self.edges.m), *kept]

        return rounds, {"uncolored": left}, resolve


def eb(dg: runtime.DeviceGraph, *, block_size: int = EB_BLOCK, sync: str = "device") -> Coloring:
    """EB (deveci-cmu §3.2): plain int colors and the unbounded forbidden array (deg(v) + 1
    flags per vertex, set by ForbidColors and kept, as colored vertices are final)."""
    cp = runtime.cupy()
    rounds = _Rounds(dg, block_size, "eb")
    colors = runtime.uncolored(dg.n)
    forbidden = cp.zeros(dg.nnz + dg.n, dtype=np.uint8)
    assign = runtime.kernel(EB_FAMILY, "eb_assign")
    detect = runtime.kernel(EB_FAMILY, "eb_detect")
    forbid = runtime.kernel(EB_FAMILY, "eb_forbid")
    edges = rounds.edges
    grid, block = launch_shape(edges.m, block_size)

    def launch(rnd: int) -> None:
        before, left, mirror = rounds.slots.args(rnd)
        assign(*rounds.vertices, (np.int32(dg.n), dg.indptr, colors, forbidden, before, mirror))
        detect(grid, block, (edges.count, edges.pairs, colors, before, left, mirror))
        forbid(grid, block, (edges.count, edges.pairs, colors, dg.indptr, forbidden, before,
                             mirror))  # fmt: skip

    iterations, trace, _ = rounds.loop(launch, colors, sync, removal=False)
    return Coloring(colors, iterations, trace)


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
) -> Coloring:
    """The color-set round loop shared by eb-cs, eb-tent and eb-er (one-hot colors within
    sets of ``width``; see kernels/deveci_eb.cu). eb-er's rounds read their edge list's length
    from the slot the last round kept it in, so the host never reads it."""
    cp = runtime.cupy()
    rounds = _Rounds(dg, block_size, algorithm)
    defines = {
        "GCB_EB_WIDTH": width,
        "GCB_EB_TENTATIVE": int(tentative),
        "GCB_EB_PAPER_RESET": int(paper_reset),
    }

    def kernel(name: str) -> Any:
        return runtime.kernel(EB_FAMILY, name, **defines)

    n = np.int32(dg.n)
    colors = cp.zeros(dg.n, dtype=np.uint32)
    sets = cp.zeros(dg.n, dtype=np.int32)
    vf, tv = cp.zeros(dg.n, dtype=np.uint32), cp.zeros(dg.n, dtype=np.uint32)
    assign, detect, tent = kernel("cs_assign"), kernel("cs_detect"), kernel("tent_color")
    forbid = kernel("cs_forbid_compact" if removal else "cs_forbid_all")
    edges = rounds.edges
    buffers = (cp.empty_like(edges.pairs), cp.empty_like(edges.pairs)) if removal else ()
    grid, block = launch_shape(edges.m, block_size)  # grid-stride: eb-er's lists only shrink

    def launch(rnd: int) -> None:
        before, left, mirror = rounds.slots.args(rnd)
        if removal:
            count = rounds.kept(rnd)
            pairs = edges.pairs if rnd == 0 else buffers[(rnd - 1) % 2]
        else:
            count, pairs = edges.count, edges.pairs
        gate = (before, mirror)
        assign(*rounds.vertices, (n, colors, sets, vf, tv, before, left, mirror))
        detect(grid, block, (count, pairs, colors, sets, before, left, mirror))
        if removal:
            kept = buffers[rnd % 2]
            forbid(grid, block, (count, pairs, colors, sets, vf, kept, before, left, mirror))
            count, pairs = rounds.kept(rnd + 1), kept
        else:
            forbid(grid, block, (count, pairs, colors, sets, vf, *gate))
        if tentative:
            tent(grid, block, (count, pairs, colors, sets, vf, tv, *gate))

    out = cp.empty(dg.n, dtype=np.int32)

    def finish() -> None:
        kernel("cs_finish")(*rounds.vertices, (n, colors, sets, out))

    try:
        iterations, trace, resolve = rounds.loop(launch, out, sync, removal=removal)
    except RoundCapError:
        finish()  # the error's coloring shows where it stopped
        raise
    finish()
    return Coloring(out, iterations, trace, resolve=resolve)


def eb_cs(dg: runtime.DeviceGraph, *, block_size: int = EB_BLOCK, sync: str = "device") -> Coloring:
    """EB with color sets (deveci-cmu §3.2.1): one-hot 32-bit colors within a color set,
    forbidden bitmaps filled by atomic OR; a vertex whose set is full moves to the next."""
    return _color_sets(
        dg, block_size, "eb-cs", width=CS_WIDTH, tentative=False, removal=False, sync=sync
    )


def eb_tent(
    dg: runtime.DeviceGraph,
    *,
    block_size: int = EB_BLOCK,
    width: int = TENTATIVE_WIDTH,
    paper_reset: bool = False,
    sync: str = "device",
) -> Coloring:
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


def eb_er(dg: runtime.DeviceGraph, *, block_size: int = EB_BLOCK, sync: str = "device") -> Coloring:
    """eb-tent plus edge removal (deveci-cmu §3.2.3): each round's ForbidColors also compacts
    the edge list to the edges that can still conflict (atomic append)."""
    return _color_sets(
        dg, block_size, "eb-er", width=TENTATIVE_WIDTH, tentative=True, removal=True, sync=sync
    )


# -------------------------------------------------------------------------------- registry

_FAMILY = "speculative (deveci-vb-eb-cmu-report; Deveci et al., IPDPS 2016)"
_VB_ROUNDS = "rounds (AssignColors + DetectConflicts over the conflict list)"
_EB_ROUNDS = "rounds (AssignColors, DetectConflicts, ForbidColors[, TentativeColor])"


def _register(
    name: str,
    run: Callable[..., Coloring],
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
            run=run,
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
    vb,
    "§3.1",
    "Vertex-based speculative coloring with an unbounded forbidden array per vertex",
    edge_based=False,
)
_register(
    "vb-bit",
    vb_bit,
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
    eb,
    "§3.2",
    "Edge-based speculative coloring: AssignColors over vertices, conflicts and bans over edges",
    edge_based=True,
)
_register(
    "eb-cs",
    eb_cs,
    "§3.2.1",
    "Edge-based coloring with one-hot colors in 32-color sets and atomic-OR forbidden bitmaps",
    edge_based=True,
)
_register(
    "eb-tent",
    eb_tent,
    "§3.2.2 + appendix",
    "eb-cs plus tentative coloring, with the report's color-set reset (no livelock)",
    edge_based=True,
)
_register(
    "eb-er",
    eb_er,
    "§3.2.3",
    "eb-tent plus edge removal: the edge list shrinks each round to edges that can conflict",
    edge_based=True,
)
