"""Distance-2 and partial distance-2 coloring of a pattern's columns on the GPU
(docs/distance2.md), over kernels/distance2.cu. Each colors the columns of a
:class:`~gcbench.algorithms.gpu.runtime.DevicePattern` (``d2`` on the pattern of A + I,
``pd2`` on J, ``pd2-rows`` on Jᵀ): a column's distance-2 neighbours are the other columns of
its rows, reached through the two CSR views, never through a squared graph.

- ``vb-bit``: Deveci, Boman, Devine & Rajamanickam's speculative vertex-based coloring with a
  64-color forbidden bitmap (IPDPS 2016, §3.1.2) at distance 2, after Kokkos Kernels' D2
  VB_BIT (a heavy column's warp marks a window of thousands of colors in shared memory): rounds
  of coloring the worklist and detecting its conflicts; a conflicting column gives its color
  up to a smaller one (Kokkos uncolors both), so every round progresses.
- ``nb-bit``: net-based coloring, Kokkos Kernels' D2 NB_BIT after Taş, Kaya & Saule ("Greed is
  good", ICPP 2017): each row keeps a bitmap of the window's colors it holds, a column's
  forbidden colors are the OR of its rows' bitmaps, and conflicts are found by scanning each
  row once: O(nnz) per round instead of O(Σ row²).
- ``jp-d2``: Jones-Plassmann at distance 2 in a column order of
  :data:`~gcbench.algorithms.priority.PATTERN_ORDERS`; deterministic, its colors equal the
  serial greedy's in the same order (``greedy`` with ``order``) column for column.

The rounds run under ``sync`` (docs/decisions.md, "Rounds without the host"): by default
(``graph``) a coloring is one CUDA graph whose WHILE node repeats one captured round
(:mod:`gcbench.algorithms.gpu.loops`; the buffers and the capture are made in ``bind``, once
per pattern and configuration), or a host protocol
(:func:`gcbench.algorithms.gpu.slots.drive`). Either way the kernels find their round and its
slot with ``gcb_locate`` and read the worklists' lengths on the device (``trace["active"]``:
what each round leaves its next one: the columns left, or for jp-d2 the next level's columns);
the rounds are bounded (:func:`round_cap`, RoundCapError with the partial colors). The scratch
a run allocates is estimated against the free device memory in ``bind`` first (``oom`` in one
line).
Decisions and the progress arguments: docs/distance2.md and the comments of the kernel file.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench.algorithms import priority
from gcbench.algorithms.gpu import loops, runtime, slots
from gcbench.algorithms.gpu.deveci import launch_shape
from gcbench.algorithms.gpu.slots import SYNC_GRAPH as SYNC
from gcbench.algorithms.gpu.slots import Slots
from gcbench.algorithms.registry import UNCOLORED, WARP, AlgorithmSpec, Coloring, Param, register
from gcbench.algorithms.rounds import GRAPH
from gcbench.errors import RoundCapError
from gcbench.graphs.pattern import Pattern

FAMILY = "distance2"
WIDTH = 64  # colors per forbidden window: one 64-bit mask (GCB_D2_WIDTH)
# A warp that scans a heavy column marks a window of colors in shared memory (vb_color,
# jp_round): as many as the block's warps' bitmaps fit in SHARED_BYTES, at most MAX_WIDE.
SHARED_BYTES = 48 * 1024  # what every launch may take without opting in
MAX_WIDE = 32 * 1024  # colors: a column beside a hub of degree 25,000 needs one window
BLOCK = 128  # the default block size of every launch (a multiple of 32: whole warps)
PROBLEMS = ("d2", "pd2", "pd2-rows")
RANK_KEY = "jp-d2 rank"  # DevicePattern.extras: RANK_KEY + " " + order -> int32 ranks
ROWS_KEY = "jp-d2 rows"  # ... ROWS_KEY + " " + order -> (ranked, place), int32 each
DENSE_KEY = "jp-d2 dense"  # ... DENSE_KEY + " " + threshold -> DenseRows, + " slots" its upload
# jp-d2's dense rows (issue 44, item 1): a row of at least DENSE columns keeps a bitmap of its
# columns' colors in place of reading its prefix (kernels/distance2.cu, "Dense rows"); the
# bitmaps take at most DENSE_BUDGET bytes, the longest rows first.
DENSE = 128
DENSE_BUDGET = 256 * 2**20


@enum.unique
class Slot(enum.IntEnum):
    """The counts of nb-bit's state (``GCB_D2_C_<NAME>`` in kernels/distance2.cu)."""

    NEXT = 0  # worklist columns left uncolored by the round: its next round's worklist
    DEFERRED = 1  # columns whose window was full: the next window's worklist


