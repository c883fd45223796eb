"""Static vertex orders for serial greedy: first fit, random, LDF and smallest-degree-last."""

from __future__ import annotations

import numba
import numpy as np

from gcbench.algorithms.priority import ldf_order
from gcbench.graphs.bounds import peeling_order
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


def static_order(graph: Graph, order: str, seed: int) -> np.ndarray:
    """The int32 visiting order for greedy ``order`` in ff|r|ldf|sdl.

    sdl colors in the reverse of the degeneracy removal order (the peeling that also gives
    the graph's degeneracy, :func:`gcbench.graphs.bounds.peeling_order`), so the vertex
    removed last (from the densest core) is colored first.
    """
    if order == "ff":
        return np.arange(graph.n, dtype=np.int32)
    if order == "r":
        return np.random.default_rng(seed).permutation(graph.n).astype(np.int32)
    if order == "ldf":
        return ldf_order(graph)
    if order == "sdl":
        return peeling_order(graph)[::-1].copy()
    raise ValueError(f"not a static order: {order}")
