"""Benchmark the CPU baselines (greedy in every order, GM, JPL) and the peers on large graphs.

For each graph and case: one warm-up (numba compilation, the peer's own graph built in
``setup``), then the median ``time_ms`` of the repetitions (``time.perf_counter`` around the
algorithm alone, as the runner measures it), the distinct colors and the rounds of a validated
coloring. Prints a markdown table, one line per result as it comes.

    PYTHONPATH=. python3 benchmarks/cpu_baselines.py [--graph SPEC]... [--case NAME[:k=v,...]]...
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numba
from _common import time_case

from gcbench import load_graph
from gcbench.algorithms.cpu.greedy import ORDERS
from gcbench.algorithms.execute import prepare
from gcbench.errors import GcbenchError

GRAPHS = ["gen:rgg?scale=20", "gen:kron?scale=18"]
CASES = [f"greedy:order={o}" for o in ORDERS] + [
    "gm-sync",
    "gm-async",
    "jpl-cpu",
    "nx-greedy",
    "igraph-greedy",
]


def parse_case(case: str) -> tuple[str, dict[str, str]]:
    """``name:k=v,k=v`` as (name, params)."""
    name, _, rest = case.partition(":")
    return name, dict(item.split("=", 1) for item in filter(None, rest.split(",")))


def measure(prepared, name: str, given: dict[str, str], reps: int) -> str:  # type: ignore[no-untyped-def]
    """One table row's cells for the case on the prepared graph: median ms, colors, rounds."""
    timed = time_case(name, prepared, given, reps=reps)
    v = timed.validation
    if not v.valid:
        return f"INVALID ({v.conflicts} conflicts, {v.uncolored} uncolored)"
    rounds = "" if timed.coloring.iterations is None else str(timed.coloring.iterations)
    return f"{timed.median_ms:.1f} | {v.colors} | {rounds} | {timed.setup_ms:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="append", help="graph spec (repeatable)")
    parser.add_argument("--case", action="append", help="NAME[:k=v,...] (repeatable)")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, numba {numba.__version__} with {numba.get_num_threads()} "
          f"threads, {time.strftime('%Y-%m-%d')}")  # fmt: skip
    print("\n| graph | n | m | max deg | case | median ms | colors | rounds | setup ms |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for graph_spec in args.graph or GRAPHS:
        start = time.perf_counter()
        graph = load_graph(graph_spec)
        built = time.perf_counter() - start
        print(f"<!-- {graph_spec}: built or loaded in {built:.1f} s -->", file=sys.stderr)
        prepared = prepare(graph, "cpu")
        head = f"| {graph_spec} | {graph.n} | {graph.m} | {graph.max_degree}"
        for case in args.case or CASES:
            name, given = parse_case(case)
            try:
                cells = measure(prepared, name, given, args.reps)
            except GcbenchError as exc:
                cells = f"{type(exc).__name__}: {exc} | | |"
            print(f"{head} | {case} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