@enum.unique
class State(enum.IntEnum):
    """The rest of nb-bit's state (``GCB_D2_S_<NAME>``): what the host decided between rounds
    before issue 43, now moved on by ``nb_advance`` on the device."""

    COUNT = 2  # the worklist's length
    BASE = 3  # the window's first color
    CURRENT = 4  # which of the three lists is the worklist (0, 1, 2) ...
    FOLLOWING = 5  # ... the next worklist ...
    WAITING = 6  # ... and the deferred columns


# What kernels/distance2.cu shares with this module: passed to every compile as -D defines.
runtime.share(
    FAMILY,
    GCB_D2_WIDTH=WIDTH,
    **runtime.slot_defines("GCB_D2_C_", Slot),
    **runtime.slot_defines("GCB_D2_S_", State),
)


def wide_window(block_size: int) -> tuple[int, int]:
    """(colors, bytes of dynamic shared memory) of a launch of ``vb_color`` or ``jp_round``:
    each warp's window, a multiple of 1,024 colors (32 per lane word), and the block's
    bitmaps (32,768 colors up to 384 threads, 12,288 at 1,024)."""
    warps = block_size // WARP
    wide = min(MAX_WIDE, SHARED_BYTES * 8 // warps // 1024 * 1024)
    return wide, warps * wide // 8


# Device bytes a run allocates, per column and per row (checked in bind, before allocating):
# int32 colors and worklists; nb-bit's third list (deferred columns) and 64-bit row masks;
# jp-d2's int32 pending counts (a column's rows whose column before it is still uncolored);
# jp-d2's int32 ranks, and its rows by rank (kept: 8 bytes a nonzero; building them takes at
# most ROWS_BYTES a nonzero and RANK_BYTES + 8 a column at once: the sorts' int64 keys, indices
# and buffers beside the arrays still alive), come on top when its order's are not built yet.
SCRATCH: dict[str, tuple[int, int]] = {"vb-bit": (12, 0), "nb-bit": (16, 8), "jp-d2": (16, 0)}
RANK_BYTES = 4
ROWS_BYTES = 80


def round_cap(algorithm: str, n_cols: int) -> int:
    """Rounds before a run counts as hung. vb-bit and jp-d2 color at least one column for good
    every round (the smallest colored column of a vb-bit round keeps its color; jp-d2's round 0
    colors the lowest-ranked column and every later round the lowest-ranked uncolored one), so
    n_cols rounds suffice; nb-bit may spend one more round per column on a full window
    (kernels/distance2.cu). One more guards against bugs only."""
    return (2 if algorithm == "nb-bit" else 1) * n_cols + 1


def _require(dp: runtime.DevicePattern, algorithm: str, sync: str, extra_bytes: int = 0) -> None:
    """Refuse a run, in one line, before anything is compiled or allocated: scratch that does
    not fit, or ``sync=graph`` where conditional graph nodes cannot run."""
    per_column, per_row = SCRATCH[algorithm]
    needed = per_column * dp.n + per_row * dp.n_rows + extra_bytes
    runtime.require_device(needed, f"{algorithm} on {dp.name}")
    if sync == GRAPH and dp.n:
        loops.require()


def _rounds(
    launch: Callable[[int], None], counts: Slots, algorithm: str, colors: Any, sync: str
) -> Coloring:
    """The bounded rounds ``launch`` enqueues (:func:`~gcbench.algorithms.gpu.slots.drive`), as
    a Coloring."""
    cap = round_cap(algorithm, int(colors.size))
    return slots.coloring(launch, counts, cap=cap, algorithm=algorithm, colors=colors, sync=sync)


def _start(n: int, lists: int) -> tuple[Any, list[Any]]:
    """A run's uncolored colors and ``lists`` worklists of n columns, the first of every column."""
    cp = runtime.cupy()
    buffers = [cp.arange(n, dtype=np.int32)]
    buffers += [cp.empty(n, dtype=np.int32) for _ in range(lists - 1)]
    return runtime.uncolored(n), buffers


def _neighbourhoods(dp: runtime.DevicePattern) -> tuple[Any, Any, Any, Any]:
    """The arrays a distance-2 scan reads, in the kernels' order."""
    return dp.col_ptr, dp.col_rows, dp.row_ptr, dp.row_cols


@dataclass(frozen=True)
class Scratch:
    """What a run uses beside its colors and worklists: the buffers (passed to a round after
    the worklists) and ``reset``, which enqueues their values at the start of a coloring. Made
    by each call of a host protocol, once per pattern and configuration under graph."""

    buffers: tuple[Any, ...] = ()
    reset: Callable[[], None] = lambda: None


# One round's launches: round(colors, worklists + scratch buffers, gate, items), where gate is
# the pass arguments (at, p, passes, before, left, mirror: Slots.gate, DeviceRounds.gate) and
# items a bound on the worklist's length that sizes the grids of the worklist kernels.
Round = Callable[[Any, tuple[Any, ...], tuple[Any, ...], int], None]


@dataclass(frozen=True)
class Plan:
    """How ``algorithm`` runs a coloring: its round, its ``lists`` worklists of n columns (the
    first holds every column at the start), its scratch, and what becomes of the partial colors
    when the round cap stops it (``capped``, in place; nothing by default)."""

    algorithm: str
    lists: int
    round: Round
    scratch: Callable[[], Scratch] = Scratch
    capped: Callable[[Any], None] | None = None


def _host(plan: Plan, n: int, sync: str) -> Callable[[], Coloring]:
    """The call under a host protocol (:func:`~gcbench.algorithms.gpu.slots.drive`): each call
    allocates its buffers; ``items`` (the plan's round sizes its worklist grids by it) is the
    smallest worklist the host has learned so far: vb-bit's and nb-bit's never grow (jp-d2's
    can, and its round covers every column)."""

    def call() -> Coloring:
        colors, lists = _start(n, plan.lists)
        scratch = plan.scratch()
        scratch.reset()
        counts = Slots((n, 0))
        buffers = (*lists, *scratch.buffers)

        def launch(rnd: int) -> None:
            plan.round(colors, buffers, counts.gate(rnd), counts.smallest(n))

        try:
            return _rounds(launch, counts, plan.algorithm, colors, sync)
        except RoundCapError:
            if plan.capped is not None:
                plan.capped(colors)
            raise

    return call


@dataclass(frozen=True)
class _Workspace:
    """A captured loop and every buffer it writes: the graph holds their addresses, not the
    arrays, so they are kept together, as long as the loop or a call that launches it, and
    CuPy's pool never hands their memory to another array."""

    colors: Any
    rounds: loops.DeviceRounds
    loop: loops.Loop
    buffers: tuple[Any, ...]


def _graph(
    dp: runtime.DevicePattern, plan: Plan, config: tuple[Any, ...]
) -> Callable[[], Coloring]:
    """The call under ``sync=graph``: one launch of a CUDA graph whose WHILE node repeats one
    captured round (:mod:`gcbench.algorithms.gpu.loops`), with no read; the rounds, the trace
    and the cap are read after the call (the Coloring's ``resolve``). The buffers and the
    capture are made now, once per pattern and configuration (``config``); a coloring starts by
    refilling them (colors uncolored, the first worklist every column, the scratch's reset, the
    round counter). One captured round serves every round, so its grids cover every column
    and its kernels find the round, its slot and its worklist on the device."""
    n = dp.n
    columns = runtime.kernel(FAMILY, "d2_columns")
    every = launch_shape(n, BLOCK)  # (the device's size is looked up before any capture)

    def build() -> _Workspace:
        cp = runtime.cupy()
        colors = runtime.uncolored(n)  # (CuPy's fill kernels are loaded before any capture)
        lists = [cp.empty(n, dtype=np.int32) for _ in range(plan.lists)]
        scratch = plan.scratch()
        scratch.reset()  # likewise
        rounds = loops.DeviceRounds(start=(n,), cap=round_cap(plan.algorithm, n))
        buffers = (*lists, *scratch.buffers)

        def init() -> None:
            colors.fill(UNCOLORED)
            columns(*every, (np.int32(n), lists[0]))
            scratch.reset()
            rounds.reset()

        def body(handle: int) -> None:
            plan.round(colors, buffers, rounds.gate(0), n)
            rounds.step(handle)

        return _Workspace(colors, rounds, loops.Loop(init, body), buffers)

    key = (FAMILY, plan.algorithm, round_cap(plan.algorithm, n), *config)
    kept = loops.cached(dp, key, build)

    def call() -> Coloring:
        kept.loop.launch()
        coloring = loops.coloring(kept.colors, kept.rounds, algorithm=plan.algorithm)
        if plan.capped is None:
            return coloring
        resolve = coloring.resolve

        def capped(final: Coloring) -> None:
            try:
                resolve(final)
            except RoundCapError as err:
                plan.capped(err.coloring)  # the copy the Coloring hands out
                raise

        coloring.resolve = capped
        return coloring

    return call


def _bound(
    dp: runtime.DevicePattern, plan: Plan, sync: str, config: tuple[Any, ...]
) -> Callable[[], Coloring]:
    """``plan``'s call under ``sync``: :func:`_graph` (``config``: what else its capture
    depends on) or :func:`_host`. A pattern without columns takes no round, so it needs no graph."""
    if sync == GRAPH and dp.n:
        return _graph(dp, plan, config)
    return _host(plan, dp.n, sync)


# ------------------------------------------------------------------------------------ vb-bit


def bind_vb_bit(
    dp: runtime.DevicePattern, *, block_size: int = BLOCK, sync: str = GRAPH
) -> Callable[[], Coloring]:
    """vb-bit as a call with no arguments (the memory check and kernel look-ups made now; under
    graph the buffers and the capture too). A round: ``vb_color`` over the worklist,
    ``vb_detect`` uncolors the losers and lists them (kernels/distance2.cu); the two worklists
    swap roles by the round's parity, on the device."""
    _require(dp, "vb-bit", sync)
    color, detect = (runtime.kernel(FAMILY, name) for name in ("vb_color", "vb_detect"))
    scan = _neighbourhoods(dp)
    n = dp.n
    wide, shared = wide_window(block_size)

    def round_(colors: Any, lists: tuple[Any, ...], gate: tuple[Any, ...], items: int) -> None:
        grid, block = launch_shape(items, block_size)
        color(grid, block, (*lists, *scan, colors, np.int32(n), np.int32(wide), *gate),
              shared_mem=shared)  # fmt: skip
        detect(grid, block, (*lists, *scan, colors, *gate))

    return _bound(dp, Plan("vb-bit", 2, round_), sync, (block_size, wide))


def vb_bit(dp: runtime.DevicePattern, *, block_size: int = BLOCK, sync: str = GRAPH) -> Coloring:
    """Speculative vertex-based distance-2 coloring with 64-color forbidden bitmaps (Deveci
    et al., IPDPS 2016, §3.1.2; Kokkos Kernels' D2 VB_BIT); ``iterations`` = rounds."""
    return bind_vb_bit(dp, block_size=block_size, sync=sync)()


# ------------------------------------------------------------------------------------ nb-bit


def _nb_scratch(dp: runtime.DevicePattern) -> Scratch:
    """nb-bit's 64-bit row masks and its state (the two counts, then the worklist's length
    n, the window 0 and the roles of the three lists: worklist 0, next 1, deferred 2)."""
    cp = runtime.cupy()
    forbidden = cp.empty(dp.n_rows, dtype=np.uint64)
    state = cp.empty(len(Slot) + len(State), dtype=np.int32)

    def reset() -> None:
        state.fill(0)
        state[State.COUNT : State.COUNT + 1].fill(dp.n)
        state[State.FOLLOWING : State.FOLLOWING + 1].fill(1)
        state[State.WAITING : State.WAITING + 1].fill(2)

    return Scratch((forbidden, state), reset)


def _undefer(colors: Any) -> None:
    """A deferred column is an uncolored one (the partial colors of a capped nb-bit run)."""
    runtime.cupy().maximum(colors, UNCOLORED, out=colors)


def bind_nb_bit(
    dp: runtime.DevicePattern, *, block_size: int = BLOCK, sync: str = GRAPH
) -> Callable[[], Coloring]:
    """nb-bit as a call with no arguments. A round: ``nb_refresh`` (the rows' masks of the
    window), ``nb_color`` (the worklist), ``nb_conflicts`` (each row once), ``nb_compact``
    (the next worklist and the deferred list), ``nb_advance`` (the next round's worklist and
    window, on the device). When a window's worklist is empty the deferred columns become the
    worklist of the next window."""
    _require(dp, "nb-bit", sync)
    refresh, color, conflicts, compact, advance = (
        runtime.kernel(FAMILY, name)
        for name in ("nb_refresh", "nb_color", "nb_conflicts", "nb_compact", "nb_advance")
    )
    n_rows = np.int32(dp.n_rows)
    rows = launch_shape(dp.n_rows, block_size)

    def round_(colors: Any, lists: tuple[Any, ...], gate: tuple[Any, ...], items: int) -> None:
        *worklists, forbidden, state = lists  # worklist, next worklist, deferred (by state)
        columns = launch_shape(items, block_size)
        refresh(*rows, (n_rows, dp.row_ptr, dp.row_cols, colors, state, forbidden, *gate))
        color(*columns, (*worklists, dp.col_ptr, dp.col_rows, colors, state, forbidden, *gate))
        conflicts(*rows, (n_rows, dp.row_ptr, dp.row_cols, colors, state, *gate))
        compact(*columns, (*worklists, colors, state, *gate))
        advance((1,), (WARP,), (state, *gate))

    plan = Plan("nb-bit", 3, round_, lambda: _nb_scratch(dp), _undefer)
    return _bound(dp, plan, sync, (block_size,))


def nb_bit(dp: runtime.DevicePattern, *, block_size: int = BLOCK, sync: str = GRAPH) -> Coloring:
    """Net-based distance-2 coloring (Taş, Kaya & Saule, ICPP 2017; Kokkos Kernels' D2
    NB_BIT): forbidden colors and conflicts through the rows' bitmaps, O(nnz) a round;
    ``iterations`` = rounds."""
    return bind_nb_bit(dp, block_size=block_size, sync=sync)()


# ------------------------------------------------------------------------------------- jp-d2


def ranks(dp: runtime.DevicePattern, order: str) -> Any:
    """int32 ranks of the columns in ``order`` on the device (0 colors first):
    :func:`~gcbench.algorithms.priority.pattern_rank` of the host pattern, the one definition
    the serial greedy's visit order comes from, uploaded once per pattern and order."""
    return dp.extra(
        f"{RANK_KEY} {order}",
        lambda p: runtime.cupy().asarray(priority.pattern_rank(p.host, order)),
    )


def ranked_rows(dp: runtime.DevicePattern, order: str) -> tuple[Any, Any]:
    """jp-d2's rows by rank, built on the device once per pattern and order: ``ranked`` is
    ``row_cols`` with each row's columns in ``order``'s rank order, and ``place[e]``, for entry
    e = (column c, row r) of the column view, is where c sits in r's part of ``ranked``; so
    ``ranked[row_ptr[r]:place[e]]`` are the columns of r that color before c
    (kernels/distance2.cu, ``jp_round``)."""

    def build(p: runtime.DevicePattern) -> tuple[Any, Any]:
        cp = runtime.cupy()
        rank = ranks(p, order).astype(np.int64)
        entries = cp.arange(p.row_cols.size, dtype=np.int32)
        row_of = cp.searchsorted(p.row_ptr, entries, side="right").astype(np.int64) - 1
        ranked = p.row_cols[cp.argsort(row_of << 32 | rank[p.row_cols])]
        col_of = cp.searchsorted(p.col_ptr, entries, side="right").astype(np.int64) - 1
        # the same (column, row) pairs in ranked's order and in the column view's, matched
        in_ranked = cp.argsort(ranked.astype(np.int64) << 32 | row_of)
        in_columns = cp.argsort(col_of << 32 | p.col_rows.astype(np.int64))
        place = cp.empty(entries.size, dtype=np.int32)
        place[in_columns] = in_ranked.astype(np.int32)
        return ranked, place

    return dp.extra(f"{ROWS_KEY} {order}", build)


@dataclass(frozen=True)
class DenseRows:
    """jp-d2's dense rows of a pattern: ``slot`` (host int32, one per row) is each dense row's
    bitmap, -1 for every other row; ``count`` bitmaps of ``words`` 32-bit words, enough for any
    color a column of the pattern can take (0 when no row is dense); ``threshold`` the cut:
    the rows of at least that many columns have one (above the threshold asked for when the
    budget keeps only the longest rows)."""

    slot: np.ndarray
    count: int
    words: int
    threshold: int

    @property
    def nbytes(self) -> int:
        """Device bytes: the slots, the bitmaps and each bitmap's count of words in use."""
        return 4 * self.slot.size + 4 * self.count * (self.words + 1)


def color_bound(pattern: Pattern) -> int:
    """A bound on the colors any greedy coloring of ``pattern``'s columns uses: a column's color
    is at most its distance-2 neighbours, at most the other entries of its rows; so the largest
    such count + 1, and at most the columns."""
    col_ptr, col_rows = pattern.columns
    if not pattern.nnz:
        return min(pattern.n_cols, 1)
    others = np.r_[0, np.cumsum((pattern.row_counts - 1)[col_rows])]
    sums = others[col_ptr[1:]] - others[col_ptr[:-1]]
    return int(min(pattern.n_cols, sums.max() + 1))


def dense_rows(dp: runtime.DevicePattern, threshold: int) -> DenseRows:
    """The rows of at least ``threshold`` columns (none when it is 0), as many of the longest
    as :data:`DENSE_BUDGET` holds, found on the host once per pattern and threshold."""

    def build(p: runtime.DevicePattern) -> DenseRows:
        lengths = p.host.row_counts
        none = DenseRows(np.full(p.n_rows, -1, np.int32), 0, 0, threshold)
        if threshold <= 0 or not (lengths >= threshold).any():
            return none
        words = -(-color_bound(p.host) // 32)
        room = DENSE_BUDGET // (4 * (words + 1))
        shortest = threshold
        if int((lengths >= threshold).sum()) > room:  # only rows longer than the (room+1)-th
            shortest = int(np.sort(lengths)[::-1][room]) + 1
        dense = lengths >= shortest
        if not dense.any():  # every row at the budget's cut was as long as the last one kept
            return none
        slot = np.where(dense, np.cumsum(dense) - 1, -1).astype(np.int32)
        return DenseRows(slot, int(dense.sum()), words, shortest)

    return dp.extra(f"{DENSE_KEY} {threshold}", build)


def _jp_scratch(n: int, dense: DenseRows) -> Scratch:
    """jp-d2's pending counts (each column's rows whose column before it is still uncolored,
    which round 0 adds to the 0 they start from) and its dense rows' bitmaps and words in use,
    all zero at the start (kernels/distance2.cu, ``jp_round``)."""
    cp = runtime.cupy()
    pending = cp.empty(n, dtype=np.int32)
    bits = cp.empty(max(1, dense.count * dense.words), dtype=np.uint32)
    top = cp.empty(max(1, dense.count), dtype=np.int32)

    def reset() -> None:
        for buffer in (pending, bits, top):
            buffer.fill(0)

    return Scratch((pending, bits, top), reset)


def bind_jp_d2(
    dp: runtime.DevicePattern,
    *,
    block_size: int = BLOCK,
    order: str = "random",
    dense: int = DENSE,
    sync: str = GRAPH,
) -> Callable[[], Coloring]:
    """jp-d2 as a call with no arguments: the order's ranks and rows by rank
    (:func:`ranked_rows`) are built here, once per pattern and order (the spec's setup does not
    know the order), outside the timed call; with ``count_setup`` they are inside it. A round is
    one ``jp_round``: round 0 counts, for every column, its rows in which a column ranks before
    it, and colors the columns with none; each later round colors the columns whose count has
    reached 0 and, in each of their rows, releases the column ranked next. Its two worklists
    swap roles by the round's parity, on the device; a worklist can be longer than the one
    before it, so every launch covers all the columns (one device-filling wave at most),
    whatever the host has learned. Rows of at least ``dense`` columns keep a bitmap of their
    colors instead (:func:`dense_rows`)."""
    built = f"{ROWS_KEY} {order}" in dp.extras
    building = (RANK_BYTES + 8) * dp.n + ROWS_BYTES * dp.host.nnz
    rows = dense_rows(dp, dense)
    _require(dp, "jp-d2", sync, rows.nbytes + (0 if built else building))
    ranked, place = ranked_rows(dp, order)
    row_slots = dp.extra(f"{DENSE_KEY} {dense} slots", lambda _: runtime.cupy().asarray(rows.slot))
    kernel = runtime.kernel(FAMILY, "jp_round")
    scan = _neighbourhoods(dp)
    n = dp.n
    wide, shared = wide_window(block_size)

    grid, block = launch_shape(n, block_size)

    def round_(colors: Any, lists: tuple[Any, ...], gate: tuple[Any, ...], _items: int) -> None:
        *worklists, pending, bits, top = lists
        kernel(grid, block, (*worklists, *scan, ranked, place, colors, pending, row_slots, bits,
                             top, np.int32(rows.words), np.int32(n), np.int32(wide), *gate),
               shared_mem=shared)  # fmt: skip

    plan = Plan("jp-d2", 2, round_, lambda: _jp_scratch(n, rows))
    return _bound(dp, plan, sync, (block_size, wide, order, dense))


def jp_d2(
    dp: runtime.DevicePattern,
    *,
    block_size: int = BLOCK,
    order: str = "random",
    dense: int = DENSE,
    sync: str = GRAPH,
) -> Coloring:
    """Jones-Plassmann distance-2 coloring in ``order``: equal to the serial greedy in that
    order column for column; ``iterations`` = rounds."""
    return bind_jp_d2(dp, block_size=block_size, order=order, dense=dense, sync=sync)()


# -------------------------------------------------------------------------------- registry

ORDER = Param(
    "order",
    "random",
    str,
    choices=priority.PATTERN_ORDERS,
    help="column priority: natural=column id, largest-first=most distinct distance-2 "
    "neighbours first, smallest-last and incidence-degree=ColPack's dynamic distance-2 orders, "
    "random=by hash32 (the serial greedy's orders, docs/distance2.md)",
)

DENSE_ROWS = Param(
    "dense",
    DENSE,
    int,
    low=0,
    help="rows of at least this many columns keep a bitmap of their colors instead of being "
    "read entry by entry (0: none; docs/distance2.md, jp-d2)",
)


def _register(
    name: str,
    run: Callable[..., Coloring],
    bind: Callable[..., Callable[[], Coloring]],
    *,
    family: str,
    rounds: str,
    description: str,
    deterministic: bool = False,
    params: tuple[Param, ...] = (SYNC,),
) -> None:
    register(
        AlgorithmSpec(
            name=name,
            backend="gpu",
            family=family,
            run=run,
            params=params,
            deterministic=deterministic,
            block_size_matters=True,
            default_block_size=BLOCK,
            block_size_step=WARP,  # d2_each works in whole warps
            iterations_meaning=rounds,
            description=description,
            kernel=FAMILY,
            bind=bind,
            problems=PROBLEMS,
        )
    )


_register(
    "vb-bit",
    vb_bit,
    bind_vb_bit,
    family="speculative distance-2 (Deveci et al., IPDPS 2016, §3.1.2; Kokkos Kernels D2 VB_BIT)",
    rounds="rounds (color the worklist over distance-2 neighbourhoods + detect its conflicts)",
    description="Speculative distance-2 coloring of columns with 64-color forbidden bitmaps, "
    "conflicts resolved toward the smaller column",
)
_register(
    "nb-bit",
    nb_bit,
    bind_nb_bit,
    family="net-based distance-2 (Taş, Kaya & Saule, ICPP 2017; Kokkos Kernels D2 NB_BIT)",
    rounds="rounds (refresh the rows' masks, color the worklist, resolve conflicts by rows)",
    description="Net-based distance-2 coloring: forbidden colors and conflicts through each "
    "row's 64-color bitmap, O(nnz) a round",
)
_register(
    "jp-d2",
    jp_d2,
    bind_jp_d2,
    family="Jones-Plassmann distance-2 (Jones & Plassmann 1993), equal to serial greedy",
    rounds="rounds (columns whose lower-ranked distance-2 neighbours are all colored color)",
    description="Deterministic Jones-Plassmann distance-2 coloring of columns, equal to the "
    "serial greedy in the same order",
    deterministic=True,
    params=(ORDER, DENSE_ROWS, SYNC),
)
