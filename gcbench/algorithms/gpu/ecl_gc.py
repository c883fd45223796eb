"""ECL-GC (Alabandi & Burtscher, ecl-gc §2-4): JP-LDF with shortcuts on persistent kernels.

Four kernels of ``kernels/ecl_gc.cu`` color the graph: ``ecl_init`` (Alg. 1: priorities and
possible-color bitmaps of the degree < 32 vertices, the worklist of the others, its core
part the largest degrees), ``ecl_dag`` (the rest of Alg. 1: the worklist's in-neighbour lists,
spread over the grid), ``ecl_high`` (Alg. 2: the worklist, a warp per visit, each warp's core
vertex visited between its other visits, best/worst-color shortcut) and ``ecl_low`` (Alg. 3:
the rest, one thread each, both shortcuts on 32-bit bitmaps). The two coloring kernels are
persistent: one grid, all of it resident, loops asynchronously until
its vertices are colored, at most ``cap`` passes per warp (every resident block, or 3/4 of
them where the graph's working set fits in L2, with pass 0 in order there where neighbours
are close in id: :func:`coloring_grid`). The colors equal serial greedy in LDF order
(docs/architecture.md, "Priorities and ties") for every ``shortcuts`` setting.

The color reduction (ecl-gc §4) is :mod:`gcbench.algorithms.gpu.reduction`, shared with every
other GPU algorithm's ``reduce`` parameter.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.gpu.reduction import reduce_device
from gcbench.algorithms.registry import (
    REDUCE_PARAM,
    WARP,
    AlgorithmSpec,
    Coloring,
    Param,
    register,
)
from gcbench.errors import RoundCapError

SHORTCUTS = {"none": 0, "sc1": 1, "sc2": 2, "both": 3}  # GCB_SHORTCUTS: bit 0 Shortcut 1, bit 1 2
BLOCK = 512  # the original's threads per block
KERNEL = "ecl_gc"  # kernels/ecl_gc.cu
KERNELS = ("ecl_init", "ecl_dag", "ecl_high", "ecl_low")  # one coloring's, in launch order
HIGH_DEGREE = 32  # degree from which a vertex is on the worklist
TRACE_PASSES = 1 << 14  # per-pass trace slots per kernel; later passes share the last one
TRACE_COPIES = 32  # copies of each kernel's trace, one per warp % TRACE_COPIES
TRACE = TRACE_COPIES * TRACE_PASSES  # ints of one kernel's trace
INT_MAX = 2**31 - 1


@enum.unique
class Counter(enum.IntEnum):
    """The slots of the kernels' ``counters[]`` (``GCB_C_<NAME>`` in kernels/ecl_gc.cu)."""

    WORKLIST = 0  # vertices on the worklist's front part (ecl_init counts them)
    CAPPED = 1  # set once a kernel reached its pass cap
    PASSES_HIGH = 2  # passes ecl_high made (the most of any warp)
    PASSES_LOW = 3  # passes ecl_low made (the most of any warp)
    INIT = 4  # roots ecl_init and ecl_dag colored
    SHORTCUT = 5  # vertices colored by a shortcut
    CONVENTIONAL = 6  # ecl_high's other colorings less ecl_low's shortcut ones (_resolve)
    CORE = 7  # vertices on the worklist's core part (ecl_init counts them)


COUNTERS = 16  # ints of counters[] before the traces (room for more slots)

# What kernels/ecl_gc.cu shares with this module: passed to every compile as -D defines.
runtime.share(
    KERNEL,
    GCB_HIGH_DEGREE=HIGH_DEGREE,
    GCB_TRACE_COPIES=TRACE_COPIES,
    GCB_COUNTERS=COUNTERS,
    **runtime.slot_defines("GCB_C_", Counter),
)


def pass_cap(n: int) -> int:
    """Passes a warp may make before the run counts as hung: a pass colors at least the
    highest-priority uncolored vertex, and a waiting warp may spin several times per step
    of a slower one, so the bound leaves a wide margin over n."""
    return min(INT_MAX, 2 * n + (1 << 16))


