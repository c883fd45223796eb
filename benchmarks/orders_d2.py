"""The distance-2 column orders (issue 44, item 5; docs/distance2.md, "Orders"): colors and time
of the serial greedy in each order of ``PATTERN_ORDERS``, and of computing each order alone.

Per input, every order is timed twice per repetition: ``pattern_order`` alone, then
``greedy_d2_colors`` (whose timed call computes the order too, as the runner's serial rows
do); the orders' repetitions are interleaved (one of each in turn, after one warm-up of
each), so drift in the machine's state falls on all of them alike. Every coloring is
validated (``validate_pattern``). Prints, per input, the median time with its 95 % interval
(``gcbench.stats.median_ci``) and the colors against the lower bound (the largest row);
``--csv`` keeps every repetition.

    PYTHONPATH=. python3 benchmarks/orders_d2.py [--reps 7] [--input SPEC PROBLEM]...
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import statistics
import subprocess
import time
from datetime import date
from pathlib import Path

from _common import header

from gcbench.algorithms.cpu.greedy_d2 import greedy_d2_colors
from gcbench.algorithms.pattern_validation import validate_pattern
from gcbench.algorithms.priority import PATTERN_ORDERS, pattern_order
from gcbench.graphs.pattern import Pattern, from_entries
from gcbench.graphs.sources import load_instance
from gcbench.stats import median_ci

# (spec, problem): meshes' Jacobians (2-D 9-point, 3-D 27-point stencils), a skewed random
# matrix by columns and by rows, and two graphs' distance-2 problems; sized for the 2-core VM.
INPUTS = (
    ("gen:stencil?dim=2&side=512&points=9", "pd2"),
    ("gen:stencil?dim=3&side=64&points=27", "pd2"),
    ("gen:skewed?rows=200000&cols=200000&mean=8&exponent=3&seed=0", "pd2"),
    ("gen:skewed?rows=200000&cols=200000&mean=8&exponent=3&seed=0", "pd2-rows"),
    ("gen:delaunay?scale=18&seed=0", "d2"),
    ("gen:rgg?scale=18&seed=0", "d2"),
)
COLUMNS = ("input", "problem", "order", "rep", "order_ms", "greedy_ms", "colors")


def timed_ms(call) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = call()
    return (time.perf_counter() - start) * 1e3, result


def measure(pattern: Pattern, reps: int) -> dict[str, dict[str, list[float]]]:
    """Per order: the times of the order alone and of the greedy, and its colors, over one
    warm-up (not kept) and ``reps`` interleaved repetitions."""
    kept: dict[str, dict[str, list[float]]] = {
        order: {"order_ms": [], "greedy_ms": [], "colors": []} for order in PATTERN_ORDERS
    }
    for rep in range(reps + 1):
        for order in PATTERN_ORDERS:
            order_ms, _ = timed_ms(lambda: pattern_order(pattern, order))  # noqa: B023
            greedy_ms, colors = timed_ms(lambda: greedy_d2_colors(pattern, order))  # noqa: B023
            result = validate_pattern(pattern, colors)
            if not result.valid:
                raise SystemExit(f"{pattern.name} {order}: invalid coloring ({result})")
            if rep:
                kept[order]["order_ms"].append(order_ms)
                kept[order]["greedy_ms"].append(greedy_ms)
                kept[order]["colors"].append(result.colors)
    return kept


def number(x: float) -> str:
    """Three significant digits, without an exponent."""
    return f"{x:.0f}" if x >= 100 else f"{x:.3g}"


def shown(values: list[float]) -> str:
    """Median [95 % interval] in ms, or in s from 1 s up."""
    interval = median_ci(values)
    scale, unit = (1e3, " s") if statistics.median(values) >= 1e3 else (1.0, "")
    spread = f" [{number(interval[0] / scale)}, {number(interval[1] / scale)}]" if interval else ""
    return f"{number(statistics.median(values) / scale)}{spread}{unit}"


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="timed repetitions per order")
    parser.add_argument(
        "--input",
        nargs=2,
        action="append",
        metavar=("SPEC", "PROBLEM"),
        help="an input and its problem (d2, pd2, pd2-rows); repeatable",
    )
    parser.add_argument("--csv", type=Path, help="write every repetition here")
    args = parser.parse_args()
    inputs = [tuple(i) for i in args.input] if args.input else list(INPUTS)

    primer = from_entries(2, 3, [0, 0, 1], [0, 1, 2])  # numba compiled before any timing
    for order in PATTERN_ORDERS:
        greedy_d2_colors(primer, order)
    print(
        f"{date.today()}, commit {commit()}, {cpu_model()}, {os.cpu_count()} cores, "
        f"one thread; {args.reps} repetitions after one warm-up, orders interleaved\n"
    )
    rows = []
    for spec, problem in inputs:
        pattern = load_instance(spec, problem)
        _ = pattern.columns  # the column view is built before any timing, as the runner does
        kept = measure(pattern, args.reps)
        print(
            f"### {spec}, {problem}: {pattern.n_cols:,} columns, {pattern.n_rows:,} rows, "
            f"{pattern.nnz:,} nonzeros, Σ row² {pattern.pairs:,}, lower bound "
            f"{pattern.max_row}\n"
        )
        print(header("| order | the order alone, ms | greedy (with the order), ms | colors |"))
        for order, times in kept.items():
            colors = sorted(set(int(c) for c in times["colors"]))
            print(
                f"| {order} | {shown(times['order_ms'])} | {shown(times['greedy_ms'])} | "
                f"{'/'.join(map(str, colors))} |"
            )
            for rep in range(args.reps):
                rows.append(
                    (
                        spec,
                        problem,
                        order,
                        rep,
                        times["order_ms"][rep],
                        times["greedy_ms"][rep],
                        times["colors"][rep],
                    )
                )
        print(flush=True)
    if args.csv:
        with args.csv.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(COLUMNS)
            writer.writerows(rows)


if __name__ == "__main__":
    main()
