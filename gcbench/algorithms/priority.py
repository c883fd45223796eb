"""Vertex priorities shared by CPU and GPU code (docs/architecture.md, "Priorities and ties").

``hash32`` is the tie-breaking hash of ECL-GC (ecl-gc §2); the largest-degree-first order is the
tuple (degree(v), hash32(v), v), larger first. Serial greedy LDF colors in exactly this order,
so ECL-GC and JP-LDF must reproduce its coloring vertex for vertex.
"""

from __future__ import annotations

import numba
import numpy as np

from gcbench.algorithms import pattern_orders
from gcbench.graphs.graph import Graph
from gcbench.graphs.pattern import Pattern

_MULT = np.uint64(0x45D9F3B)
_MASK = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(16)
_MULT_INV = np.uint64(pow(0x45D9F3B, -1, 2**32))


def _hash32_u64(x):  # type: ignore[no-untyped-def]
    """The hash32 of docs/architecture.md, "Priorities and ties" on uint32 values held in uint64
    (scalar or array)."""
    x = (((x >> _SHIFT) ^ x) * _MULT) & _MASK
    x = (((x >> _SHIFT) ^ x) * _MULT) & _MASK
    return (x >> _SHIFT) ^ x


_hash32_njit = numba.njit(cache=True)(_hash32_u64)


@numba.njit(cache=True)
def hash32(x: int) -> np.uint32:
    """``hash32(x)`` (docs/architecture.md, "Priorities and ties") on the low 32 bits of ``x``;
    callable from numba code."""
    return np.uint32(_hash32_njit(np.uint64(x) & _MASK))


def hash32_array(values: np.ndarray) -> np.ndarray:
    """Vectorised ``hash32`` of an integer array (each value taken modulo 2**32), as uint32."""
    x = np.asarray(values).astype(np.uint64) & _MASK
    return _hash32_u64(x).astype(np.uint32)


def unhash32_array(hashes: np.ndarray) -> np.ndarray:
    """The inverse of :func:`hash32_array` (uint32 in, uint32 out).

    hash32 is a bijection on uint32: ``y ^ (y >> 16)`` is its own inverse on 32 bits and
    multiplication by the odd constant is undone by its inverse modulo 2**32.
    """
    x = np.asarray(hashes).astype(np.uint64) & _MASK
    x = (((x >> _SHIFT) ^ x) * _MULT_INV) & _MASK
    x = (((x >> _SHIFT) ^ x) * _MULT_INV) & _MASK
    return ((x >> _SHIFT) ^ x).astype(np.uint32)


def ldf_order(graph: Graph) -> np.ndarray:
    """Vertices by (degree, hash32(v), v), largest first, as int32 (docs/architecture.md,
    "Priorities and ties").

    Because hash32 is a bijection, (degree, hash32(v)) is already unique, so the id never
    decides, and the packed key ``degree << 32 | hash32(v)`` identifies v. Sorting those keys
    by value and inverting the hash is the same order as the 3-key lexsort, at a fraction of
    its cost and of an argsort's (docs/cpu-algorithms.md, "Shared pieces").
    """
    key = graph.degrees.astype(np.uint64) << np.uint64(32)
    key |= hash32_array(np.arange(graph.n, dtype=np.uint64))
    key.sort()
    return unhash32_array(key[::-1]).astype(np.int32)


# The column orders of the distance-2 problems (docs/distance2.md, "Orders"): natural (column
# id); ColPack's partial distance-2 largest-first (distinct distance-2 degree, larger first,
# ties by lower id), smallest-last and incidence-degree (gcbench.algorithms.pattern_orders);
# random (hash32, larger first).
PATTERN_ORDERS: tuple[str, ...] = (
    "natural",
    "largest-first",
    "smallest-last",
    "incidence-degree",
    "random",
)


def pattern_order(pattern: Pattern, order: str) -> np.ndarray:
    """The columns in the visit order ``order`` (:data:`PATTERN_ORDERS`), int32: what the
    serial greedy colors in turn, and what Jones-Plassmann's priorities reproduce. The same
    pattern always gives the same order: natural and largest-first break ties by column id,
    the dynamic orders by their stacks (:mod:`~gcbench.algorithms.pattern_orders`); hash32
    is one-to-one."""
    n = pattern.n_cols
    ids = np.arange(n, dtype=np.int32)
    if order == "natural":
        return ids
    if order == "largest-first":
        degrees = pattern_orders.distinct_degrees(pattern)
        return np.argsort(-degrees, kind="stable").astype(np.int32)
    if order == "smallest-last":
        return pattern_orders.smallest_last(pattern)
    if order == "incidence-degree":
        return pattern_orders.incidence_degree(pattern)
    if order == "random":
        return unhash32_array(np.sort(hash32_array(ids))[::-1]).astype(np.int32)
    raise ValueError(f"unknown order {order!r}; known: {', '.join(PATTERN_ORDERS)}")


def pattern_rank(pattern: Pattern, order: str) -> np.ndarray:
    """``rank[c]`` = the position of column c in :func:`pattern_order` (0 = colored first),
    int32: a column may color once every distance-2 neighbour of lower rank has."""
    visit = pattern_order(pattern, order)
    rank = np.empty(pattern.n_cols, dtype=np.int32)
    rank[visit] = np.arange(pattern.n_cols, dtype=np.int32)
    return rank
