"""Benchmark the independent-set family (and ``cusparse`` when registered) on large graphs.

For each graph and algorithm: warm-up, then the median ``time_ms`` over the repetitions
(CUDA events around the algorithm alone, as the runner measures it), the distinct colors and
the rounds of a validated coloring. Prints a markdown table, one line per result as it comes.

    PYTHONPATH=. python3 benchmarks/independent_set.py [--graph SPEC]... [--algo NAME]...
"""

from __future__ import annotations

import argparse
import sys
import time

from _common import LARGE_GRAPHS, time_case

from gcbench import algorithms, load_graph
from gcbench.algorithms.execute import prepare
from gcbench.algorithms.gpu import runtime
from gcbench.errors import GcbenchError

GRAPHS = LARGE_GRAPHS
FAMILY = ["jpl", "jpl-minmax", "gunrock", "cohen", "luby", "very-random", "cf", "cusparse"]
SLOW_MS = 2000.0  # a warm-up slower than this is followed by one repetition only


def measure(prepared, name: str, reps: int) -> str:
    """One table row's cells for ``name`` on the prepared graph: median ms, colors, rounds."""
    timed = time_case(name, prepared, {}, reps=reps, slow_ms=SLOW_MS)
    v = timed.validation
    if not v.valid:
        return f"INVALID ({v.conflicts} conflicts, {v.uncolored} uncolored)"
    rounds = "" if timed.coloring.iterations is None else str(timed.coloring.iterations)
    return f"{timed.median_ms:.2f} | {v.colors} | {rounds} | {len(timed.times_ms)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="append", help="graph spec (repeatable)")
    parser.add_argument("--algo", action="append", help="algorithm (repeatable)")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    known = {spec.name for spec in algorithms.all_specs("gpu")}
    names = [name for name in args.algo or FAMILY if name in known]
    facts = runtime.device_facts()
    print(f"{facts.name}, driver {facts.driver_version}, CUDA {facts.cuda_runtime}, "
          f"CuPy {facts.cupy_version}, {time.strftime('%Y-%m-%d')}")  # fmt: skip
    print("\n| graph | n | m | max deg | algorithm | median ms | colors | rounds | reps |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for graph_spec in args.graph or GRAPHS:
        start = time.perf_counter()
        graph = load_graph(graph_spec)
        built = time.perf_counter() - start
        print(f"<!-- {graph_spec}: built or loaded in {built:.1f} s -->", file=sys.stderr)
        prepared = prepare(graph, "gpu")
        head = f"| {graph_spec} | {graph.n} | {graph.m} | {graph.max_degree}"
        for name in names:
            try:
                cells = measure(prepared, name, args.reps)
            except GcbenchError as exc:
                cells = f"{type(exc).__name__}: {exc} | | |"
            print(f"{head} | {name} | {cells} |", flush=True)
        del prepared
        runtime.cupy().get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
