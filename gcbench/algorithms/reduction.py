"""Color reduction (ecl-gc §4, Alg. 4-5): fewer colors for any complete coloring.

Heuristic 1 (Alg. 4) looks for one pair of colors x != y, both below the highest color hic,
such that every neighbour of a hic vertex that has color x can move to y; then those
neighbours take y and every hic vertex takes x. Heuristic 2 (Alg. 5) groups the hic vertices
that share a neighbour into disjoint sets and gives each set its own move "neighbours of
color i take b, the hic vertices take i", with i, b < 32 (the paper's cap); moves of
different sets that could collide on an edge are made disjoint first.

The host loop (:func:`reduce_rounds`) drives the numba steps here; the device runs the same
rounds with every decision of this loop taken on the device (``r_end`` in
kernels/reduction.cu, launched by :mod:`gcbench.algorithms.gpu.reduction`), so its rounds need
no read. Both are deterministic and give the same colors. Where the paper's parallel code
depends on the order of atomic updates (which of two colliding sets gives way) the decision is
taken on a snapshot instead; the choices made here are in docs/ecl-gc.md. ``reduce=ig`` runs
iterated greedy passes instead (:mod:`gcbench.algorithms.recolor`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from gcbench.algorithms import recolor
from gcbench.algorithms.registry import REDUCE_MODES, Coloring
from gcbench.errors import SpecError
from gcbench.graphs.graph import Graph

MAX_ROUNDS = 256  # successful heuristic rounds per reduction (each lowers hic or its count)
H1_MAX_COLORS = 8192  # Heuristic 1 keeps a hic x hic matrix; above this it is skipped
H2_COLORS = 32  # Heuristic 2 only moves vertices among the first 32 colors (ecl-gc §4.1.2)


@dataclass(frozen=True)
class ReductionReport:
    """Distinct colors before and after, and the successful rounds in between."""

    colors_before: int
    colors_after: int
    rounds: int


def check_mode(mode: str) -> None:
    if mode not in REDUCE_MODES:
        raise SpecError(f"reduce={mode} is not one of {'|'.join(REDUCE_MODES)}")


def from_passes(passes: recolor.Passes | None) -> ReductionReport | None:
    """Iterated greedy's result as a report: its passes count as the rounds."""
    return None if passes is None else ReductionReport(*passes)


def reduce_rounds(steps: _HostSteps, mode: str) -> ReductionReport | None:
    """Apply ``mode`` (h1, h2 or both: Heuristic 1 first, Heuristic 2 when it fails) until a
    round changes nothing; None when the coloring is incomplete (left as it is)."""
    check_mode(mode)
    before = steps.compact()
    if before is None:
        return None
    use1, use2 = mode in ("h1", "both"), mode in ("h2", "both")
    hic, rounds = before - 1, 0
    while rounds < MAX_ROUNDS and hic >= 2:
        if not (
            (use1 and hic <= H1_MAX_COLORS and steps.heuristic1(hic))
            or (use2 and steps.heuristic2(hic) > 0)
        ):
            break
        rounds += 1
        hic = steps.max_color()
    after = steps.compact()
    return ReductionReport(before, before if after is None else after, rounds)


def reduce_host(graph: Graph, coloring: Coloring, mode: str) -> Coloring:
    """``coloring`` (host colors) reduced with ``mode`` by the numba steps; "none" returns it
    unchanged. The GPU twin is :func:`gcbench.algorithms.gpu.reduction.reduce_device`."""
    if mode == "none":
        return coloring
    start = time.perf_counter()
    colors, report = reduce_colors(graph, np.asarray(coloring.colors), mode)
    return with_report(coloring, colors, report, (time.perf_counter() - start) * 1e3)


def with_report(
    coloring: Coloring, colors: Any, report: ReductionReport | None, ms: float
) -> Coloring:
    """``coloring`` with the reduced ``colors`` and the reduction's trace series."""
    series = {"reduce_ms": ms}
    if report is not None:
        series.update(
            colors_before=report.colors_before,
            colors_after=report.colors_after,
            reduce_rounds=report.rounds,
        )
    return coloring.after_pass(colors, series)


def reduce_colors(
    graph: Graph, colors: np.ndarray, mode: str
) -> tuple[np.ndarray, ReductionReport | None]:
    """A reduced copy of the host coloring ``colors`` of ``graph`` (numba); ``ig`` is iterated
    greedy (:mod:`gcbench.algorithms.recolor`)."""
    check_mode(mode)
    if mode == "ig":
        recolored, passes = recolor.recolor_colors(graph, colors)
        return recolored, from_passes(passes)
    steps = _HostSteps(graph, np.array(colors, dtype=np.int32, copy=True))
    report = reduce_rounds(steps, mode)
    return steps.colors, report


class _HostSteps:
    """A host coloring being reduced in place, the steps :func:`reduce_rounds` drives."""

    def __init__(self, graph: Graph, colors: np.ndarray) -> None:
        self.indptr, self.indices, self.colors = graph.indptr, graph.indices, colors

    def compact(self) -> int | None:
        """Relabel the colors to 0..k-1 keeping their order; k, or None if any is uncolored."""
        if self.colors.size and self.colors.min() < 0:
            return None
        return _compact(self.colors) if self.colors.size else 0

    def max_color(self) -> int:
        return int(self.colors.max())

    def heuristic1(self, hic: int) -> bool:
        """One round of Heuristic 1; whether it recolored the hic vertices."""
        return _heuristic1(self.indptr, self.indices, self.colors, hic)

    def heuristic2(self, hic: int) -> int:
        """One round of Heuristic 2; how many hic vertices it recolored."""
        return _heuristic2(self.indptr, self.indices, self.colors, hic)


