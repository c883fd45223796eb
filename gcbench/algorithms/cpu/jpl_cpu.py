"""Min-max Jones-Plassmann-Luby on CPU threads (jpl-borione §III-C, Alg. 4 with two sets).

Each round every uncolored vertex compares its random value with those of its uncolored
neighbours: local maxima take color 2i and local minima color 2i + 1 (round i, 0-based), the
two independent sets of Cohen-Castonguay (§III-D). The random values are a seeded permutation
of 0..n-1 (the paper's "value permutation", §IV), so no two vertices tie and the coloring is
the same for any thread count. A round decides every vertex from the colors of the previous
rounds only (the parallel pass writes a status, then the colors are set), so the result is
deterministic.

Every round colors at least the active vertex with the largest value, so n rounds always
suffice; ``max_rounds`` (0 = n) caps the loop and raises RoundCapError when reached.
``iterations`` counts rounds; the trace's ``active`` is the uncolored vertices after each round.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from gcbench.algorithms.cpu.threads import THREADS, numba_threads
from gcbench.algorithms.registry import AlgorithmSpec, Coloring, Param, empty_coloring, register
from gcbench.algorithms.rounds import run_rounds
from gcbench.graphs.graph import Graph

_MAX, _MIN = 1, 2


@numba.njit(parallel=True, cache=True)
def _classify(indptr, indices, rand, colors, active):  # type: ignore[no-untyped-def]
    """Status of each active vertex: local max, local min or neither among uncolored neighbours.

    Reads ``colors`` only; the colors are set by :func:`_apply` in a separate call, so numba
    cannot fuse the two loops and a vertex never sees a color set in its own round.
    """
    status = np.zeros(active.shape[0], dtype=np.int8)
    for i in prange(active.shape[0]):
        v = active[i]
        rv = rand[v]
        is_max, is_min = True, True
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if colors[u] < 0:
                if rand[u] > rv:
                    is_max = False
                else:
                    is_min = False
                if not (is_max or is_min):
                    break
        status[i] = _MAX if is_max else (_MIN if is_min else 0)
    return status


@numba.njit(cache=True)
def _apply(colors, active, status, color_max):  # type: ignore[no-untyped-def]
    """Color the round's maxima ``color_max`` and minima ``color_max + 1``; return the rest."""
    left = 0
    for i in range(active.shape[0]):
        if status[i] == _MAX:
            colors[active[i]] = color_max
        elif status[i] == _MIN:
            colors[active[i]] = color_max + 1
        else:
            active[left] = active[i]
            left += 1
    return active[:left]


def run(graph: Graph, *, seed: int = 0, threads: int = 0, max_rounds: int = 0) -> Coloring:
    colors = empty_coloring(graph.n)
    rand = np.random.default_rng(seed).permutation(graph.n).astype(np.int32)
    active = np.arange(graph.n, dtype=np.int32)

    def step(rnd: int) -> int:
        nonlocal active
        status = _classify(graph.indptr, graph.indices, rand, colors, active)
        active = _apply(colors, active, status, 2 * rnd)
        return active.size

    if graph.n == 0:
        return Coloring(colors, 0)
    with numba_threads(threads):
        rounds, trace = run_rounds(
            step, cap=max_rounds or graph.n, algorithm="jpl-cpu", colors=colors
        )
    return Coloring(colors, rounds, {"active": trace})


register(
    AlgorithmSpec(
        name="jpl-cpu",
        backend="cpu",
        family="Jones-Plassmann-Luby min-max (jpl-borione §III-C, Alg. 4)",
        run=run,
        params=(
            Param("seed", 0, int, low=0, high=2**63 - 1, help="seed of the random permutation"),
            THREADS,
            Param("max_rounds", 0, int, low=0, high=2**31 - 1, help="round cap; 0 = n"),
        ),
        deterministic=True,
        iterations_meaning="rounds (one max set and one min set each)",
        description="min-max Jones-Plassmann-Luby on CPU threads with a permuted random order",
    )
)
