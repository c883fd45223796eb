"""Checking a coloring against the definition, on the host: one numba pass over the CSR,
plus the sizes of its color classes (docs/balance-levels.md).

The pass allocates nothing of size nnz (a numpy version with ``np.repeat`` needed
temporaries of that size and was many times slower; the figures, from
benchmarks/build_memory.py, are in docs/decisions.md, "Graph construction: memory and time"),
and it runs after every CPU repetition. Between repetitions it runs on the calling thread
alone (``parallel=False``): numba's OpenMP threads keep spinning after a parallel loop, and
spun into the next timed call, slowing a serial algorithm on a small machine (measured in
docs/statistics.md, "Causes found").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from gcbench.errors import InputError
from gcbench.graphs.graph import Graph


@dataclass(frozen=True)
class ClassSizes:
    """Exact sums over the non-empty color classes of a coloring: how many there are, the
    vertices in them, the sum of their squared sizes, the smallest and the largest (0 and 0
    without any class). The GPU validation kernel returns these sums, the host computes them
    from the colors; both turn them into the balance columns here, so they agree exactly."""

    classes: int
    total: int
    sum_squares: int
    smallest: int
    largest: int

    @property
    def cv(self) -> float:
        """Coefficient of variation of the class sizes: the population standard deviation
        over the mean, sqrt(k·Σs² − (Σs)²) / Σs for k classes (0 without classes). Computed
        from exact integers, so the GPU's and the host's figures are the same float."""
        if self.classes == 0 or self.total == 0:
            return 0.0
        spread = self.classes * self.sum_squares - self.total * self.total
        return math.sqrt(max(spread, 0)) / self.total


def class_sizes(sizes: np.ndarray) -> ClassSizes:
    """The :class:`ClassSizes` of per-class sizes (zeros, for unused color ids, are skipped)."""
    used = np.asarray(sizes, dtype=np.int64)
    used = used[used > 0]
    if not used.size:
        return ClassSizes(0, 0, 0, 0, 0)
    return ClassSizes(
        classes=int(used.size),
        total=int(used.sum()),
        sum_squares=int(np.dot(used, used)),  # <= n**2 < 2**62: exact in int64
        smallest=int(used.min()),
        largest=int(used.max()),
    )


@dataclass(frozen=True)
class Validation:
    """Conflicting edges (each counted once), uncolored vertices, distinct colors, max color,
    and the balance of the color classes: the smallest and largest class and ``class_cv``
    (:attr:`ClassSizes.cv`; 0, 0 and 0.0 when no vertex is colored).

    For a Pattern (docs/distance2.md) ``conflicts`` counts the nonzeros whose column's color
    another column of the same row had before it, and ``recovered`` says whether the
    compressed product B = J·S of the coloring's seed matrix S gave back every nonzero of J
    (None for a graph, and where the check did not run)."""

    conflicts: int
    uncolored: int
    colors: int
    max_color: int
    min_class: int
    max_class: int
    class_cv: float
    recovered: bool | None = None

    @property
    def valid(self) -> bool:
        return self.conflicts == 0 and self.uncolored == 0 and self.recovered is not False


def from_counts(conflicts: int, uncolored: int, max_color: int, classes: ClassSizes) -> Validation:
    """A Validation from its counts and the class sums (shared by the host and the GPU)."""
    return Validation(
        conflicts=conflicts,
        uncolored=uncolored,
        colors=classes.classes,
        max_color=max_color,
        min_class=classes.smallest,
        max_class=classes.largest,
        class_cv=classes.cv,
    )


def color_class_sizes(colors: np.ndarray) -> np.ndarray:
    """The size of each color class of ``colors`` (uncolored vertices left out): indexed by
    color for dense color ids (below 4n, as every algorithm writes them), else the sizes of
    the distinct colors in increasing order."""
    colors = np.asarray(colors)
    colored = colors[colors >= 0]
    top = int(colored.max()) if colored.size else -1
    if top < 4 * colors.size:
        return np.bincount(colored.astype(np.int64), minlength=top + 1)
    return np.unique(colored, return_counts=True)[1]


def summarise(conflicting_entries: int, colors: np.ndarray) -> Validation:
    """Build a Validation from a count of conflicting CSR entries (2 per edge) and the colors.

    Shared by the host validator and the GPU validation's fallback for color ids >= n.
    """
    colors = np.asarray(colors)
    sizes = class_sizes(color_class_sizes(colors))
    top = int(colors.max()) if colors.size else -1
    return from_counts(
        int(conflicting_entries) // 2, int(colors.size - sizes.total), max(top, -1), sizes
    )


def validate(graph: Graph, colors: np.ndarray, *, parallel: bool = True) -> Validation:
    """Validate ``colors`` (one int per vertex, -1 = uncolored) on ``graph``, on numba's
    threads or, without ``parallel``, on this thread alone (leaving no thread spinning)."""
    colors = np.asarray(colors)
    if colors.shape != (graph.n,):
        raise InputError(f"{graph.name}: {colors.size} colors given for {graph.n} vertices")
    if colors.dtype not in (np.int32, np.int64):
        colors = colors.astype(np.int64)
    scan = _conflicting_edges if parallel else _conflicting_edges_serial
    return summarise(2 * scan(graph.indptr, graph.indices, colors), colors)


@numba.njit(cache=True, inline="always")
def _row_conflicts(indptr: np.ndarray, indices: np.ndarray, colors: np.ndarray, u: int) -> int:
    """Neighbours above ``u`` that share its color (0 for an uncolored ``u``): rows are sorted
    and symmetric (the Graph invariant), so each conflicting edge is counted once."""
    mine = colors[u]
    if mine < 0:
        return 0
    lo, hi = indptr[u], indptr[u + 1]
    here = 0
    for k in range(lo + np.searchsorted(indices[lo:hi], u), hi):
        if colors[indices[k]] == mine:
            here += 1
    return here


@numba.njit(parallel=True, cache=True)
def _conflicting_edges(indptr: np.ndarray, indices: np.ndarray, colors: np.ndarray) -> int:
    """Edges {u, v} with colors[u] == colors[v] >= 0, each counted once, on numba's threads.
    Counts go to one slot per vertex and are summed after the loop: numba's parfor reduction
    analysis fails on a scalar accumulated across rows in some versions ("unexpected
    cycle")."""
    per_vertex = np.zeros(colors.size, dtype=np.int32)
    for u in numba.prange(colors.size):
        per_vertex[u] = _row_conflicts(indptr, indices, colors, u)
    total = 0
    for u in range(colors.size):
        total += per_vertex[u]
    return total


@numba.njit(cache=True)
def _conflicting_edges_serial(indptr: np.ndarray, indices: np.ndarray, colors: np.ndarray) -> int:
    """:func:`_conflicting_edges` on this thread alone: its own function, so its cache entry
    is its own (one compiled from the parallel function's code would share that one's file,
    and a process could load the parallel code and leave numba's threads spinning)."""
    total = 0
    for u in range(colors.size):
        total += _row_conflicts(indptr, indices, colors, u)
    return total