@numba.njit(cache=True)
def _compact(colors: np.ndarray) -> int:
    used = np.zeros(colors.max() + 1, np.int32)
    for c in colors:
        used[c] = 1
    label = np.cumsum(used) - 1
    for v in range(colors.size):
        colors[v] = label[colors[v]]
    return int(used.sum())


@numba.njit(cache=True)
def _near(indptr, indices, colors, hic):  # type: ignore[no-untyped-def]
    """Vertices (not of color hic) with a neighbour of color hic."""
    near = np.zeros(colors.size, np.bool_)
    for v in range(colors.size):
        if colors[v] != hic:
            for e in range(indptr[v], indptr[v + 1]):
                if colors[indices[e]] == hic:
                    near[v] = True
                    break
    return near


@numba.njit(cache=True)
def _heuristic1(indptr, indices, colors, hic):  # type: ignore[no-untyped-def]
    """Alg. 4: the smallest pair (x, y), x != y < hic, with no near vertex of color x next to a
    vertex of color y; near vertices x -> y, hic vertices -> x."""
    near = _near(indptr, indices, colors, hic)
    forbid = np.zeros((hic, hic), np.bool_)
    for v in range(colors.size):
        x = colors[v]
        if near[v] and x < hic:
            for e in range(indptr[v], indptr[v + 1]):
                y = colors[indices[e]]
                if y < hic:
                    forbid[x, y] = True
    for x in range(hic):
        for y in range(hic):
            if y != x and not forbid[x, y]:
                for v in range(colors.size):
                    if colors[v] == hic:
                        colors[v] = x
                    elif colors[v] == x and near[v]:
                        colors[v] = y
                return True
    return False


@numba.njit(cache=True)
def _find(parent, x):  # type: ignore[no-untyped-def]
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@numba.njit(cache=True)
def _popcount(x):  # type: ignore[no-untyped-def]
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@numba.njit(cache=True)
def _heuristic2(indptr, indices, colors, hic):  # type: ignore[no-untyped-def]
    """Alg. 5 with sets rooted at their smallest member and collisions decided on a snapshot.

    Bitmaps are MSB-first over colors 0..31 (color c is bit 31 - c), as in the kernels."""
    n = colors.size
    hv = np.flatnonzero(colors == hic)
    h = hv.size
    hidx = np.full(n, -1, np.int64)
    hidx[hv] = np.arange(h)
    anchor = np.full(n, -1, np.int64)  # the smallest hic index among v's neighbours
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            j = hidx[indices[e]]
            if j >= 0 and (anchor[v] < 0 or j < anchor[v]):
                anchor[v] = j
    parent = np.arange(h)
    for v in range(n):
        if anchor[v] >= 0:
            for e in range(indptr[v], indptr[v + 1]):
                j = hidx[indices[e]]
                if j >= 0:
                    a, b = _find(parent, anchor[v]), _find(parent, j)
                    if a != b:
                        parent[max(a, b)] = min(a, b)
    for j in range(h):
        parent[j] = _find(parent, j)

    top = min(hic - 1, H2_COLORS - 1)
    avail = np.zeros((h, H2_COLORS), np.int64)
    for i in range(top):  # colors i+1 .. top; none for i >= top
        avail[:, i] = ((1 << (31 - i)) - 1) & ~((1 << (31 - top)) - 1)
    for v in range(n):
        c = colors[v]
        if anchor[v] >= 0 and c < H2_COLORS:
            used = 0
            for e in range(indptr[v], indptr[v + 1]):
                d = colors[indices[e]]
                if d < H2_COLORS:
                    used |= 1 << (31 - d)
            avail[parent[anchor[v]], c] &= ~used
    before = avail.copy()
    for v in range(n):
        c = colors[v]
        if anchor[v] >= 0 and c < H2_COLORS:
            s = parent[anchor[v]]
            mine = _popcount(before[s, c])
            lost = 0
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                d = colors[u]
                if anchor[u] >= 0 and d < H2_COLORS:
                    t = parent[anchor[u]]
                    theirs = _popcount(before[t, d])
                    if t != s and (theirs > mine or (theirs == mine and t > s)):
                        lost |= before[t, d]
            avail[s, c] &= ~lost

    choice = np.full(h, -1, np.int64)  # (i << 8) | b
    for j in range(h):
        for i in range(min(hic, H2_COLORS)):
            bits = avail[parent[j], i]
            if bits:
                b = 0
                while not (bits >> (31 - b)) & 1:
                    b += 1
                choice[j] = (i << 8) | b
                break
    recolored = 0
    for j in range(h):
        if choice[j] >= 0:
            v, i, b = hv[j], choice[j] >> 8, choice[j] & 0xFF
            for e in range(indptr[v], indptr[v + 1]):
                if colors[indices[e]] == i:
                    colors[indices[e]] = b
            colors[v] = i
            recolored += 1
    return recolored
