"""The Graph type (symmetric CSR) and the one place where inputs are normalised.

Invariant of every Graph (docs/architecture.md, "The graph"): square, symmetric, no self
loops, no duplicate edges, column indices sorted within each row, 0-based; ``indptr`` int64,
``indices`` int32.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from gcbench.errors import GraphTooLargeError, InputError
from gcbench.graphs._normalise import normalise

if TYPE_CHECKING:
    from gcbench.graphs.bounds import Bounds

INT32_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class Normalisation:
    """What normalisation changed in the input (reported by ``gcbench info``)."""

    self_loops: int = 0
    duplicates: int = 0
    directed: bool = False
    asymmetric_added: int = 0


@dataclass(frozen=True, eq=False)
class Graph:
    """An undirected simple graph in CSR form; build it with :func:`from_edges`/:func:`from_csr`."""

    name: str
    indptr: np.ndarray
    indices: np.ndarray
    source: str = ""
    normalisation: Normalisation = field(default_factory=Normalisation)

    @property
    def n(self) -> int:
        return int(self.indptr.shape[0] - 1)

    @property
    def nnz(self) -> int:
        return int(self.indices.shape[0])

    @property
    def m(self) -> int:
        """Undirected edges (each stored twice)."""
        return self.nnz // 2

    @cached_property
    def degrees(self) -> np.ndarray:
        return np.diff(self.indptr).astype(np.int64)

    @property
    def max_degree(self) -> int:
        return int(self.degrees.max()) if self.n else 0

    @property
    def avg_degree(self) -> float:
        return self.nnz / self.n if self.n else 0.0

    @property
    def min_degree(self) -> int:
        return int(self.degrees.min()) if self.n else 0

    @property
    def isolated(self) -> int:
        """Vertices of degree 0."""
        return int(np.count_nonzero(self.degrees == 0))

    @cached_property
    def bounds(self) -> Bounds:
        """A clique found and the degeneracy (:mod:`gcbench.graphs.bounds`), computed on first
        use unless the graph came from a cache that holds them."""
        from gcbench.graphs.bounds import compute

        return compute(self)

    def degree_histogram(self) -> np.ndarray:
        """``hist[d]`` = number of vertices of degree d."""
        return np.bincount(self.degrees, minlength=1)

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Each undirected edge once, as (u, v) arrays with u < v."""
        rows = np.repeat(np.arange(self.n, dtype=np.int32), self.degrees)
        keep = rows < self.indices
        return rows[keep], self.indices[keep]

    def with_name(self, name: str, source: str | None = None) -> Graph:
        renamed = Graph(name, self.indptr, self.indices, source or self.source, self.normalisation)
        if "bounds" in self.__dict__:  # the same arrays: what is known of them carries over
            renamed.__dict__["bounds"] = self.bounds
        return renamed


def from_edges(
    n: int,
    rows: np.ndarray,
    cols: np.ndarray,
    *,
    name: str = "graph",
    source: str = "",
    directed_input: bool | None = None,
) -> Graph:
    """Build a normalised Graph from (rows[i], cols[i]) entries, in any order and multiplicity.

    ``directed_input`` says whether each entry stands for one direction only (a general
    Matrix Market file or an edge list); ``None`` lets the data decide (it is directed when
    some (u, v) has no (v, u)).
    """
    if n < 0:
        raise InputError(f"{name}: negative vertex count {n}")
    if n > INT32_LIMIT:
        raise GraphTooLargeError(
            f"{name}: {n} vertices exceed the {INT32_LIMIT} that int32 vertex ids can number"
        )
    rows, cols = _id_array(rows), _id_array(cols)
    if rows.shape != cols.shape:
        raise InputError(f"{name}: row and column arrays differ in length")
    if rows.dtype != cols.dtype:
        rows, cols = rows.astype(np.int64, copy=False), cols.astype(np.int64, copy=False)
    indptr, indices, self_loops, unique_directed, bad = normalise(n, rows, cols)
    if bad >= 0:
        raise InputError(
            f"{name}: entry {bad} ({rows[bad]}, {cols[bad]}) names a vertex out of range 0..{n - 1}"
        )
    nnz = indices.size
    missing = nnz - unique_directed
    directed = missing > 0 if directed_input is None else directed_input
    normalisation = Normalisation(
        self_loops=self_loops,
        duplicates=int(rows.size - self_loops - unique_directed),
        directed=bool(directed),
        asymmetric_added=int(missing),
    )
    return Graph(name, indptr, indices, source, normalisation)


def _id_array(ids: object) -> np.ndarray:
    """``ids`` as a flat int32 or int64 array, without copying one that already is."""
    array = np.asarray(ids).ravel()
    if array.dtype in (np.int32, np.int64):
        return array
    if array.size and array.dtype.kind not in "iu":
        raise InputError(f"vertex ids must be integers, got {array.dtype}")
    return array.astype(np.int64)


def from_csr(
    indptr: np.ndarray, indices: np.ndarray, *, name: str = "graph", source: str = ""
) -> Graph:
    """Normalise any square CSR pattern (values ignored) into a Graph."""
    indptr = np.asarray(indptr, dtype=np.int64)
    n = indptr.shape[0] - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    return from_edges(n, rows, np.asarray(indices), name=name, source=source)


def from_trusted_csr(
    indptr: np.ndarray,
    indices: np.ndarray,
    *,
    name: str,
    source: str = "",
    normalisation: Normalisation | None = None,
) -> Graph:
    """Wrap CSR arrays already known to satisfy the invariant (the npz cache, generators)."""
    return Graph(
        name,
        np.ascontiguousarray(indptr, dtype=np.int64),
        np.ascontiguousarray(indices, dtype=np.int32),
        source,
        normalisation or Normalisation(),
    )


def check_invariant(graph: Graph) -> None:
    """Raise InputError unless ``graph`` satisfies the invariant of docs/architecture.md, "The
    graph" (used by tests)."""
    n = graph.n
    ip, ix = graph.indptr, graph.indices
    if ip.dtype != np.int64 or ix.dtype != np.int32:
        raise InputError(f"{graph.name}: wrong dtypes {ip.dtype}/{ix.dtype}")
    if ip[0] != 0 or ip[-1] != ix.size or np.any(np.diff(ip) < 0):
        raise InputError(f"{graph.name}: malformed indptr")
    if ix.size and (ix.min() < 0 or ix.max() >= n):
        raise InputError(f"{graph.name}: index out of range")
    rows = np.repeat(np.arange(n, dtype=np.int64), graph.degrees)
    if np.any(rows == ix):
        raise InputError(f"{graph.name}: self loop")
    key = rows * max(n, 1) + ix
    if ix.size > 1 and np.any(np.diff(key) <= 0):
        raise InputError(f"{graph.name}: rows not strictly sorted (duplicate or unsorted)")
    rkey = np.sort(ix.astype(np.int64) * max(n, 1) + rows)
    if not np.array_equal(rkey, key):
        raise InputError(f"{graph.name}: not symmetric")


def check_gpu_size(graph: Graph) -> None:
    """Refuse graphs whose offsets do not fit the int32 CSR used on the GPU."""
    if graph.nnz > INT32_LIMIT or graph.n > INT32_LIMIT:
        raise GraphTooLargeError(
            f"{graph.name}: {graph.nnz} stored entries do not fit int32 GPU offsets "
            f"(limit {INT32_LIMIT}); use a CPU algorithm or a smaller graph"
        )
