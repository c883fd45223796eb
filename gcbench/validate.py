"""Checking a coloring against the definition, on the host: one numba pass over the CSR.

The pass allocates nothing of size nnz (a numpy version with ``np.repeat`` needed 1.8 GB of
temporaries and 7 s at 1.8·10⁸ entries; this one takes well under a second there, see
benchmarks/build_memory.py), and it runs after every CPU repetition.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from gcbench.errors import InputError
from gcbench.graph import Graph


@dataclass(frozen=True)
class Validation:
    """Conflicting edges (each counted once), uncolored vertices, distinct colors, max color."""

    conflicts: int
    uncolored: int
    colors: int
    max_color: int

    @property
    def valid(self) -> bool:
        return self.conflicts == 0 and self.uncolored == 0


def summarise(conflicting_entries: int, colors: np.ndarray) -> Validation:
    """Build a Validation from a count of conflicting CSR entries (2 per edge) and the colors.

    Shared by the numpy validator and the GPU validation kernel's host side.
    """
    colored = colors[colors >= 0]
    top = int(colored.max()) if colored.size else -1
    if top < 4 * colors.size:  # dense color ids, as every algorithm writes: a presence table
        present = np.zeros(top + 1, dtype=np.bool_)
        present[colored] = True
        distinct = int(np.count_nonzero(present))
    else:
        distinct = int(np.unique(colored).size)
    return Validation(
        conflicts=int(conflicting_entries) // 2,
        uncolored=int(colors.size - colored.size),
        colors=distinct,
        max_color=top,
    )


def validate(graph: Graph, colors: np.ndarray) -> Validation:
    """Validate ``colors`` (one int per vertex, -1 = uncolored) on ``graph``."""
    colors = np.asarray(colors)
    if colors.shape != (graph.n,):
        raise InputError(f"{graph.name}: {colors.size} colors given for {graph.n} vertices")
    if colors.dtype not in (np.int32, np.int64):
        colors = colors.astype(np.int64)
    return summarise(2 * _conflicting_edges(graph.indptr, graph.indices, colors), colors)


@numba.njit(parallel=True, cache=True)
def _conflicting_edges(indptr: np.ndarray, indices: np.ndarray, colors: np.ndarray) -> int:
    """Edges {u, v} with colors[u] == colors[v] >= 0, each counted once: rows are sorted and
    symmetric (the Graph invariant), so only the neighbours above u are looked at. Counts go
    to one slot per vertex and are summed after the loop: numba's parfor reduction analysis
    fails on a scalar accumulated across rows in some versions ("unexpected cycle")."""
    per_vertex = np.zeros(colors.size, dtype=np.int32)
    for u in numba.prange(colors.size):
        mine = colors[u]
        if mine >= 0:
            lo, hi = indptr[u], indptr[u + 1]
            here = 0
            for k in range(lo + np.searchsorted(indices[lo:hi], u), hi):
                if colors[indices[k]] == mine:
                    here += 1
            per_vertex[u] = here
    total = 0
    for u in range(colors.size):
        total += per_vertex[u]
    return total