def _kernel(name: str, block: int, shortcuts: str) -> Any:
    """``name`` compiled for ``block`` threads and the ``shortcuts`` setting (a compile-time
    constant of the kernels: each setting is its own module)."""
    min_blocks = max(1, min(32, runtime.device_facts().max_threads_per_sm // block))
    return runtime.kernel(
        KERNEL, name, GCB_BLOCK=block, GCB_MIN_BLOCKS=min_blocks, GCB_SHORTCUTS=SHORTCUTS[shortcuts]
    )


@functools.cache
def _resident_per_sm(name: str, block: int, shortcuts: str) -> int:
    """Blocks of ``name`` resident at once on one multiprocessor: the occupancy the driver
    reports for the compiled kernel (a persistent grid needs all its blocks resident, since
    warps wait on each other)."""
    return runtime.resident_per_sm(_kernel(name, block, shortcuts), block)


def _persistent_blocks(name: str, block: int, shortcuts: str) -> int:
    """Blocks of ``name`` that are all resident at once on the device."""
    return _resident_per_sm(name, block, shortcuts) * runtime.device_facts().multiprocessors


def fits_l2(n: int, nnz: int, l2_bytes: int) -> bool:
    """Whether ``ecl_low``'s working set fits the L2 cache: the int32 CSR (4 B per entry and
    per row) and the possible colors, pending positions and colors of every vertex (12 B)."""
    return 4 * nnz + 16 * n <= l2_bytes


def l2_list_path(n: int, nnz: int, threads: int, l2_bytes: int) -> bool:
    """Whether ``ecl_low`` takes its list path (more vertices than the ``threads`` of its full
    grid) on a graph whose working set fits in L2 (:func:`fits_l2`).

    There every visit is a chain of L2 hits: such graphs run on 3/4 of the blocks
    (:func:`coloring_blocks_per_sm`) and, where neighbours are close in id, make pass 0 in
    order (:func:`orders_pass0`); past L2 both were slower (docs/ecl-gc.md, "Performance
    (issue 13)")."""
    return n > threads and fits_l2(n, nnz, l2_bytes)


def coloring_blocks_per_sm(
    resident: int, n: int, nnz: int, block: int, multiprocessors: int, l2_bytes: int
) -> int:
    """Blocks per multiprocessor of ``ecl_init`` and ``ecl_low``: all ``resident`` ones,
    except on a graph in L2 with more vertices than 3/4 of them have threads
    (:func:`l2_list_path` of that smaller grid), which runs on 3/4 of them.

    There the youngest block on each multiprocessor gets its issue slots last, its steps take
    several times longer than the others', and the kernel ends when it does; on three blocks
    every block's steps take about as long. Graphs past L2 were slower that way, so they keep
    every block (the figures: docs/ecl-gc.md, "Performance (issue 13)", "Three blocks of four
    where the working set fits in L2"). Graphs between 3/4 of the grid's threads and all of
    them (one vertex a thread, lanes alone) took 3/4 too since 2026-11-29: road 2¹⁸ made 24–28
    passes on every block and 17–18 on 3/4 of them, 14 % faster (docs/ecl-gc.md, "Three
    blocks of four up to one vertex a thread")."""
    three = max(1, 3 * resident // 4)
    if l2_list_path(n, nnz, three * multiprocessors * block, l2_bytes):
        return three
    return resident


SPAN_ROWS = 1 << 16  # rows sampled by median_edge_span


def median_edge_span(indptr: np.ndarray, indices: np.ndarray) -> int:
    """Median of |u - v| over the edges of up to SPAN_ROWS evenly spaced rows (0 without
    edges): how far apart in id a graph's neighbours are. Host arrays, read once per graph."""
    n = len(indptr) - 1
    rows = np.arange(0, n, max(1, n // SPAN_ROWS))
    starts, counts = indptr[rows], indptr[rows + 1] - indptr[rows]
    total = int(counts.sum())
    if total == 0:
        return 0
    firsts = np.cumsum(counts) - counts  # each sampled row's first slot among the gathered
    slots = np.repeat(starts - firsts, counts) + np.arange(total)
    return int(np.median(np.abs(indices[slots].astype(np.int64) - np.repeat(rows, counts))))


def orders_pass0(in_l2: bool, span: int, threads: int) -> bool:
    """Whether ``ecl_low``'s pass 0 goes in order: on an :func:`l2_list_path` graph
    (``in_l2``) whose median edge span (:func:`median_edge_span`) is under the grid's
    ``threads``, one band.

    In band order a step then visits most vertices together with their in-neighbours, so few
    of them can be colored yet; in order about twice as many are colored in pass 0. Where
    neighbours are far apart in id (random graphs), band order already mixes them, and the
    order costs time (the figures: docs/ecl-gc.md, "Performance (issue 13)", "Pass 0 in order
    where neighbours share a band")."""
    return in_l2 and span < threads


@dataclass(frozen=True)
class ColoringGrid:
    """How ``ecl_init`` and ``ecl_low`` run on one graph.

    ``blocks``: the grid of both, one thread per vertex at most and
    :func:`coloring_blocks_per_sm` on every multiprocessor. ``ordered``: ``ecl_low``'s pass 0
    visits each thread's vertices fewest pending in-neighbours first instead of in band
    order (:func:`orders_pass0`; the kernel keeps band order past 8 steps). Neither changes a
    color."""

    blocks: int
    ordered: bool


def coloring_grid(g: runtime.DeviceGraph, block: int, shortcuts: str) -> ColoringGrid:
    """:class:`ColoringGrid` of ``g`` at ``block`` threads per block."""
    facts = runtime.device_facts()
    resident = _resident_per_sm("ecl_low", block, shortcuts)
    full = resident * facts.multiprocessors * block
    per_sm = coloring_blocks_per_sm(
        resident, g.n, g.nnz, block, facts.multiprocessors, facts.l2_bytes
    )
    blocks = min(runtime.grid_for(g.n, block), per_sm * facts.multiprocessors)
    in_l2 = l2_list_path(g.n, g.nnz, full, facts.l2_bytes)
    span = 0  # read from the host arrays (in setup) only where it can decide the order
    if in_l2:
        span = g.extra("ecl-gc span", lambda g: median_edge_span(g.host.indptr, g.host.indices))
    return ColoringGrid(blocks=blocks, ordered=orders_pass0(in_l2, span, blocks * block))


def core_degree(high: np.ndarray, warps: int) -> int:
    """The degree above which a vertex is in ``ecl_high``'s core, one per warp: ``high[warps]``
    (the (warps + 1)-th largest of the high degrees ``high``, largest first) when there are
    more, so that at most ``warps`` exceed it; else every high-degree vertex is in the core."""
    return int(high[warps]) if len(high) > warps else HIGH_DEGREE - 1


def geometry(block: int = BLOCK, shortcuts: str = "both") -> dict[str, dict[str, int]]:
    """Blocks, registers and local (spill) bytes of the persistent kernels."""
    return {
        name: {
            "blocks": _persistent_blocks(name, block, shortcuts),
            "registers": _kernel(name, block, shortcuts).num_regs,
            "local_bytes": _kernel(name, block, shortcuts).local_size_bytes,
        }
        for name in ("ecl_high", "ecl_low")
    }


@dataclass
class _Scratch:
    """Per-graph device buffers, reused by every run on that graph (the ``setup``).

    ``stats`` is zero when a run starts: each run's :meth:`Coloring.resolve` reads what it
    needs and zeroes what the run used, after the timed region (``clean`` says it did).
    ``colors`` is the output of every run on this graph: valid until the next run."""

    dag: Any  # int32[nnz]: in-neighbours of high-degree vertices, compacted as they resolve
    posscol: Any  # uint32[n]
    pending: Any  # uint32[n]
    waiting: Any  # uint32[4 * (n + device threads)]: ecl_low's per-warp lists, 16 B an entry
    hstate: Any  # uint64[n]
    hbits: Any  # uint32[nnz / 32 + 2]
    worklist: Any  # int32[n]
    stats: Any  # int32[COUNTERS + 2 * TRACE]: counters, then the kernels' per-pass traces
    colors: Any  # int32[n]
    high: Any  # numpy int64[]: the degrees >= 32, largest first (the worklist's vertices)
    graphs: dict[tuple[Any, ...], Any] = field(default_factory=dict)  # captured launches
    clean: bool = True


def _scratch(dgraph: runtime.DeviceGraph) -> _Scratch:
    def build(g: runtime.DeviceGraph) -> _Scratch:
        cp = runtime.cupy()
        return _Scratch(
            dag=cp.empty(max(g.nnz, 1), dtype=cp.int32),
            posscol=cp.empty(max(g.n, 1), dtype=cp.uint32),
            pending=cp.empty(max(g.n, 1), dtype=cp.uint32),
            waiting=cp.empty(4 * (g.n + runtime.device_threads()), dtype=cp.uint32),
            hstate=cp.empty(max(g.n, 1), dtype=cp.uint64),
            hbits=cp.empty(g.nnz // 32 + 2, dtype=cp.uint32),
            worklist=cp.empty(max(g.n, 1), dtype=cp.int32),
            stats=cp.zeros(COUNTERS + 2 * TRACE, dtype=cp.int32),
            colors=cp.empty(g.n, dtype=cp.int32),
            high=-np.sort(-g.host.degrees[g.host.degrees >= HIGH_DEGREE]),
        )

    return dgraph.extra("ecl-gc", build)


def _setup(dgraph: runtime.DeviceGraph) -> None:
    """The per-graph setup: scratch buffers, and the launches of every ``shortcuts`` setting
    at the default block size captured as CUDA graphs (another block size is captured at its
    first run, which a warm-up absorbs)."""
    s = _scratch(dgraph)
    if dgraph.n:
        for shortcuts in SHORTCUTS:
            _graph(dgraph, s, BLOCK, shortcuts)


def _graph(dgraph: runtime.DeviceGraph, s: _Scratch, block: int, shortcuts: str) -> Any:
    """The captured launches for ``block`` and ``shortcuts`` on this graph (captured once)."""
    cap = pass_cap(dgraph.n)
    key = (block, shortcuts, cap)
    if key not in s.graphs:
        s.graphs[key] = _capture(dgraph, s, block, shortcuts, cap)
    return s.graphs[key]


def run(
    dgraph: runtime.DeviceGraph,
    *,
    block_size: int = BLOCK,
    shortcuts: str = "both",
    reduce: str = "none",
) -> Coloring:
    """Color ``dgraph``: one captured launch (:func:`bind`'s call, made at once).
    ``iterations`` = passes of the high-degree kernel plus passes of the low-degree kernel
    (the most any warp made: asynchronous, so it varies between runs).

    Trace (read after the timed region): ``colored`` (vertices colored per pass,
    high-degree passes first) and the totals ``colored_init``, ``colored_shortcut``,
    ``colored_conventional`` (Figure 12), plus the reduction's series when ``reduce`` is not
    "none" (the reduction is part of the timed work)."""
    return bind(dgraph, block_size=block_size, shortcuts=shortcuts, reduce=reduce)()


def bind(
    dgraph: runtime.DeviceGraph,
    *,
    block_size: int = BLOCK,
    shortcuts: str = "both",
    reduce: str = "none",
) -> Callable[[], Coloring]:
    """:func:`run` as a call with no arguments: the scratch buffers and the captured launch
    (captured now if this block size has not been) are looked up here, so a timed call is
    the launch, the reduction and the Coloring they return."""
    n = dgraph.n
    if n == 0:
        return lambda: reduce_device(
            dgraph, Coloring(runtime.cupy().empty(0, np.int32), 0, {}), reduce
        )
    s = _scratch(dgraph)
    cap = pass_cap(n)
    graph = _graph(dgraph, s, block_size, shortcuts)

    def call() -> Coloring:
        if not s.clean:  # the last run's statistics were never read back (it failed)
            s.stats.fill(0)
        s.clean = False
        graph.launch()
        done = Coloring(
            s.colors, None, {}, resolve=lambda final: _resolve(s, final, cap, dgraph.name)
        )
        return reduce_device(dgraph, done, reduce)

    return call


def _launch(
    g: runtime.DeviceGraph,
    s: _Scratch,
    block: int,
    shortcuts: str,
    cap: int,
    mark: Callable[[str], None] = lambda name: None,
) -> None:
    """The three kernels of one coloring, on the current stream; ``mark(name)`` after each."""
    grid = coloring_grid(g, block, shortcuts)
    # what more than one kernel takes, by its parameter name in kernels/ecl_gc.cu
    common = dict(indptr=g.indptr, posscol=s.posscol, pending=s.pending, colors=s.colors,
                  counters=s.stats[:COUNTERS])  # fmt: skip
    passes = dict(cap=np.int32(cap), trace_len=np.int32(TRACE_PASSES))
    high = len(s.high)
    warp_each = runtime.grid_for(32 * high, block)  # ecl_dag's and ecl_high's: a warp a vertex
    high_blocks = min(_persistent_blocks("ecl_high", block, shortcuts), warp_each)
    _kernel("ecl_init", block, shortcuts)(
        (grid.blocks,),
        (block,),
        runtime.kernel_args(KERNEL, "ecl_init", n=np.int32(g.n), indices=g.indices,
                            worklist=s.worklist,
                            core_degree=np.int32(core_degree(s.high, high_blocks * block // WARP)),
                            **common),
    )  # fmt: skip
    mark("ecl_init")
    if high:
        lists = dict(n=np.int32(g.n), dag=s.dag, hstate=s.hstate, hbits=s.hbits,
                     worklist=s.worklist, **common)  # fmt: skip
        _kernel("ecl_dag", block, shortcuts)(
            (min(_persistent_blocks("ecl_dag", block, shortcuts), warp_each),),
            (block,),
            runtime.kernel_args(KERNEL, "ecl_dag", indices=g.indices, **lists),
        )  # fmt: skip
        mark("ecl_dag")
        _kernel("ecl_high", block, shortcuts)(
            (high_blocks,),
            (block,),
            runtime.kernel_args(KERNEL, "ecl_high", trace=s.stats[COUNTERS : COUNTERS + TRACE],
                                **passes, **lists),
        )  # fmt: skip
        mark("ecl_high")
    _kernel("ecl_low", block, shortcuts)(
        (grid.blocks,),
        (block,),
        runtime.kernel_args(KERNEL, "ecl_low", n=np.int32(g.n), indices=g.indices,
                            waiting=s.waiting, trace=s.stats[COUNTERS + TRACE :],
                            ordered=np.int32(grid.ordered), **passes, **common),
    )  # fmt: skip
    mark("ecl_low")


def kernel_times(
    dgraph: runtime.DeviceGraph, *, block_size: int = BLOCK, shortcuts: str = "both"
) -> dict[str, float]:
    """ms of each kernel of one coloring of ``dgraph`` (set up by ``setup``), launched one by
    one with CUDA events between them instead of as a graph: for benchmarks/ecl_gc.py."""
    s = _scratch(dgraph)
    cap = pass_cap(dgraph.n)
    spec.check_block_size(block_size)
    if not s.clean:  # counters left by a run whose statistics were never read
        s.stats.fill(0)
    s.clean = False
    clock, names = runtime.EventClock(), []

    def mark(name: str) -> None:
        clock.mark()
        names.append(name)

    clock.mark()
    _launch(dgraph, s, block_size, shortcuts, cap, mark)
    times = {name: clock.ms(i, i + 1) for i, name in enumerate(names)}
    _resolve(s, Coloring(s.colors, None), cap, dgraph.name)
    return times


def _capture(g: runtime.DeviceGraph, s: _Scratch, block: int, shortcuts: str, cap: int) -> Any:
    """:func:`_launch` captured once as a CUDA graph: a run is then one launch (no Python
    work per kernel while the device waits), replayed on the current stream."""
    cp = runtime.cupy()
    for name in KERNELS:  # load modules before, not in, the capture
        _kernel(name, block, shortcuts)
        _persistent_blocks(name, block, shortcuts)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        try:
            _launch(g, s, block, shortcuts, cap)
        finally:
            graph = stream.end_capture()
    return graph


def _resolve(s: _Scratch, coloring: Coloring, cap: int, name: str) -> None:
    """After the timed region: read the counters and per-pass counts into ``coloring`` (the
    run's final Coloring, reduced or not), zero
    what the run used for the next one, and raise RoundCapError if a kernel hit its cap."""
    counters = s.stats[:COUNTERS].get()
    high, low = int(counters[Counter.PASSES_HIGH]), int(counters[Counter.PASSES_LOW])
    traces = s.stats[COUNTERS:].reshape(2, TRACE_COPIES, TRACE_PASSES)  # high, low kernel
    used = [traces[0, :, : min(high, TRACE_PASSES)], traces[1, :, : min(low, TRACE_PASSES)]]
    per_pass_high, per_pass_low = (copies.get().sum(axis=0) for copies in used)
    per_pass = np.concatenate([per_pass_high, per_pass_low])
    s.stats[:COUNTERS].fill(0)
    for copies in used:
        copies[...] = 0
    s.clean = True
    coloring.iterations = high + low
    coloring.trace.update(
        colored=per_pass.astype(float).tolist(),
        colored_init=[float(counters[Counter.INIT])],
        colored_shortcut=[float(counters[Counter.SHORTCUT])],
        # ecl_low counts its shortcut colorings off CONVENTIONAL; the rest of its are in the trace
        colored_conventional=[float(counters[Counter.CONVENTIONAL] + per_pass_low.sum())],
    )
    if counters[Counter.CAPPED]:
        raise RoundCapError(
            f"ecl-gc: {name} still had uncolored vertices after {int(cap)} passes of a "
            "persistent kernel; report this graph (the passes bound n-proportional work)",
            coloring.colors,
        )


spec = register(
    AlgorithmSpec(
        name="ecl-gc",
        backend="gpu",
        family="ECL-GC, Alabandi & Burtscher (ecl-gc §2-4, Alg. 1-5)",
        run=run,
        params=(
            Param(
                "shortcuts",
                "both",
                choices=("both", "sc1", "sc2", "none"),
                help="both | sc1 | sc2 | none (plain JP-LDF); the colors never change",
            ),
            REDUCE_PARAM,
        ),
        deterministic=True,
        default_block_size=BLOCK,
        block_size_step=WARP,
        iterations_meaning="passes of the persistent kernels (high-degree + low-degree)",
        description="JP largest-degree-first with shortcuts, persistent asynchronous kernels",
        setup=_setup,
        native_reduce=True,
        kernel=KERNEL,
        bind=bind,
    )
)
