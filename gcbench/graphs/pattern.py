"""The Pattern type: the nonzero structure of a sparse m × n matrix, what the distance-2
problems color (docs/distance2.md).

Partial distance-2 coloring (``pd2``) colors a matrix's columns so that no two columns with a
nonzero in the same row share a color; the rows are the *nets*. Distance-2 coloring of a
graph (``d2``) is the same problem on the pattern of A + I, whose row v is the closed
neighbourhood N[v]: two vertices at distance 1 or 2 share some N[w], and two that share one
are at distance at most 2, so one algorithm and one validator serve both, and the squared
graph is never built. ``pd2-rows`` colors the rows, that is the columns of the transpose.

Invariant of every Pattern: ``indptr`` int64 of length n_rows + 1, ``indices`` int32 column
ids in 0..n_cols-1, strictly increasing within each row (no duplicates); the diagonal, where
there is one, is kept; nothing is symmetrised.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from gcbench import memory
from gcbench.errors import GraphTooLargeError, InputError
from gcbench.graphs.graph import INT32_LIMIT, Graph

# Peak bytes of from_entries beyond its inputs: per entry the int64 keys, the mask of first
# copies and the deduplicated keys, then the int32 column ids; per row the needles of the row
# starts and indptr (measured in tests/graphs/test_pattern.py).
BUILD_BYTES_PER_ENTRY = 17
BUILD_BYTES_PER_ROW = 16


@dataclass(frozen=True, eq=False)
class Pattern:
    """A sparse matrix's structure in CSR: row r's columns are
    ``indices[indptr[r]:indptr[r + 1]]``. ``symmetric`` says the CSR is its own transpose
    (the pattern of a graph), so the column view shares the row arrays."""

    name: str
    n_rows: int
    n_cols: int
    indptr: np.ndarray
    indices: np.ndarray
    source: str = ""
    symmetric: bool = False

    @property
    def nnz(self) -> int:
        return int(self.indices.shape[0])

    @property
    def n(self) -> int:
        """The objects a coloring colors: the columns."""
        return self.n_cols

    @cached_property
    def row_counts(self) -> np.ndarray:
        """Nonzeros of each row (int64)."""
        return np.diff(self.indptr).astype(np.int64)

    @cached_property
    def columns(self) -> tuple[np.ndarray, np.ndarray]:
        """The column view (CSC): (col_ptr int64 of length n_cols + 1, row ids int32 sorted
        within each column); the row arrays themselves for a symmetric pattern."""
        if self.symmetric:
            return self.indptr, self.indices
        return _transpose(self.n_rows, self.n_cols, self.indptr, self.indices)

    @cached_property
    def col_counts(self) -> np.ndarray:
        """Nonzeros of each column (int64)."""
        return np.diff(self.columns[0]).astype(np.int64)

    @cached_property
    def max_row(self) -> int:
        """The largest row count: a lower bound on the colors of every valid coloring, whose
        columns in that row all differ (Δ + 1 for the pattern of A + I)."""
        return int(self.row_counts.max()) if self.n_rows else 0

    @property
    def max_col(self) -> int:
        return int(self.col_counts.max()) if self.n_cols else 0

    @cached_property
    def pairs(self) -> int:
        """Σ over rows of count², the work of visiting every column's distance-2
        neighbourhood once (with multiplicity): what a vertex-based pass costs."""
        counts = self.row_counts
        return int(np.dot(counts, counts))

    def transposed(self, name: str | None = None) -> Pattern:
        """The pattern of the transpose (``pd2-rows`` colors its columns)."""
        if self.symmetric:
            return self if name is None else self.renamed(name)
        col_ptr, col_rows = self.columns
        flipped = Pattern(
            name or self.name, self.n_cols, self.n_rows, col_ptr, col_rows, self.source
        )
        flipped.__dict__["columns"] = (self.indptr, self.indices)  # its transpose is known
        return flipped

    def renamed(self, name: str) -> Pattern:
        return Pattern(
            name, self.n_rows, self.n_cols, self.indptr, self.indices, self.source, self.symmetric
        )


def from_entries(
    n_rows: int,
    n_cols: int,
    rows: np.ndarray,
    cols: np.ndarray,
    *,
    name: str = "matrix",
    source: str = "",
    symmetric: bool = False,
) -> Pattern:
    """A Pattern from (rows[i], cols[i]) entries in any order and multiplicity (duplicates
    kept once, nothing symmetrised, the diagonal kept); out-of-range ids are refused.

    ``symmetric`` is the caller's word that the entries are their own transpose (a square
    matrix stored both ways), so that the column view shares the row arrays. Beyond the
    inputs it needs :func:`build_bytes` at its peak: the entries are sorted as one array of
    int64 keys, row × n_cols + column, in place.
    """
    if n_rows < 0 or n_cols < 0:
        raise InputError(f"{name}: negative dimension {n_rows} × {n_cols}")
    if max(n_rows, n_cols) > INT32_LIMIT:
        raise GraphTooLargeError(
            f"{name}: {n_rows} × {n_cols} exceeds the {INT32_LIMIT} rows or columns that "
            "int32 ids can number"
        )
    rows, cols = _integers(rows), _integers(cols)
    if rows.shape != cols.shape:
        raise InputError(f"{name}: row and column arrays differ in length")
    _refuse_outside(name, n_rows, n_cols, rows, cols)
    width = max(n_cols, 1)
    keys = rows.astype(np.int64)  # a copy, sorted in place below
    keys *= width
    keys += cols
    keys.sort()
    if keys.size > 1:
        first = np.empty(keys.size, dtype=np.bool_)
        first[0] = True
        np.not_equal(keys[1:], keys[:-1], out=first[1:])
        keys = keys[first]
    indptr = np.searchsorted(keys, np.arange(n_rows + 1, dtype=np.int64) * width)
    keys %= width
    indices = keys.astype(np.int32)
    return Pattern(name, n_rows, n_cols, indptr, indices, source, symmetric)


def build_bytes(n_rows: int, entries: int) -> int:
    """Peak bytes of :func:`from_entries` on ``entries`` entries and ``n_rows`` rows beyond its
    input arrays, plus :data:`gcbench.memory.HEADROOM`."""
    return BUILD_BYTES_PER_ENTRY * entries + BUILD_BYTES_PER_ROW * (n_rows + 1) + memory.HEADROOM


def _refuse_outside(
    name: str, n_rows: int, n_cols: int, rows: np.ndarray, cols: np.ndarray
) -> None:
    """InputError naming the first entry outside the matrix (its mask freed on return)."""
    bad = (rows < 0) | (rows >= n_rows) | (cols < 0) | (cols >= n_cols)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{name}: entry {k} ({rows[k]}, {cols[k]}) is outside the {n_rows} × {n_cols} matrix"
        )


def _integers(values: np.ndarray) -> np.ndarray:
    """``values`` as a flat integer array (a list, or floats such as an empty list, converted)."""
    array = np.asarray(values).ravel()
    return array if np.issubdtype(array.dtype, np.integer) else array.astype(np.int64)


def adjacency(graph: Graph) -> Pattern:
    """The pattern of the graph's adjacency matrix A (no diagonal): ``pd2`` on a graph colors
    vertices so that two with a common neighbour differ. Shares the graph's arrays."""
    return Pattern(
        graph.name, graph.n, graph.n, graph.indptr, graph.indices, graph.source, symmetric=True
    )


