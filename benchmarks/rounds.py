"""Rounds without the host (issue 43): every round-based GPU algorithm under each host protocol
(``sync=round``, the papers' read per round; ``batch``; ``device``; ``graph``, a CUDA graph's
WHILE node, for the families that take it) side by side.

Per graph and algorithm, the protocols' repetitions are interleaved (one of each in turn, after
two warm-ups each), so drift in the machine's state falls on all of them alike; every coloring
is validated, and each repetition records what it ran under (SM clock, the host's round trip,
load). Prints, per case, the median ``time_ms`` with its 95 % interval, the median ``device_ms``
and ``host_syncs``, the rounds, and the ratio of the first protocol's time to each other's with
its interval (``round ÷ device`` by default); ``--csv`` keeps every repetition. Only the
algorithms that take every protocol asked for are run.

    PYTHONPATH=. python3 benchmarks/rounds.py [--graph SPEC]... [--algo NAME]... [--reps N]
        [--problem d1|d2|pd2|pd2-rows] [--sync round|batch|device|graph]...
"""

from __future__ import annotations

import argparse
import csv

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
from gcbench.algorithms.rounds import GRAPH, SYNCS
from gcbench.errors import GcbenchError
from gcbench.graphs.sources import load_instance
from gcbench.stats import ratio_ci

# The issue-31 command's five graphs, then ten generated graphs of 10^3-10^5 vertices.
GRAPHS = (
    *ISSUE_31_GRAPHS,
    "gen:rgg?scale=10",
    "gen:rgg?scale=16",
    "gen:delaunay?scale=12",
    "gen:delaunay?scale=16",
    "gen:grid2d?side=40",
    "gen:grid2d?side=300",
    "gen:kron?scale=12",
    "gen:rmat?scale=15",
    "gen:er?n=5000&avg_degree=8",
    "gen:road?scale=15",
)
COLUMNS = ("graph", "algorithm", "sync", "rep", "time_ms", "device_ms", "host_syncs",
           "iterations", "colors", "sm_clock_mhz", "round_trip_us", "load_avg")  # fmt: skip


def round_based(problem: str, modes: list[str]) -> list[str]:
    """The GPU algorithms that solve ``problem`` and take ``sync`` with each of ``modes``."""
    return sorted(
        spec.name
        for spec in algorithms.all_specs("gpu", problem)
        if any(p.name == "sync" and set(modes) <= set(p.choices) for p in spec.params)
    )


def measure(
    prepared, name: str, problem: str, modes: list[str], reps: int, meter
) -> dict[str, list[dict]]:
    """Interleaved validated repetitions of ``name`` under each protocol of ``modes``."""
    spec = algorithms.get(name, problem=problem)
    done = interleaved(spec, prepared, {sync: {"sync": sync} for sync in modes}, reps, meter)
    return {
        sync: [
            {
                "rep": rep,
                "sync": sync,
                "time_ms": run.time_ms,
                "device_ms": run.coloring.device_ms,
                "host_syncs": run.coloring.host_syncs,
                "iterations": run.coloring.iterations,
                "colors": run.validation.colors,
                **run.conditions,
            }
            for rep, run in enumerate(mine)
        ]
        for sync, mine in done.items()
    }


def summary(graph: str, name: str, rows: dict[str, list[dict]], modes: list[str]) -> str:
    cells = [graph, name, str(rows[next(iter(rows))][-1]["iterations"])]
    for mine in rows.values():
        times = [r["time_ms"] for r in mine]
        device = known_median([r["device_ms"] for r in mine], ".3f")
        syncs = known_median([r["host_syncs"] for r in mine], "g")
        cells += [cell(times), device, syncs]
    first, *others = modes
    for other in others:
        ratio = ratio_ci([r["time_ms"] for r in rows[other]],
                         [r["time_ms"] for r in rows[first]])  # fmt: skip
        cells.append(f"{ratio.ratio:.2f} [{ratio.low:.2f}, {ratio.high:.2f}]" if ratio else "")
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="append", help="graph spec (repeatable)")
    parser.add_argument("--algo", action="append", help="algorithm (repeatable)")
    parser.add_argument(
        "--sync", action="append", choices=(*SYNCS, GRAPH), help="protocol (repeatable)"
    )
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--csv", help="write every repetition here")
    parser.add_argument("--problem", default="d1", help="d1, or a distance-2 problem")
    args = parser.parse_args()
    modes = args.sync or ["round", "device"]
    names = args.algo or round_based(args.problem, modes)
    print(gpu_banner())
    meter = gpu_meter()
    protocols = " | ".join(f"{s} ms [95 % CI] | {s} device ms | {s} syncs" for s in modes)
    ratio = "".join(f" | {modes[0]} ÷ {other} [95 % CI]" for other in modes[1:])
    print(header(f"| graph | algorithm | rounds | {protocols}{ratio} |"))
    out = open(args.csv, "w", newline="") if args.csv else None  # noqa: SIM115
    writer = csv.DictWriter(out, COLUMNS, extrasaction="ignore") if out else None
    if writer:
        writer.writeheader()
    conditions = []
    for graph_spec in args.graph or GRAPHS:
        prepared = prepare(load_instance(graph_spec, args.problem), "gpu")
        seen: list[dict] = []
        for name in names:
            try:
                rows = measure(prepared, name, args.problem, modes, args.reps, meter)
            except GcbenchError as exc:
                print(f"| {graph_spec} | {name} | {exc} |")
                continue
            print(summary(graph_spec, name, rows, modes), flush=True)
            for mine in rows.values():
                seen += mine
                if writer:
                    writer.writerows({"graph": graph_spec, "algorithm": name, **r} for r in mine)
        conditions.append(f"{graph_spec}: {conditions_line(seen)}")
    if out:
        out.close()
    print("\nConditions (median [5th, 95th percentile] over the graph's repetitions):")
    print("\n".join(f"- {line}" for line in conditions))


if __name__ == "__main__":
    main()
