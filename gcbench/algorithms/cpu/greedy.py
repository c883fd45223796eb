"""Serial first-fit greedy coloring with six vertex orders (jpl-borione Alg. 1; ecl-gc §1).

``order=ldf`` is the reference coloring ECL-GC and JP-LDF must equal vertex for vertex.
Serial, so ``iterations`` is None.
"""

from __future__ import annotations

import numpy as np

from gcbench.algorithms.cpu.dynamic import dynamic_greedy
from gcbench.algorithms.cpu.firstfit import color_in_order, new_forbidden
from gcbench.algorithms.cpu.ordering import static_order
from gcbench.algorithms.registry import AlgorithmSpec, Coloring, Param, empty_coloring, register
from gcbench.graphs.graph import Graph

ORDERS = ("ff", "r", "ldf", "sdl", "id", "sd")


def greedy_colors(graph: Graph, order: str = "ldf", seed: int = 0) -> np.ndarray:
    """First-fit colors (int32) of ``graph`` visiting vertices in ``order`` (see ORDERS)."""
    colors = empty_coloring(graph.n)
    if order in ("id", "sd"):
        dynamic_greedy(graph.indptr, graph.indices, order == "sd", colors)
    else:
        visit = static_order(graph, order, seed)
        color_in_order(
            graph.indptr, graph.indices, visit, colors, new_forbidden(graph.max_degree)[0]
        )
    return colors


def run(graph: Graph, *, order: str = "ldf", seed: int = 0) -> Coloring:
    return Coloring(greedy_colors(graph, order, seed), iterations=None)


register(
    AlgorithmSpec(
        name="greedy",
        backend="cpu",
        family="serial greedy (jpl-borione Alg. 1; ecl-gc §1 for LDF)",
        run=run,
        params=(
            Param(
                "order",
                "ldf",
                str,
                choices=ORDERS,
                help="ff=vertex order, r=random, ldf=largest degree first, "
                "sdl=smallest degree last, id=incidence degree, sd=DSatur",
            ),
            Param("seed", 0, int, low=0, high=2**63 - 1, help="permutation seed for order=r"),
        ),
        deterministic=True,
        iterations_meaning="none (serial)",
        description="serial first-fit greedy in a chosen vertex order (LDF is ECL-GC's reference)",
    )
)
