"""Greedy with dynamic orders: incidence degree (id) and saturation degree (DSatur, sd).

Both pick the uncolored vertex with the largest dynamic key next and break ties by the static
rank (degree descending, then id ascending):

* id: key = number of already-colored neighbours (Coleman & Moré's incidence degree);
* sd: key = number of distinct colors among the neighbours (Brélaz's saturation degree).

Keys only grow, by one at a time, so a binary max-heap with lazy deletion (a stale entry is
skipped when popped) costs O((n + m) log n) in all. DSatur keeps each vertex's set of neighbour
colors in its own open-addressing hash table of 2^k >= 2·degree slots, so "is this color new
for u?" is O(1) expected.
"""

from __future__ import annotations

import numba
import numpy as np

from gcbench.algorithms.cpu.firstfit import smallest_free
from gcbench.algorithms.cpu.ordering import counting_order
from gcbench.algorithms.priority import hash32

_RANK_BITS = 32
_RANK_MASK = (1 << _RANK_BITS) - 1


@numba.njit(cache=True)
def _heap_push(heap, size, key):  # type: ignore[no-untyped-def]
    i = size
    heap[i] = key
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] >= heap[i]:
            break
        heap[parent], heap[i] = heap[i], heap[parent]
        i = parent
    return size + 1


@numba.njit(cache=True)
def _heap_pop(heap, size):  # type: ignore[no-untyped-def]
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        if left + 1 < size and heap[left + 1] > heap[left]:
            child = left + 1
        if heap[i] >= heap[child]:
            break
        heap[i], heap[child] = heap[child], heap[i]
        i = child
    return top, size


@numba.njit(cache=True)
def _table_offsets(indptr):  # type: ignore[no-untyped-def]
    """Start of each vertex's hash table: capacity the power of two >= 2·degree (0 if isolated)."""
    n = indptr.shape[0] - 1
    offsets = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        degree = indptr[v + 1] - indptr[v]
        capacity = 0
        if degree > 0:
            capacity = 1
            while capacity < 2 * degree:
                capacity *= 2
        offsets[v + 1] = offsets[v] + capacity
    return offsets


@numba.njit(cache=True)
def _table_add(table, offsets, u, color):  # type: ignore[no-untyped-def]
    """Insert ``color`` into u's set; True when it was not there (linear probing)."""
    base = offsets[u]
    mask = offsets[u + 1] - base - 1
    slot = np.int64(hash32(color)) & mask
    while True:
        held = table[base + slot]
        if held == color:
            return False
        if held < 0:
            table[base + slot] = color
            return True
        slot = (slot + 1) & mask


@numba.njit(cache=True)
def dynamic_greedy(indptr, indices, saturation, colors):  # type: ignore[no-untyped-def]
    """Color every vertex by first fit in incidence-degree (or, if ``saturation``, DSatur) order.

    A heap entry packs ``key << 32 | (2^32 - 1 - rank)`` so that the int64 maximum is the
    largest key, then the best static rank; ``rank_to_vertex`` recovers the vertex.
    """
    n = indptr.shape[0] - 1
    degree = indptr[1:] - indptr[:-1]
    top = degree.max() if n else 0
    rank_to_vertex, _ = counting_order(top - degree, top)
    rank = np.empty(n, dtype=np.int64)
    for r in range(n):
        rank[rank_to_vertex[r]] = r
    key = np.zeros(n, dtype=np.int64)
    heap = np.empty(n + indices.shape[0] // 2 + 1, dtype=np.int64)
    for r in range(n):  # all keys 0: entries by rank, descending, already form a max-heap
        heap[r] = _RANK_MASK - r
    size = n
    forbidden = np.full(top + 1, -1, dtype=np.int32)
    if saturation:
        offsets = _table_offsets(indptr)
        table = np.full(offsets[n], -1, dtype=np.int32)
    else:
        offsets = np.zeros(1, dtype=np.int64)
        table = np.zeros(0, dtype=np.int32)
    while size > 0:
        entry, size = _heap_pop(heap, size)
        v = rank_to_vertex[_RANK_MASK - (entry & _RANK_MASK)]
        if colors[v] >= 0 or (entry >> _RANK_BITS) != key[v]:
            continue
        c = smallest_free(indptr, indices, colors, v, forbidden)
        colors[v] = c
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if colors[u] >= 0:
                continue
            if saturation and not _table_add(table, offsets, u, c):
                continue
            key[u] += 1
            size = _heap_push(heap, size, (key[u] << _RANK_BITS) | (_RANK_MASK - rank[u]))
