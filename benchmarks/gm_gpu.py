"""gm-gpu benchmark (issue 17): gm-gpu beside ecl-gc, jpl-minmax, eb-er and cusparse on the
eight graphs of issue 13.

    PYTHONPATH=. python3 benchmarks/gm_gpu.py [--reps 5] [--graph SPEC]... [--algo NAME[:k=v,..]]...

Each configuration is set up, warmed up once and then timed ``--reps`` times through the
runner's protocol (benchmarks/_common.py: CUDA events around the call; setup not in it), one
repetition where the warm-up took over ``--slow-ms``. Prints one markdown row per
configuration as results come, then the issue's targets per graph: gm-gpu (default
parameters) at least 10x faster than jpl-minmax on the kron graphs, and within 1.2x of
ecl-gc's colors on every graph.
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import sys

from _common import LARGE_GRAPHS, header, time_case, variant

from gcbench import algorithms, load_graph
from gcbench.algorithms.execute import prepare
from gcbench.algorithms.gpu import runtime
from gcbench.errors import GcbenchError

# issue 13's eight graphs: rgg 2^16, then the seeds' large ones (_common.LARGE_GRAPHS)
GRAPHS = ("gen:rgg?scale=16", *LARGE_GRAPHS)
CONFIGS = (
    "gm-gpu",
    "gm-gpu:buckets=none",
    "gm-gpu:batch=1,sync=round",  # a read every pass (batch counts only in a host loop)
    "ecl-gc",
    "jpl-minmax",
    "eb-er",
    "cusparse",
)
HEADER = "| graph | algorithm | params | median ms | min ms | colors | passes | setup ms |"


def bench_graph(spec: str, configs: list[str], reps: int, slow_ms: float) -> dict:
    """Rows for one graph; returns {config: (median ms, colors)} of the runs that worked."""
    graph = load_graph(spec)
    prepared = prepare(graph, "gpu")
    print(f"{spec}: n={graph.n:,} m={graph.m:,} max degree {graph.max_degree:,}", flush=True)
    results = {}
    for config in configs:
        name, params = variant(config)
        shown = ";".join(f"{k}={v}" for k, v in sorted(params.items()) if k != "reduce")
        try:
            timed = time_case(name, prepared, params, reps=reps, slow_ms=slow_ms)
        except GcbenchError as exc:
            print(f"| {spec} | {name} | {shown} | failed: {exc} | | | | |", flush=True)
            continue
        v = timed.validation
        colors = f"{v.colors}" if v.valid else f"{v.colors} **INVALID**"
        passes = [i for i in timed.iterations if i is not None]
        median_passes = f"{statistics.median(passes):.0f}" if passes else ""
        print(
            f"| {spec} | {name} | {shown} | {timed.median_ms:.3f} | {min(timed.times_ms):.3f} "
            f"| {colors} | {median_passes} | {timed.setup_ms:.1f} |",
            flush=True,
        )
        if v.valid:
            results[config] = (timed.median_ms, v.colors)
    return results


def targets(spec: str, results: dict) -> str:
    """The issue's two targets for this graph, as one line."""
    gm, ecl, jpl = (results.get(k) for k in ("gm-gpu", "ecl-gc", "jpl-minmax"))
    parts = []
    if gm and jpl:
        goal = " (target >= 10x)" if "kron" in spec else ""
        parts.append(f"jpl-minmax / gm-gpu time {jpl[0] / gm[0]:.1f}x{goal}")
    if gm and ecl:
        parts.append(f"gm-gpu / ecl-gc colors {gm[1] / ecl[1]:.2f} (target <= 1.2)")
        parts.append(f"gm-gpu / ecl-gc time {gm[0] / ecl[0]:.2f}")
    return f"{spec}: " + "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", action="append", help="graph spec (repeatable)")
    parser.add_argument("--algo", action="append", help="NAME[:k=v,...] (repeatable)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--slow-ms", type=float, default=2000.0)
    args = parser.parse_args(argv)
    configs = args.algo or [c for c in CONFIGS if c.split(":")[0] in _registered()]
    facts = runtime.device_facts()
    print(
        f"gm-gpu benchmark on {facts.name} (driver {facts.driver_version}, CUDA "
        f"{facts.cuda_runtime}, CuPy {facts.cupy_version}), {datetime.date.today()}, "
        f"median of {args.reps} warm runs\n\n{header(HEADER)}",
        flush=True,
    )
    summary = [
        targets(s, bench_graph(s, configs, args.reps, args.slow_ms)) for s in args.graph or GRAPHS
    ]
    print("\n" + "\n".join(summary))
    return 0


def _registered() -> set[str]:
    return {s.name for s in algorithms.all_specs("gpu")}


if __name__ == "__main__":
    sys.exit(main())
