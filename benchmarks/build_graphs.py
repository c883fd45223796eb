"""Time building the large generated graphs (uncached) and a CPU greedy LDF coloring of each.

Run: ``python benchmarks/build_graphs.py [SPEC ...]``, or ``--suite NAME`` for every graph an
offline run of that suite builds (its gen: graphs and the stand-ins of its remote ones; issue
15 wants each stand-in under a minute on a 2-core machine). Each graph is built into a fresh
temporary data directory, so the time includes generation, normalisation and writing the npz
cache; greedy is timed by ``gcbench.color`` (after numba compilation, which a first tiny
coloring triggers). "build cpu s" is the process CPU time (all threads), which a busy machine
inflates less than the wall time. Target: each generator under 30 s on a 2-core machine.
"""

from __future__ import annotations

import platform
import sys
import tempfile
import time

import gcbench
from gcbench.bench.suite import load_suite
from gcbench.errors import SpecError
from gcbench.graphs.sources import load_graph

SPECS = ("gen:rgg?scale=22", "gen:kron?scale=20&edgefactor=48", "gen:delaunay?scale=20")


def _greedy_available() -> bool:
    try:
        gcbench.algorithms.get("greedy")
    except SpecError:
        return False
    gcbench.color("gen:cycle?n=5", "greedy", order="ldf")  # compile outside the timing
    return True


def main(specs: tuple[str, ...]) -> None:
    greedy = _greedy_available()
    if not greedy:
        print("greedy is not registered yet: skipping the coloring column", file=sys.stderr)
    print(f"host: {platform.node()}, {platform.processor() or platform.machine()}")
    print("| graph | n | m | max deg | build s | build cpu s | greedy ldf ms | colors |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for spec in specs:
        with tempfile.TemporaryDirectory() as scratch:
            start, cpu = time.perf_counter(), time.process_time()
            graph = load_graph(spec, data_dir=scratch)
            build_s, cpu_s = time.perf_counter() - start, time.process_time() - cpu
        ms, colors = "", ""
        if greedy:
            result = gcbench.color(graph, "greedy", order="ldf")
            ms, colors = f"{result.time_ms:.0f}", str(result.validation.colors)
        print(
            f"| {graph.name} | {graph.n} | {graph.m} | {graph.max_degree} | {build_s:.1f} "
            f"| {cpu_s:.1f} | {ms} | {colors} |",
            flush=True,
        )


def offline_specs(suite: str) -> tuple[str, ...]:
    """The graphs an offline run of ``suite`` builds: gen: specs and stand-ins."""
    entries = load_suite(suite).graphs
    return tuple(e.standin or e.spec for e in entries if e.standin or e.spec.startswith("gen:"))


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--suite"] and len(args) == 2:
        main(offline_specs(args[1]))
    else:
        main(tuple(args) or SPECS)
