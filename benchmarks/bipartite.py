"""The bipartite check of ``auto``'s ``objective=fewest`` on the GPU (issue 45, item 4): what
it costs beside the pick it runs before (ecl-gc with ``reduce=both``, the rule's fewest pick
on every kind of graph), and the colors it saves on bipartite graphs.

Per graph: the check alone (CUDA events around ``two_colors``, after two warm-ups, 9 runs,
median with its 95 % interval), whether the graph is bipartite, ecl-gc + both timed as the
runner times it (``_common.time_case``: primed, one warm-up, 9 validated runs) and its colors,
and the check over ecl-gc's time.

    PYTHONPATH=. python3 benchmarks/bipartite.py [--graph SPEC]...
"""

from __future__ import annotations

import argparse
import statistics

from _common import cell, gpu_banner, header, time_case

from gcbench.algorithms.execute import prepare
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.gpu.bipartite import two_colors
from gcbench.graphs.sources import load_graph

# auto-eval-short's graphs (not bipartite but the grid) and small-χ families of issue 45
GRAPHS = (
    "gen:rgg?scale=21&seed=0",
    "gen:delaunay?scale=21&seed=0",
    "gen:grid2d?side=3000",
    "gen:kron?scale=19&seed=0",
    "gen:rmat?a=0.45&b=0.15&c=0.15&edgefactor=8&scale=18&seed=0",
    "gen:grid2d?side=90",
    "gen:cycle?n=200000",
    "gen:crown?n=2000",
    "gen:bipartite?a=1000&b=3000",
)
REPS = 9


def check_times(prepared) -> tuple[list[float], bool]:
    times, bipartite = [], False
    for rep in range(REPS + 2):
        with runtime.timed() as clock:
            colors = two_colors(prepared.handle)
        if rep >= 2:
            times.append(runtime.synced(clock.ms))
        bipartite = colors is not None
    return times, bipartite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="append", help="graph spec (repeatable)")
    args = parser.parse_args()
    print(gpu_banner())
    print(header("| graph | bipartite | check ms [95 % CI] | ecl-gc + both ms [95 % CI] | "
                 "ecl-gc + both colors | check ÷ ecl-gc + both |"))  # fmt: skip
    for spec in args.graph or GRAPHS:
        prepared = prepare(load_graph(spec), "gpu")
        check, bipartite = check_times(prepared)
        pick = time_case("ecl-gc", prepared, {"reduce": "both"}, reps=REPS)
        ratio = statistics.median(check) / pick.median_ms
        print(
            f"| {spec} | {'yes' if bipartite else 'no'} | {cell(check)} | "
            f"{cell(pick.times_ms)} | {pick.validation.colors} | {ratio:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
