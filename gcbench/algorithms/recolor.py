"""Iterated greedy recoloring (Culberson & Luo, "Exploring the k-colorable landscape with
Iterated Greedy", DIMACS Series 26, 1996): fewer colors for any complete coloring.

A pass visits the vertices class by class in some order of the classes and gives each the
smallest color none of its already visited neighbours holds. The vertices of one class are
pairwise non-adjacent, so each class position i can only reach colors 0..i and the pass
never uses more colors than it started from (Culberson's lemma). Because a class's vertices
never see each other, the order inside a class does not matter: the GPU colors a whole class
in one launch and gives the serial pass's colors exactly.

:func:`recolor_passes` is the one host loop of both backends (the numba pass here, the CUDA
one in :mod:`gcbench.algorithms.gpu.recolor`); the order of the classes in each pass is
:func:`class_order`, computed on the host from the class sizes, so both backends visit the
same classes in the same order. docs/decisions.md, "Iterated greedy", says how the schedule
and the budget were chosen.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

import numba
import numpy as np

from gcbench.algorithms.priority import hash32_array
from gcbench.graphs.graph import Graph
from gcbench.graphs.pattern import Pattern

# The class orders of successive passes, repeated: reverse (the last class first) and largest
# class first are Culberson's two strongest; a keyed random order every fourth pass moves a
# coloring off a plateau the two deterministic orders keep returning to.
SCHEDULE: tuple[str, ...] = ("reverse", "largest", "reverse", "random")
PATIENCE = 4  # passes in a row without fewer colors before the loop stops
MAX_PASSES = 64  # and never more passes than this per coloring


class Passes(NamedTuple):
    """Distinct colors before and after, and the passes run (the last PATIENCE brought none
    fewer unless MAX_PASSES or one color ended the loop)."""

    colors_before: int
    colors_after: int
    passes: int


class RecolorSteps(Protocol):
    """One backend's view of a coloring being recolored in place."""

    def sizes(self) -> np.ndarray | None:
        """The class sizes of the current colors (index = color), or None if any vertex is
        uncolored."""

    def recolor(self, classes: np.ndarray) -> np.ndarray:
        """One pass visiting the classes in the order ``classes`` (every color below the
        current largest + 1, each once); the new colors' class sizes."""


def class_order(sizes: np.ndarray, pass_index: int) -> np.ndarray:
    """The colors 0..len(sizes)-1 in the order pass ``pass_index`` visits their classes
    (:data:`SCHEDULE`): reverse = the highest color first; largest = by class size, larger
    first, ties by the lower color; random = by a hash of the color keyed by the pass."""
    k = sizes.size
    kind = SCHEDULE[pass_index % len(SCHEDULE)]
    if kind == "reverse":
        return np.arange(k - 1, -1, -1, dtype=np.int64)
    if kind == "largest":
        return np.argsort(-sizes, kind="stable")
    key = np.uint64(hash32_array(np.array([pass_index]))[0])
    mixed = hash32_array(hash32_array(np.arange(k, dtype=np.uint64) ^ key) + key)
    return np.argsort(mixed, kind="stable")


def recolor_passes(steps: RecolorSteps, floor: int = 1) -> Passes | None:
    """Iterated greedy passes until :data:`PATIENCE` passes in a row bring no fewer colors
    (at most :data:`MAX_PASSES`), or the colors reach ``floor``, a lower bound no coloring
    goes under (none runs on a coloring already there); None when the coloring is incomplete
    (left as it is)."""
    sizes = steps.sizes()
    if sizes is None:
        return None
    before = best = int(np.count_nonzero(sizes))
    passes = stale = 0
    while passes < MAX_PASSES and stale < PATIENCE and best > max(floor, 1):
        sizes = steps.recolor(class_order(sizes, passes))
        colors = int(np.count_nonzero(sizes))
        sizes = sizes[:colors]  # a pass's colors are 0..colors-1: first fit leaves no gap
        passes += 1
        stale = 0 if colors < best else stale + 1
        best = min(best, colors)
    return Passes(before, best, passes)


