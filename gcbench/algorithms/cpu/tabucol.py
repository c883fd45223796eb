"""TabuCol: a tabu search for fewer colors (Hertz & de Werra, Computing 39, 1987), with
Galinier & Hao's tenure (J. Comb. Optim. 3, 1999, §3): the serial reference for issue 45's
local search, and a CPU baseline for the classic-coloring instances.

It starts from DSatur's coloring (``greedy order=sd``, k colors), and while its budget lasts
tries to remove one color at a time: the vertices of the highest class take, each, the color
of fewest neighbours (they are independent, so their choices do not interact), and the search
moves one conflicting vertex at a time to another color until no edge conflicts. A move
(v, c) changes the conflicting edges by γ[v, c] − γ[v, colors[v]], γ[v, c] being v's
neighbours of color c; the best move is taken (ties at random) unless it is tabu, that is
v left c within the last L + ⌊0.6·|C|⌋ moves (L uniform in 0..9, |C| the conflicting
vertices), or it gives the fewest conflicts seen in this attempt (aspiration). When every move
is tabu the best of them is taken. A conflict-free coloring with one color fewer becomes the
best, and the next color is tried, down to the size of a clique found by
:func:`gcbench.graphs.bounds.compute` (inside the call, after DSatur; 2 for a graph with
edges when it finds none larger), where the coloring is optimal and the search stops.

The result is the best valid coloring found: never more colors than DSatur's. The budget is
wall-clock time (``budget_ms``, from the call's start, DSatur included), so the colors can
differ between runs and machines (``deterministic=False``); the moves are seeded (``seed``),
so a search that finishes inside its budget gives the same colors every run. ``iterations`` is
the number of moves; the trace keeps (``tabu_ms``, ``tabu_colors``) at the start and at each
color removed. docs/cpu-algorithms.md, "tabucol".
"""

from __future__ import annotations

import time

import numba
import numpy as np

from gcbench import memory
from gcbench.algorithms.cpu.greedy import greedy_colors
from gcbench.algorithms.registry import AlgorithmSpec, Coloring, Param, register
from gcbench.graphs import bounds, generators
from gcbench.graphs.graph import Graph

TENURE_SPREAD = 10  # L, uniform in 0 .. TENURE_SPREAD - 1 (Galinier & Hao)
TENURE_SHARE = 0.6  # λ, times the conflicting vertices
CHUNK_MS = 5.0  # the time between two looks at the clock that the chunks of moves aim at
MAX_CHUNK = 1_000_000  # moves between two looks at the clock, at most
BYTES_PER_SLOT = 12  # γ (int32) and the tabu list (int64), per vertex and color


