"""How well identical runs agree (issue 31, docs/statistics.md): the GPU's clock coming back
from idle, and one command run twice with its per-case medians compared.

    PYTHONPATH=. python3 benchmarks/stability.py ramp [--graph SPEC] [--algo NAME ...]
    PYTHONPATH=. python3 benchmarks/stability.py twice --out DIR [--tag T] -- [gcbench run options]
    PYTHONPATH=. python3 benchmarks/stability.py pair A.csv B.csv [--wall-a S --wall-b S]
    PYTHONPATH=. python3 benchmarks/stability.py probe [--graph SPEC ...] [--pin CPU]

``ramp`` idles the GPU, then runs a case the way the runner does (each call validated and
copied back, the conditions read) for a few seconds, printing the time and SM clock along the
way, then the first calls after idle gaps of several lengths. ``twice`` runs
``gcbench run OPTIONS`` twice back to back (default: the issue's five graphs, every GPU
algorithm) into DIR/<tag>1.csv and DIR/<tag>2.csv and prints ``pair``'s table of them.
``probe`` runs the same cases in rounds within one process, with the host's round-trip time
and stolen CPU time of each round: run it in several processes to tell a difference between
processes from one in time.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from gcbench.bench.results import FLAGS

ISSUE_GRAPHS = ["gen:rgg?scale=20", "gen:kron?scale=18", "gen:delaunay?scale=20",
                "gen:grid2d?side=2048", "gen:rmat?scale=18"]  # fmt: skip
KEY = ["graph", "algorithm", "params", "block_size"]


def ramp(graph_spec: str, names: list[str], idle_s: float, seconds: float) -> None:
    """The runner's loop on one case after ``idle_s`` of an idle GPU: time and clock."""
    from gcbench import algorithms, load_graph
    from gcbench.algorithms import execute
    from gcbench.algorithms.gpu import clocks, runtime
    from gcbench.bench.conditions import Conditions

    graph = load_graph(graph_spec)
    prepared = execute.prepare(graph, "gpu")
    gpu = clocks.open_gpu(runtime.device_facts().pci_bus_id)
    if gpu is None:
        print("NVML is not usable here: no clocks")
        return
    print(f"{runtime.device_facts().name}: target SM clock {gpu.target_mhz} MHz, now "
          f"{gpu.sm_mhz()} MHz, throttle '{gpu.throttle()}', others {gpu.others()}")  # fmt: skip
    start = time.perf_counter()
    for _ in range(1000):
        gpu.sm_mhz()
    print(f"one NVML clock read: {(time.perf_counter() - start) * 1e3:.3f} us")
    for name in names:
        spec = algorithms.get(name, "gpu")
        params = spec.resolve_params({})
        view = prepared.fresh()
        execute.prime(spec, None, params)
        setup_ms = execute.setup(spec, view)
        meter = Conditions("gpu", gpu)
        meter.begin_case()
        stream = execute.runs(spec, view, None, params, setup_ms=setup_ms, meter=meter)
        time.sleep(idle_s)
        print(f"\n{name} on {graph_spec}, after {idle_s:g} s idle ({gpu.sm_mhz()} MHz):")
        print("  t since start ms | call ms | SM MHz | throttle")
        series: list[tuple[float, float, int]] = []
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            run = next(stream)
            at = (time.perf_counter() - start) * 1e3
            series.append((at, run.time_ms, run.conditions.get("sm_clock_mhz") or 0))
            if len(series) in (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000, 2000):
                print(f"  {at:16.1f} | {run.time_ms:7.4f} | {series[-1][2]:6d} | "
                      f"{run.conditions.get('throttle', '')}")  # fmt: skip
        steady = statistics.median(t for _, t, _ in series[len(series) // 2 :])
        reached = next((at for at, _, mhz in series if mhz >= 0.9 * (gpu.target_mhz or 0)), None)
        within = next((at for at, t, _ in series if t <= 1.02 * steady), None)
        print(f"  steady median {steady:.4f} ms; clock >= 90 % of target after {reached} "
              f"ms; first call within 2 % of steady after {within} ms; "
              f"{len(series)} calls")  # fmt: skip
        for gap in (0.001, 0.01, 0.1, 0.5, 2.0):
            time.sleep(gap)
            first = [next(stream) for _ in range(3)]
            print(f"  after {gap * 1e3:6.0f} ms idle: "
                  + ", ".join(f"{r.time_ms:.4f} ms @ {r.conditions.get('sm_clock_mhz')}"
                              for r in first)
                  + f"  ({first[0].time_ms / steady - 1:+.1%} on steady)")  # fmt: skip


def _steal_jiffies() -> int:
    """The machine's stolen CPU time so far (/proc/stat's steal column), in jiffies."""
    with open("/proc/stat") as handle:
        fields = handle.readline().split()
    return int(fields[8]) if len(fields) > 8 else 0


def _round_trip_us(cp, reps: int = 200) -> float:
    """Median µs of a one-element kernel and its 4-byte copy back: the host's part of every
    round an algorithm reads back."""
    one = cp.zeros(1, dtype=cp.int32)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        one += 1
        int(one[0])
        times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(times)


def probe(graphs: list[str], names: list[str], rounds: int, reps: int, pin: int | None) -> None:
    """Rounds of the same cases in one process: the medians, the host round trip and the
    stolen CPU time of each round (is a difference per process, or in time, or the host?)."""
    import os

    from gcbench import algorithms, load_graph
    from gcbench.algorithms import execute
    from gcbench.algorithms.gpu import runtime
    from gcbench.algorithms.sampling import Sampling

    if pin is not None:
        os.sched_setaffinity(0, {pin})
    cp = runtime.cupy()
    prepared = {g: execute.prepare(load_graph(g), "gpu") for g in graphs}
    views = {}
    for g in graphs:
        for name in names:
            spec = algorithms.get(name, "gpu")
            params = spec.resolve_params({})
            view = prepared[g].fresh()
            execute.prime(spec, None, params)
            views[g, name] = (spec, params, view, execute.setup(spec, view))
    print(f"pid {os.getpid()} cpu {os.sched_getaffinity(0) if pin is not None else 'any'}")
    for index in range(rounds):
        steal, start = _steal_jiffies(), time.perf_counter()
        cells = [f"rtt {_round_trip_us(cp):5.1f} us"]
        for (g, name), (spec, params, view, setup_ms) in views.items():
            runs = execute.repetitions(spec, view, None, params, sampling=Sampling(reps, 2),
                                       setup_ms=setup_ms)  # fmt: skip
            cells.append(f"{name}@{g[4:9]} {statistics.median(r.time_ms for r in runs):7.4f}")
        wall = time.perf_counter() - start
        stolen = (_steal_jiffies() - steal) / os.sysconf("SC_CLK_TCK")
        print(f"  round {index}: " + " | ".join(cells) + f" | steal {stolen / wall:.1%}")


def _medians(frame: pd.DataFrame) -> pd.DataFrame:
    from gcbench.grammar import requested_params

    ok = frame[frame["status"] == "ok"].copy()
    ok["params"] = ok["params"].fillna("").map(requested_params)
    ok["block_size"] = ok["block_size"].fillna(-1)
    ok["flags"] = ok.get("flags", pd.Series("", index=ok.index)).fillna("")
    return ok.groupby(KEY).agg(
        median=("time_ms", "median"),
        spread=("time_ms", lambda t: (t.max() - t.min()) / t.median()),
        reps=("time_ms", "size"),
        flags=("flags", lambda f: ";".join(sorted({x for v in f for x in v.split(";") if x}))),
        clock_min=("sm_clock_mhz", "min"),
    )


def _share_unwaited(table: pd.DataFrame) -> str:
    """The non-same share of compare's cases that no side flagged ``host`` (their times hold
    no host round trip), with their count."""
    quiet = table[~table["flags"].fillna("").astype(str).str.contains("host")]
    moved = int((quiet["verdict"] != "same").sum())
    return f"{moved / max(len(quiet), 1):.1%} ({moved} of {len(quiet)})"


def pair(a: Path, b: Path, wall_a: float | None = None, wall_b: float | None = None) -> None:
    """How two runs of one command agree, case by case, as a markdown table."""
    import gcbench

    first, second = _medians(pd.read_csv(a)), _medians(pd.read_csv(b))
    both = first.merge(second, left_index=True, right_index=True, suffixes=("_1", "_2"))
    delta = (both["median_2"] / both["median_1"] - 1).abs()
    from gcbench.report.aggregate import suspect

    flagged_1, flagged_2 = suspect(both["flags_1"]), suspect(both["flags_2"])
    flagged = flagged_1 | flagged_2
    waited = both["flags_1"].str.contains("host") | both["flags_2"].str.contains("host")
    table = gcbench.compare(a, b)
    verdicts = table["verdict"].value_counts().to_dict()
    non_same = sum(v for k, v in verdicts.items() if k != "same")
    far = delta > 0.05
    print(f"| {a.name} vs {b.name} | value |\n| --- | ---: |")
    rows = [
        ("cases in both", len(both)),
        ("per-case median |Δ|: median", f"{delta.median():.2%}"),
        ("p90 / p95 / max", f"{delta.quantile(0.9):.2%} / {delta.quantile(0.95):.2%} / "
                            f"{delta.max():.2%}"),
        ("cases > 5 % / > 10 % apart", f"{int(far.sum())} / {int((delta > 0.1).sum())}"),
        ("... of those > 5 %, flagged suspect / suspect or host in either run",
         f"{int((far & flagged).sum())} / {int((far & (flagged | waited)).sum())}"),
        ("within-run (max-min)/median: median / p90",
         f"{both['spread_1'].median():.1%} / {both['spread_1'].quantile(0.9):.1%}"),
        ("compare verdicts", ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items()))),
        ("non-same share", f"{non_same / max(len(table), 1):.1%}"),
        ("non-same share of the cases not flagged host", _share_unwaited(table)),
        ("cases flagged suspect (run 1 / run 2)",
         f"{int(flagged_1.sum())} / {int(flagged_2.sum())}"),
        ("reps per case (run 1): median / max",
         f"{both['reps_1'].median():.0f} / {both['reps_1'].max():.0f}"),
        ("lowest SM clock in a row (run 1 / run 2)",
         f"{both['clock_min_1'].min()} / {both['clock_min_2'].min()}"),
    ]  # fmt: skip
    if wall_a is not None and wall_b is not None:
        rows.append(("wall s (run 1 / run 2)", f"{wall_a:.1f} / {wall_b:.1f}"))
    for name, value in rows:
        print(f"| {name} | {value} |")
    for flag in FLAGS:
        hit = both["flags_1"].str.contains(flag) | both["flags_2"].str.contains(flag)
        print(f"| cases flagged {flag} (either run) | {int(hit.sum())} |")
    worst = delta.sort_values(ascending=False).head(8)
    print("\nlargest differences (median 1 → 2, flags 1 | 2):")
    for key, d in worst.items():
        row = both.loc[key]
        print(f"  {key[1]:12} {key[0][:28]:28} {row['median_1']:9.4f} → {row['median_2']:9.4f}"
              f" ms ({d:+.1%})  reps {row['reps_1']}/{row['reps_2']}  "
              f"[{row['flags_1']} | {row['flags_2']}]")  # fmt: skip


