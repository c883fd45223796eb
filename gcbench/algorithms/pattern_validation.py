"""Checking a coloring of a Pattern's columns on the host (docs/distance2.md), written from
the definition and independently of every algorithm that colors one.

A coloring of the columns is valid when no row holds two colored columns of one color: for
``d2`` on the pattern of A + I that is "no two vertices within distance 2 alike", for ``pd2``
"no two columns sharing a row alike". :func:`validate_pattern` counts the nonzeros that break
it; :func:`recovers` checks what a valid coloring is for, the direct recovery of a Jacobian
from its compressed product. The balance columns come from :mod:`validation`'s functions, so a
Pattern's Validation reads like a Graph's. As there, the scan allocates nothing of size nnz
and has a serial twin, run between CPU repetitions so that no numba thread is left spinning
into the next timed call (:mod:`gcbench.algorithms.validation`'s docstring says why).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import scipy.sparse as sp

from gcbench import memory
from gcbench.algorithms.validation import Validation, summarise
from gcbench.errors import InputError, InsufficientMemoryError
from gcbench.graphs.pattern import Pattern

# Rows of up to this many colored entries are compared pairwise rather than sorted: numba's
# sort of a short slice costs more than its t²/2 comparisons (4M nonzeros in rows of 64
# distinct-ish colors: 78 ms pairwise, 124 ms sorted, serial, on the 2-core dev machine).
SHORT_ROW = 64
CHUNKS_PER_THREAD = 4  # row chunks per numba thread in the parallel scan, for load balance


def validate_pattern(pattern: Pattern, colors: np.ndarray, *, parallel: bool = True) -> Validation:
    """Validate ``colors`` (one int per column, -1 = uncolored) on ``pattern``: ``conflicts``
    counts the nonzeros (r, c) of a colored column c whose color a column of row r with a
    smaller id has too (a row with t columns of one color counts t − 1; 0 iff no row repeats
    a color). Uncolored columns, colors and balance as :func:`validation.summarise` gives
    them; ``recovered`` stays None (:func:`recovers` is that check). On numba's threads or,
    without ``parallel``, on this thread alone."""
    colors = _one_per_column(pattern, colors)
    if colors.dtype not in (np.int32, np.int64):
        colors = colors.astype(np.int64)
    if parallel:
        chunks = CHUNKS_PER_THREAD * numba.get_num_threads()
        conflicts = _conflicting_entries(
            pattern.indptr, pattern.indices, colors, pattern.max_row, chunks
        )
    else:
        conflicts = _conflicting_entries_serial(
            pattern.indptr, pattern.indices, colors, pattern.max_row
        )
    return summarise(2 * conflicts, colors)  # summarise halves a graph's two entries per edge


def nonzero_values(rows: Any, cols: Any, xp: Any = np) -> Any:
    """Deterministic values in [1, 2) for the nonzeros (rows[i], cols[i]) of J, float64,
    computed with the array module ``xp`` (numpy, or CuPy on the device: the same numbers).
    They are positive so that a row whose columns share a color sums two or more of them in
    one entry of the compressed product, which then equals none of its terms."""
    r = xp.asarray(rows).astype(xp.int64)
    c = xp.asarray(cols).astype(xp.int64)
    return 1.0 + ((r * 7919 + c * 104729) % 1021).astype(xp.float64) / 1021.0


# Peak host bytes of :func:`recovers`: per nonzero, J's int64 row ids and float64 values and
# their temporaries, B (at most nnz entries), its keys and the look-up; per column, the dense
# ids and S.
RECOVERY_BYTES_PER_NONZERO = 96
RECOVERY_BYTES_PER_COLUMN = 48


def recovers(pattern: Pattern, colors: np.ndarray) -> bool | None:
    """Whether the compressed product recovers J: with J the pattern holding
    :func:`nonzero_values` and the seed matrix S (n_cols × k, S[c, colors[c]] = 1), every
    nonzero J[r, c] must equal B[r, colors[c]] of B = J·S. This is direct recovery of a
    Jacobian from the products J·s of one finite difference or forward-mode pass per color
    (Curtis, Powell & Reid 1974; Coleman & Moré 1983; Gebremedhin, Manne & Pothen, "What
    color is your Jacobian?", SIAM Review 47(4), 2005), which works exactly when no row
    has two columns of one color. False when a column is uncolored (its nonzeros are in no
    product). A real sparse product (scipy), with nnz-sized temporaries: a host check. None
    when its estimate does not fit the memory budget (as on the device: validity is already
    decided by the conflict count)."""
    colors = _one_per_column(pattern, colors)
    if colors.size and colors.min() < 0:
        return False
    needed = RECOVERY_BYTES_PER_NONZERO * pattern.nnz + RECOVERY_BYTES_PER_COLUMN * pattern.n
    try:
        memory.require(needed, f"the recovery check of {pattern.name}")
    except InsufficientMemoryError:
        return None
    # Dense color ids 0..k-1 (a relabelling keeps which columns share a color): S and B
    # then have k columns however large the given ids are.
    distinct, dense = np.unique(colors, return_inverse=True)
    k = max(int(distinct.size), 1)
    rows = np.repeat(np.arange(pattern.n_rows, dtype=np.int64), pattern.row_counts)
    values = nonzero_values(rows, pattern.indices)
    shape = (pattern.n_rows, pattern.n_cols)
    jacobian = sp.csr_array((values, pattern.indices, pattern.indptr), shape=shape)
    seed = sp.csr_array(
        (np.ones(pattern.n_cols), dense, np.arange(pattern.n_cols + 1)),
        shape=(pattern.n_cols, k),
    )
    compressed = sp.csr_array(jacobian @ seed)
    compressed.sort_indices()  # B's (row, color) keys increase along its arrays
    b_rows = np.repeat(np.arange(pattern.n_rows, dtype=np.int64), np.diff(compressed.indptr))
    b_keys = b_rows * k + compressed.indices
    # Every nonzero J[r, c] is a term of B[r, colors[c]], so each of its keys is found.
    at = np.searchsorted(b_keys, rows * k + dense[pattern.indices])
    return bool(np.array_equal(compressed.data[at], values))


def _one_per_column(pattern: Pattern, colors: np.ndarray) -> np.ndarray:
    """``colors`` as an array, refused (InputError) unless it has one entry per column."""
    colors = np.asarray(colors)
    if colors.shape != (pattern.n_cols,):
        raise InputError(f"{pattern.name}: {colors.size} colors given for {pattern.n_cols} columns")
    return colors


@numba.njit(cache=True, inline="always")
def _row_conflicts(
    indptr: np.ndarray, indices: np.ndarray, colors: np.ndarray, r: int, scratch: np.ndarray
) -> int:
    """Row r's colored entries minus the distinct colors among them, from the colors gathered
    into ``scratch`` (length ≥ the row's count): compared pairwise in a short row, sorted in a
    longer one, each repeat counted once."""
    t = 0
    for k in range(indptr[r], indptr[r + 1]):
        color = colors[indices[k]]
        if color >= 0:
            scratch[t] = color
            t += 1
    here = 0
    if t <= SHORT_ROW:
        for k in range(1, t):
            for j in range(k):
                if scratch[j] == scratch[k]:
                    here += 1
                    break
        return here
    row = scratch[:t]
    row.sort()
    for k in range(1, t):
        if row[k] == row[k - 1]:
            here += 1
    return here


@numba.njit(parallel=True, cache=True)
def _conflicting_entries(
    indptr: np.ndarray, indices: np.ndarray, colors: np.ndarray, max_row: int, chunks: int
) -> int:
    """The conflicting nonzeros of every row, on numba's threads: ``chunks`` runs of rows with
    about nnz / chunks nonzeros each, one scratch row per chunk, counts summed after the loop
    (see :func:`validation._conflicting_edges` on numba's parfor reductions)."""
    n_rows = indptr.size - 1
    nnz = indptr[n_rows]
    per_chunk = np.zeros(chunks, dtype=np.int64)
    for j in numba.prange(chunks):
        first = np.searchsorted(indptr[:n_rows], (j * nnz) // chunks)
        last = (
            n_rows
            if j == chunks - 1
            else np.searchsorted(indptr[:n_rows], ((j + 1) * nnz) // chunks)
        )
        scratch = np.empty(max_row, dtype=np.int64)
        here = 0
        for r in range(first, last):
            here += _row_conflicts(indptr, indices, colors, r, scratch)
        per_chunk[j] = here
    total = 0
    for j in range(chunks):
        total += per_chunk[j]
    return total


@numba.njit(cache=True)
def _conflicting_entries_serial(
    indptr: np.ndarray, indices: np.ndarray, colors: np.ndarray, max_row: int
) -> int:
    """:func:`_conflicting_entries` on this thread alone (its own function, so its own cache
    entry, as :func:`validation._conflicting_edges_serial`)."""
    scratch = np.empty(max_row, dtype=np.int64)
    total = 0
    for r in range(indptr.size - 1):
        total += _row_conflicts(indptr, indices, colors, r, scratch)
    return total
