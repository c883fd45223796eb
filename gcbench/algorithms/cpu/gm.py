"""Gebremedhin-Manne speculative coloring on CPU threads (jpl-borione §III-A, Alg. 2 and 3).

Workers first-fit color their vertices in parallel and race on the shared color array, so
adjacent vertices colored at the same time may clash; a parallel pass then finds every
same-colored edge and puts its smaller endpoint in K, and K is recolored sequentially.

* ``gm-async`` — the standard algorithm without the barrier (Alg. 2, S = V): one parallel pass.
* ``gm-sync`` — the improved synchronous algorithm (Alg. 3): a first parallel coloring with a
  barrier after every superstep, then every vertex is recolored again in parallel one color
  class at a time, from the class of the largest first color down, with a barrier after each
  class (Culberson's observation: recoloring whole classes in reverse never needs more colors),
  then detection and the sequential fix.

Vertices go to workers cyclically (vertex v to worker v mod p), the paper's distribution.
The paper puts a barrier after every vertex; here a barrier follows every ``superstep``
vertices per worker (1 reproduces the paper; a barrier is the end of a numba parallel region,
whose cost makes 1 impractically slow on large graphs: docs/cpu-algorithms.md, "gm-sync and
gm-async"). Every loop has a fixed bound, so no cap is needed. ``iterations`` counts the
barrier-separated parallel steps: gm-async 1, gm-sync the first-pass supersteps plus the
non-empty color classes of the second pass.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from gcbench.algorithms.cpu.firstfit import color_in_order, new_forbidden, smallest_free
from gcbench.algorithms.cpu.ordering import counting_order
from gcbench.algorithms.cpu.threads import THREADS, numba_threads
from gcbench.algorithms.registry import AlgorithmSpec, Coloring, Param, empty_coloring, register
from gcbench.graphs.graph import Graph

FAMILY = "Gebremedhin-Manne (jpl-borione §III-A)"


@numba.njit(parallel=True, cache=True)
def _speculate(indptr, indices, colors, workers, superstep, forbidden):  # type: ignore[no-untyped-def]
    """Parallel first fit, races allowed; a barrier after each superstep. Returns the steps."""
    n = indptr.shape[0] - 1
    width = workers * superstep
    steps = (n + width - 1) // width
    for k in range(steps):
        base = k * width
        for t in prange(workers):
            row = forbidden[t]
            for j in range(superstep):
                v = base + j * workers + t
                if v < n:
                    colors[v] = smallest_free(indptr, indices, colors, v, row)
    return steps


@numba.njit(parallel=True, cache=True)
def _recolor_classes(indptr, indices, first, colors, workers, forbidden):  # type: ignore[no-untyped-def]
    """Alg. 3 lines 6-12: recolor the classes of ``first`` from the largest color down, each
    class in parallel (cyclic over workers) with a barrier after it. Returns the classes."""
    n = first.shape[0]
    if n == 0:
        return 0
    by_class, start = counting_order(first, first.max())
    classes = 0
    for k in range(start.shape[0] - 2, -1, -1):
        lo, hi = start[k], start[k + 1]
        if lo == hi:
            continue
        classes += 1
        for t in prange(workers):
            row = forbidden[t]
            for i in range(lo + t, hi, workers):
                v = by_class[i]
                colors[v] = smallest_free(indptr, indices, colors, v, row)
    return classes


@numba.njit(parallel=True, cache=True)
def _conflicted(indptr, indices, colors):  # type: ignore[no-untyped-def]
    """K: the smaller endpoint of every same-colored edge (Alg. 2 lines 5-13), ascending."""
    n = indptr.shape[0] - 1
    flag = np.zeros(n, dtype=np.bool_)
    for v in prange(n):
        cv = colors[v]
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if u > v and colors[u] == cv:
                flag[v] = True
                break
    return np.nonzero(flag)[0].astype(np.int32)


def run_gm(graph: Graph, *, improved: bool, threads: int = 0, superstep: int = 1024) -> Coloring:
    """Run Alg. 3 (``improved``) or asynchronous Alg. 2 on ``graph`` with ``threads`` workers."""
    n, ip, ix = graph.n, graph.indptr, graph.indices
    colors = empty_coloring(n)
    with numba_threads(threads) as workers:
        if improved:
            first = empty_coloring(n)
            steps = _speculate(
                ip, ix, first, workers, superstep, new_forbidden(graph.max_degree, workers)
            )
            steps += _recolor_classes(
                ip, ix, first, colors, workers, new_forbidden(graph.max_degree, workers)
            )
            passes = [float(n), float(n)]
        else:
            block = max(1, -(-n // workers))
            steps = _speculate(
                ip, ix, colors, workers, block, new_forbidden(graph.max_degree, workers)
            )
            passes = [float(n)]
        conflicted = _conflicted(ip, ix, colors)
    color_in_order(ip, ix, conflicted, colors, new_forbidden(graph.max_degree)[0])
    return Coloring(colors, int(steps), {"active": [*passes, float(conflicted.size)]})


def _run_sync(graph: Graph, *, threads: int = 0, superstep: int = 1024) -> Coloring:
    return run_gm(graph, improved=True, threads=threads, superstep=superstep)


def _run_async(graph: Graph, *, threads: int = 0) -> Coloring:
    return run_gm(graph, improved=False, threads=threads)


register(
    AlgorithmSpec(
        name="gm-sync",
        backend="cpu",
        family=FAMILY + ", improved synchronous, Alg. 3",
        run=_run_sync,
        params=(
            THREADS,
            Param(
                "superstep",
                1024,
                int,
                low=1,
                high=2**31 - 1,
                help="vertices per worker between barriers in the first pass (1 = the paper)",
            ),
        ),
        deterministic=False,
        iterations_meaning="barrier-separated parallel steps",
        description="speculative parallel coloring, then recoloring color classes largest first",
    )
)

register(
    AlgorithmSpec(
        name="gm-async",
        backend="cpu",
        family=FAMILY + ", standard asynchronous, Alg. 2",
        run=_run_async,
        params=(THREADS,),
        deterministic=False,
        iterations_meaning="barrier-separated parallel steps (always 1)",
        description="speculative parallel coloring without barriers, conflicts fixed sequentially",
    )
)
