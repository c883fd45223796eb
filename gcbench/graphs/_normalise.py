"""The numba kernel behind :func:`gcbench.graphs.graph.from_edges`: symmetrise, dedupe and sort.

Each loop-free input entry (u, v) goes into row u as ``2v`` (stored direction) and into row v
as ``2u + 1`` (reverse direction), as uint32 keys (vertex ids are below 2^31). Sorting a row
groups equal neighbours and the low bit tells whether the input held that direction itself,
which is how duplicates and asymmetric entries are counted without a global sort. Rows are
deduplicated in place and compacted to the front of the same buffer, which is then shrunk and
becomes ``indices``: the only array of size nnz this module allocates.

Memory and time: besides the input, 8 bytes per loop-free entry, 16 bytes per vertex, and a
bounded radix scratch per thread; less memory than scipy's COO→CSR + A + Aᵀ route, and faster
(measured by benchmarks/build_memory.py: docs/decisions.md, "Graph construction: memory and
time").
"""

from __future__ import annotations

import numba
import numpy as np

RADIX_BITS = 11  # bits per LSD radix pass: 2048 counters stay in L1
RADIX_MIN = 256  # rows shorter than this are sorted by comparison (numba's quicksort)
RADIX_MAX = 1 << 22  # rows longer than this too, so the scratch per thread stays <= 16 MiB
_NONE = np.uint32(0xFFFFFFFF)


@numba.njit(cache=True)
def _count(n: int, rows: np.ndarray, cols: np.ndarray, ends: np.ndarray) -> tuple[int, int]:
    """Entries per row into ``ends[u]``; returns (self loops, first out-of-range entry or -1)."""
    loops = 0
    for i in range(rows.size):
        u, v = rows[i], cols[i]
        if u < 0 or v < 0 or u >= n or v >= n:
            return loops, i
        if u == v:
            loops += 1
        else:
            ends[u] += 1
            ends[v] += 1
    return loops, -1


@numba.njit(cache=True)
def _scatter(rows: np.ndarray, cols: np.ndarray, ends: np.ndarray, keys: np.ndarray) -> None:
    """Place each entry's two keys; ``ends[u]`` (end of row u) becomes its start."""
    one = np.uint32(1)
    for i in range(rows.size):
        u, v = rows[i], cols[i]
        if u != v:
            ends[u] -= 1
            keys[ends[u]] = np.uint32(v) << one
            ends[v] -= 1
            keys[ends[v]] = (np.uint32(u) << one) | one


@numba.njit(cache=True)
def _radix_sort(row: np.ndarray, key_bits: int) -> None:
    """Sort uint32 keys below 2^key_bits in place (LSD radix, RADIX_BITS per pass)."""
    scratch = np.empty_like(row)
    src, dst = row, scratch
    mask = (1 << RADIX_BITS) - 1
    counts = np.empty(1 << RADIX_BITS, dtype=np.int64)
    shift = 0
    while shift < key_bits:
        counts[:] = 0
        for k in range(src.size):
            counts[(src[k] >> shift) & mask] += 1
        total = 0
        for b in range(counts.size):
            c = counts[b]
            counts[b] = total
            total += c
        for k in range(src.size):
            d = (src[k] >> shift) & mask
            dst[counts[d]] = src[k]
            counts[d] += 1
        src, dst = dst, src
        shift += RADIX_BITS
    if (key_bits + RADIX_BITS - 1) // RADIX_BITS % 2:  # odd pass count: result in scratch
        row[:] = scratch


@numba.njit(parallel=True, cache=True)
def _dedupe(starts: np.ndarray, keys: np.ndarray, unique: np.ndarray, key_bits: int) -> int:
    """Sort each row, keep each neighbour once at the row's front, count into ``unique[u+1]``.

    Returns the number of distinct stored-direction entries (u, v).
    """
    stored_rows = np.zeros(starts.size - 1, dtype=np.int64)  # summed after: see validate.py
    for u in numba.prange(starts.size - 1):
        row = keys[starts[u] : starts[u + 1]]
        if RADIX_MIN <= row.size <= RADIX_MAX:
            _radix_sort(row, key_bits)
        else:
            row.sort()
        count = 0
        here = 0
        prev = _NONE
        for k in range(row.size):
            key = row[k]
            nb = key >> np.uint32(1)
            if nb != prev:
                row[count] = nb  # in place: the write position never passes the read position
                count += 1
                prev = nb
                # sorted: a stored-direction copy (low bit 0) precedes its reverse copy
                if (key & np.uint32(1)) == 0:
                    here += 1
        unique[u + 1] = count
        stored_rows[u] = here
    stored = 0
    for u in range(stored_rows.size):
        stored += stored_rows[u]
    return stored


@numba.njit(cache=True)
def _compact(starts: np.ndarray, indptr: np.ndarray, keys: np.ndarray) -> None:
    """Move each row's unique neighbours to ``indptr[u]``; rows only move towards the front."""
    for u in range(indptr.size - 1):
        src, dst = starts[u], indptr[u]
        if src != dst:
            for k in range(indptr[u + 1] - dst):
                keys[dst + k] = keys[src + k]


def normalise(
    n: int, rows: np.ndarray, cols: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """Symmetric, deduplicated, sorted CSR of the entries (rows[i], cols[i]) on n < 2^31 vertices.

    ``rows`` and ``cols`` are int32 or int64 arrays of equal length, used as given (no copy).
    Returns (indptr int64, indices int32, self loops, distinct stored-direction loop-free
    entries, first out-of-range entry or -1); on an out-of-range entry nothing else is built.
    """
    starts = np.zeros(n + 1, dtype=np.int64)
    loops, bad = _count(n, rows, cols, starts)
    if bad >= 0:
        return starts, np.empty(0, np.int32), loops, 0, bad
    np.cumsum(starts, out=starts)
    keys = np.empty(int(starts[-1]), dtype=np.uint32)
    _scatter(rows, cols, starts, keys)  # starts[u] now begins row u; starts[n] is the total
    indptr = np.zeros(n + 1, dtype=np.int64)
    stored = _dedupe(starts, keys, indptr, max(2 * n - 1, 1).bit_length())
    np.cumsum(indptr, out=indptr)
    _compact(starts, indptr, keys)
    del starts
    keys.resize(int(indptr[-1]), refcheck=False)  # in place: realloc shrinks without copying
    return indptr, keys.view(np.int32), loops, stored, -1
