"""Checking a coloring against the definition, on the host, in O(n + m) numpy."""

from __future__ import annotations

from dataclasses import dataclass

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
    distinct = int(np.unique(colored).size) if colored.size else 0
    return Validation(
        conflicts=int(conflicting_entries) // 2,
        uncolored=int(colors.size - colored.size),
        colors=distinct,
        max_color=int(colored.max()) if colored.size else -1,
    )


def validate(graph: Graph, colors: np.ndarray) -> Validation:
    """Validate ``colors`` (one int per vertex, -1 = uncolored) on ``graph``."""
    colors = np.asarray(colors)
    if colors.shape != (graph.n,):
        raise InputError(f"{graph.name}: {colors.size} colors given for {graph.n} vertices")
    colors = colors.astype(np.int64, copy=False)
    rows = np.repeat(colors, graph.degrees)
    cols = colors[graph.indices]
    conflicting = np.count_nonzero((rows == cols) & (rows >= 0))
    return summarise(conflicting, colors)
