"""The engines of issues 16 and 19: one suite run plain, with ``--gpus``, with ``--cluster
local`` and as two shards merged; wall time, throughput and per-case medians against a baseline.

Each part is a real ``gcbench run --device gpu`` subprocess on the same cases:

    plain     gcbench run                           one GPU, suite order
    gpus1     --gpus 0                              one pinned slot, largest graph first
    cluster1  --cluster local --gpus 0              a local Dask cluster on GPU 0
    gpus2     --gpus 0,1
    cluster2  --cluster local --gpus 0,1
    shards2   --shard 1/2 on GPU 0 and --shard 2/2 on GPU 1 at the same time
              (CUDA_VISIBLE_DEVICES), then gcbench merge

A priming run first (the same cases, --reps 1 --warmup 0; skip with --no-prime) generates the
graphs and compiles every kernel into CuPy's disk cache, so every measured part starts warm.

Suite (a flag: --suite, --algo): configs/engines.toml, deterministic GPU algorithms only (the
independent-set codes at block sizes 64, 256 and 1024, cusparse, cf, ecl-gc) on ten graphs of
similar cost (kron 19 and kron 17 with edge factor 48, three seeds each, two R-MAT 18, rgg 22,
grid 2048): 150 cases, 7 repetitions, 1050 rows. Deterministic, so that two runs of a case do
the same work (the speculative VB/EB variants' medians differed by 5-9 % between two identical
one-GPU runs). The parts are sized by GPU work, over a minute on one GPU:

    --preset one-gpu   prime, plain, gpus1, cluster1
    --preset two-gpus  prime, gpus1, cluster1, gpus2, cluster2, shards2
    --quick            2 graphs, 2 block sizes, 1 rep: checks the script itself, about 1 min

Each comparison is against the part's baseline (gpus1/cluster1 vs plain, gpus2/shards2 vs
gpus1, cluster2 vs cluster1, when run): wall time and throughput (baseline wall / wall: the
rows are the same), the rows' span (first to last row: the run without start-up and shut-down),
per-case median time_ms differences (the median |diff| %, the median signed diff %: a
systematic slowdown, the max |diff| %, and how many cases differ by over 5%), whether keys and
statuses are identical, and rows per gpu_index. CSVs and parts.json stay in --out, so parts
run in separate commands (10-minute device limit) are compared by a later one (--parts with
the parts to compare, --compare-only).

The cluster parts need dask and distributed (the `cluster` extra; dask-cuda is used when it
imports, else distributed's own nannies run one worker per GPU, and the script says which). On
a machine without a package registry carry the wheels of dask, distributed, tornado, zict,
tblib, partd and locket (and dask-cuda).

    PYTHONPATH=. python3 benchmarks/engines.py --preset one-gpu --out $OUT
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

SUITE = ["--suite", "engines"]
QUICK = ["--graph", "gen:rgg?scale=16&seed=0", "--graph", "gen:kron?scale=14&seed=0",
         "--block-size", "64,1024", "--reps", "1"]  # fmt: skip
ENGINES = {
    "plain": [],
    "gpus1": ["--gpus", "0"],
    "cluster1": ["--cluster", "local", "--gpus", "0"],
    "gpus2": ["--gpus", "0,1"],
    "cluster2": ["--cluster", "local", "--gpus", "0,1"],
    "shards2": None,  # two processes, see run_shards
}
BASELINES = {"gpus1": "plain", "cluster1": "plain", "gpus2": "gpus1", "cluster2": "cluster1",
             "shards2": "gpus1"}  # fmt: skip
PRESETS = {"one-gpu": "plain,gpus1,cluster1", "two-gpus": "gpus1,cluster1,gpus2,cluster2,shards2"}
CASE = ["graph", "algorithm", "params", "block_size"]
KEY = [*CASE, "rep"]


def gcbench(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "gcbench", *args], env=env or dict(os.environ))


def finish(proc: subprocess.Popen, what: str) -> None:
    """Wait; exit 1 (some rows failing) still left a complete CSV."""
    if proc.wait() not in (0, 1):
        raise SystemExit(f"{what}: gcbench exited with {proc.returncode}")


def run_part(name: str, cases: list[str], out: Path, scratch: Path) -> float:
    """Run one part; its CSV is ``out/<name>.csv``; returns the wall time in seconds."""
    csv = out / f"{name}.csv"
    csv.unlink(missing_ok=True)
    common = ["run", *cases, "--quiet"]
    start = time.perf_counter()
    if ENGINES[name] is not None:
        finish(gcbench(*common, "--out", str(csv), *ENGINES[name]), name)
        return time.perf_counter() - start
    shards = [scratch / f"shard{k}.csv" for k in (1, 2)]
    procs = []
    for k, path in enumerate(shards, 1):
        path.unlink(missing_ok=True)
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(k - 1))
        procs.append(gcbench(*common, "--out", str(path), "--shard", f"{k}/2", env=env))
    for k, proc in enumerate(procs, 1):
        finish(proc, f"shard {k}/2")
    finish(gcbench("merge", *map(str, shards), "--out", str(csv)), "merge")
    return time.perf_counter() - start


def read(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(path, dtype={"block_size": str, "params": str, "gpu_index": str})
    frame["timestamp"] = pd.to_datetime(frame["timestamp"])
    return frame.fillna({"params": "", "block_size": "", "gpu_index": ""})


def span(frame: pd.DataFrame) -> float:
    return (frame["timestamp"].max() - frame["timestamp"].min()).total_seconds()


def compare(name: str, base: str, walls: dict[str, float], out: Path) -> str:
    """One markdown row: ``name`` against ``base``."""
    part, ref = read(out / f"{name}.csv"), read(out / f"{base}.csv")
    same_keys = set(map(tuple, part[KEY].astype(str).to_numpy())) == set(
        map(tuple, ref[KEY].astype(str).to_numpy())
    )
    statuses = (
        part.set_index(KEY)["status"].sort_index().equals(ref.set_index(KEY)["status"].sort_index())
    )
    medians = pd.concat(
        [f[f.status == "ok"].groupby(CASE)["time_ms"].median() for f in (part, ref)],
        axis=1, keys=["part", "ref"],
    ).dropna()  # fmt: skip
    signed = (medians["part"] / medians["ref"] - 1.0) * 100
    diff = signed.abs()
    per_gpu = ", ".join(
        f"{g or '-'}: {n}" for g, n in sorted(part.groupby("gpu_index").size().items())
    )
    return (
        f"| {name} | {base} | {walls[name]:.1f} | {walls[base]:.1f} | "
        f"{walls[base] / walls[name]:.2f} | {span(part):.1f} | {span(ref) / span(part):.2f} | "
        f"{diff.median():.1f} | {signed.median():+.1f} | {diff.max():.1f} | "
        f"{int((diff > 5).sum())}/{len(diff)} | {'yes' if same_keys else 'NO'} | "
        f"{'yes' if statuses else 'NO'} | {per_gpu} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default=None)
    parser.add_argument("--parts", default=None, help=f"comma list of {', '.join(ENGINES)}")
    parser.add_argument("--suite", default=None, help="suite name/file (default engines)")
    parser.add_argument("--algo", action="append", default=[], help="default: the suite's")
    parser.add_argument("--quick", action="store_true", help="a tiny suite: checks the script")
    parser.add_argument("--no-prime", action="store_true")
    parser.add_argument("--device", default="gpu", help="cpu: try the script without a GPU")
    parser.add_argument("--compare-only", action="store_true", help="run nothing; compare --out")
    parser.add_argument("--out", type=Path, default=None, help="CSVs and parts.json (kept)")
    args = parser.parse_args()
    names = (args.parts or PRESETS[args.preset or "one-gpu"]).split(",")
    unknown = [n for n in names if n not in ENGINES]
    if unknown:
        parser.error(f"unknown part(s) {unknown}; choose from {list(ENGINES)}")
    cases = ["--suite", args.suite] if args.suite else list(SUITE)
    cases += [a for algo in args.algo for a in ("--algo", algo)]
    cases += [*(QUICK if args.quick else []), "--device", args.device]
    if any(name.startswith("cluster") for name in names):
        try:
            import dask_cuda  # noqa: F401  (the runner uses it when it imports)

            kind = "dask-cuda's LocalCUDACluster"
        except ImportError as exc:
            kind = f"distributed's own nannies (dask-cuda does not import: {exc})"
        print(f"local GPU cluster: {kind}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        out = args.out or scratch
        out.mkdir(parents=True, exist_ok=True)
        record = out / "parts.json"
        walls = json.loads(record.read_text()) if record.exists() else {}
        if not args.compare_only:
            if not args.no_prime:
                start = time.perf_counter()
                prime = ["run", *cases, "--quiet", "--reps", "1"]
                finish(gcbench(*prime, "--warmup", "0", "--out", str(scratch / "prime.csv")),
                       "prime")  # fmt: skip
                print(f"prime: {time.perf_counter() - start:.1f} s", flush=True)
            for name in names:
                walls[name] = run_part(name, cases, out, scratch)
                record.write_text(json.dumps(walls, indent=1))
                rows = read(out / f"{name}.csv")
                print(f"{name}: {walls[name]:.1f} s, {len(rows)} rows, "
                      f"{rows['status'].value_counts().to_dict()}", flush=True)  # fmt: skip
        print(f"\ncases: gcbench run {' '.join(cases)}\n")
        print("| part | baseline | wall s | baseline wall s | throughput × | rows' span s | "
              "span × | median \\|Δ\\| of case medians % | median Δ % | max \\|Δ\\| % | "
              "cases > 5% | same keys | same statuses | rows per GPU |")  # fmt: skip
        print("| --- | --- |" + " ---: |" * 9 + " --- | --- | --- |")
        for name in names:
            base = BASELINES.get(name)
            if base in walls and name in walls:
                print(compare(name, base, walls, out))


if __name__ == "__main__":
    main()
