"""The distance-2 ``auto`` on inputs its rule was not chosen on (issue 44, item 6;
docs/auto.md, "Distance-2"): per input and problem, the three GPU algorithms (vb-bit, nb-bit,
jp-d2 in random order) and ``auto`` interleaved after two warm-ups each, every coloring
validated and its product checked, then the serial greedy (natural order) on the host.

Prints per input: the features the rule reads, auto's choice, each configuration's median
``time_ms`` with its 95 % interval, and auto's time over the fastest GPU algorithm's and over
the fastest of all (the serial greedy included), with intervals. The rule's target: auto
within 1.2× of the fastest on most inputs, never the slowest by far.

    PYTHONPATH=. python3 benchmarks/auto_d2.py [--input SPEC:PROBLEM]... [--reps N]
"""

from __future__ import annotations

import argparse
import statistics

from _common import cell, conditions_line, gpu_banner, gpu_meter, header, interleaved

from gcbench import algorithms
from gcbench.algorithms import auto_d2
from gcbench.algorithms.execute import prepare
from gcbench.graphs.sources import load_instance
from gcbench.stats import ratio_ci

# Inputs the rule was not chosen on (the second evaluation's): power-law and dense-row
# matrices on either side of HUB_ENTRIES, power-law graphs, meshes, stencils, random Jacobians
# and small patterns just over TINY.
INPUTS = (
    "gen:skewed?rows=100000&cols=100000&mean=6&exponent=2.5:pd2",
    "gen:skewed?rows=200000&cols=200000&mean=8&exponent=3:pd2",
    "gen:uniform?rows=200000&cols=200000&dense=1&width=1000:pd2",
    "gen:uniform?rows=400000&cols=100000&dense=2&width=1500:pd2",
    "gen:kron?scale=14:d2",
    "gen:rmat?scale=17&a=0.45&b=0.15&c=0.15:d2",
    "gen:rgg?scale=16:d2",
    "gen:regular?n=100000&d=6:d2",
    "gen:road?scale=20:pd2",
    "gen:stencil?dim=2&side=512&points=5&rows=interior:pd2",
    "gen:uniform?rows=500000&cols=500000&length=5:pd2",
    "gen:grid2d?side=80:d2",
    "gen:uniform?rows=6000&cols=6000&length=4:pd2",
)
# The first evaluation's inputs (2026-11-30, before the rule's last change: docs/auto.md).
FIRST = (
    "gen:rgg?scale=18:d2",
    "gen:delaunay?scale=18:pd2",
    "gen:grid2d?side=1000:d2",
    "gen:road?scale=18:d2",
    "gen:kron?scale=15:d2",
    "gen:rmat?scale=16&a=0.45&b=0.15&c=0.15:d2",
    "gen:er?n=100000&avg_degree=10:d2",
    "gen:star?leaves=5000:d2",
    "gen:stencil?dim=2&side=1024&points=9&rows=interior:pd2",
    "gen:stencil?dim=3&side=96&points=7&rows=interior:pd2-rows",
    "gen:skewed?rows=300000&cols=300000&mean=6&exponent=2.5:pd2",
    "gen:skewed?rows=300000&cols=300000&mean=6&exponent=2.5:pd2-rows",
    "gen:uniform?rows=300000&cols=100000&length=6:pd2",
    "gen:uniform?rows=100000&cols=300000&length=6:pd2-rows",
    "gen:uniform?rows=50000&cols=50000&dense=3&width=2000:pd2",
    "gen:grid2d?side=30:d2",
    "gen:grid2d?side=60:d2",
    "gen:uniform?rows=1000&cols=1000&length=4:pd2",
    "gen:uniform?rows=3000&cols=3000&length=4:pd2",
)
GPU = {"vb-bit": ("vb-bit", {}), "nb-bit": ("nb-bit", {}), "jp-d2": ("jp-d2", {"order": "random"})}


def _ratio(mine: list[float], best: list[float]) -> str:
    r = ratio_ci(best, mine)
    return f"{r.ratio:.2f} [{r.low:.2f}, {r.high:.2f}]" if r else ""


def measure(spec_text: str, reps: int, meter) -> str:  # type: ignore[no-untyped-def]
    graph_spec, _, problem = spec_text.rpartition(":")
    pattern = load_instance(graph_spec, problem)
    features = auto_d2.net_features(pattern)
    pick = auto_d2.choose(features, "gpu")
    prepared = prepare(pattern, "gpu")
    times: dict[str, list[float]] = {}
    seen: list[dict] = []
    for label, (name, params) in {**GPU, "auto": ("auto", {})}.items():
        spec = algorithms.get(name, "gpu", problem)
        done = interleaved(spec, prepared, {label: params}, reps, meter)[label]
        assert all(r.validation.recovered for r in done), (label, spec_text)
        times[label] = [r.time_ms for r in done]
        seen += [r.conditions for r in done]
    serial = algorithms.get("greedy", "cpu", problem)
    host = prepare(pattern, "cpu")
    done = interleaved(serial, host, {"serial": {"order": "natural"}}, max(3, reps // 3))
    times["serial"] = [r.time_ms for r in done["serial"]]
    gpu_best = min(GPU, key=lambda k: statistics.median(times[k]))
    best = min(times, key=lambda k: statistics.median(times[k]) if k != "auto" else float("inf"))
    cells = [
        spec_text,
        f"{features.net_skew:.3g} / {features.column_skew:.3g} / {features.heavy_share:.2f}"
        f"{' / sym' if features.symmetric else ''} / {features.nnz:,}",
        pick.algorithm,
        *(cell(times[k]) for k in (*GPU, "serial", "auto")),
        f"{_ratio(times['auto'], times[gpu_best])} ({gpu_best})",
        f"{_ratio(times['auto'], times[best])} ({best})",
    ]
    return "| " + " | ".join(cells) + " |", f"{spec_text}: {conditions_line(seen)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", action="append", help="SPEC:PROBLEM (repeatable)")
    parser.add_argument("--first", action="store_true", help="the first evaluation's inputs")
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    print(gpu_banner())
    meter = gpu_meter()
    print(header("| input | net skew / column skew / heavy share / entries | auto picks "
                 "| vb-bit ms | nb-bit ms | jp-d2 ms | serial ms | auto ms "
                 "| auto ÷ best GPU | auto ÷ best |"))  # fmt: skip
    conditions = []
    for spec_text in args.input or (FIRST if args.first else INPUTS):
        line, condition = measure(spec_text, args.reps, meter)
        print(line, flush=True)
        conditions.append(condition)
    print("\nConditions (median [5th, 95th percentile] over the input's GPU repetitions):")
    print("\n".join(f"- {line}" for line in conditions))


if __name__ == "__main__":
    main()
