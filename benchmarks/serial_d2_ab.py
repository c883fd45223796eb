"""A/B of the serial distance-2 greedy between two trees of gcbench (issue 44, item 4).

Each tree's ``greedy_d2_colors(pattern, order)`` is timed in processes of its own (the tree
first on ``sys.path``, so each imports its own code and numba cache), the trees alternating
``--rounds`` times. Per input, a process loads the pattern and builds its column view (outside
the timer, as the runner's CPU upload does), colors it once to compile, then times ``--reps``
calls with ``perf_counter``: the order, the masks' allocation and the loop, as the runner's
``time_ms``. The colors must be the same in both trees (checked). Prints per input the
medians and after ÷ before with its Hodges-Lehmann 95 % interval (``gcbench.stats.ratio_ci``).

    python3 benchmarks/serial_d2_ab.py --before ../old-tree --input 'gen:star?leaves=100000' d2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import cell

from gcbench.stats import ratio_ci

INPUTS = (("gen:star?leaves=100000", "d2"), ("gen:kron?scale=16&seed=0", "d2"))
AFTER = Path(__file__).resolve().parents[1]

# What a process runs: argv = reps, order, then SPEC PROBLEM pairs; prints one JSON line each.
TIMER = """
import hashlib, json, sys, time
from gcbench.algorithms.cpu.greedy_d2 import greedy_d2_colors
from gcbench.graphs.sources import load_instance
reps, order, pairs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
for spec, problem in zip(pairs[::2], pairs[1::2]):
    pattern = load_instance(spec, problem)
    pattern.columns
    colors = greedy_d2_colors(pattern, order)
    ms = []
    for _ in range(reps):
        start = time.perf_counter()
        greedy_d2_colors(pattern, order)
        ms.append((time.perf_counter() - start) * 1e3)
    print(json.dumps({"input": f"{spec} {problem}", "ms": ms, "colors": int(colors.max()) + 1,
                      "hash": hashlib.sha1(colors.tobytes()).hexdigest()}), flush=True)
"""


def timed(tree: Path, reps: int, order: str, inputs: list[tuple[str, str]]) -> list[dict]:
    """One process of ``tree`` over ``inputs``: a record per input."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    args = [str(reps), order, *(x for pair in inputs for x in pair)]
    done = subprocess.run([sys.executable, "-c", TIMER, *args], cwd=tree, env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the other tree's root")
    parser.add_argument("--rounds", type=int, default=4, help="alternations of the two trees")
    parser.add_argument("--reps", type=int, default=5, help="timed calls per process and input")
    parser.add_argument("--order", default="natural")
    parser.add_argument("--input", nargs=2, action="append", metavar=("SPEC", "PROBLEM"))
    args = parser.parse_args()
    inputs = [tuple(i) for i in args.input] if args.input else list(INPUTS)
    times: dict[tuple[str, str], list[float]] = {}
    seen: dict[str, set[str]] = {}
    colors: dict[str, int] = {}
    for _ in range(args.rounds):
        for side, tree in (("before", args.before.resolve()), ("after", AFTER)):
            for record in timed(tree, args.reps, args.order, inputs):
                times.setdefault((record["input"], side), []).extend(record["ms"])
                seen.setdefault(record["input"], set()).add(record["hash"])
                colors[record["input"]] = record["colors"]
    print(f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs; order {args.order}; "
          f"{args.rounds} × {args.reps} calls a side")  # fmt: skip
    print("| input | colors | before ms | after ms | after ÷ before |")
    print("| --- | ---: | --- | --- | --- |")
    for name in colors:
        if len(seen[name]) != 1:
            raise SystemExit(f"{name}: the two trees' colors differ")
        before, after = times[(name, "before")], times[(name, "after")]
        r = ratio_ci(before, after)
        shown = "—" if r is None else f"{r.ratio:.3g} [{r.low:.3g}, {r.high:.3g}]"
        print(f"| {name} | {colors[name]:,} | {cell(before, '.4g')} | {cell(after, '.4g')} "
              f"| {shown} |")  # fmt: skip
    print(f"(medians of {args.rounds * args.reps} calls a side, 95 % intervals)")


if __name__ == "__main__":
    main()