@numba.njit(cache=True)
def _random(rng):  # type: ignore[no-untyped-def]
    """The next value of an xorshift64* generator whose state is rng[0] (never 0)."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return (x * np.uint64(2685821657736338717)) >> np.uint64(33)


@numba.njit(cache=True)
def _drop_top_class(indptr, indices, colors, k):  # type: ignore[no-untyped-def]
    """Recolor the vertices of color k (an independent set) into 0..k-1: each takes the color
    of fewest neighbours, the smallest among equals."""
    count = np.zeros(k, dtype=np.int64)
    for v in range(colors.size):
        if colors[v] != k:
            continue
        count[:] = 0
        for e in range(indptr[v], indptr[v + 1]):
            c = colors[indices[e]]
            if c < k:
                count[c] += 1
        colors[v] = np.argmin(count)


@numba.njit(cache=True)
def _mark(v, on, conflicted, where, state):  # type: ignore[no-untyped-def]
    """Put v on (or take it off) the list of conflicting vertices; state[3] is its length."""
    size = state[3]
    if on and where[v] < 0:
        conflicted[size] = v
        where[v] = size
        state[3] = size + 1
    elif not on and where[v] >= 0:
        last = conflicted[size - 1]
        conflicted[where[v]] = last
        where[last] = where[v]
        where[v] = -1
        state[3] = size - 1


@numba.njit(cache=True)
def _start(indptr, indices, colors, gamma, conflicted, where, state):  # type: ignore[no-untyped-def]
    """γ, the conflicting vertices and state = [moves, conflicts, fewest, |C|] of ``colors``."""
    gamma[:] = 0
    where[:] = -1
    for v in range(colors.size):
        for e in range(indptr[v], indptr[v + 1]):
            gamma[v, colors[indices[e]]] += 1
    state[:] = 0
    conflicts = 0
    for v in range(colors.size):
        own = gamma[v, colors[v]]
        conflicts += own
        if own > 0:
            _mark(v, True, conflicted, where, state)
    state[1] = conflicts // 2
    state[2] = conflicts // 2


@numba.njit(cache=True)
def _search(indptr, indices, colors, gamma, tabu, conflicted, where, state, rng, moves):  # type: ignore[no-untyped-def]
    """Up to ``moves`` tabu moves; returns True once no edge conflicts."""
    k = gamma.shape[1]
    for _ in range(moves):
        if state[1] == 0:
            return True
        it, conflicts, fewest, size = state[0], state[1], state[2], state[3]
        best_delta, best_v, best_c, ties = 1 << 62, -1, -1, 0
        any_delta, any_v, any_c = 1 << 62, -1, -1  # the best move, tabu or not
        for i in range(size):
            v = conflicted[i]
            own = gamma[v, colors[v]]
            for c in range(k):
                if c == colors[v]:
                    continue
                delta = gamma[v, c] - own
                if delta < any_delta:
                    any_delta, any_v, any_c = delta, v, c
                if tabu[v, c] > it and conflicts + delta >= fewest:
                    continue
                if delta < best_delta:
                    best_delta, best_v, best_c, ties = delta, v, c, 1
                elif delta == best_delta:
                    ties += 1
                    if _random(rng) % np.uint64(ties) == 0:
                        best_v, best_c = v, c
        if best_v < 0:
            best_delta, best_v, best_c = any_delta, any_v, any_c
        v, c = best_v, best_c
        old = colors[v]
        colors[v] = c
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            gamma[u, old] -= 1
            gamma[u, c] += 1
            if colors[u] == old and gamma[u, old] == 0:
                _mark(u, False, conflicted, where, state)
            elif colors[u] == c and gamma[u, c] == 1:
                _mark(u, True, conflicted, where, state)
        _mark(v, gamma[v, c] > 0, conflicted, where, state)
        spread = np.int64(_random(rng) % np.uint64(TENURE_SPREAD))
        tabu[v, old] = it + 1 + spread + np.int64(TENURE_SHARE * size)
        state[0] = it + 1
        state[1] = conflicts + best_delta
        state[2] = min(fewest, state[1])
    return state[1] == 0


def tabucol_colors(
    graph: Graph, budget_ms: float = 1000.0, seed: int = 0
) -> tuple[np.ndarray, int, dict[str, list[float]]]:
    """(colors, moves, trace) of TabuCol on ``graph`` within ``budget_ms`` (module docstring)."""
    began = time.perf_counter()

    def elapsed_ms() -> float:
        return (time.perf_counter() - began) * 1e3

    best = greedy_colors(graph, "sd")
    k = int(best.max()) + 1 if best.size else 0
    floor = 2 if graph.indices.size else 1
    if k > floor:  # a clique found is a floor no coloring goes under: stop there
        floor = max(floor, bounds.compute(graph).clique)
    trace: dict[str, list[float]] = {"tabu_ms": [elapsed_ms()], "tabu_colors": [float(k)]}
    if k <= floor:
        return best, 0, trace
    n = graph.n
    memory.require(BYTES_PER_SLOT * n * (k - 1), f"tabucol on {graph.name} with {k - 1} colors")
    gamma = np.empty(n * (k - 1), dtype=np.int32)  # flat: each attempt's n × k' view is
    tabu = np.empty(n * (k - 1), dtype=np.int64)  # contiguous, one compiled signature
    conflicted = np.empty(n, dtype=np.int32)
    where = np.empty(n, dtype=np.int32)
    state = np.zeros(4, dtype=np.int64)
    rng = np.array([(seed * 0x9E3779B97F4A7C15) % 2**64 | 1], dtype=np.uint64)
    moves = 0
    while k > floor and elapsed_ms() < budget_ms:
        trial = best.copy()
        _drop_top_class(graph.indptr, graph.indices, trial, k - 1)
        counts = gamma[: n * (k - 1)].reshape(n, k - 1)
        tabus = tabu[: n * (k - 1)].reshape(n, k - 1)
        _start(graph.indptr, graph.indices, trial, counts, conflicted, where, state)
        tabus[:] = 0
        found, chunk = state[1] == 0, 1
        while not found and (now := elapsed_ms()) < budget_ms:
            before = state[0]
            found = _search(graph.indptr, graph.indices, trial, counts, tabus, conflicted,
                            where, state, rng, chunk)  # fmt: skip
            # the next chunk: as many moves as fill CHUNK_MS, or what is left of the budget,
            # at the pace of the moves this one made (it stops early on a coloring)
            then = elapsed_ms()
            pace = max(int(state[0] - before), 1) / max(then - now, 1e-3)
            chunk = int(min(MAX_CHUNK, max(1.0, pace * min(CHUNK_MS, budget_ms - then))))
        moves += int(state[0])
        if not found:
            break
        # a class the search emptied is dropped: the colors stay 0..k'-1
        best = np.unique(trial, return_inverse=True)[1].astype(np.int32)
        k = int(best.max()) + 1
        trace["tabu_ms"].append(elapsed_ms())
        trace["tabu_colors"].append(float(k))
    return best, moves, trace


def warm() -> None:
    """Compile (or load from numba's cache) everything a call runs, DSatur and the clique
    bound included, on a 5-cycle, so that no timed call compiles: the spec's setup, outside
    ``time_ms`` (the runner's primer graph never reaches the search: DSatur meets its clique
    bound there)."""
    cycle = generators.get_family("cycle").generate({"n": 5})
    tabucol_colors(cycle, budget_ms=0)  # DSatur and the bound
    indptr, indices = cycle.indptr, cycle.indices
    colors = np.array([0, 1, 0, 1, 2], dtype=np.int32)
    _drop_top_class(indptr, indices, colors, 2)
    gamma = np.empty(10, dtype=np.int32).reshape(5, 2)
    tabu = np.zeros(10, dtype=np.int64).reshape(5, 2)
    conflicted, where = np.empty(5, dtype=np.int32), np.empty(5, dtype=np.int32)
    state = np.zeros(4, dtype=np.int64)
    _start(indptr, indices, colors, gamma, conflicted, where, state)
    _search(indptr, indices, colors, gamma, tabu, conflicted, where, state,
            np.ones(1, dtype=np.uint64), 10)  # fmt: skip


def run(graph: Graph, *, budget_ms: float = 1000.0, seed: int = 0) -> Coloring:
    colors, moves, trace = tabucol_colors(graph, budget_ms, seed)
    return Coloring(colors, iterations=moves, trace=trace)


register(
    AlgorithmSpec(
        name="tabucol",
        backend="cpu",
        family="local search (Hertz & de Werra 1987, TabuCol; Galinier & Hao 1999's tenure)",
        run=run,
        params=(
            Param(
                "budget_ms",
                1000.0,
                float,
                low=0,
                high=86_400_000,
                help="wall-clock budget of the call, DSatur's start included",
            ),
            Param("seed", 0, int, low=0, high=2**63 - 1, help="seed of the moves' tie-breaks"),
        ),
        deterministic=False,
        wildcard=False,
        setup=lambda graph: warm(),
        iterations_meaning="moves (one vertex recolored)",
        description="tabu search from DSatur's coloring removing a color at a time until "
        "its budget is spent; never more colors than DSatur",
    )
)
