"""Peak memory and time of graph construction, validation and the memory estimates.

Run: ``python benchmarks/build_memory.py [build|validate|estimates] ...`` (default: all three).
Every measurement runs in a fresh child process: the input is made first, then the peak
resident set is reset (``/proc/self/clear_refs``), and the child reports wall time, CPU time
(all threads) and the peak RSS above the RSS just before the measured call ("extra"), i.e.
what the call itself needed beyond its input.

- ``build``: normalising generated edges (kron 21/48: 10⁸ entries; kron 22/43: 1.8·10⁸)
  with ``gcbench.graphs.graph.from_edges`` and with the scipy route the issue compares
  against (COO → CSR on boolean data, then A + Aᵀ). ``--gcbench PATH`` measures another checkout's
  ``from_edges`` as well (e.g. the code before a change), put first on ``sys.path``; it must
  have this layout (``gcbench.graphs``, since issue 34).
- ``validate``: ``gcbench.algorithms.validation.validate`` on kron 21/48 (1.8·10⁸ stored
  entries) with a random coloring (and another checkout's, with ``--gcbench``).
- ``estimates``: for each generator family and the readers, the estimate gcbench checks
  against the budget next to the measured peak of the same work, uncached into a temporary
  data directory (generation, normalisation and the npz cache write).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD_GRAPHS = ("kron?scale=21&edgefactor=48", "kron?scale=22&edgefactor=43")
ESTIMATE_SPECS = (
    "gen:rgg?scale=20",
    "gen:kron?scale=20&edgefactor=16",
    "gen:rmat?scale=19&edgefactor=32",
    "gen:delaunay?scale=18",
    "gen:regular?n=1000000&d=16",
    "gen:er?n=1000000&avg_degree=20",
    "gen:grid2d?side=2048",
    "gen:complete?n=4000",
    "gen:cycle?n=10000000",
    "gen:bipartite?a=3000&b=3000",
    "gen:crown?n=4000",
    "gen:mycielski?k=16",
    "gen:queen?n=100",
    "gen:rook?n=300",
    "gen:star?leaves=10000000",
    "gen:empty?n=100000000",
)
FILE_FORMATS = ("mtx", "txt", "col", "csv", "npz", "mtx.gz")


# --- the child side -----------------------------------------------------------------------


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def _measure(call) -> dict:
    """Run ``call()`` after resetting the peak RSS; wall, CPU and memory figures."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status("VmRSS")
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = _status("VmHWM")
    return {"wall_s": wall, "cpu_s": cpu, "peak": peak, "base": before, "extra": peak - before,
            "result": result}  # fmt: skip


def _kron_edges(spec: str):
    from gcbench.graphs.generators import get_family
    from gcbench.graphs.sources import parse_spec

    parsed = parse_spec("gen:" + spec)
    return get_family(parsed.name).build(**parsed.params)


def child_build(spec: str, method: str) -> dict:
    import numpy as np

    edges = _kron_edges(spec)
    n, rows, cols = edges.n, edges.rows, edges.cols
    if method == "scipy":
        import scipy.sparse as sp

        def call():
            a = sp.coo_matrix((np.ones(rows.size, np.bool_), (rows, cols)), shape=(n, n)).tocsr()
            s = a + a.T
            return int(s.nnz)
    else:
        from gcbench.graphs.graph import from_edges

        from_edges(3, np.array([0, 1], rows.dtype), np.array([1, 2], rows.dtype))  # compile

        def call():
            return from_edges(n, rows, cols).nnz

    out = _measure(call)
    out["entries"] = int(rows.size)
    return out


def child_validate(spec: str) -> dict:
    import numpy as np

    from gcbench.algorithms.validation import validate
    from gcbench.graphs.graph import from_edges

    edges = _kron_edges(spec)
    graph = from_edges(edges.n, edges.rows, edges.cols)
    del edges
    colors = np.random.default_rng(0).integers(0, 1 << 16, graph.n).astype(np.int32)
    validate(from_edges(3, [0, 1], [1, 2]), np.zeros(3, np.int32))  # compile
    out = _measure(lambda: validate(graph, colors).conflicts)
    out["entries"] = graph.nnz
    return out


