"""Other people's implementations run side by side (cuSPARSE lives with the GPU code).

networkx and igraph are the optional extra ``peers``; they are imported inside ``run``
and a missing one raises UnsupportedError, which the runner records as ``status=unsupported``.
Each peer's own graph object is built from the CSR in the spec's ``setup`` (timed with the
transfer, like a GPU copy), so ``time_ms`` is the peer's coloring alone; the last graph built is
kept per peer so the repetitions of a case reuse it.

``scipy-group-columns`` is SciPy's column grouping for sparse finite differences
(``scipy.optimize._numdiff.group_columns``), the peer of the distance-2 problems: scipy is a
core dependency, so it needs no extra. Its own matrix (a ``csc_array`` of the pattern's
column view) is built in ``setup``; ``time_ms`` is the ``group_columns`` call with the visit
order, as a user calls it (docs/distance2.md, "The peer: scipy-group-columns").
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np
import scipy.sparse as sp

from gcbench.algorithms.availability import install_hint
from gcbench.algorithms.priority import PATTERN_ORDERS, pattern_order
from gcbench.algorithms.registry import AlgorithmSpec, Coloring, Param, empty_coloring, register
from gcbench.errors import UnsupportedError
from gcbench.graphs.graph import Graph
from gcbench.graphs.pattern import Pattern

NX_STRATEGIES = (
    "largest_first",
    "random_sequential",
    "smallest_last",
    "independent_set",
    "connected_sequential_bfs",
    "connected_sequential_dfs",
    "connected_sequential",
    "saturation_largest_first",
    "DSATUR",
)
IGRAPH_METHODS = ("COLORED_NEIGHBORS", "DSATUR")
EXTRA = "peers"  # the gcbench extra that installs networkx and igraph


def _require(module: str, algorithm: str) -> ModuleType:
    """Import an optional peer package or raise UnsupportedError with the install hint."""
    try:
        return __import__(module)
    except ImportError:
        raise UnsupportedError(
            f"{algorithm}: the Python package {module!r} is not installed; {install_hint(EXTRA)}"
        ) from None


def forget() -> None:
    """Drop the networkx, igraph and SciPy forms kept of the last graph or pattern (a worker
    that loads another graph holds one at a time)."""
    for cached in (_nx_graph, _igraph_graph, _scipy_columns):
        cached.cache_clear()


@functools.lru_cache(maxsize=1)
def _nx_graph(graph: Graph) -> Any:
    nx = _require("networkx", "nx-greedy")
    rows, cols = graph.edges()  # the upper triangle: networkx adds each undirected edge once
    ones = np.ones(rows.size, dtype=np.int8)
    matrix = sp.csr_array((ones, (rows, cols)), shape=(graph.n, graph.n))
    return nx.from_scipy_sparse_array(matrix)


@functools.lru_cache(maxsize=1)
def _igraph_graph(graph: Graph) -> Any:
    ig = _require("igraph", "igraph-greedy")
    rows, cols = graph.edges()
    return ig.Graph(n=graph.n, edges=np.column_stack((rows, cols)).astype(np.int64))


def _as_colors(n: int, assignment: Any) -> np.ndarray:
    """A peer's colors (a vertex -> color mapping or a list in vertex order) as int32."""
    colors = empty_coloring(n)
    if isinstance(assignment, dict):
        if assignment:
            colors[np.fromiter(assignment.keys(), np.int64, len(assignment))] = np.fromiter(
                assignment.values(), np.int64, len(assignment)
            )
    else:
        colors[:] = np.asarray(assignment, dtype=np.int64)
    return colors


def run_networkx(
    graph: Graph, *, strategy: str = "largest_first", interchange: bool = False, seed: int = 0
) -> Coloring:
    """networkx.greedy_color; ``seed`` feeds random_sequential so every strategy is repeatable."""
    nx = _require("networkx", "nx-greedy")
    chosen: Any = strategy
    if strategy == "random_sequential":
        rs = nx.algorithms.coloring.greedy_coloring.strategy_random_sequential
        chosen = functools.partial(rs, seed=seed)
    try:
        assignment = nx.greedy_color(_nx_graph(graph), strategy=chosen, interchange=interchange)
    except nx.NetworkXPointlessConcept as exc:
        raise UnsupportedError(f"nx-greedy: {exc}; use interchange=false") from None
    return Coloring(_as_colors(graph.n, assignment), iterations=None)


