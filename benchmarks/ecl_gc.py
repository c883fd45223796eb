"""ECL-GC benchmark (issues 13, 35): gcbench's ``ecl-gc`` beside the original ECL-GC, per graph.

    PYTHONPATH=. python3 benchmarks/ecl_gc.py [--reps 7] [--graph SPEC]... [--reference CSV]
                                             [--write-egr DIR] [--no-verify] [--out FILE]

Protocols (docs/performance.md states them beside each table):

- ``runner``: what ``gcbench run`` records. One warm-up, then ``--reps`` timed runs, each
  followed by validation on the device and the copy of the colors back (the GPU then waits
  for the host before the next run). Timed: CUDA events around the call, i.e. the three
  kernels of ``ecl_init``, ``ecl_high``, ``ecl_low`` replayed as one CUDA graph, with the
  device held until the call is queued (``runtime.held``; since 2026-11-29): an original
  compared with it must be timed behind the same hold.
- ``back-to-back``: the same call repeated with nothing between the runs but the read-back
  of the kernels' counters: the shape of the original's own timing loop.

The original is not part of gcbench: ``--write-egr DIR`` writes each graph in its binary CSR
format (int32 nodes, edges, offsets, neighbours), and ``--reference CSV`` (columns graph,
protocol, original_ms) adds its times, measured on the same files, to the table.

Also printed: rounds (passes), the time of each kernel (launched one by one between CUDA
events), the floor (reading the CSR once at this GPU's device-to-device copy rate), and
shortcuts=none and reduce=both times. ``--verify`` (default) checks every reduce=none
coloring against serial greedy LDF, vertex for vertex.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from _common import back_to_back, header, time_case

from gcbench import algorithms, load_graph
from gcbench.algorithms import execute
from gcbench.algorithms.cpu.greedy import greedy_colors
from gcbench.algorithms.gpu import ecl_gc, runtime

# issue 13's eight graphs, in its order, then issue 35's other families: R-MAT and a larger
# kron (power-law), er and a random regular graph, and road-like graphs that color in tens of µs
GRAPHS = (
    "gen:rgg?scale=16", "gen:rgg?scale=20", "gen:delaunay?scale=20", "gen:grid2d?side=2048",
    "gen:kron?scale=18", "gen:rgg?scale=22", "gen:kron?scale=20&edgefactor=48",
    "gen:rgg?scale=24",
    "gen:rmat?scale=20", "gen:kron?scale=21", "gen:er?avg_degree=8&n=4000000&seed=0",
    "gen:regular?d=16&n=2000000&seed=0", "gen:road?scale=12", "gen:road?scale=17&extra=0.05",
    "gen:road?scale=20",
)  # fmt: skip
OTHER_CONFIGS = ({"shortcuts": "none"}, {"reduce": "both"}, {"shortcuts": "none", "reduce": "both"})
HEADER = (
    "| graph | n | nnz | original ms | gcbench ms | ratio | 0.8× original | passes "
    "| init / dag / high / low ms | floor ms | × floor |"
)


def _reference(path: str | None) -> dict[tuple[str, str], float]:
    if path is None:
        return {}
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {(r["graph"], r["protocol"]): float(r["original_ms"]) for r in rows}


def write_egr(spec: str, directory: Path) -> Path:
    """``spec`` in the original ECL-GC's binary CSR format (.egr)."""
    graph = load_graph(spec)
    path = directory / f"{spec.replace(':', '_').replace('?', '_').replace('&', '_')}.egr"
    with open(path, "wb") as out:
        np.array([graph.n, graph.nnz], dtype=np.int32).tofile(out)
        graph.indptr.astype(np.int32).tofile(out)
        graph.indices.tofile(out)
    return path


def copy_rate() -> float:
    """Bytes per ms of a 2 GiB device-to-device copy (read plus written), the floor's rate."""
    cp = runtime.cupy()
    src = cp.ones(1 << 29, dtype=np.float32)
    dst = cp.empty_like(src)
    times = []
    for _ in range(5):
        with runtime.timed() as clock:
            dst[...] = src
        times.append(clock.ms())
    return 2 * src.nbytes / statistics.median(times)


