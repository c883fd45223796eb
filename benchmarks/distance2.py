"""Benchmark distance-2 and partial distance-2 coloring (issue 36; docs/distance2.md).

Runs the suites through ``gcbench run``, so every case is isolated in a worker with the run's
wall-clock timeout (a kron hub's distance-2 neighbourhoods can take minutes, and a case past
the timeout is recorded, not waited for), every repetition validated and its compressed
product checked (``recovered``):

- ``--gpu``: configs/distance2.toml, every GPU algorithm at its default block size, one
  warm-up and 7 runs (kron 18: 3, each within 20 s), on the suite's graphs and on issue 44's
  further shapes (``shapes``: a dense row among short rows, random rectangular matrices both
  ways round, the 27-point stencil; ``star``: a hub of 10⁵ leaves, d2; ``--skip`` leaves
  any of them out);
- ``--serial``: configs/distance2-serial.toml, the serial greedy references on one CPU
  thread in the natural and largest-first orders, 3 runs (kron 18: 1, within 120 s), no
  warm-up (numba is compiled on the primer first).

Then prints, from the CSVs written and any given with ``--table``, one markdown table per
graph and problem: each configuration's median time with its 95 % interval, runs, rounds,
colors, colors against the serial greedy in the same order (natural for vb-bit and nb-bit,
which take the lowest free color as the natural greedy does; jp-d2's random order equals the
serial greedy in that order by construction and by test, and is not timed serially), and the
speedup over the serial greedy in the natural order (the fastest serial one); then the
issue's targets.

    PYTHONPATH=. python3 benchmarks/distance2.py --serial --gpu --out DIR
    python3 benchmarks/distance2.py --table serial.csv gpu.csv
    python3 benchmarks/distance2.py --table after.csv --before before.csv  # an A/B of two trees
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
from _common import cell

# (name, graphs, problems, which reps): the suites' graphs in three runs, so kron 18 gets fewer
# repetitions and --graph keeps the matrices to their problems.
RUNS = (
    ("meshes", ("gen:rgg?scale=20&seed=0", "gen:grid2d?side=2048", "gen:delaunay?scale=20&seed=0"),
     "d2,pd2", 0),
    ("matrices", ("gen:stencil?dim=3&side=128&points=7&rows=interior",
                  "gen:skewed?rows=1000000&cols=1000000&mean=8&exponent=3&seed=0"),
     "pd2,pd2-rows", 0),
    ("kron", ("gen:kron?scale=18&seed=0",), "d2,pd2", 1),
    # issue 44's shapes: a dense row among short ones, random rectangular both ways round,
    # the 27-point stencil, and a star's hub (d2)
    ("shapes", ("gen:uniform?rows=100000&cols=100000&dense=1&width=5000",
                "gen:uniform?rows=200000&cols=50000", "gen:uniform?rows=50000&cols=200000",
                "gen:stencil?dim=3&side=64&points=27&rows=interior"), "pd2,pd2-rows", 0),
    ("star", ("gen:star?leaves=100000",), "d2", 0),
)  # fmt: skip
# suite, reps (kron's apart), timeout in s (kron's apart): a kron case past its timeout is
# recorded as such; the suites' own timeouts hold for the rest
PARTS = {
    "gpu": ("distance2", (7, 3), (60, 20)),
    "serial": ("distance2-serial", (3, 1), (300, 120)),
}
SAME_ORDER = {"vb-bit": "natural", "nb-bit": "natural"}


def run_part(part: str, out: Path, skip: list[str]) -> list[Path]:
    """``gcbench run`` of the part's suite in :data:`RUNS` but those named in ``skip``; the
    CSVs written."""
    suite, reps, timeouts = PARTS[part]
    written = []
    for name, graphs, problems, which in RUNS:
        if name in skip:
            continue
        path = out / f"{suite}-{name}.csv"
        command = [sys.executable, "-m", "gcbench", "run", "--suite", suite, "--problem",
                   problems, "--reps", str(reps[which]), "--timeout", str(timeouts[which]),
                   "--out", str(path), "--quiet",
                   *(arg for g in graphs for arg in ("--graph", g))]  # fmt: skip
        subprocess.run(command, check=False)
        written.append(path)
    return written


def params_of(row: pd.Series) -> dict[str, str]:
    return dict(p.split("=", 1) for p in str(row["params"]).split(";") if "=" in p)


def order_of(row: pd.Series) -> str:
    return params_of(row).get("order", SAME_ORDER.get(row["algorithm"], ""))


def label_of(row: pd.Series) -> str:
    """The algorithm, its order in brackets, `+ ig` after iterated greedy (reduce=ig)."""
    order = f" ({row['order']})" if row["order"] else ""
    reduced = " + ig" if params_of(row).get("reduce", "none") != "none" else ""
    return f"{row['algorithm']}{order}{reduced}"


def labelled(paths: list[Path]) -> pd.DataFrame:
    """The rows of the result files ``paths`` with each configuration's order and label; one
    line and exit status 1 when none of them exists."""
    files = [p for p in paths if p.is_file()]
    if not files:
        raise SystemExit(f"no results file among {', '.join(map(str, paths)) or 'none given'}")
    rows = pd.concat([pd.read_csv(p) for p in files], ignore_index=True)
    rows["order"] = rows.apply(order_of, axis=1)
    rows["label"] = rows.apply(label_of, axis=1)
    return rows


def tables(paths: list[Path]) -> list[str]:
    """The markdown tables and the targets' lines of the result files ``paths``."""
    rows = labelled(paths)
    lines, notes = [], []
    devices = sorted({str(d) for d in rows["device_name"].dropna().unique()})
    lines.append(f"GPU: {', '.join(devices) or 'none'}; serial rows on one CPU thread")
    for (graph, problem), case in rows.groupby(["graph", "problem"], sort=False):
        serial = {}
        for order, group in case[case["backend"] == "cpu"].groupby("order"):
            ok = group[group["status"] == "ok"]
            if len(ok):
                serial[order] = (ok["time_ms"].median(), int(ok["colors"].median()))
        first = case.iloc[0]
        lines.append(f"\n### {graph}, {problem}: n = {first['n']:,}, nets = {first['nets']:,}, "
                     f"lower bound {first['chi_lower']}\n")  # fmt: skip
        lines.append(
            "| algorithm | ms, median [95 % CI] (runs) | rounds | colors | "
            "÷ same-order serial colors | speedup over serial natural | status |"
        )
        lines.append("|" + " --- |" * 7)
        best = None
        medians: dict[str, float] = {}  # each configuration's median ms, for jp-d2 ÷ nb-bit
        for label, group in case.groupby("label", sort=False):
            ok = group[group["status"] == "ok"]
            status = ";".join(sorted(set(group["status"])))
            if not len(ok):
                lines.append(f"| {label} | — | | | | | {status} |")
                continue
            times = ok["time_ms"].tolist()
            median, colors = ok["time_ms"].median(), int(ok["colors"].median())
            medians[label] = median
            order = group["order"].iloc[0]
            same = serial.get(order)
            ratio = "—" if same is None else f"{colors / same[1]:.3f}"
            speed = f"{serial['natural'][0] / median:.1f}" if "natural" in serial else "—"
            recovered = set(ok["recovered"].astype(str))
            mark = status if recovered == {"True"} else f"{status}, recovered {recovered}"
            rounds = ok["iterations"].median()
            lines.append(
                f"| {label} | {cell(times, '.4g')} ({len(ok)}) | "
                f"{'' if pd.isna(rounds) else int(rounds)} | {colors} | {ratio} | {speed} | "
                f"{mark} |"
            )
            if group["backend"].iloc[0] == "gpu" and (best is None or median < best[1]):
                best = (label, median, colors)
        nb = medians.get("nb-bit (natural)")
        jp = sorted((m, label) for label, m in medians.items() if label.startswith("jp-d2"))
        if nb and jp:  # issue 44, item 2: jp-d2 at most 2× nb-bit
            ratios = ", ".join(f"{label.removeprefix('jp-d2 ')} {m / nb:.2f}" for m, label in jp)
            notes.append(f"{graph} {problem}: jp-d2 ÷ nb-bit {ratios}")
        if best is not None and "natural" in serial:
            notes.append(f"{graph} {problem}: best GPU {best[0]} {best[1]:.4g} ms, "
                         f"{serial['natural'][0] / best[1]:.0f}× the serial natural greedy "
                         f"({serial['natural'][0]:.4g} ms)")  # fmt: skip
    return [*lines, "\n### Targets\n", *(f"- {note}" for note in notes)]


