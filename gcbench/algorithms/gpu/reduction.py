"""Color reduction on the device (ecl-gc §4, Alg. 4-5) for every GPU algorithm's ``reduce``
parameter, ecl-gc's included: the rounds of the host twin
(:func:`gcbench.algorithms.reduction.reduce_rounds`, the same colors) as launches of
``kernels/reduction.cu``, on the algorithm's device colors (no host copy).

A round's decisions (which heuristic ran, the pair Heuristic 1 picked, how many hic vertices
Heuristic 2 listed and moved, the new highest color) are taken on the device, in the state
array :class:`State` names, so the rounds need no read: a CUDA graph's WHILE node repeats them
(``sync=graph`` of the round-based families; docs/decisions.md, "Rounds without the host"). A
reduction then makes two blocking reads, whatever its rounds: the colors' range before, the
state after (three where a color id is beyond n). Where conditional graph nodes cannot run
(:func:`loops.unsupported`), under an algorithm's ``sync=round``, and after the hic vertices
outnumbered the room kept for them, the host launches the same rounds and reads the state
after each, the papers' protocol. The workspace and each mode's graph are built by the first
reduction on a device graph (a warm-up's, in a run).
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from gcbench.algorithms import reduction
from gcbench.algorithms.gpu import loops, runtime
from gcbench.algorithms.gpu.recolor import recolor_on_device
from gcbench.algorithms.registry import Coloring

FAMILY = "reduction"
BLOCK = 256
LIST_BLOCK = 1024  # the listing kernels' block (h2_count, h2_offsets, h2_list)
INT_MAX = 2**31 - 1
MIN_ROOM = 4096  # hic vertices a workspace always has room for (then n / ROOM_SHARE)
ROOM_SHARE = 16
GROWTHS = 32  # each at least doubles the room, and a room of n never overflows
SYNCS = ("graph", "round")  # rounds run by a CUDA graph, or the host reads after each


class State(enum.IntEnum):
    """The fields of the device state (``GCB_R_<NAME>`` in kernels/reduction.cu)."""

    HIC = 0  # the highest color
    H = 1  # hic vertices Heuristic 2 listed this round
    PICK = 2  # Heuristic 1's pair x * hic + y this round, INT_MAX when none
    RECOLORED = 3  # hic vertices Heuristic 2 moved this round
    ROUNDS = 4  # successful rounds so far
    LEFT = 5  # 1 while another round is to run
    OVERFLOW = 6  # the hic vertices outnumbered the room kept for them
    FIELDS = 7


# What kernels/reduction.cu shares with the host twin and this launcher: -D defines.
runtime.share(
    FAMILY,
    GCB_H2_COLORS=reduction.H2_COLORS,
    GCB_H1_MAX_COLORS=reduction.H1_MAX_COLORS,
    GCB_R_LIST_BLOCK=LIST_BLOCK,
    **runtime.slot_defines("GCB_R_", State),
)


def reduce_device(
    dgraph: runtime.DeviceGraph, coloring: Coloring, mode: str, *, sync: str | None = None
) -> Coloring:
    """``coloring`` (device colors) reduced with ``mode``; "none" returns it unchanged. The
    trace gains the reduction's series (:func:`gcbench.algorithms.reduction.with_report`);
    ``reduce_ms`` (CUDA events) is read after the timed call. ``sync``: :data:`SYNCS`, by
    default a graph where one can run."""
    if mode == "none":
        return coloring
    with runtime.timed() as clock:
        colors, report = reduce_on_device(dgraph, coloring.colors, mode, sync=sync)
    reduced = reduction.with_report(coloring, colors, report, float("nan"))
    previous = coloring.resolve

    def resolve(final: Coloring) -> None:
        if previous is not None:
            previous(final)
        final.trace["reduce_ms"] = [clock.ms()]

    reduced.resolve = resolve
    return reduced


def reduce_on_device(
    dgraph: runtime.DeviceGraph, colors: Any, mode: str, *, sync: str | None = None
) -> tuple[Any, reduction.ReductionReport | None]:
    """A reduced copy of the device coloring ``colors`` with ``mode`` (``ig``: iterated greedy,
    :mod:`gcbench.algorithms.gpu.recolor`) and the report (None when ``colors`` is
    incomplete: the copy is then unchanged)."""
    reduction.check_mode(mode)
    if sync is None:
        sync = "graph" if loops.unsupported() is None else "round"
    if sync not in SYNCS:
        raise ValueError(f"sync={sync} is not one of {'|'.join(SYNCS)}")
    if mode == "ig":
        reduced, passes = recolor_on_device(dgraph, colors)
        return reduced, reduction.from_passes(passes)
    cp = runtime.cupy()
    if dgraph.n == 0:
        return cp.array(colors, dtype=cp.int32, copy=True), reduction.ReductionReport(0, 0, 0)
    space: Workspace = dgraph.extra("reduction", Workspace)
    before = space.load(colors)
    if before is None or before < 3:
        report = None if before is None else reduction.ReductionReport(before, before, 0)
        return space.colors.copy(), report
    space.start(before - 1)
    if sync == "graph":
        space.loop(mode).launch()
        state = space.read()
    else:
        state = space.rounds(mode)
    for _ in range(GROWTHS):  # room for the hic vertices, then on with the host's rounds
        if not state[State.OVERFLOW]:
            break
        space.grow(int(state[State.H]))
        state = space.rounds(mode)
    colors_after = int(state[State.HIC]) + 1
    return space.colors.copy(), reduction.ReductionReport(
        before, colors_after, int(state[State.ROUNDS])
    )


class Workspace:
    """One device graph's reduction buffers, kept with it (the graph captures their pointers),
    and the captured loop of each mode. Heuristic 2's per-set buffers have room for
    :attr:`room` hic vertices; a round that lists more stops the loop (``OVERFLOW``) and
    :meth:`grow` makes room."""

    def __init__(self, dgraph: runtime.DeviceGraph) -> None:
        cp, n = runtime.cupy(), dgraph.n
        self.g = dgraph
        self.rows = min(reduction.H1_MAX_COLORS, n)  # hic <= n - 1 once compact
        self.room = min(n, max(MIN_ROOM, n // ROOM_SHARE))
        blocks = runtime.grid_for(n, LIST_BLOCK)
        words = self.rows * ((self.rows + 31) // 32)
        runtime.require_device(
            n * 13 + (n + 1) + 4 * (words + blocks) + self._per_room(self.room),
            "the color reduction's buffers",
        )
        self.colors = cp.empty(n, dtype=cp.int32)
        self.near = cp.empty(n, dtype=cp.uint8)
        self.used = cp.empty(n + 1, dtype=cp.uint8)
        self.anchor = cp.empty(n, dtype=cp.int32)
        self.hidx = cp.empty(n, dtype=cp.int32)
        self.sums = cp.empty(blocks, dtype=cp.int32)
        self.forbid = cp.empty(words, dtype=cp.uint32)
        self.state = cp.zeros(State.FIELDS, dtype=cp.int32)
        self.stats = cp.empty(2, dtype=cp.int32)
        self._room_buffers()
        self._loops: dict[str, tuple[loops.DeviceRounds, loops.Loop]] = {}

    @staticmethod
    def _per_room(room: int) -> int:
        return room * (12 + 8 * reduction.H2_COLORS)  # hv, parent, choice; avail and before

    def _room_buffers(self) -> None:
        cp, room = runtime.cupy(), self.room
        self.hv = cp.empty(room, dtype=cp.int32)
        self.parent = cp.empty(room, dtype=cp.int32)
        self.choice = cp.empty(room, dtype=cp.int32)
        self.avail = cp.empty(room * reduction.H2_COLORS, dtype=cp.uint32)
        self.before = cp.empty(room * reduction.H2_COLORS, dtype=cp.uint32)

    def grow(self, h: int) -> None:
        """Room for ``h`` hic vertices (at least twice the room before, at most n); the
        loops, which hold the old buffers' pointers, are built again when next asked for."""
        room = min(self.g.n, max(h, 2 * self.room))
        runtime.require_device(self._per_room(room), "the color reduction's buffers")
        self.room = room
        self._room_buffers()
        self._loops.clear()
        self.state[State.OVERFLOW] = 0  # the overflowing round changed nothing: run it again
        self.state[State.LEFT] = 1

    def _launch(self, name: str, items: int, *args: Any, single: bool = False) -> None:
        if single:
            grid, block = 1, 1
        else:
            grid, block = min(runtime.grid_for(items, BLOCK), runtime.persistent_grid(BLOCK)), BLOCK
        runtime.kernel(FAMILY, name)((grid,), (block,), args)

    def load(self, colors: Any) -> int | None:
        """Copy ``colors`` in, relabelled to 0..k-1 in their order where some color is unused;
        k, or None when a vertex is uncolored (one blocking read; one more, CuPy's ``unique``,
        where a color id is beyond n)."""
        cp, n = runtime.cupy(), self.g.n
        cp.copyto(self.colors, colors)
        self.used.fill(0)
        self.stats[0:1].fill(INT_MAX)
        self.stats[1:2].fill(-INT_MAX - 1)
        self._launch("r_marks", n, np.int32(n), self.colors, self.used, np.int32(n + 1),
                     self.stats)  # fmt: skip
        counted = cp.concatenate([self.stats, self.used.sum(dtype=cp.int32)[None]])
        low, high, used = (int(x) for x in runtime.read_back(counted))
        if low < 0:
            return None
        if high > n:  # a color id beyond n: relabel without the marks (unique learns its size)
            unique = runtime.synced(lambda: cp.unique(self.colors), enqueues=True)
            self.colors[...] = cp.searchsorted(unique, self.colors).astype(cp.int32)
            return int(unique.size)
        if used != high + 1:
            label = cp.cumsum(self.used[: high + 1], dtype=cp.int32) - 1
            self.colors[...] = label[self.colors]
        return used

    def start(self, hic: int) -> None:
        """Enqueue the state of a reduction from highest color ``hic``."""
        self._launch("r_start", 1, self.state, np.int32(hic), single=True)

    def enqueue_round(self, mode: str, at: Any = None, slots: Any = None) -> None:
        """Enqueue one round of ``mode`` (h1, h2 or both); ``at`` and ``slots`` are the round
        counter and counts of a graph's loop (:class:`loops.DeviceRounds`), else None."""
        g, st, n = self.g, self.state, np.int32(self.g.n)
        self._launch("r_begin", 1, st, single=True)
        if mode in ("h1", "both"):
            words = self.rows * ((self.rows + 31) // 32)
            self._launch("h1_clear", max(words, g.n), n, st, self.forbid, self.near)
            self._launch("h1_near", g.n, n, g.indptr, g.indices, self.colors, st, self.near)
            self._launch("h1_forbid", g.n, n, g.indptr, g.indices, self.colors, st, self.near,
                         self.forbid)  # fmt: skip
            self._launch("h1_pick", self.rows, st, self.forbid)
            self._launch("h1_apply", g.n, n, self.colors, self.near, st)
        if mode in ("h2", "both"):
            self._enqueue_h2()
        none = np.uint64(0)
        self._launch("r_end", 1, st, np.int32(reduction.MAX_ROUNDS),
                     none if at is None else at, none if slots is None else slots,
                     single=True)  # fmt: skip

    def _enqueue_h2(self) -> None:
        g, st, n, room = self.g, self.state, np.int32(self.g.n), self.room
        lists = (self.sums.size,), (LIST_BLOCK,)
        runtime.kernel(FAMILY, "h2_count")(*lists, (n, self.colors, st, self.sums))
        runtime.kernel(FAMILY, "h2_offsets")((1,), (LIST_BLOCK,),
                                             (n, self.sums, st, np.int32(room)))  # fmt: skip
        runtime.kernel(FAMILY, "h2_list")(*lists, (n, self.colors, st, self.sums, self.hv,
                                                   self.hidx, self.parent))  # fmt: skip
        edges = (g.n, n, g.indptr, g.indices, self.colors, st)
        self._launch("h2_anchor", *edges, self.hidx, self.anchor)
        self._launch("h2_union", *edges, self.hidx, self.anchor, self.parent)
        self._launch("h2_sets", room, st, self.parent, self.avail)
        self._launch("h2_restrict", *edges, self.anchor, self.parent, self.avail)
        self._launch("h2_snapshot", room * reduction.H2_COLORS, st, self.avail, self.before)
        self._launch("h2_resolve", *edges, self.anchor, self.parent, self.before, self.avail)
        self._launch("h2_choose", room, st, self.parent, self.avail, self.choice)
        self._launch("h2_apply", room, st, self.hv, g.indptr, g.indices, self.colors, self.hidx,
                     self.choice)  # fmt: skip

    def read(self) -> np.ndarray:
        """The state, waiting for the device (one blocking read)."""
        return runtime.read_back(self.state)

    def rounds(self, mode: str) -> np.ndarray:
        """The host's protocol, from a state with a round to run: a round, then a read of the
        state, until none is left or the hic vertices overflow; the final state. A round that
        does not overflow either succeeds or is the last, so MAX_ROUNDS + 1 bound them."""
        for _ in range(reduction.MAX_ROUNDS + 1):
            self.enqueue_round(mode)
            state = self.read()
            if not state[State.LEFT] or state[State.OVERFLOW]:
                break
        return state

    def loop(self, mode: str) -> loops.Loop:
        """The captured loop of ``mode``: rounds while the state says so, at most
        :data:`reduction.MAX_ROUNDS`."""
        if mode not in self._loops:
            counts = loops.DeviceRounds(start=[1], cap=reduction.MAX_ROUNDS)

            def body(handle: int) -> None:
                self.enqueue_round(mode, counts.at, counts.slots)
                counts.step(handle)

            self._loops[mode] = (counts, loops.Loop(counts.reset, body))
        return self._loops[mode][1]