def child_estimate(spec: str, data_dir: str) -> dict:
    """Peak of loading ``spec`` (a gen: spec or a file) uncached, and the largest estimate
    gcbench checked against the budget on the way (recorded by wrapping memory.require)."""
    from gcbench import memory
    from gcbench.graphs.sources import load_graph

    load_graph("gen:cycle?n=5", data_dir=data_dir)  # compile the numba kernels first
    checked = []
    require = memory.require

    def recording(needed: int, what: str, *, held: int = 0) -> None:
        checked.append(needed)
        require(needed, what, held=held)

    memory.require = recording
    out = _measure(lambda: load_graph(spec, data_dir=data_dir).nnz)
    out["estimate"] = max(checked, default=0)
    return out


# --- the parent side ----------------------------------------------------------------------


def _child(args: list[str], pythonpath: str | None = None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, str(REPO)]))
    done = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(args)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _gib(count: int) -> str:
    return f"{count / 2**30:.2f}"


def _row(label: str, r: dict) -> str:
    if "error" in r:
        return f"| {label} | {r['error']} |"
    return (
        f"| {label} | {r['entries']:,} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | "
        f"{_gib(r['peak'])} | {_gib(r['extra'])} |"
    )


def run_build(other: str | None) -> None:
    print("\n## Building the CSR (input: the generator's edges, made before the measurement)\n")
    print("| graph, method | input entries | wall s | cpu s | peak GiB | extra GiB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for spec in BUILD_GRAPHS:
        methods = [("scipy COO→CSR + A + Aᵀ", ["build", spec, "scipy"], None)]
        if other:
            methods.append((f"from_edges ({other})", ["build", spec, "gcbench"], other))
        methods.append(("from_edges (this checkout)", ["build", spec, "gcbench"], None))
        for label, args, path in methods:
            print(_row(f"{spec}, {label}", _child(args, path)), flush=True)


def run_validate(other: str | None) -> None:
    print("\n## Validating a random coloring\n")
    print("| graph, validator | stored entries | wall s | cpu s | peak GiB | extra GiB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    spec = BUILD_GRAPHS[0]
    if other:
        print(_row(f"{spec}, {other}", _child(["validate", spec], other)), flush=True)
    print(_row(f"{spec}, this checkout", _child(["validate", spec])), flush=True)


def _write_files(directory: Path) -> list[str]:
    """The same graph (rgg 2^20) in every file format, for the readers' estimates."""
    import numpy as np

    from gcbench.graphs.formats import save_cache, write_dimacs, write_edgelist, write_mtx
    from gcbench.graphs.generators import rgg

    graph = rgg(20)
    paths = []
    for suffix in FILE_FORMATS:
        path = directory / f"rgg20.{suffix}"
        if suffix.startswith("mtx"):
            write_mtx(graph, path)
        elif suffix == "txt":
            write_edgelist(graph, path)
        elif suffix == "csv":
            np.savetxt(path, np.column_stack(graph.edges()), fmt="%d", delimiter=",")
        elif suffix == "col":
            write_dimacs(graph, path)
        else:
            save_cache(graph, path, spec="rgg20")
        paths.append(str(path))
    return paths


def run_estimates() -> None:
    print("\n## Estimates against measured peaks (uncached load: generate/read, build, cache)\n")
    print("| spec | wall s | extra GiB (measured) | estimate GiB | estimate / measured |")
    print("| --- | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as scratch:
        specs = [*ESTIMATE_SPECS, *_write_files(Path(scratch))]
        for spec in specs:
            r = _child(["estimate", spec, scratch])
            if "error" in r:
                print(f"| {spec} | {r['error']} |", flush=True)
                continue
            ratio = r["estimate"] / max(r["extra"], 1)
            label = Path(spec).name if "/" in spec else spec
            print(f"| {label} | {r['wall_s']:.1f} | {_gib(r['extra'])} | "
                  f"{_gib(r['estimate'])} | {ratio:.2f} |", flush=True)  # fmt: skip


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        kind, *args = json.loads(sys.argv[2])
        out = {"build": child_build, "validate": child_validate, "estimate": child_estimate}[kind](
            *args
        )
        print(json.dumps(out))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("parts", nargs="*", default=["build", "validate", "estimates"])
    parser.add_argument("--gcbench", help="another checkout to compare (its repository root; "
                        "one with the gcbench.graphs layout of issue 34 or later)")  # fmt: skip
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    import numba
    import numpy
    import scipy

    print(f"{datetime.date.today()} commit {commit}; {platform.node()}, {os.cpu_count()} cores, "
          f"numpy {numpy.__version__}, scipy {scipy.__version__}, numba {numba.__version__}; "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    for part in args.parts:
        {"build": lambda: run_build(args.gcbench), "validate": lambda: run_validate(args.gcbench),
         "estimates": run_estimates}[part]()  # fmt: skip


if __name__ == "__main__":
    main()
