"""Other people's implementations run side by side (cuSPARSE lives with the GPU code).

networkx and igraph are the optional extra ``peers``; they are imported inside ``run``
and a missing one raises UnsupportedError, which the runner records as ``status=unsupported``.
Each peer's own graph object is built from the CSR in the spec's ``setup`` (timed with the
transfer, like a GPU copy), so ``time_ms`` is the peer's coloring alone; the last graph built is
kept per peer so the repetitions of a case reuse it.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np
import scipy.sparse as sp

from gcbench.algorithms.availability import install_hint
from gcbench.algorithms.registry import AlgorithmSpec, Coloring, Param, empty_coloring, register
from gcbench.errors import UnsupportedError
from gcbench.graphs.graph import Graph

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
