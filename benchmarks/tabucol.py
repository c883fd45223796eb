"""Benchmark tabucol against its start, DSatur, on coloring instances whose χ is known
(issue 45; docs/cpu-algorithms.md, "tabucol").

Runs ``gcbench run --device cpu`` with ``greedy order=sd`` and ``tabucol`` at each budget on
the graphs given (``dimacs:NAME`` specs carry their published χ; the nine instance files of
../shared/graphs/dimacs serve offline through a loopback HTTP server and
``GCBENCH_DIMACS_URL``, as its README says), then prints one markdown row per graph: χ (or
the best known count given with ``--best NAME=K``), the clique gcbench finds, DSatur's colors
and time, and each budget's colors (median, and the range over the runs) and time, with the
colors ÷ χ and their geometric mean.

    GCBENCH_DIMACS_URL=http://127.0.0.1:8765 python3 benchmarks/tabucol.py \\
        --graph dimacs:queen8_8 --graph dimacs:le450_15c --budget 1000 --budget 5000 --out F.csv
    python3 benchmarks/tabucol.py --table F.csv --best DSJC1000.5=82
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
from _common import cell


def run(graphs: list[str], budgets: list[int], reps: int, out: Path) -> None:
    """``gcbench run`` of DSatur and tabucol at each budget on ``graphs``, into ``out``."""
    command = [sys.executable, "-m", "gcbench", "run", "--device", "cpu", "--quiet",
               "--algo", "greedy,tabucol", "--param", "order=sd",
               "--param", "budget_ms=" + ",".join(str(b) for b in budgets),
               "--reps", str(reps), "--warmup", "0", "--timeout", "120", "--out", str(out),
               *(arg for g in graphs for arg in ("--graph", g))]  # fmt: skip
    subprocess.run(command, check=False)


def table(path: Path, best: dict[str, int]) -> list[str]:
    """The markdown table of the results file ``path``."""
    rows = pd.read_csv(path)
    rows = rows[rows["status"] == "ok"].copy()
    rows["budget"] = rows["params"].str.extract(r"budget_ms=([0-9.]+)")[0].astype(float)
    budgets = sorted(rows["budget"].dropna().unique())
    head = ["graph", "n", "χ (or best known)", "clique", "DSatur colors, ms"]
    head += [f"tabucol {b:.0f} ms: colors (runs' range), ms" for b in budgets]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    ratios: dict[float, list[float]] = {b: [] for b in budgets}
    for graph, case in rows.groupby("graph", sort=False):
        name = Path(str(graph).removeprefix("dimacs:")).name.removesuffix(".col.gz")
        known = case["chi_known"].iloc[0]
        chi = best.get(name, None if pd.isna(known) else int(known))
        dsatur = case[case["algorithm"] == "greedy"]
        start = f"{dsatur['colors'].median():.0f}, {cell(dsatur['time_ms'].tolist(), '.4g')}"
        cells = [name, f"{case['n'].iloc[0]:,}", "—" if chi is None else str(chi),
                 str(int(case["chi_lower"].iloc[0])), start]  # fmt: skip
        for b in budgets:
            runs = case[case["budget"] == b]
            colors = runs["colors"]
            cells.append(f"{colors.median():.0f} ({colors.min():.0f}–{colors.max():.0f}), "
                         f"{cell(runs['time_ms'].tolist(), '.4g')}")  # fmt: skip
            if chi is not None:
                ratios[b].append(colors.median() / chi)
        lines.append("| " + " | ".join(cells) + " |")
    for b in budgets:
        if ratios[b]:
            mean = math.exp(sum(math.log(r) for r in ratios[b]) / len(ratios[b]))
            lines.append(f"\ntabucol {b:.0f} ms: colors ÷ χ, geometric mean {mean:.3f} over "
                         f"{len(ratios[b])} graphs, largest {max(ratios[b]):.3f}")  # fmt: skip
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="append", default=[], help="graph spec (repeatable)")
    parser.add_argument("--budget", action="append", type=int, default=[], help="tabucol ms")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("results/tabucol.csv"))
    parser.add_argument("--table", type=Path, help="print the table of this results file")
    parser.add_argument("--best", action="append", default=[], help="NAME=K: χ or best known")
    args = parser.parse_args()
    best = {k: int(v) for k, v in (item.split("=", 1) for item in args.best)}
    path = args.table
    if path is None:
        run(args.graph, args.budget or [1000], args.reps, args.out)
        path = args.out
    print("\n".join(table(path, best)))


if __name__ == "__main__":
    main()
