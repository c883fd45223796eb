"""End-to-end benchmark of the runner (issue 3): the default suite's wall clock, jpl beside
cusparse through ``gcbench run``, and the harness overhead per repetition.

Overhead per repetition = (wall(reps=R+1) − wall(reps=1)) / R − median time_ms, the same
case run twice by the real runner: everything a repetition costs beyond the algorithm
(copy-back, validation, the pipe to the parent, the CSV write).

    PYTHONPATH=. python3 benchmarks/runner.py [--skip-default]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from gcbench.bench.runner import choose_device, run

GRAPHS = ["gen:rgg?scale=22", "gen:delaunay?scale=20", "gen:kron?scale=18"]


def default_suite_wall(data: Path, out: Path) -> float:
    """Seconds for ``python -m gcbench run`` with no arguments (graph generation and kernel
    compilation included when ``data`` is empty)."""
    env = dict(os.environ, GCBENCH_DATA=str(data))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gcbench", "run", "--out", str(out)], env=env,
                   check=False, stdout=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - start


def timed_run(choice, out: Path, **kwargs) -> tuple[float, pd.DataFrame]:
    start = time.perf_counter()
    run(out=out, progress=False, choice=choice, **kwargs)
    return time.perf_counter() - start, pd.read_csv(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-default", action="store_true")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    choice = choose_device("auto")
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        if not args.skip_default:
            cold = default_suite_wall(tmpdir / "cold", tmpdir / "cold.csv")
            warm = default_suite_wall(tmpdir / "cold", tmpdir / "warm.csv")
            rows = pd.read_csv(tmpdir / "warm.csv")
            print(f"gcbench run (no arguments, {choice.backend}): {cold:.1f} s cold "
                  f"(generation + compile), {warm:.1f} s warm; {len(rows)} rows, "
                  f"statuses {rows['status'].value_counts().to_dict()}")  # fmt: skip

        _, rows = timed_run(choice, tmpdir / "pair.csv", graphs=GRAPHS,
                            algorithms=["jpl", "cusparse"], reps=args.reps, warmup=1)  # fmt: skip
        print("\n| graph | algorithm | median ms | transfer ms | colors | rounds | status |")
        print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
        for (graph, algo), group in rows.groupby(["graph", "algorithm"], sort=False):
            ok = group[group["status"] == "ok"]
            print(f"| {graph} | {algo} | {ok['time_ms'].median():.2f} | "
                  f"{ok['transfer_ms'].median():.2f} | {ok['colors'].median():.0f} | "
                  f"{ok['iterations'].median() if ok['iterations'].notna().any() else ''} | "
                  f"{','.join(sorted(set(group['status'])))} |")  # fmt: skip

        print("\n| case | median time_ms | overhead per rep ms |")
        print("| --- | ---: | ---: |")
        extra = 100  # enough repetitions that worker start-up noise (±0.1 s) washes out
        cases = [("gen:rgg?scale=15&seed=0", "jpl"), ("gen:rgg?scale=20&seed=0", "jpl")]
        for i, (graph, algo) in enumerate(cases):
            # prime: generate and cache the graph, so both measured runs only read it
            timed_run(choice, tmpdir / f"prime{i}.csv", graphs=[graph], algorithms=[algo],
                      reps=1, warmup=0)  # fmt: skip
            one, _ = timed_run(choice, tmpdir / f"one{i}.csv", graphs=[graph],
                               algorithms=[algo], reps=1, warmup=1)  # fmt: skip
            many, rows = timed_run(choice, tmpdir / f"many{i}.csv", graphs=[graph],
                                   algorithms=[algo], reps=extra + 1, warmup=1)  # fmt: skip
            median = rows["time_ms"].median()
            print(
                f"| {algo} on {graph} | {median:.3f} | {(many - one) * 1e3 / extra - median:.2f} |"
            )


if __name__ == "__main__":
    main()