def ab_table(before: list[Path], after: list[Path]) -> list[str]:
    """One markdown row per configuration (graph, problem, label) in both ``before`` and
    ``after``: each side's median ms with its 95 % interval, after ÷ before, the rounds, and
    whether the colors agree (a deterministic algorithm's must)."""
    old, new = (labelled(p).query("status == 'ok'") for p in (before, after))
    lines = [
        "| graph | problem | configuration | before, ms | after, ms | after ÷ before | "
        "rounds before / after | colors before / after |",
        "|" + " --- |" * 8,
    ]
    keys = ["graph", "problem", "label"]
    for key, case in new.groupby(keys, sort=False):
        was = old[(old[keys] == pd.Series(key, index=keys)).all(axis=1)]
        if not len(was):
            continue
        then, now = was["time_ms"].tolist(), case["time_ms"].tolist()
        ratio = pd.Series(now).median() / pd.Series(then).median()
        rounds = f"{was['iterations'].median():.0f} / {case['iterations'].median():.0f}"
        colors = f"{was['colors'].median():.0f} / {case['colors'].median():.0f}"
        cells = [*key, f"{cell(then, '.4g')} ({len(then)})", f"{cell(now, '.4g')} ({len(now)})",
                 f"{ratio:.2f}", rounds, colors]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", action="store_true", help="run configs/distance2.toml")
    parser.add_argument("--serial", action="store_true", help="run distance2-serial.toml")
    parser.add_argument("--out", type=Path, default=Path("results"), help="where CSVs go")
    parser.add_argument("--table", nargs="*", type=Path, default=[], help="more result CSVs")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=[r[0] for r in RUNS],
        help="leave out these graphs (repeatable): kron 18 alone takes minutes; shapes and star "
        "are issue 44's further inputs",
    )
    parser.add_argument(
        "--before",
        nargs="*",
        type=Path,
        default=[],
        help="result CSVs of an earlier tree: also print each configuration's time before and "
        "after (after: --table's files and the runs)",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PYTHONPATH", str(Path(__file__).resolve().parents[1]))
    written = [p for part in ("serial", "gpu") if getattr(args, part)
               for p in run_part(part, args.out, args.skip)]  # fmt: skip
    print("\n".join(tables([*args.table, *written])))
    if args.before:
        print(
            "\n".join(
                ["", "### Before and after", "", *ab_table(args.before, [*args.table, *written])]
            )
        )


if __name__ == "__main__":
    main()
