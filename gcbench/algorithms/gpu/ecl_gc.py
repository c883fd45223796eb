"""ECL-GC (Alabandi & Burtscher, ecl-gc §2-4): JP-LDF with shortcuts on persistent kernels.

Three kernels of ``kernels/ecl_gc.cu`` color the graph: ``ecl_init`` (Alg. 1: priorities,
the DAG of higher-priority neighbours, possible-color bitmaps, the worklist of degree >= 32
vertices), ``ecl_high`` (Alg. 2: those vertices, one warp each, best/worst-color shortcut) and
``ecl_low`` (Alg. 3: the rest, one thread each, both shortcuts on 32-bit bitmaps). The two
coloring kernels are persistent: one grid that fills the device loops asynchronously until
its vertices are colored, at most ``cap`` passes per warp. The colors equal serial greedy
in LDF order (DESIGN §3) for every ``shortcuts`` setting.

The same file holds the color-reduction kernels (ecl-gc §4); :func:`reduce_on_device` runs
them for ``ecl-gc`` and for every other GPU algorithm's ``reduce`` parameter.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench.algorithms import reduction
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.registry import (
    REDUCE_PARAM,
    AlgorithmSpec,
    Coloring,
    Param,
    register,
)
from gcbench.errors import RoundCapError, SpecError

SHORTCUTS = {"none": 0, "sc1": 1, "sc2": 2, "both": 3}  # bit 0: Shortcut 1, bit 1: Shortcut 2
BLOCK = 512  # the original's threads per block
REDUCE_BLOCK = 256
TRACE_PASSES = 1 << 14  # per-pass trace slots per kernel; later passes share the last one
INT_MAX = 2**31 - 1
# counters[] slots, as in kernels/ecl_gc.cu
C_WORKLIST, C_CAPPED, C_PASSES_HIGH, C_PASSES_LOW = 0, 1, 2, 3
C_INIT, C_SHORTCUT, C_CONVENTIONAL, C_RECOLORED = 4, 5, 6, 7
COUNTERS = 16


def pass_cap(n: int) -> int:
    """Passes a warp may make before the run counts as hung: a pass colors at least the
    highest-priority uncolored vertex, and a waiting warp may spin several times per step
    of a slower one, so the bound leaves a wide margin over n."""
    return min(INT_MAX, 2 * n + (1 << 16))


def _kernel(name: str, block: int) -> Any:
    facts = runtime.device_facts()
    min_blocks = max(1, min(32, facts.max_threads_per_sm // block))
    return runtime.kernel("ecl_gc", name, GCB_BLOCK=block, GCB_MIN_BLOCKS=min_blocks)


@functools.cache
def _persistent_blocks(name: str, block: int) -> int:
    """Blocks of ``name`` that are all resident at once (required: warps wait on each other).

    The occupancy the driver reports for the compiled kernel, never more than the device's
    threads per multiprocessor allow (runtime.persistent_grid)."""
    cp = runtime.cupy()
    per_sm = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
        _kernel(name, block).kernel.ptr, block, 0
    )
    resident = per_sm * runtime.device_facts().multiprocessors
    return max(1, min(runtime.persistent_grid(block), resident))


def geometry(block: int = BLOCK) -> dict[str, dict[str, int]]:
    """Blocks, registers and local (spill) bytes of the two persistent kernels."""
    return {
        name: {
            "blocks": _persistent_blocks(name, block),
            "registers": _kernel(name, block).num_regs,
            "local_bytes": _kernel(name, block).local_size_bytes,
        }
        for name in ("ecl_high", "ecl_low")
    }


@dataclass
class _Scratch:
    """Per-graph device buffers, reused by every run on that graph."""

    dag: Any  # int32[nnz]: in-neighbours of high-degree vertices, compacted as they resolve
    posscol: Any  # uint32[n]
    pending: Any  # uint32[n]
    hstate: Any  # uint64[n]
    hbits: Any  # uint32[nnz / 32 + 2]
    worklist: Any  # int32[n]
    stats: Any  # int32[COUNTERS + 2 * TRACE_PASSES]: counters, then per-pass colored counts


def _scratch(dgraph: runtime.DeviceGraph) -> _Scratch:
    def build(g: runtime.DeviceGraph) -> _Scratch:
        cp = runtime.cupy()
        return _Scratch(
            dag=cp.empty(max(g.nnz, 1), dtype=cp.int32),
            posscol=cp.empty(max(g.n, 1), dtype=cp.uint32),
            pending=cp.empty(max(g.n, 1), dtype=cp.uint32),
            hstate=cp.empty(max(g.n, 1), dtype=cp.uint64),
            hbits=cp.empty(g.nnz // 32 + 2, dtype=cp.uint32),
            worklist=cp.empty(max(g.n, 1), dtype=cp.int32),
            stats=cp.empty(COUNTERS + 2 * TRACE_PASSES, dtype=cp.int32),
        )

    return dgraph.extra("ecl-gc", build)


def _check_block(block: int) -> int:
    if block % 32 or not 32 <= block <= 1024:
        raise SpecError(f"ecl-gc: block size {block} must be a multiple of 32 in 32..1024")
    return block


def run(
    dgraph: runtime.DeviceGraph,
    *,
    block_size: int = BLOCK,
    shortcuts: str = "both",
    reduce: str = "none",
) -> Coloring:
    """Color ``dgraph``; ``iterations`` = passes of the high-degree kernel plus passes of the
    low-degree kernel (the most any warp made: asynchronous, so it varies between runs).

    Trace: ``colored`` (vertices colored per pass, high-degree passes first) and the totals
    ``colored_init``, ``colored_shortcut``, ``colored_conventional`` (Figure 12), plus the
    reduction's series when ``reduce`` is not "none"."""
    cp = runtime.cupy()
    block = _check_block(block_size)
    n = dgraph.n
    colors = cp.empty(n, dtype=cp.int32)
    if n == 0:
        return reduction.apply("gpu", dgraph, Coloring(colors, 0, {}), reduce)
    s = _scratch(dgraph)
    s.stats.fill(0)
    counters = s.stats[:COUNTERS]
    trace_high = s.stats[COUNTERS : COUNTERS + TRACE_PASSES]
    trace_low = s.stats[COUNTERS + TRACE_PASSES :]
    flags, cap, slots = (
        np.int32(SHORTCUTS[shortcuts]),
        np.int32(pass_cap(n)),
        np.int32(TRACE_PASSES),
    )
    g = dgraph
    _kernel("ecl_init", block)(
        (min(runtime.grid_for(n, block), runtime.persistent_grid(block)),),
        (block,),
        (np.int32(n), g.indptr, g.indices, s.dag, s.posscol, s.pending, s.hstate, s.hbits,
         s.worklist, colors, counters),
    )  # fmt: skip
    _kernel("ecl_high", block)(
        (_persistent_blocks("ecl_high", block),),
        (block,),
        (g.indptr, s.dag, s.posscol, s.pending, s.hstate, s.hbits, s.worklist, colors,
         counters, trace_high, flags, cap, slots),
    )  # fmt: skip
    _kernel("ecl_low", block)(
        (_persistent_blocks("ecl_low", block),),
        (block,),
        (np.int32(n), g.indptr, g.indices, s.posscol, s.pending, colors, counters, trace_low,
         flags, cap, slots),
    )  # fmt: skip
    stats = s.stats.get()
    if stats[C_CAPPED]:
        raise RoundCapError(
            f"ecl-gc: {g.name} still had uncolored vertices after {int(cap)} passes of a "
            "persistent kernel; report this graph (the passes bound n-proportional work)",
            colors,
        )
    high, low = int(stats[C_PASSES_HIGH]), int(stats[C_PASSES_LOW])
    per_pass = np.concatenate(
        [
            stats[COUNTERS : COUNTERS + min(high, TRACE_PASSES)],
            stats[COUNTERS + TRACE_PASSES : COUNTERS + TRACE_PASSES + min(low, TRACE_PASSES)],
        ]
    )
    trace = {
        "colored": per_pass.astype(float).tolist(),
        "colored_init": [float(stats[C_INIT])],
        "colored_shortcut": [float(stats[C_SHORTCUT])],
        "colored_conventional": [float(stats[C_CONVENTIONAL])],
    }
    return reduction.apply("gpu", dgraph, Coloring(colors, high + low, trace), reduce)


