"""Benchmark Deveci et al.'s VB/EB family across the block-size sweep, beside ecl-gc and jpl.

For each graph and variant: one timed, validated run at every block size 1024, 512, ..., 1
after one warm-up (descending; the sweep stops once a run took over ``--blowup`` times the best
so far or the ``--budget`` is spent, and keeps to 1024, 128, 32, 8, 1 once a run took over a
second), then the median ``time_ms`` of ``--reps`` runs at the best block size (the sweep's run
there among them; just that one for a variant slower than a second), with rounds and colors:
CUDA events around the algorithm alone, as the runner measures it. ecl-gc and jpl run at their
default block sizes, median of ``--reps`` after a warm-up.
Prints markdown tables as results come.

    PYTHONPATH=. python3 benchmarks/deveci.py [--graph SPEC]... [--algo NAME[:k=v]]...
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

from _common import variant

from gcbench import algorithms, load_graph
from gcbench.algorithms.execute import Prepared, finish, prepare, prime, run_timed, setup
from gcbench.algorithms.gpu import runtime
from gcbench.bench.suite import SWEEP
from gcbench.errors import GcbenchError

GRAPHS = [
    "gen:rgg?scale=20",
    "gen:delaunay?scale=20",
    "gen:grid2d?side=2048",
    "gen:kron?scale=18",
    "gen:kron?scale=20&edgefactor=48",
    "gen:rgg?scale=22",
]
VARIANTS = ["vb", "vb-bit", "vb-bit:conflicts=scan", "eb", "eb-cs", "eb-tent", "eb-er"]
BASELINES = ["ecl-gc", "jpl"]
SLOW_MS = 1000.0  # a run slower than this: sweep only the COARSE sizes, median of 1 run
COARSE = (1024, 128, 32, 8, 1)


@dataclass
class Run:
    """One validated run: time, rounds, distinct colors."""

    ms: float
    rounds: int | None
    colors: int


def once(prepared: Prepared, name: str, params: dict, block_size: int | None) -> Run:
    spec = algorithms.get(name)
    coloring, ms = run_timed(spec, prepared, block_size, params)
    _, validation, _ = finish(spec, prepared, coloring)
    if not validation.valid:
        raise GcbenchError(f"{name}: invalid ({validation.conflicts} conflicts)")
    return Run(ms, coloring.iterations, validation.colors)


def sweep(prepared: Prepared, text: str, blowup: float, deadline: float) -> dict[int, Run]:
    """One run per block size, largest first, stopping early as the module doc says; once
    a run takes over SLOW_MS only the COARSE sizes are tried."""
    name, params = variant(text)
    for block in SWEEP:
        prime(algorithms.get(name), block, params)  # compilation, never timed
    setup(algorithms.get(name), prepared)
    once(prepared, name, params, SWEEP[-1])  # warm-up: memory pool
    runs: dict[int, Run] = {}
    for block in reversed(SWEEP):
        slow = any(r.ms > SLOW_MS for r in runs.values())
        if time.perf_counter() > deadline or (slow and block not in COARSE):
            continue
        runs[block] = once(prepared, name, params, block)
        if runs[block].ms > blowup * min(r.ms for r in runs.values()):
            break
    return runs


def baseline(prepared: Prepared, name: str, reps: int) -> tuple[float, Run]:
    """Median ms of ``reps`` runs at the default block size, after a warm-up."""
    params = algorithms.get(name).resolve_params({})
    prime(algorithms.get(name), None, params)
    setup(algorithms.get(name), prepared)
    once(prepared, name, params, None)
    runs = [once(prepared, name, params, None) for _ in range(reps)]
    return statistics.median(r.ms for r in runs), runs[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="append", help="graph spec (repeatable)")
    parser.add_argument("--algo", action="append", help="variant NAME[:k=v,...] (repeatable)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--blowup", type=float, default=8.0)
    parser.add_argument("--budget", type=float, default=240.0, help="seconds for the whole run")
    args = parser.parse_args()
    deadline = time.perf_counter() + args.budget
    known = {spec.name for spec in algorithms.all_specs("gpu")}
    baselines = [name for name in BASELINES if name in known]
    facts = runtime.device_facts()
    print(f"{facts.name}, driver {facts.driver_version}, CUDA {facts.cuda_runtime}, "
          f"CuPy {facts.cupy_version}, {time.strftime('%Y-%m-%d')}")  # fmt: skip
    head = " | ".join(str(b) for b in SWEEP)
    sweep_rows = [f"| graph | variant | {head} |", "| --- | --- |" + " ---: |" * len(SWEEP)]
    columns = (
        "graph | n | m | max deg | variant | best block | median ms | rounds | ms/round | colors"
    )
    print(f"\n| {columns} |\n| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for graph_spec in args.graph or GRAPHS:
        if time.perf_counter() > deadline:
            print(f"<!-- {graph_spec}: skipped, budget spent -->")
            continue
        start = time.perf_counter()
        graph = load_graph(graph_spec)
        print(f"<!-- {graph_spec}: built in {time.perf_counter() - start:.1f} s -->", flush=True)
        uploaded = prepare(graph, "gpu")
        lead = f"| {graph_spec} | {graph.n} | {graph.m} | {graph.max_degree}"
        for text in args.algo or VARIANTS:
            prepared = uploaded.fresh()  # each variant sets up from nothing cached
            try:
                runs = sweep(prepared, text, args.blowup, deadline)
                if not runs:
                    print(f"{lead} | {text} | skipped: budget spent | | | | |", flush=True)
                    continue
                best = min(runs, key=lambda b: runs[b].ms)
                reps = 0 if runs[best].ms > SLOW_MS else args.reps - 1  # + the sweep's run
                more = [once(prepared, *variant(text), best) for _ in range(reps)]
                last = (more or [runs[best]])[-1]
                ms = statistics.median(r.ms for r in [runs[best], *more])
            except (GcbenchError, MemoryError) as exc:  # CuPy's OutOfMemoryError is a MemoryError
                print(f"{lead} | {text} | {type(exc).__name__}: {exc} | | | | |", flush=True)
                continue
            per_round = ms / last.rounds if last.rounds else float("nan")
            print(f"{lead} | {text} | {best} | {ms:.2f} | {last.rounds} | {per_round:.3f} | "
                  f"{last.colors} |", flush=True)  # fmt: skip
            cells = [f"{runs[b].ms:.1f}/{runs[b].rounds}" if b in runs else "—" for b in SWEEP]
            sweep_rows.append(f"| {graph_spec} | {text} | " + " | ".join(cells) + " |")
        for name in baselines:
            try:
                ms, last = baseline(uploaded.fresh(), name, args.reps)
            except (GcbenchError, MemoryError) as exc:
                print(f"{lead} | {name} | {type(exc).__name__}: {exc} | | | | |", flush=True)
                continue
            block = algorithms.get(name).default_block_size
            print(f"{lead} | {name} | {block} | {ms:.2f} | {last.rounds} | | {last.colors} |")
        del uploaded, prepared
        runtime.cupy().get_default_memory_pool().free_all_blocks()
    print("\nSweep: ms/rounds of one run per block size ('—': skipped)\n")
    print("\n".join(sweep_rows))


if __name__ == "__main__":
    main()