def recolor_colors(graph: Graph | Pattern, colors: np.ndarray) -> tuple[np.ndarray, Passes | None]:
    """A recolored copy of the host coloring ``colors`` (numba): of a graph's vertices, or of
    a pattern's columns, whose neighbours are the other columns of their rows (the distance-2
    problems, docs/distance2.md: a class's columns share no row, so the same argument holds)."""
    steps = _HostSteps(graph, np.array(colors, dtype=np.int32, copy=True))
    passes = recolor_passes(steps, lower_bound(graph))
    return steps.colors, passes


def lower_bound(graph: Graph | Pattern) -> int:
    """A floor known without work: a pattern's largest row (its columns all differ, docs/
    distance2.md), two for a graph with an edge."""
    if isinstance(graph, Pattern):
        return graph.max_row
    return 2 if graph.nnz else 1


class _HostSteps:
    def __init__(self, graph: Graph | Pattern, colors: np.ndarray) -> None:
        self.graph, self.colors = graph, colors

    def sizes(self) -> np.ndarray | None:
        if self.colors.size and self.colors.min() < 0:
            return None
        return np.bincount(self.colors) if self.colors.size else np.zeros(0, np.int64)

    def recolor(self, classes: np.ndarray) -> np.ndarray:
        rank = np.empty(classes.size, dtype=np.int64)
        rank[classes] = np.arange(classes.size)
        order = _visit_order(self.colors, rank)
        g = self.graph
        if isinstance(g, Pattern):
            col_ptr, col_rows = g.columns
            self.colors = _pattern_pass(g.indptr, g.indices, col_ptr, col_rows, order, rank.size)
        else:
            self.colors = _pass(g.indptr, g.indices, order, rank.size)
        return np.bincount(self.colors, minlength=classes.size)


@numba.njit(cache=True)
def _visit_order(colors, rank):  # type: ignore[no-untyped-def]
    """The vertices by the rank of their class (a counting sort, ids ascending inside one)."""
    start = np.zeros(rank.size + 1, np.int64)
    for v in range(colors.size):
        start[rank[colors[v]] + 1] += 1
    start = np.cumsum(start)
    order = np.empty(colors.size, np.int64)
    for v in range(colors.size):
        r = rank[colors[v]]
        order[start[r]] = v
        start[r] += 1
    return order


@numba.njit(cache=True)
def _pass(indptr, indices, order, k):  # type: ignore[no-untyped-def]
    """One iterated greedy pass over ``order``: each vertex the smallest color no visited
    neighbour holds (stamped with the vertex in ``mark``)."""
    fresh = np.full(order.size, -1, np.int32)
    mark = np.full(k + 1, -1, np.int64)
    for v in order:
        for e in range(indptr[v], indptr[v + 1]):
            c = fresh[indices[e]]
            if c >= 0:
                mark[c] = v
        fresh[v] = _unmarked(mark, v)
    return fresh


@numba.njit(cache=True)
def _pattern_pass(indptr, indices, col_ptr, col_rows, order, k):  # type: ignore[no-untyped-def]
    """:func:`_pass` for a pattern's columns: a column's neighbours are the columns of its
    rows."""
    fresh = np.full(order.size, -1, np.int32)
    mark = np.full(k + 1, -1, np.int64)
    for c in order:
        for e in range(col_ptr[c], col_ptr[c + 1]):
            r = col_rows[e]
            for f in range(indptr[r], indptr[r + 1]):
                d = fresh[indices[f]]
                if d >= 0:
                    mark[d] = c
        fresh[c] = _unmarked(mark, c)
    return fresh


@numba.njit(cache=True, inline="always")
def _unmarked(mark, item):  # type: ignore[no-untyped-def]
    """The smallest color not stamped with ``item`` (a pass's first fit)."""
    c = 0
    while mark[c] == item:
        c += 1
    return c
