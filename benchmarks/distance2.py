"""Benchmark distance-2 and partial distance-2 coloring (issue 36; docs/distance2.md).

For each graph and problem: every GPU algorithm (vb-bit, nb-bit, jp-d2 in the random and
largest-first orders) at its default block size, primed, set up, one warm-up, then ``--reps``
timed runs, each validated and its compressed product checked (``recovered``); and the serial
greedy references on the CPU in the natural and largest-first orders (jp-d2's random order
equals the serial greedy in that order by construction and by test, and is not timed
serially): ``--serial-reps`` timed runs, or one when the first took longer than ``--slow``
seconds (numba is compiled before, on the primer). Times are the runner's: CUDA events around
the GPU call alone, ``perf_counter`` around the serial one. Prints one markdown table per graph
and problem, with each row's colors against the serial greedy in the same order (natural for
vb-bit and nb-bit, which take the lowest free color as the natural greedy does) and its
speedup over the serial greedy in the natural order (the fastest serial one), then the
issue's targets.

    PYTHONPATH=. python3 benchmarks/distance2.py [--graph SPEC@PROBLEM[,PROBLEM]]... [--reps N]
"""

from __future__ import annotations

import argparse
import platform
import statistics
from dataclasses import dataclass

from _common import header, variant_for

from gcbench.algorithms.execute import Prepared, Repetition, prepare, prime, repetitions, setup
from gcbench.algorithms.registry import AlgorithmSpec
from gcbench.algorithms.sampling import Sampling
from gcbench.graphs.sources import load_instance
from gcbench.stats import median_ci

GRAPHS = (
    "gen:rgg?scale=20&seed=0@d2,pd2",
    "gen:grid2d?side=2048@d2,pd2",
    "gen:delaunay?scale=20&seed=0@d2,pd2",
    "gen:kron?scale=18&seed=0@d2,pd2",
    "gen:stencil?dim=3&side=128&points=7&rows=interior@pd2,pd2-rows",
    "gen:skewed?rows=1000000&cols=1000000&mean=8&exponent=3&seed=0@pd2,pd2-rows",
)
GPU = ("vb-bit", "nb-bit", "jp-d2:order=random", "jp-d2:order=largest-first")
SERIAL = ("greedy:order=natural", "greedy:order=largest-first")
SAME_ORDER = {"vb-bit": "natural", "nb-bit": "natural"}  # lowest free color, as natural greedy


@dataclass
class Result:
    """A case's validated runs (all valid and recovered, or the first failure's text)."""

    label: str
    order: str
    runs: list[Repetition]

    @property
    def times(self) -> list[float]:
        return [r.time_ms for r in self.runs]

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def colors(self) -> int:
        return self.runs[-1].validation.colors

    @property
    def problem(self) -> str | None:
        """Why the runs do not count: a conflict, an uncolored column, no recovery."""
        for r in self.runs:
            v = r.validation
            if not v.valid or v.recovered is not True:
                return f"{v.conflicts} conflicts, {v.uncolored} uncolored, recovered {v.recovered}"
        return None


def measure(spec: AlgorithmSpec, params: dict, prepared: Prepared, reps: int, slow_ms: float,
            warmup: bool) -> list[Repetition]:  # fmt: skip
    """Validated runs of one case on a fresh view: primed and set up first; a warm-up run
    when ``warmup``; then ``reps`` runs, or only the first when it took over ``slow_ms``."""
    view = prepared.fresh()
    prime(spec, None, params)
    setup_ms = setup(spec, view)

    def runs(count: int) -> list[Repetition]:
        return list(repetitions(spec, view, None, params, sampling=Sampling(count, 0),
                                setup_ms=setup_ms))  # fmt: skip

    if warmup:
        runs(1)
    first = runs(1)
    return first if first[0].time_ms > slow_ms else first + runs(reps - 1)


def time_text(result: Result) -> str:
    interval = median_ci(result.times)
    spread = f" [{interval[0]:.3g}, {interval[1]:.3g}]" if interval else ""
    return f"{result.median:.4g}{spread} ({len(result.runs)})"


def bench(spec_text: str, problem: str, args: argparse.Namespace) -> list[str]:
    """One graph and problem: the table's lines, and the targets' verdicts in ``notes``."""
    instance = load_instance(spec_text, problem)
    gpu, cpu = prepare(instance, "gpu"), prepare(instance, "cpu")
    serial = {}
    for text in SERIAL:
        spec, params = variant_for(text, problem)
        runs = measure(spec, params, cpu, args.serial_reps, args.slow * 1e3, warmup=False)
        serial[params["order"]] = Result(text, params["order"], runs)
    rows = []
    for text in GPU:
        spec, params = variant_for(text, problem)
        runs = measure(spec, params, gpu, args.reps, args.slow * 1e3, warmup=True)
        rows.append(Result(text, params.get("order", SAME_ORDER.get(spec.name, "")), runs))
    lines = [f"\n### {spec_text}, {problem}: {instance.n_rows:,} × {instance.n_cols:,}, "
             f"{instance.nnz:,} nonzeros, lower bound {instance.max_row}\n",
             header("| algorithm | ms, median [95 % CI] (runs) | rounds | colors | "
                    "÷ same-order serial colors | speedup over serial natural | ok |")]  # fmt: skip
    natural = serial["natural"]
    for result in [*serial.values(), *rows]:
        base = serial.get(result.order)  # none for jp-d2's random order: equal by construction
        rounds = result.runs[-1].coloring.iterations
        ratio = "—" if base is None else f"{result.colors / base.colors:.3f}"
        lines.append(
            f"| {result.label} | {time_text(result)} | {'' if rounds is None else rounds} | "
            f"{result.colors} | {ratio} | {natural.median / result.median:.1f} | "
            f"{result.problem or 'yes'} |"
        )
    best = min(rows, key=lambda r: r.median)
    same = [r for r in rows if r.order in serial]
    args.notes.append(
        f"{spec_text} {problem}: best GPU {best.label} {best.median:.3g} ms, "
        f"{natural.median / best.median:.0f}× serial natural ({natural.median:.4g} ms); "
        "colors ÷ same-order serial: "
        + ", ".join(f"{r.label} {r.colors / serial[r.order].colors:.3f}" for r in same)
        + f"; nb-bit ÷ vb-bit time {rows[1].median / rows[0].median:.2f}"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="append", help="SPEC@PROBLEM[,PROBLEM] (repeatable)")
    parser.add_argument("--reps", type=int, default=9, help="GPU runs per case (9)")
    parser.add_argument("--serial-reps", type=int, default=3, help="serial runs per case (3)")
    parser.add_argument("--slow", type=float, default=10.0,
                        help="seconds past which a case's first run is its only one")  # fmt: skip
    args = parser.parse_args()
    args.notes = []
    from gcbench.algorithms.gpu import runtime

    facts = runtime.device_facts()
    print(f"GPU {facts.name}; CPU {platform.processor() or platform.machine()} "
          f"({_cpu_name()}); one CPU thread for the serial greedy")  # fmt: skip
    for item in args.graph or GRAPHS:
        spec_text, _, problems = item.rpartition("@")
        for problem in problems.split(","):
            print("\n".join(bench(spec_text, problem, args)), flush=True)
    print("\n### Targets\n")
    for note in args.notes:
        print(f"- {note}")


def _cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo (Linux), else the platform's word for it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


if __name__ == "__main__":
    main()
