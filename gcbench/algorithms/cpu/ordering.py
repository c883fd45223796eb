"""Static vertex orders for serial greedy: first fit, random, LDF and smallest-degree-last."""

from __future__ import annotations

import numba
import numpy as np

from gcbench.algorithms.priority import ldf_order
from gcbench.graphs.graph import Graph


@numba.njit(cache=True)
def counting_order(keys, top):  # type: ignore[no-untyped-def]
    """Stable counting sort of ``keys`` (integers in 0..top): returns (order, start), where the
    indices with key k are ``order[start[k]:start[k + 1]]`` in increasing index order."""
    n = keys.shape[0]
    start = np.zeros(top + 2, dtype=np.int64)
    for v in range(n):
        start[keys[v] + 1] += 1
    for k in range(top + 1):
        start[k + 1] += start[k]
    fill = start[:-1].copy()
    order = np.empty(n, dtype=np.int32)
    for v in range(n):
        order[fill[keys[v]]] = v
        fill[keys[v]] += 1
    return order, start


@numba.njit(cache=True)
def _degeneracy_removal(indptr, indices):  # type: ignore[no-untyped-def]
    """Vertices in the order a min-degree bucket queue removes them (Matula-Beck, O(n + m)).

    Batagelj-Zaversnik layout: ``vert`` holds the vertices sorted by current degree, ``start[d]``
    where degree d begins, ``pos`` each vertex's place; a neighbour's degree drops by swapping it
    to the front of its bucket and moving the bucket boundary. Buckets start in id order.
    """
    n = indptr.shape[0] - 1
    degree = indptr[1:] - indptr[:-1]
    vert, start = counting_order(degree, degree.max() if n else 0)
    pos = np.empty(n, dtype=np.int64)
    for i in range(n):
        pos[vert[i]] = i
    for i in range(n):
        v = vert[i]
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            du = degree[u]
            if du > degree[v]:
                first = start[du]
                w = vert[first]
                if w != u:
                    pu = pos[u]
                    vert[pu], pos[w] = w, pu
                    vert[first], pos[u] = u, first
                start[du] += 1
                degree[u] = du - 1
    return vert


def static_order(graph: Graph, order: str, seed: int) -> np.ndarray:
    """The int32 visiting order for greedy ``order`` in ff|r|ldf|sdl.

    sdl colors in the reverse of the degeneracy removal order, so the vertex removed last
    (from the densest core) is colored first.
    """
    if order == "ff":
        return np.arange(graph.n, dtype=np.int32)
    if order == "r":
        return np.random.default_rng(seed).permutation(graph.n).astype(np.int32)
    if order == "ldf":
        return ldf_order(graph)
    if order == "sdl":
        return _degeneracy_removal(graph.indptr, graph.indices)[::-1].copy()
    raise ValueError(f"not a static order: {order}")
