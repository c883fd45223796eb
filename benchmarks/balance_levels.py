"""Balance and levels benchmark (issue 18): what ecl-gc, jpl-minmax and cusparse colorings do
for a level-scheduled triangular solve, and what balance=shuffle changes and costs.

    PYTHONPATH=. python3 benchmarks/balance_levels.py [--reps 3] [--solve-reps 3]
                                                      [--graph SPEC]... [--algo NAME]...

For every graph: the levels of the lower-triangular solve in the natural order, and for every
algorithm the levels after reordering by its color classes, plain and balanced (levels never
exceed the colors); cuSPARSE's triangular solve (``spsolve_triangular``: SpSM analysis and
solve, CUDA events, median of ``--solve-reps`` after one warm-up) on the natural, the colored
and the balanced order; ``class_cv`` and the class-size range before and after
balance=shuffle, the coloring's median time without and with it (the runner's protocol,
benchmarks/_common.py), the pass's own ``balance_ms`` and the vertices it moved. Prints two
markdown tables. The graphs: the issue's three generated ones and two SuiteSparse stand-ins
of the seed suites that build in seconds (configs/seed-borione.toml: rgg_n_2_18_s0;
configs/seed-ecl.toml and seed-deveci.toml: kron_g500-logn21).
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import sys
from dataclasses import dataclass

from _common import header, time_case

from gcbench import load_graph
from gcbench.algorithms.execute import prepare
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.levels import LevelMeter, LevelMetrics
from gcbench.errors import GcbenchError

GRAPHS = (
    "gen:grid2d?side=2048",
    "gen:delaunay?scale=20",
    "gen:rgg?scale=20",
    "gen:rgg?scale=18&seed=0",  # stand-in of ss:DIMACS10/rgg_n_2_18_s0 (seed-borione)
    "gen:kron?edgefactor=48&scale=21&seed=0",  # stand-in of ss:DIMACS10/kron_g500-logn21
)
ALGORITHMS = ("ecl-gc", "jpl-minmax", "cusparse")
LEVELS = (
    "| graph | n | algorithm | colors | levels natural | levels colored | levels balanced "
    "| solve natural ms | solve colored ms | solve balanced ms | natural / colored |"
)
BALANCE = (
    "| graph | algorithm | colors | class_cv | class_cv balanced | classes min..max "
    "| balanced min..max | time ms | time ms balanced | balance_ms | moved |"
)


@dataclass(frozen=True)
class Outcome:
    """One algorithm on one graph: plain and balanced colorings, timed and measured."""

    graph: str
    n: int
    algorithm: str
    colors: str
    plain: LevelMetrics
    balanced: LevelMetrics
    cv: tuple[float, float]
    classes: tuple[str, str]
    time_ms: tuple[float, float]
    balance_ms: float
    moved: int


def ms(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def bench_graph(spec: str, algorithms: list[str], reps: int, meter_reps: int) -> list[Outcome]:
    graph = load_graph(spec)
    prepared = prepare(graph, "gpu")
    meter = LevelMeter(graph, solve=True, reps=meter_reps)
    levels, natural_ms = meter.natural()
    print(f"{spec}: n={graph.n:,} m={graph.m:,}, {levels} levels in the natural order, "
          f"solve {ms(natural_ms)} ms", file=sys.stderr, flush=True)  # fmt: skip
    out = []
    for name in algorithms:
        try:
            plain = time_case(name, prepared, {"balance": "none"}, reps=reps)
            shuffled = time_case(name, prepared, {"balance": "shuffle"}, reps=reps)
        except GcbenchError as exc:
            print(f"{spec}: {name} failed: {exc}", file=sys.stderr, flush=True)
            continue
        v0, v1 = plain.validation, shuffled.validation
        if not (v0.valid and v1.valid):
            print(f"{spec}: {name} gave an INVALID coloring", file=sys.stderr, flush=True)
            continue
        runs = [r.coloring.trace for r in shuffled.runs]
        colors = f"{v0.colors}" if v0.colors == v1.colors else f"{v0.colors} / {v1.colors}"
        out.append(Outcome(
            spec, graph.n, name, colors, meter.measure(plain.colors),
            meter.measure(shuffled.colors), (v0.class_cv, v1.class_cv),
            (f"{v0.min_class}..{v0.max_class}", f"{v1.min_class}..{v1.max_class}"),
            (plain.median_ms, shuffled.median_ms),
            statistics.median(t["balance_ms"][0] for t in runs),
            int(runs[-1].get("balance_moved", [0])[0]),
        ))  # fmt: skip
        print(f"{spec}: {name} done", file=sys.stderr, flush=True)
    return out


def level_row(o: Outcome) -> str:
    p, b = o.plain, o.balanced
    ratio = "" if p.trsv_colored_ms is None else f"{p.trsv_natural_ms / p.trsv_colored_ms:.1f}x"
    return (f"| {o.graph} | {o.n:,} | {o.algorithm} | {o.colors} | {p.levels_natural} "
            f"| {p.levels_colored} | {b.levels_colored} | {ms(p.trsv_natural_ms)} "
            f"| {ms(p.trsv_colored_ms)} | {ms(b.trsv_colored_ms)} | {ratio} |")  # fmt: skip


def balance_row(o: Outcome) -> str:
    return (f"| {o.graph} | {o.algorithm} | {o.colors} | {o.cv[0]:.3f} | {o.cv[1]:.3f} "
            f"| {o.classes[0]} | {o.classes[1]} | {o.time_ms[0]:.3f} | {o.time_ms[1]:.3f} "
            f"| {o.balance_ms:.3f} | {o.moved:,} |")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", action="append", help="graph spec (repeatable)")
    parser.add_argument("--algo", action="append", help="algorithm (repeatable)")
    parser.add_argument("--reps", type=int, default=3, help="timed colorings per case")
    parser.add_argument("--solve-reps", type=int, default=3, help="timed solves per order")
    args = parser.parse_args(argv)
    facts = runtime.device_facts()
    outcomes = [
        o
        for spec in args.graph or GRAPHS
        for o in bench_graph(spec, args.algo or list(ALGORITHMS), args.reps, args.solve_reps)
    ]
    print(f"Balance and levels on {facts.name} (driver {facts.driver_version}, CUDA "
          f"{facts.cuda_runtime}, CuPy {facts.cupy_version}), {datetime.date.today()}: "
          f"colorings median of {args.reps} warm runs, solves median of {args.solve_reps} "
          "after one warm-up (spsolve_triangular: analysis and solve)\n")  # fmt: skip
    print(header(LEVELS))
    print("\n".join(level_row(o) for o in outcomes))
    print()
    print(header(BALANCE))
    print("\n".join(balance_row(o) for o in outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