def run_igraph(graph: Graph, *, method: str = "COLORED_NEIGHBORS") -> Coloring:
    """igraph Graph.vertex_coloring_greedy with the given heuristic."""
    _require("igraph", "igraph-greedy")
    assignment = _igraph_graph(graph).vertex_coloring_greedy(method=method)
    return Coloring(_as_colors(graph.n, assignment), iterations=None)


register(
    AlgorithmSpec(
        name="nx-greedy",
        backend="cpu",
        family="peer: networkx.greedy_color",
        run=run_networkx,
        params=(
            Param(
                "strategy", "largest_first", str, choices=NX_STRATEGIES, help="networkx strategy"
            ),
            Param("interchange", False, bool, help="networkx's color-interchange variant"),
            Param("seed", 0, int, low=0, high=2**63 - 1, help="seed for random_sequential"),
        ),
        deterministic=True,
        peer=True,
        iterations_meaning="none (serial)",
        description="networkx greedy_color (pure Python) with its ordering strategies",
        setup=_nx_graph,
        requires=("networkx",),
        extra=EXTRA,
    )
)

register(
    AlgorithmSpec(
        name="igraph-greedy",
        backend="cpu",
        family="peer: igraph Graph.vertex_coloring_greedy",
        run=run_igraph,
        params=(Param("method", "COLORED_NEIGHBORS", str, choices=IGRAPH_METHODS),),
        deterministic=True,
        peer=True,
        iterations_meaning="none (serial)",
        description="igraph's C greedy coloring (most colored neighbours, or DSatur)",
        setup=_igraph_graph,
        requires=("igraph",),
        extra=EXTRA,
    )
)


@functools.lru_cache(maxsize=1)
def _scipy_columns(pattern: Pattern) -> sp.csc_array:
    """The pattern as the ``csc_array`` group_columns reads (its column view, all ones):
    scipy makes both index arrays int64, the type its compiled ``group_sparse`` takes."""
    col_ptr, col_rows = pattern.columns
    ones = np.ones(col_rows.size, dtype=np.int8)
    return sp.csc_array((ones, col_rows, col_ptr), shape=(pattern.n_rows, pattern.n_cols))


def run_group_columns(pattern: Pattern, *, order: str = "natural") -> Coloring:
    """scipy's ``group_columns`` of ``pattern``'s columns, visited in ``order``
    (:data:`~gcbench.algorithms.priority.PATTERN_ORDERS`, the serial greedy's orders; scipy's
    own default is a random permutation): Curtis, Powell & Reid's grouping, one group at a
    time, each taking every still ungrouped column, in the order, that shares no row with it.
    A column lands in the first group none of whose earlier members shares a row with it: the
    first fit of the serial greedy in the same order, so the colors are equal."""
    from scipy.optimize._numdiff import group_columns

    groups = group_columns(_scipy_columns(pattern), order=pattern_order(pattern, order))
    return Coloring(groups.astype(np.int32), iterations=None)


register(
    AlgorithmSpec(
        name="scipy-group-columns",
        backend="cpu",
        family="peer: scipy.optimize._numdiff.group_columns (Curtis, Powell & Reid 1974)",
        run=run_group_columns,
        params=(
            Param(
                "order",
                "natural",
                str,
                choices=PATTERN_ORDERS,
                help="the permutation passed as group_columns' order: the serial greedy's "
                "column orders (scipy's default, a seeded random permutation, is not offered)",
            ),
        ),
        deterministic=True,
        peer=True,
        iterations_meaning="none (serial)",
        description="SciPy's sparse finite-difference column grouping (pythran, one group at a "
        "time): the same colors as the serial greedy in the same order",
        setup=_scipy_columns,
        problems=("d2", "pd2", "pd2-rows"),
    )
)
