"""The numba kernels of :mod:`gcbench.graphs.bounds` (the algorithm is described there),
apart so that the bounds' type imports without numba."""

from __future__ import annotations

import numba
import numpy as np

CHOOSE_AMONG = 32  # candidates up to which the next clique vertex is the most connected one


@numba.njit(cache=True)
def peel(indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(core numbers, peeling order, each vertex's position in it): Batagelj & Zaversnik's
    bucket algorithm. Core numbers never decrease along the order."""
    n = indptr.shape[0] - 1
    degree = np.empty(n, np.int32)
    top = 0
    for v in range(n):
        degree[v] = indptr[v + 1] - indptr[v]
        top = max(top, degree[v])
    start = np.zeros(top + 2, np.int64)  # first slot of each degree's bucket
    for v in range(n):
        start[degree[v] + 1] += 1
    for d in range(top + 1):
        start[d + 1] += start[d]
    position = np.empty(n, np.int32)
    order = np.empty(n, np.int32)
    fill = start.copy()
    for v in range(n):
        position[v] = fill[degree[v]]
        order[position[v]] = v
        fill[degree[v]] += 1
    for i in range(n):
        v = order[i]
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            du = degree[u]
            if du > degree[v]:  # move u to the front of its bucket, then into the one below
                pu = position[u]
                pw = start[du]
                w = order[pw]
                if u != w:
                    position[u] = pw
                    order[pu] = w
                    position[w] = pu
                    order[pw] = u
                start[du] += 1
                degree[u] = du - 1
    return degree, order, position


@numba.njit(cache=True)
def _adjacent(indptr: np.ndarray, indices: np.ndarray, u: int, x: int) -> bool:
    """Whether x is among u's (sorted) neighbours: a binary search."""
    lo = indptr[u]
    hi = indptr[u + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo < indptr[u + 1] and indices[lo] == x


@numba.njit(cache=True)
def greedy_clique(
    indptr: np.ndarray,
    indices: np.ndarray,
    core: np.ndarray,
    order: np.ndarray,
    position: np.ndarray,
    budget: int,
) -> np.ndarray:
    """The vertices of the largest clique the greedy growth finds within ``budget``."""
    n = indptr.shape[0] - 1
    width = core[order[n - 1]] + 2
    found = np.empty(width, np.int32)  # the best clique so far
    found[0] = order[n - 1]
    best = 1
    work = 0
    candidates = np.empty(width, np.int32)
    links = np.empty(width, np.int64)
    members = np.empty(width, np.int32)
    for i in range(n - 1, -1, -1):
        v = order[i]
        if core[v] + 1 <= best or work > budget:
            break
        k = 0
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if position[u] > i:
                candidates[k] = u
                k += 1
        work += indptr[v + 1] - indptr[v]
        members[0] = v
        size = 1
        while k > 0 and size + k > best:
            pick = 0
            if k <= CHOOSE_AMONG:  # the candidate adjacent to most others
                for a in range(k):
                    links[a] = 0
                for a in range(k):
                    for b in range(a + 1, k):
                        if _adjacent(indptr, indices, candidates[a], candidates[b]):
                            links[a] += 1
                            links[b] += 1
                work += k * k
                for a in range(1, k):
                    if links[a] > links[pick]:
                        pick = a
            else:  # the candidate of highest core number
                for a in range(1, k):
                    if core[candidates[a]] > core[candidates[pick]]:
                        pick = a
            u = candidates[pick]
            members[size] = u
            size += 1
            kept = 0
            for a in range(k):
                x = candidates[a]
                if x != u and _adjacent(indptr, indices, u, x):
                    candidates[kept] = x
                    kept += 1
            work += k
            k = kept
        if size > best:
            best = size
            found[:size] = members[:size]
    return found[:best].copy()