CLOSED_BYTES_PER_ENTRY = 28  # the int32 result and the int64 row ids, offsets and slots


def closed_neighbourhoods(graph: Graph) -> Pattern:
    """The pattern of A + I: row v is N[v] = {v} ∪ N(v), sorted. ``d2`` is ``pd2`` on it
    (module docstring). Costs n + nnz int32 entries, never the squared graph; its peak (about
    28 bytes per entry of int64 temporaries) is checked against the memory budget first."""
    memory.require(CLOSED_BYTES_PER_ENTRY * (graph.nnz + graph.n), f"A + I of {graph.name}")
    n = graph.n
    degrees = graph.degrees
    indptr = graph.indptr + np.arange(n + 1, dtype=np.int64)
    indices = np.empty(graph.nnz + n, dtype=np.int32)
    if n:
        # Each row's own id goes where it sorts: after the neighbours below it.
        row_of = np.repeat(np.arange(n, dtype=np.int64), degrees)
        below = np.bincount(row_of[graph.indices < row_of], minlength=n)
        own = indptr[:-1] + below
        shift = np.arange(graph.nnz, dtype=np.int64) - graph.indptr[row_of]
        slot = indptr[row_of] + shift + (shift >= below[row_of])
        indices[slot] = graph.indices
        indices[own] = np.arange(n, dtype=np.int32)
    return Pattern(graph.name, n, n, indptr, indices, graph.source, symmetric=True)