def reduce_on_device(
    dgraph: runtime.DeviceGraph, colors: Any, mode: str
) -> tuple[Any, reduction.ReductionReport | None, float]:
    """Reduce the device coloring ``colors`` (a copy) with ``mode``; returns the reduced
    colors, the report and the reduction's own time in ms (CUDA events)."""
    cp = runtime.cupy()
    begin, end = cp.cuda.Event(), cp.cuda.Event()
    begin.record()
    steps = _DeviceSteps(dgraph, cp.array(colors, dtype=cp.int32, copy=True))
    report = reduction.reduce_rounds(steps, mode)
    end.record()
    end.synchronize()
    return steps.colors, report, float(cp.cuda.get_elapsed_time(begin, end))


class _DeviceSteps:
    """The reduction heuristics' rounds as launches of the kernels in ``ecl_gc.cu``."""

    def __init__(self, dgraph: runtime.DeviceGraph, colors: Any) -> None:
        self.g, self.colors = dgraph, colors
        self.cp = runtime.cupy()

    def _launch(self, name: str, items: int, *args: Any) -> None:
        grid = min(runtime.grid_for(items, REDUCE_BLOCK), runtime.persistent_grid(REDUCE_BLOCK))
        _kernel(name, BLOCK)((grid,), (REDUCE_BLOCK,), args)

    def compact(self) -> int | None:
        cp, c = self.cp, self.colors
        if c.size == 0:
            return 0
        low, high = (int(x) for x in cp.stack([c.min(), c.max()]).get())
        if low < 0:
            return None
        used = cp.zeros(high + 1, dtype=cp.int32)
        used[c] = 1
        label = cp.cumsum(used, dtype=cp.int32) - 1
        count = int(label[-1]) + 1
        if count != high + 1:
            self.colors = label[c]
        return count

    def max_color(self) -> int:
        return int(self.colors.max())

    def heuristic1(self, hic: int) -> bool:
        cp, g, c = self.cp, self.g, self.colors
        n, hic32 = np.int32(g.n), np.int32(hic)
        near = cp.zeros(g.n, dtype=cp.uint8)
        self._launch("h1_near", g.n, n, g.indptr, g.indices, c, hic32, near)
        words = (hic + 31) // 32
        forbid = cp.zeros(hic * words, dtype=cp.uint32)
        self._launch("h1_forbid", g.n, n, g.indptr, g.indices, c, hic32, near, forbid,
                     np.int32(words))  # fmt: skip
        pick = cp.full(1, INT_MAX, dtype=cp.int32)
        self._launch("h1_pick", hic, hic32, forbid, np.int32(words), pick)
        chosen = int(pick.get()[0])
        if chosen == INT_MAX:
            return False
        x, y = divmod(chosen, hic)
        self._launch("h1_apply", g.n, n, c, near, hic32, np.int32(x), np.int32(y))
        return True

    def heuristic2(self, hic: int) -> int:
        cp, g, c = self.cp, self.g, self.colors
        n, hic32 = np.int32(g.n), np.int32(hic)
        hv = cp.flatnonzero(c == hic).astype(cp.int32)
        h = int(hv.size)
        hidx = cp.full(g.n, -1, dtype=cp.int32)
        hidx[hv] = cp.arange(h, dtype=cp.int32)
        anchor = cp.empty(g.n, dtype=cp.int32)
        self._launch("h2_anchor", g.n, n, g.indptr, g.indices, c, hic32, hidx, anchor)
        parent = cp.arange(h, dtype=cp.int32)
        self._launch("h2_union", g.n, n, g.indptr, g.indices, c, hic32, hidx, anchor, parent,
                     np.int32(h))  # fmt: skip
        avail = cp.empty(h * reduction.H2_COLORS, dtype=cp.uint32)
        self._launch("h2_sets", h, parent, np.int32(h), hic32, avail)
        self._launch("h2_restrict", g.n, n, g.indptr, g.indices, c, anchor, parent, avail)
        before = avail.copy()
        self._launch("h2_resolve", g.n, n, g.indptr, g.indices, c, anchor, parent, before, avail)
        choice = cp.empty(h, dtype=cp.int32)
        self._launch("h2_choose", h, parent, np.int32(h), hic32, avail, choice)
        counters = cp.zeros(COUNTERS, dtype=cp.int32)
        self._launch("h2_apply", h, np.int32(h), hv, g.indptr, g.indices, c, hidx, choice,
                     counters)  # fmt: skip
        return int(counters[C_RECOLORED].get())


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
        iterations_meaning="passes of the persistent kernels (high-degree + low-degree)",
        description="JP largest-degree-first with shortcuts, persistent asynchronous kernels",
        setup=_scratch,
        native_reduce=True,
    )
)
