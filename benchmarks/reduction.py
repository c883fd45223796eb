"""The color reduction's cost (ecl-gc §4's heuristics, ``reduce=h1|h2|both``; issue 43: its
rounds without the host). Per graph and algorithm, ``reduce=none`` and each mode asked for are
interleaved after two warm-ups each (benchmarks/_common.interleaved), every coloring validated,
the conditions of each repetition recorded.

Prints, per case and mode: the colors (every count the repetitions gave), the median
``time_ms`` (coloring and reduction, CUDA events) with its 95 % interval, the medians of the
reduction's own ``reduce_ms``, of ``device_ms`` and of ``host_syncs``, the reduction's rounds,
and the mode's time over ``none`` with its interval. Run it with another tree's package first on
``PYTHONPATH`` to measure that tree the same way (a before/after).

    PYTHONPATH=. python3 benchmarks/reduction.py [--graph SPEC]... [--algo NAME]...
        [--mode h1|h2|both]... [--reps N]
"""

from __future__ import annotations

import argparse

from _common import (
    ISSUE_31_GRAPHS,
    cell,
    conditions_line,
    gpu_banner,
    gpu_meter,
    header,
    interleaved,
    known_median,
)

from gcbench import algorithms
from gcbench.algorithms.execute import prepare
from gcbench.graphs.sources import load_graph
from gcbench.stats import ratio_ci

# The issue-31 command's five graphs, then smaller ones where a read is a larger share.
GRAPHS = (*ISSUE_31_GRAPHS, "gen:road?scale=15", "gen:grid2d?side=300", "gen:delaunay?scale=16")


def summary(graph: str, name: str, mode: str, done: dict) -> str:
    mine, base = done[mode], done["none"]
    colors = "/".join(str(c) for c in sorted({r.validation.colors for r in mine}))
    trace = [r.coloring.trace for r in mine]
    cells = [
        graph,
        name,
        mode,
        colors,
        cell([r.time_ms for r in mine]),
        known_median([t["reduce_ms"][0] for t in trace if "reduce_ms" in t]),
        known_median([r.coloring.device_ms for r in mine]),
        known_median([r.coloring.host_syncs for r in mine]),
        known_median([t["reduce_rounds"][0] for t in trace if "reduce_rounds" in t]),
    ]
    if mode != "none":
        ratio = ratio_ci([r.time_ms for r in base], [r.time_ms for r in mine])
        cells.append(f"{ratio.ratio:.2f} [{ratio.low:.2f}, {ratio.high:.2f}]" if ratio else "")
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="append", help="graph spec or file (repeatable)")
    parser.add_argument("--algo", action="append", help="algorithm (repeatable)")
    parser.add_argument("--mode", action="append", choices=("h1", "h2", "both"))
    parser.add_argument("--reps", type=int, default=9)
    args = parser.parse_args()
    modes = ["none", *(args.mode or ["both"])]
    print(gpu_banner())
    meter = gpu_meter()
    print(header("| graph | algorithm | reduce | colors | ms [95 % CI] | reduce ms | device ms "
                 "| host syncs | rounds | ÷ none [95 % CI] |"))  # fmt: skip
    conditions = []
    for graph_spec in args.graph or GRAPHS:
        prepared = prepare(load_graph(graph_spec), "gpu")
        seen: list[dict] = []
        for name in args.algo or ["ecl-gc", "jpl"]:
            spec = algorithms.get(name)
            done = interleaved(spec, prepared, {m: {"reduce": m} for m in modes}, args.reps, meter)
            for mode in modes:
                print(summary(graph_spec, name, mode, done), flush=True)
                seen += [r.conditions for r in done[mode]]
        conditions.append(f"{graph_spec}: {conditions_line(seen)}")
    print("\nConditions (median [5th, 95th percentile] over the graph's repetitions):")
    print("\n".join(f"- {line}" for line in conditions))


if __name__ == "__main__":
    main()