def bench_graph(spec: str, reps: int, verify: bool, ref: dict, rate: float) -> list[str]:
    graph = load_graph(spec)
    prepared = execute.prepare(graph, "gpu")
    name = algorithms.get("ecl-gc")
    default = name.resolve_params({})
    timed = time_case("ecl-gc", prepared, {}, reps=reps)
    same = ""
    if verify:
        reference = greedy_colors(graph, "ldf")
        same = " (= LDF)" if all(np.array_equal(r.colors, reference) for r in timed.runs) else (
            " **≠ LDF**")  # fmt: skip
    view = prepared.fresh()
    execute.setup(name, view)
    split = ecl_gc.kernel_times(view.handle)
    floor = (4 * (graph.n + 1) + 4 * graph.nnz) / rate
    rows = []
    for protocol, ms in (
        ("runner", timed.median_ms),
        ("back-to-back", back_to_back("ecl-gc", prepared, default, reps)),
    ):
        original = ref.get((spec, protocol))
        ratio = f"{ms / original:.2f}" if original else ""
        target = f"{0.8 * original:.3f}" if original else ""
        kernels = " / ".join(f"{split.get(k, 0.0):.3f}" for k in ecl_gc.KERNELS)
        rows.append(
            f"| {spec} ({protocol}) | {graph.n:,} | {graph.nnz:,} | {original or ''} "
            f"| {ms:.3f}{same} | {ratio} | {target} | {statistics.median(timed.iterations):.0f} "
            f"| {kernels} | {floor:.3f} | {ms / floor:.0f} |"
        )
        print(rows[-1], flush=True)
    extra = []
    for params in OTHER_CONFIGS:
        case = time_case("ecl-gc", prepared, params, reps=reps)
        extra.append(f"{params}: {case.median_ms:.3f} ms, {case.validation.colors} colors")
    grid = ecl_gc.coloring_grid(view.handle, ecl_gc.BLOCK, "both")
    order = "in order" if grid.ordered else "in band order"
    print(
        f"{spec}: ecl_init/ecl_low grid {grid.blocks} blocks, pass 0 {order}; " + "; ".join(extra),
        flush=True,
    )
    return rows


def _fill_cache(spec: str) -> None:
    """Generate ``spec`` into the graph cache (a pool task: the graph stays in the worker)."""
    load_graph(spec)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", action="append", help="graph spec (repeatable)")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--no-verify", dest="verify", action="store_false")
    parser.add_argument("--reference", help="the original's times: graph,protocol,original_ms")
    parser.add_argument("--write-egr", type=Path, help="write the graphs as .egr files here")
    parser.add_argument("--out", help="also write the markdown table here")
    args = parser.parse_args(argv)
    graphs = tuple(args.graph or GRAPHS)
    with ProcessPoolExecutor(max_workers=min(len(graphs), os.cpu_count() or 1)) as pool:
        list(pool.map(_fill_cache, graphs))  # in parallel; nothing comes back
    if args.write_egr:
        args.write_egr.mkdir(parents=True, exist_ok=True)
        for spec in graphs:
            print(f"{spec}\t{write_egr(spec, args.write_egr)}", flush=True)
        return 0
    facts = runtime.device_facts()
    rate = copy_rate()
    print(f"persistent kernels at {ecl_gc.BLOCK} threads: {ecl_gc.geometry()}", flush=True)
    title = (
        f"ecl-gc (shortcuts both, reduce none) on {facts.name} (driver {facts.driver_version}, "
        f"CUDA {facts.cuda_runtime}, CuPy {facts.cupy_version}), {datetime.date.today()}, "
        f"median of {args.reps} after one warm-up; copy rate {rate / 1e9:.2f} TB/s"
    )
    print(title, HEADER, sep="\n", flush=True)
    ref = _reference(args.reference)
    rows = [row for spec in graphs for row in bench_graph(spec, args.reps, args.verify, ref, rate)]
    table = "\n".join([title, "", header(HEADER), *rows])
    print("\n" + table)
    if args.out:
        Path(args.out).write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
