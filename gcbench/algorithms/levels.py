"""What a coloring does for a sparse triangular solve (issue 18; seed nvidia-blog-csrcolor-ilu).

A level-scheduled solve of L x = b, L the lower triangle of a sparse matrix A, runs one level
at a time: row i's level is one more than the deepest level among the rows j < i it depends on
(L[i, j] != 0), so the number of levels is the longest dependency chain through the strictly
lower triangle, and each level is one parallel step. Reordering A symmetrically by color
classes (class 0 first, then class 1, ...; by vertex id inside a class) puts no entry inside a
class, so every chain climbs through distinct colors: at most as many levels as colors.

gcbench reads a matrix as a graph (the pattern of A + Aᵀ, without the diagonal:
docs/architecture.md, "The graph"), so L here is the strictly lower triangle of that symmetric
pattern plus a diagonal: for a symmetric matrix exactly the pattern of A's lower triangle.
With a GPU, the solve itself is timed: ``cupyx.scipy.sparse.linalg.spsolve_triangular``
(cuSPARSE SpSM on CUDA 12, analysis and solve in one call, as a CuPy user calls it) on L of the
natural and of the reordered matrix, CUDA events, median after warm-up. The values make the
exact solution all ones (off-diagonal -1, diagonal 1 + the row's off-diagonal count, b = 1),
which every timed solve is checked against. docs/balance-levels.md has the decisions.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any

import numba
import numpy as np

from gcbench.errors import GcbenchError, GraphTooLargeError, InputError
from gcbench.graphs.graph import Graph

SOLVE_WARMUP = 1
SOLVE_REPS = 5
SOLVE_TOLERANCE = 1e-9  # the exact solution is all ones; sums of ones are exact in float64


def color_order(colors: np.ndarray) -> np.ndarray:
    """The symmetric reordering by color classes: vertices by (color, id), as int32."""
    return np.argsort(np.asarray(colors), kind="stable").astype(np.int32)


def natural_order(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.int32)


def _ranks(order: np.ndarray) -> np.ndarray:
    rank = np.empty(order.size, np.int32)
    rank[order] = np.arange(order.size, dtype=np.int32)
    return rank


def _check_order(graph: Graph, order: np.ndarray) -> None:
    if order.shape != (graph.n,) or (graph.n and not np.array_equal(
            np.sort(order), natural_order(graph.n))):  # fmt: skip
        raise InputError(f"{graph.name}: the ordering is not a permutation of its {graph.n} rows")


def level_count(graph: Graph, order: np.ndarray | None = None) -> int:
    """Levels of the level-scheduled lower-triangular solve of ``graph``'s matrix reordered so
    that ``order[k]`` is the k-th row (natural order when None): the longest dependency chain
    through the strictly lower triangle, 0 for an empty matrix."""
    order = natural_order(graph.n) if order is None else np.asarray(order, dtype=np.int32)
    _check_order(graph, order)
    return int(_level_count(graph.indptr, graph.indices, order, _ranks(order)))


@numba.njit(cache=True)
def _level_count(indptr, indices, order, rank):  # type: ignore[no-untyped-def]
    """Rows in their new order; a row's level is 1 + the deepest level it depends on."""
    level = np.zeros(order.size, np.int32)
    deepest = 0
    for r in range(order.size):
        v = order[r]
        here = 1
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if rank[u] < r and level[u] + 1 > here:
                here = level[u] + 1
        level[v] = here
        if here > deepest:
            deepest = here
    return deepest


