"""ECL-GC benchmark (issue 5): shortcuts both/none x reduce none/both on the paper-sized graphs.

    PYTHONPATH=. python3 benchmarks/ecl_gc.py [--reps 5] [--graph SPEC]... [--no-peers]
                                             [--no-verify] [--out FILE]

Each configuration runs once to warm up and then ``--reps`` times through
:func:`gcbench.algorithms.execute.run_timed` (CUDA events); the table shows the median.
Graphs are generated first, in parallel processes, into the gcbench cache. ``--verify`` (the
default) checks every reduce=none coloring against serial greedy LDF vertex for vertex.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from _common import LARGE_GRAPHS, time_case

from gcbench import algorithms, load_graph
from gcbench.algorithms.cpu.greedy import greedy_colors
from gcbench.algorithms.execute import prepare
from gcbench.algorithms.gpu import ecl_gc, runtime
from gcbench.errors import GcbenchError

GRAPHS = LARGE_GRAPHS
# The original ECL-GC on an H200, one cold run per process (issue 5).
TARGET_MS = {
    "gen:rgg?scale=22": 6.8,
    "gen:rgg?scale=24": 23.0,
    "gen:grid2d?side=2048": 3.9,
    "gen:kron?scale=18": 6.4,
    "gen:kron?scale=20&edgefactor=48": 36.0,
}
CONFIGS = (("both", "none"), ("none", "none"), ("both", "both"), ("none", "both"))
PEERS = ("cusparse", "jpl")
HEADER = (
    "| graph | n | m | max deg | algorithm | shortcuts | reduce | median ms | min ms | colors "
    "| passes | init/shortcut/conv % | = greedy LDF | target ms |"
)


def _generate(spec: str) -> str:
    start = time.perf_counter()
    graph = load_graph(spec)
    return f"{spec}: n={graph.n} nnz={graph.nnz} in {time.perf_counter() - start:.0f} s"


def _figure12(trace: dict, n: int) -> str:
    if "colored_init" not in trace or not n:
        return ""
    keys = ("colored_init", "colored_shortcut", "colored_conventional")
    return "/".join(f"{trace[k][0] / n * 100:.0f}" for k in keys)


def bench_graph(spec: str, reps: int, verify: bool, peers: bool) -> list[str]:
    graph = load_graph(spec)
    prepared = prepare(graph, "gpu")
    reference = greedy_colors(graph, "ldf") if verify else None
    head = f"| {spec} | {graph.n:,} | {graph.m:,} | {graph.max_degree:,}"
    rows, medians = [], {}
    runs = [("ecl-gc", {"shortcuts": s, "reduce": r}) for s, r in CONFIGS]
    if peers:
        runs += [(p, {}) for p in PEERS if p in {s.name for s in algorithms.all_specs("gpu")}]
    for name, params in runs:
        try:
            timed = time_case(name, prepared, params, reps=reps)
        except GcbenchError as exc:
            rows.append(f"{head} | {name} | | | failed: {exc} | | | | | | | |")
            continue
        coloring, colors, validation = timed.coloring, timed.colors, timed.validation
        median, passes = timed.median_ms, timed.iterations
        medians[name, params.get("shortcuts"), params.get("reduce")] = median
        same = ""
        if reference is not None and params.get("reduce", "none") == "none" and name == "ecl-gc":
            same = "yes" if np.array_equal(colors, reference) else "**NO**"
        valid = "" if validation.valid else " **INVALID**"
        iters = "" if passes[0] is None else f"{statistics.median(passes):.0f}"
        target = TARGET_MS.get(spec, "") if params.get("shortcuts") == "both" else ""
        rows.append(
            f"{head} | {name} | {params.get('shortcuts', '')} | {params.get('reduce', '')} "
            f"| {median:.2f} | {min(timed.times_ms):.2f} | {validation.colors}{valid} | {iters} "
            f"| {_figure12(coloring.trace, graph.n)} | {same} | {target} |"
        )
        print(rows[-1], flush=True)
    fast, slow = medians.get(("ecl-gc", "both", "none")), medians.get(("ecl-gc", "none", "none"))
    if fast and slow:
        print(f"shortcut speedup on {spec}: {slow / fast:.1f}x", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", action="append", help="graph spec (repeatable)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--no-verify", dest="verify", action="store_false")
    parser.add_argument("--no-peers", dest="peers", action="store_false")
    parser.add_argument("--out", help="also write the markdown table here")
    parser.add_argument("--generate-only", action="store_true", help="fill the graph cache")
    args = parser.parse_args(argv)
    graphs = tuple(args.graph or GRAPHS)
    with ProcessPoolExecutor(max_workers=min(len(graphs), os.cpu_count() or 1)) as pool:
        for line in pool.map(_generate, graphs):
            print("generated", line, flush=True)
    if args.generate_only:
        return 0
    facts = runtime.device_facts()
    print(f"persistent kernels at {ecl_gc.BLOCK} threads: {ecl_gc.geometry()}", flush=True)
    title = (
        f"ECL-GC on {facts.name} (driver {facts.driver_version}, CUDA {facts.cuda_runtime}, "
        f"CuPy {facts.cupy_version}), {datetime.date.today()}, median of {args.reps} warm runs"
    )
    print(title, HEADER, sep="\n")
    rows = [row for spec in graphs for row in bench_graph(spec, args.reps, args.verify, args.peers)]
    table = "\n".join([title, "", HEADER, "|" + " --- |" * (HEADER.count("|") - 1), *rows])
    print("\n" + table)
    if args.out:
        with open(args.out, "w") as out:
            out.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
