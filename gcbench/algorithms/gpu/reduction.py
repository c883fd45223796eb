"""Color reduction on the device (ecl-gc §4, Alg. 4-5) for every GPU algorithm's ``reduce``
parameter, ecl-gc's included: the rounds of :func:`gcbench.algorithms.reduction.reduce_rounds`
as launches of ``kernels/reduction.cu``, on the algorithm's device colors (no host copy)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gcbench.algorithms import reduction
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.gpu.recolor import recolor_on_device
from gcbench.algorithms.registry import Coloring

BLOCK = 256
INT_MAX = 2**31 - 1

# What kernels/reduction.cu shares with the host twin: passed to every compile as a -D define.
runtime.share("reduction", GCB_H2_COLORS=reduction.H2_COLORS)


def reduce_device(dgraph: runtime.DeviceGraph, coloring: Coloring, mode: str) -> Coloring:
    """``coloring`` (device colors) reduced with ``mode``; "none" returns it unchanged. The
    trace gains the reduction's series (:func:`gcbench.algorithms.reduction.with_report`)."""
    if mode == "none":
        return coloring
    colors, report, ms = reduce_on_device(dgraph, coloring.colors, mode)
    return reduction.with_report(coloring, colors, report, ms)


def reduce_on_device(
    dgraph: runtime.DeviceGraph, colors: Any, mode: str
) -> tuple[Any, reduction.ReductionReport | None, float]:
    """Reduce a copy of the device coloring ``colors`` with ``mode`` (``ig``: iterated greedy,
    :mod:`gcbench.algorithms.gpu.recolor`); returns the reduced colors, the report and the
    reduction's own time in ms (CUDA events)."""
    cp = runtime.cupy()
    reduction.check_mode(mode)
    with runtime.timed() as clock:
        if mode == "ig":
            reduced, passes = recolor_on_device(dgraph, colors)
            report = reduction.from_passes(passes)
        else:
            steps = _DeviceSteps(dgraph, cp.array(colors, dtype=cp.int32, copy=True))
            report = reduction.reduce_rounds(steps, mode)
            reduced = steps.colors
    return reduced, report, runtime.synced(clock.ms)


class _DeviceSteps:
    """The heuristics' rounds as launches of the kernels in ``kernels/reduction.cu``."""

    def __init__(self, dgraph: runtime.DeviceGraph, colors: Any) -> None:
        self.g, self.colors = dgraph, colors
        self.cp = runtime.cupy()

    def _launch(self, name: str, items: int, *args: Any) -> None:
        grid = min(runtime.grid_for(items, BLOCK), runtime.persistent_grid(BLOCK))
        runtime.kernel("reduction", name)((grid,), (BLOCK,), args)

    def compact(self) -> int | None:
        cp, c = self.cp, self.colors
        if c.size == 0:
            return 0
        low, high = (int(x) for x in runtime.read_back(cp.stack([c.min(), c.max()])))
        if low < 0:
            return None
        used = cp.zeros(high + 1, dtype=cp.int32)
        used[c] = 1
        label = cp.cumsum(used, dtype=cp.int32) - 1
        count = int(runtime.read_back(label[-1:])[0]) + 1
        if count != high + 1:
            self.colors = label[c]
        return count

    def max_color(self) -> int:
        return int(runtime.read_back(self.colors.max()))

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
        chosen = int(runtime.read_back(pick)[0])
        if chosen == INT_MAX:
            return False
        x, y = divmod(chosen, hic)
        self._launch("h1_apply", g.n, n, c, near, hic32, np.int32(x), np.int32(y))
        return True

    def heuristic2(self, hic: int) -> int:
        cp, g, c = self.cp, self.g, self.colors
        n, hic32 = np.int32(g.n), np.int32(hic)
        hv = runtime.synced(lambda: cp.flatnonzero(c == hic), enqueues=True).astype(cp.int32)
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
        recolored = cp.zeros(1, dtype=cp.int32)
        self._launch("h2_apply", h, np.int32(h), hv, g.indptr, g.indices, c, hidx, choice,
                     recolored)  # fmt: skip
        return int(runtime.read_back(recolored)[0])