def lower_factor(graph: Graph, order: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR (indptr, indices, data) of L: the strictly lower triangle of the matrix reordered
    by ``order`` with -1 entries, plus a diagonal of 1 + the row's entries, so that L x = 1 has
    the solution x = 1. Columns sorted, diagonal last in each row; int32 indices."""
    order = np.asarray(order, dtype=np.int32)
    _check_order(graph, order)
    return _lower(graph.indptr, graph.indices, order, _ranks(order))


@numba.njit(cache=True, parallel=True)
def _lower(indptr, indices, order, rank):  # type: ignore[no-untyped-def]
    n = order.size
    lptr = np.zeros(n + 1, np.int64)
    for r in range(n):
        v = order[r]
        below = 0
        for e in range(indptr[v], indptr[v + 1]):
            if rank[indices[e]] < r:
                below += 1
        lptr[r + 1] = lptr[r] + below + 1
    lidx = np.empty(lptr[n], np.int32)
    data = np.empty(lptr[n], np.float64)
    for r in numba.prange(n):
        v, start = order[r], lptr[r]
        at = start
        for e in range(indptr[v], indptr[v + 1]):
            k = rank[indices[e]]
            if k < r:
                lidx[at] = k
                at += 1
        lidx[start:at].sort()
        data[start:at] = -1.0
        lidx[at] = r
        data[at] = at - start + 1.0
    return lptr.astype(np.int32), lidx, data


def check_counts(reps: int, warmup: int) -> None:
    """Timed solves must be at least one, warm-up solves not negative."""
    if reps < 1 or warmup < 0:
        raise InputError(f"solve reps must be >= 1 and warm-up >= 0 (got {reps} and {warmup})")


def solve_ms(
    graph: Graph, order: np.ndarray, *, reps: int = SOLVE_REPS, warmup: int = SOLVE_WARMUP
) -> float:
    """Median ms of ``spsolve_triangular`` on L of ``graph`` reordered by ``order`` (GPU, CUDA
    events, after ``warmup`` untimed solves); every solution is checked against all ones."""
    from gcbench.algorithms.gpu import runtime

    cp = runtime.cupy()
    from cupyx.scipy.sparse import csr_matrix
    from cupyx.scipy.sparse.linalg import spsolve_triangular

    check_counts(reps, warmup)
    if graph.n == 0:
        return 0.0
    if graph.m + graph.n >= 2**31:
        raise GraphTooLargeError(
            f"{graph.name}: its lower triangle has {graph.m + graph.n} entries, more than "
            "cuSPARSE's int32 indices hold"
        )
    indptr, indices, data = lower_factor(graph, order)
    lower = csr_matrix(
        (cp.asarray(data), cp.asarray(indices), cp.asarray(indptr)), shape=(graph.n, graph.n)
    )
    rhs = cp.ones(graph.n, dtype=cp.float64)
    times = []
    for index in range(warmup + reps):
        with runtime.timed() as clock:
            x = spsolve_triangular(lower, rhs, lower=True)
        error = float(cp.abs(x - 1.0).max())
        if not error <= SOLVE_TOLERANCE:
            raise GcbenchError(
                f"{graph.name}: spsolve_triangular is off by {error:g} on a system whose "
                "solution is all ones"
            )
        if index >= warmup:
            times.append(clock.ms())
    return statistics.median(times)


@dataclass(frozen=True)
class LevelMetrics:
    """The figures of one coloring: levels in the natural and the color order, and the
    solve times of both (None without a GPU)."""

    levels_natural: int
    levels_colored: int
    trsv_natural_ms: float | None = None
    trsv_colored_ms: float | None = None

    def columns(self) -> dict[str, Any]:
        """The CSV columns (:data:`gcbench.bench.results.LEVEL_COLUMNS` name the fields)."""
        return asdict(self)


class LevelMeter:
    """Level metrics of colorings of one graph; the natural order's figures are computed
    once. ``solve``: time the triangular solves (needs a GPU)."""

    def __init__(
        self, graph: Graph, *, solve: bool, reps: int = SOLVE_REPS, warmup: int = SOLVE_WARMUP
    ) -> None:
        check_counts(reps, warmup)
        self.graph, self.solve, self.reps, self.warmup = graph, solve, reps, warmup
        self._natural: tuple[int, float | None] | None = None

    def natural(self) -> tuple[int, float | None]:
        """(levels, solve ms or None) of the natural order."""
        if self._natural is None:
            order = natural_order(self.graph.n)
            self._natural = (level_count(self.graph, order), self._time(order))
        return self._natural

    def _time(self, order: np.ndarray) -> float | None:
        if not self.solve:
            return None
        return solve_ms(self.graph, order, reps=self.reps, warmup=self.warmup)

    def measure(self, colors: np.ndarray) -> LevelMetrics:
        """The metrics of the coloring ``colors`` (one color per vertex, all >= 0)."""
        colors = np.asarray(colors)
        if colors.shape != (self.graph.n,) or (colors.size and colors.min() < 0):
            raise InputError(f"{self.graph.name}: levels need a complete coloring of every row")
        levels, natural_ms = self.natural()
        order = color_order(colors)
        return LevelMetrics(levels, level_count(self.graph, order), natural_ms, self._time(order))
