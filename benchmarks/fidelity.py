"""Issue 12's benchmark: cuSPARSE coloring only against with reordering, each algorithm's own
setup_ms, and the report's speedups over cusparse before (reordering timed) and after.

    PYTHONPATH=. python3 benchmarks/fidelity.py [--reps 5] [--out DIR]

Everything goes through ``gcbench run`` (spawned worker per graph, CUDA events around the call
after one warm-up, every repetition validated on the device), so the figures are the rows a
user gets (the cusparse table adds back-to-back calls on one process's set-up graph, the way
issue 12 measured the library). cusparse ``reorder=true`` is what gcbench timed before.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import pandas as pd
from _common import back_to_back

from gcbench import algorithms, load_graph
from gcbench.algorithms import execute
from gcbench.bench.runner import choose_device, run
from gcbench.graphs.sources import canonical_spec
from gcbench.report import report

CUSPARSE_GRAPHS = ("gen:rgg?scale=20", "gen:grid2d?side=2048", "gen:rgg?scale=22",
                   "gen:rgg?scale=24", "gen:kron?scale=18")  # fmt: skip
SETUP_GRAPHS = ("gen:rgg?scale=22", "gen:kron?scale=18")
FAMILIES = {
    "EB": ("eb", "eb-cs", "eb-tent", "eb-er"),
    "JPL": ("jpl", "jpl-minmax", "gunrock", "cohen", "luby", "very-random"),
}


def rows(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(path)
    bad = frame[frame.status != "ok"]
    if len(bad):
        print(f"non-ok rows in {path.name}: {bad[['graph', 'algorithm', 'status', 'error']]}")
    return frame[frame.status == "ok"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="keep the CSVs here")
    args = parser.parse_args()
    choice = choose_device("gpu")
    print(choice.message)
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)

        csr = out / "cusparse.csv"
        run(graphs=CUSPARSE_GRAPHS, algorithms=["cusparse"], params={"reorder": "false,true"},
            reps=args.reps, warmup=1, out=csr, progress=False, choice=choice)  # fmt: skip
        frame = rows(csr)
        frame = frame.assign(reorder=frame.params.str.contains("reorder=True"))
        table = frame.pivot_table(index="graph", columns="reorder", values="time_ms",
                                  aggfunc="median", sort=False)  # fmt: skip
        print("\n| graph | runner: coloring only (default) ms | runner: reorder=true ms | ratio "
              "| back-to-back: coloring only | back-to-back: reorder=true |")  # fmt: skip
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        table = table.reindex(columns=[False, True])
        cusparse = algorithms.get("cusparse")
        for spec in CUSPARSE_GRAPHS:
            plain, ordered = table.loc[canonical_spec(spec)]
            # csrcolor calls in a row, no validation between them: how the issue timed it
            prepared = execute.prepare(load_graph(spec), "gpu")
            b2b = [back_to_back("cusparse", prepared, cusparse.resolve_params({"reorder": r}),
                                args.reps) for r in (False, True)]  # fmt: skip
            print(f"| {spec} | {plain:.2f} | {ordered:.2f} | {ordered / plain:.2f} "
                  f"| {b2b[0]:.2f} | {b2b[1]:.2f} |")  # fmt: skip

        setups = out / "setup.csv"
        names = [name for family in FAMILIES.values() for name in family]
        run(graphs=SETUP_GRAPHS, algorithms=names, reps=3, warmup=1, out=setups,
            progress=False, choice=choice)  # fmt: skip
        frame = rows(setups)
        print("\n| family | algorithm | " + " | ".join(f"{g} setup / time ms" for g in SETUP_GRAPHS)
              + " |")  # fmt: skip
        print("| --- | --- |" + " ---: |" * len(SETUP_GRAPHS))
        for family, members in FAMILIES.items():
            for name in members:
                cells = []
                for graph in SETUP_GRAPHS:
                    sel = frame[(frame.algorithm == name) & (frame.graph == canonical_spec(graph))]
                    cells.append(f"{sel.setup_ms.median():.2f} / {sel.time_ms.median():.2f}")
                print(f"| {family} | {name} | " + " | ".join(cells) + " |")

        quick = out / "quick.csv"
        run(suite="quick", params={"reorder": "false,true"}, out=quick, progress=False,
            choice=choice)  # fmt: skip
        print("\nReport speedup geomeans over cusparse, quick suite:")
        for label, baseline in (("before (reorder timed)", "cusparse[reorder=True]"),
                                ("after (coloring only)", "cusparse[reorder=False]")):  # fmt: skip
            means = report([quick], baseline=baseline).means
            print(f"\n{label}: baseline {baseline}")
            print(means[["label", "graphs", "speedup_geomean", "speedup_min", "speedup_max"]]
                  .to_string(index=False, float_format=lambda x: f"{x:.2f}"))  # fmt: skip


if __name__ == "__main__":
    main()
