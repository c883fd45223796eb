"""What a graph allows a coloring: a lower bound on its chromatic number χ (a clique) and its
degeneracy (docs/architecture.md, "The graph"; docs/graphs.md, "Bounds").

- **Degeneracy** δ: the largest k whose k-core is non-empty, from the bucket peeling of
  Batagelj & Zaversnik (2003), O(n + m). Coloring greedily in the reverse of the peeling
  (smallest-last) order uses at most δ + 1 colors, so ``degeneracy + 1`` is an upper bound.
- **Clique** ω' ≤ ω ≤ χ: grown greedily from each vertex v among its *later* neighbours in the
  peeling order (at most core(v) of them), adding the candidate with the most neighbours
  among the remaining candidates while few are left, else the one of highest core number.
  Vertices are visited from the densest core down and the search stops once no vertex left
  can beat the clique found (a clique through v has at most core(v) + 1 vertices), or once
  its work — adjacency tests and neighbour scans — exceeds a budget proportional to the
  graph's size. Whatever clique it holds then is still a lower bound. Like FastColor's and
  RECOL's bounds (cited in docs/graphs.md), it is a heuristic: exact on complete (n),
  bipartite (2) and triangle-free graphs (2), possibly below ω elsewhere.

Memory: 20 bytes a vertex beyond the graph, with the degrees it keeps (``peak_bytes``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from gcbench.graphs.graph import Graph

WORK_PER_ENTRY = 8  # the clique search's budget: this many steps per stored entry ...
WORK_FLOOR = 1 << 26  # ... and at least this many, so small graphs are searched thoroughly


@dataclass(frozen=True)
class Bounds:
    """``clique``: the size of a clique found, a lower bound on χ (0 for the empty graph, 1
    without edges); ``degeneracy``: the graph's degeneracy δ (χ ≤ δ + 1)."""

    clique: int
    degeneracy: int


def peak_bytes(n: int, max_degree: int) -> int:
    """What :func:`compute` allocates beyond the graph: the degrees (int64, kept by the
    graph), core numbers, order and positions (int32 each), the bucket starts twice (int64 per
    degree) and the search's four buffers (20 bytes per degree)."""
    return 20 * n + 36 * (max_degree + 2)


def compute(graph: Graph) -> Bounds:
    """The bounds of ``graph`` (checks the memory they need first)."""
    members, degeneracy = _search(graph)
    return Bounds(int(members.size), degeneracy)


def peeling_order(graph: Graph) -> np.ndarray:
    """The vertices (int32) in the order the min-degree bucket queue removes them (Matula &
    Beck; Batagelj & Zaversnik's layout, ties by vertex id): each has at most δ neighbours
    after it, so greedy coloring in the reverse order (smallest-last) needs at most δ + 1
    colors."""
    from gcbench.graphs._bounds import peel

    return peel(graph.indptr, graph.indices)[1]


def clique(graph: Graph) -> np.ndarray:
    """The vertices of the clique :func:`compute` counts (tests check it is one)."""
    return _search(graph)[0]


def _search(graph: Graph) -> tuple[np.ndarray, int]:
    from gcbench import memory
    from gcbench.graphs._bounds import greedy_clique, peel

    if graph.n == 0:
        return np.empty(0, np.int32), 0
    memory.require(peak_bytes(graph.n, graph.max_degree), f"bounds of {graph.name}")
    core, order, position = peel(graph.indptr, graph.indices)
    budget = max(WORK_PER_ENTRY * graph.nnz, WORK_FLOOR)
    members = greedy_clique(graph.indptr, graph.indices, core, order, position, budget)
    return members, int(core[order[-1]])
