"""First fit: the smallest color no neighbour uses (jpl-borione Alg. 1, line 4), in numba.

Shared by serial greedy, the dynamic orderings and the Gebremedhin-Manne phases. The
``forbidden`` marker array is stamped with the vertex being colored instead of being cleared,
so each call costs O(degree); a marker array may therefore color each vertex at most once
(a phase that recolors a vertex takes a fresh array from :func:`new_forbidden`).
"""

from __future__ import annotations

import numba
import numpy as np


def new_forbidden(max_degree: int, rows: int = 1) -> np.ndarray:
    """Marker arrays for first fit: ``rows`` independent rows of max_degree + 1 entries."""
    return np.full((rows, max_degree + 1), -1, dtype=np.int32)


@numba.njit(cache=True)
def smallest_free(indptr, indices, colors, v, forbidden):  # type: ignore[no-untyped-def]
    """Smallest color not used by a neighbour of ``v``; at most degree(v).

    Neighbour colors above degree(v) cannot decide the answer and are skipped, which keeps
    ``forbidden`` (length max degree + 1) in bounds even when ``colors`` is being raced on.
    """
    start, end = indptr[v], indptr[v + 1]
    degree = end - start
    for e in range(start, end):
        c = colors[indices[e]]
        if c >= 0 and c <= degree:
            forbidden[c] = v
    c = 0
    while forbidden[c] == v:
        c += 1
    return c


@numba.njit(cache=True)
def color_in_order(indptr, indices, order, colors, forbidden):  # type: ignore[no-untyped-def]
    """Serial first fit over ``order`` (jpl-borione Alg. 1), writing into ``colors``."""
    for i in range(order.shape[0]):
        v = order[i]
        colors[v] = smallest_free(indptr, indices, colors, v, forbidden)