def twice(out: Path, tag: str, options: list[str]) -> None:
    """``gcbench run OPTIONS`` twice, then :func:`pair` of the two files."""
    options = options or [*(f"--graph={g}" for g in ISSUE_GRAPHS), "--algo", "all"]
    walls = []
    for index in (1, 2):
        path = out / f"{tag}{index}.csv"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "gcbench", "run", *options, "--quiet",
                        "--out", str(path)], check=False)  # fmt: skip
        walls.append(time.perf_counter() - start)
        print(f"run {index}: {walls[-1]:.1f} s wall", flush=True)
    pair(out / f"{tag}1.csv", out / f"{tag}2.csv", *walls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("ramp")
    r.add_argument("--graph", default="gen:rgg?scale=20")
    r.add_argument("--algo", nargs="+", default=["ecl-gc", "cohen"])
    r.add_argument("--idle", type=float, default=3.0)
    r.add_argument("--seconds", type=float, default=2.0)
    t = sub.add_parser("twice")
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--tag", default="run")
    t.add_argument("options", nargs=argparse.REMAINDER)
    q = sub.add_parser("probe")
    q.add_argument("--graph", nargs="+", default=["gen:delaunay?scale=20", "gen:kron?scale=18"])
    q.add_argument("--algo", nargs="+", default=["jpl-minmax", "gm-gpu", "vb-bit", "ecl-gc"])
    q.add_argument("--rounds", type=int, default=4)
    q.add_argument("--reps", type=int, default=40)
    q.add_argument("--pin", type=int)
    p = sub.add_parser("pair")
    p.add_argument("a", type=Path)
    p.add_argument("b", type=Path)
    p.add_argument("--wall-a", type=float)
    p.add_argument("--wall-b", type=float)
    args = parser.parse_args()
    np.set_printoptions(precision=4)
    if args.what == "ramp":
        ramp(args.graph, args.algo, args.idle, args.seconds)
    elif args.what == "probe":
        probe(args.graph, args.algo, args.rounds, args.reps, args.pin)
    elif args.what == "twice":
        twice(args.out, args.tag, [o for o in args.options if o != "--"])
    else:
        pair(args.a, args.b, args.wall_a, args.wall_b)


if __name__ == "__main__":
    main()