def check_structure(pattern: Pattern) -> None:
    """Raise InputError unless the arrays are well formed (dtypes, lengths, row starts that
    never decrease, column ids in range): one pass, no sort, for a pattern read back from a
    cache that held the whole invariant when it was written."""
    ip, ix = pattern.indptr, pattern.indices
    if ip.dtype != np.int64 or ix.dtype != np.int32 or ip.ndim != 1 or ix.ndim != 1:
        raise InputError(f"{pattern.name}: wrong dtypes {ip.dtype}/{ix.dtype}")
    if ip.shape != (pattern.n_rows + 1,) or ip[0] != 0 or ip[-1] != ix.size:
        raise InputError(f"{pattern.name}: malformed indptr")
    if np.any(np.diff(ip) < 0):
        raise InputError(f"{pattern.name}: malformed indptr")
    if ix.size and (ix.min() < 0 or ix.max() >= pattern.n_cols):
        raise InputError(f"{pattern.name}: column index out of range")


def check_pattern(pattern: Pattern) -> None:
    """Raise InputError unless ``pattern`` satisfies the invariant, a ``symmetric`` one being
    its own transpose (used by tests)."""
    check_structure(pattern)
    rows = np.repeat(np.arange(pattern.n_rows, dtype=np.int64), pattern.row_counts)
    key = rows * max(pattern.n_cols, 1) + pattern.indices
    if key.size > 1 and np.any(np.diff(key) <= 0):
        raise InputError(f"{pattern.name}: rows not strictly sorted (duplicate or unsorted)")
    if pattern.symmetric:
        col_ptr, col_rows = _transpose(
            pattern.n_rows, pattern.n_cols, pattern.indptr, pattern.indices
        )
        same = np.array_equal(col_ptr, pattern.indptr) and np.array_equal(col_rows, pattern.indices)
        if pattern.n_rows != pattern.n_cols or not same:
            raise InputError(f"{pattern.name}: marked symmetric but not its own transpose")


def check_gpu_size(pattern: Pattern) -> None:
    """Refuse patterns whose offsets do not fit the int32 CSR used on the GPU."""
    if pattern.nnz > INT32_LIMIT:
        raise GraphTooLargeError(
            f"{pattern.name}: {pattern.nnz} nonzeros do not fit int32 GPU offsets "
            f"(limit {INT32_LIMIT}); use a CPU algorithm or a smaller matrix"
        )


def _transpose(
    n_rows: int, n_cols: int, indptr: np.ndarray, indices: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """CSC of a CSR pattern: a stable argsort of the column ids (rows stay sorted within each
    column), O(nnz log nnz)."""
    order = np.argsort(indices, kind="stable")
    rows = np.repeat(np.arange(n_rows, dtype=np.int32), np.diff(indptr))
    col_ptr = np.zeros(n_cols + 1, dtype=np.int64)
    np.cumsum(np.bincount(indices, minlength=n_cols), out=col_ptr[1:])
    return col_ptr, rows[order]
