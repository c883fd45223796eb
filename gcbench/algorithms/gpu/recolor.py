"""Iterated greedy recoloring on the device (Culberson & Luo 1996) for every GPU algorithm's
``reduce=ig``: the passes of :func:`gcbench.algorithms.recolor.recolor_passes` as launches of
``kernels/recolor.cu``, one per class, on the algorithm's device colors (no host copy).

A pass places the vertices by the position of their class in the pass's order (``ig_place``:
the class ranges come from the sizes the host already has, a class's vertices of at least
:data:`HEAVY` neighbours at the end of its range), launches ``ig_class`` (a thread or a warp a
vertex) and, on a graph with such vertices, ``ig_heavy`` (a block a vertex) for each non-empty
class in turn, and learns the new class sizes with one blocking read: the sizes decide the
next pass's order and its launches' grids. A pattern's columns (the distance-2 problems) are
placed the same way, none heavy, and colored a warp each by ``ig_pattern_class``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gcbench.algorithms import recolor
from gcbench.algorithms.gpu import runtime

BLOCK = 256
# A vertex of at least HEAVY neighbours is colored by a block with a bitmap of up to WINDOW
# colors in shared memory (WINDOW / 8 bytes); below, a thread or a warp rescans its neighbours
# for every 32 colors it passes, a chain of dependent reads that sets a class's time when a few
# such vertices are all it holds (kron 18 after ecl-gc, 121 classes, 7 passes: 131 ms with
# warps alone, 64 ms with blocks from 1,024 neighbours, 27 ms from 64; docs/decisions.md,
# "Iterated greedy"). Kernel arguments, so that a test can make a small graph exercise both.
HEAVY = 64
WINDOW = 8192


def recolor_on_device(
    dgraph: runtime.DeviceGraph | runtime.DevicePattern, colors: Any
) -> tuple[Any, recolor.Passes | None]:
    """A recolored copy of the device coloring ``colors`` of a graph's vertices or a pattern's
    columns, and what the passes did."""
    runtime.require_device(2 * 4 * dgraph.n, "reduce=ig")  # a pass's order and new colors
    kind = _PatternSteps if isinstance(dgraph, runtime.DevicePattern) else _GraphSteps
    steps = kind(dgraph, colors)
    passes = recolor.recolor_passes(steps, recolor.lower_bound(dgraph.host))
    return steps.colors, passes


class _DeviceSteps:
    """The passes as launches of ``kernels/recolor.cu``; ``known`` holds the class sizes of
    ``colors`` as last read back. A subclass colors one class (:meth:`color_class`) and says
    which items are heavy (:meth:`heavy`)."""

    def __init__(self, dgraph: Any, colors: Any) -> None:
        self.g, self.cp = dgraph, runtime.cupy()
        self.colors = colors
        self.known = np.zeros(0, dtype=np.int64)

    def sizes(self) -> np.ndarray | None:
        cp, c = self.cp, self.colors
        if c.size == 0:
            return self.known
        low, high = (int(x) for x in runtime.read_back(cp.stack([c.min(), c.max()])))
        if low < 0:
            return None
        self.known = self._count(c, high + 1)
        return self.known

    def _launch(self, name: str, items: int, *args: Any) -> None:
        grid = min(runtime.grid_for(items, BLOCK), runtime.persistent_grid(BLOCK))
        runtime.kernel("recolor", name)((grid,), (BLOCK,), args)

    def _count(self, colors: Any, k: int) -> np.ndarray:
        """The class sizes of ``colors`` (all in 0..k-1), read back: one blocking read (CuPy's
        bincount would read the largest color back first, uncounted)."""
        sizes = self.cp.zeros(k, dtype=self.cp.int32)
        self._launch("ig_count", self.g.n, np.int32(self.g.n), colors, sizes)
        return runtime.read_back(sizes).astype(np.int64)

    def recolor(self, classes: np.ndarray) -> np.ndarray:
        cp, g = self.cp, self.g
        rank = np.empty(classes.size, dtype=np.int32)  # every color is below classes.size
        rank[classes] = np.arange(classes.size, dtype=np.int32)
        sizes = self.known[classes]
        bounds = np.zeros(sizes.size + 1, dtype=np.int32)
        np.cumsum(sizes, out=bounds[1:])
        lo, hi = cp.asarray(bounds[:-1]), cp.asarray(bounds[1:])
        mid, taken = lo.copy(), cp.zeros(sizes.size, dtype=cp.int32)
        order = cp.empty(g.n, dtype=cp.int32)
        offsets, heavy_degree = self.heavy()
        self._launch("ig_place", g.n, np.int32(g.n), self.colors, cp.asarray(rank), offsets,
                     np.int32(heavy_degree), mid, hi, taken, order)  # fmt: skip
        fresh = runtime.uncolored(g.n)
        window = min(WINDOW, -(-classes.size // 32) * 32)  # no wider than the colors there are
        for position, size in enumerate(sizes.tolist()):
            if size:
                self.color_class(position, size, (order, lo, mid, hi), fresh, window)
        self.colors = fresh
        self.known = self._count(fresh, classes.size)
        return self.known

    def heavy(self) -> tuple[Any, int]:
        """The offsets whose differences ``ig_place`` compares with the heavy threshold, and
        that threshold."""
        raise NotImplementedError

    def color_class(self, position: int, size: int, ranges: tuple, fresh: Any, window: int) -> None:
        """Launch the coloring of the class at ``position`` (``size`` items; ``ranges`` = the
        order and its lo, mid and hi arrays)."""
        raise NotImplementedError


class _GraphSteps(_DeviceSteps):
    """A graph's vertices: a thread or a warp a light vertex, a block a heavy one."""

    def heavy(self) -> tuple[Any, int]:
        return self.g.indptr, HEAVY

    def color_class(self, position: int, size: int, ranges: tuple, fresh: Any, window: int) -> None:
        g, (order, lo, mid, hi) = self.g, ranges
        tail = (np.int32(position), g.indptr, g.indices, fresh)
        self._launch("ig_class", size, order, lo, mid, *tail)
        if g.max_degree >= HEAVY:
            blocks = min(size, runtime.persistent_grid(BLOCK))
            runtime.kernel("recolor", "ig_heavy")((blocks,), (BLOCK,), (order, mid, hi, *tail,
                np.int32(window)), shared_mem=window // 8)  # fmt: skip


class _PatternSteps(_DeviceSteps):
    """A pattern's columns (the distance-2 problems): a warp each, none heavy."""

    def heavy(self) -> tuple[Any, int]:
        return self.g.col_ptr, np.iinfo(np.int32).max

    def color_class(self, position: int, size: int, ranges: tuple, fresh: Any, window: int) -> None:
        p, (order, lo, mid, _) = self.g, ranges
        grid = min(runtime.grid_for(32 * size, BLOCK), runtime.persistent_grid(BLOCK))
        runtime.kernel("recolor", "ig_pattern_class")((grid,), (BLOCK,), (order, lo, mid,
            np.int32(position), p.row_ptr, p.row_cols, p.col_ptr, p.col_rows, fresh,
            np.int32(window)), shared_mem=BLOCK // 32 * window // 8)  # fmt: skip
