"""Iterated greedy recoloring against ecl-gc's color reduction (issue 45, item 1): colors and
time of GPU algorithms under ``reduce=none``, ``both`` (ecl-gc §4's heuristics) and ``ig``
(Culberson's iterated greedy, docs/decisions.md, "Iterated greedy").

Per graph and algorithm, the three settings' repetitions are interleaved after two warm-ups
each (benchmarks/_common.interleaved), every coloring validated, the conditions of each
recorded. Prints the colors of each setting, its median ``time_ms`` with its 95 % interval,
the passes ig ran, and ig's time over the plain coloring's with its interval: the issue's
target is ecl-gc + ig at most 2x ecl-gc's time with at least 5 % fewer colors.

With ``--problem d2|pd2|pd2-rows`` (issue 44, item 3) the distance-2 algorithms run under
``reduce=none`` and ``ig`` (their only choices), beside the colors of the serial greedy in
natural order, whose colors the issue asks them to come within 1.10x of.

    PYTHONPATH=. python3 benchmarks/recolor.py [--graph SPEC]... [--algo NAME]... [--reps N]
        [--problem d1|d2|pd2|pd2-rows]
"""

from __future__ import annotations

import argparse
import statistics

from _common import (
    ISSUE_31_GRAPHS,
    cell,
    conditions_line,
    gpu_banner,
    gpu_meter,
    header,
    interleaved,
)

from gcbench import algorithms
from gcbench.algorithms.cpu.greedy_d2 import greedy_d2_colors
from gcbench.algorithms.execute import prepare
from gcbench.errors import GcbenchError
from gcbench.graphs.sources import load_instance
from gcbench.stats import ratio_ci

# The issue-31 command's five graphs, then classic-coloring stand-ins (queen13_13, myciel7,
# a DSJC1000.5-like G(n, p)); DIMACS files can be added with --graph.
GRAPHS = (
    *ISSUE_31_GRAPHS,
    "gen:queen?n=13",
    "gen:mycielski?k=8",
    "gen:er?n=1000&p=0.5&seed=0",
)
ALGORITHMS = {"d1": ("ecl-gc", "jpl", "vb"), "d2": ("vb-bit", "nb-bit", "jp-d2")}
MODES = {"d1": ("none", "both", "ig"), "d2": ("none", "ig")}


def summary(graph: str, name: str, done: dict, serial: str) -> str:
    cells = [graph, name, *([serial] if serial else [])]
    for mode in done:
        colors = sorted({r.validation.colors for r in done[mode]})
        cells += ["/".join(map(str, colors)), cell([r.time_ms for r in done[mode]])]
    passes = statistics.median(r.coloring.trace["reduce_rounds"][0] for r in done["ig"])
    ratio = ratio_ci([r.time_ms for r in done["none"]], [r.time_ms for r in done["ig"]])
    shown = f"{ratio.ratio:.2f} [{ratio.low:.2f}, {ratio.high:.2f}]" if ratio else ""
    cells += [f"{passes:g}", shown]
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="append", help="graph spec or file (repeatable)")
    parser.add_argument("--algo", action="append", help="algorithm (repeatable)")
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--problem", default="d1", choices=("d1", "d2", "pd2", "pd2-rows"))
    args = parser.parse_args()
    kind = "d1" if args.problem == "d1" else "d2"
    modes = MODES[kind]
    print(gpu_banner())
    meter = gpu_meter()
    settings = " | ".join(f"{m}: colors | {m}: ms [95 % CI]" for m in modes)
    serial_column = "" if kind == "d1" else " serial natural: colors |"
    print(header(f"| graph | algorithm |{serial_column} {settings} | ig passes | "
                 "ig ÷ none [95 % CI] |"))  # fmt: skip
    conditions = []
    for graph_spec in args.graph or GRAPHS:
        instance = load_instance(graph_spec, args.problem)
        serial = "" if kind == "d1" else str(int(greedy_d2_colors(instance).max(initial=-1)) + 1)
        prepared = prepare(instance, "gpu")
        seen: list[dict] = []
        for name in args.algo or ALGORITHMS[kind]:
            spec = algorithms.get(name, problem=args.problem)
            variants = {mode: {"reduce": mode} for mode in modes}
            try:
                done = interleaved(spec, prepared, variants, args.reps, meter)
            except GcbenchError as exc:
                print(f"| {graph_spec} | {name} | {exc} |")
                continue
            print(summary(graph_spec, name, done, serial), flush=True)
            seen += [r.conditions for runs in done.values() for r in runs]
        conditions.append(f"{graph_spec}: {conditions_line(seen)}")
    print("\nConditions (median [5th, 95th percentile] over the graph's repetitions):")
    print("\n".join(f"- {line}" for line in conditions))


if __name__ == "__main__":
    main()
