"""The serial distance-2 greedy against SciPy's ``group_columns`` (issue 44, item 4).

Per input (a generated matrix or graph and the problem that colors it), three cases on one
prepared pattern, each primed (numba compiled, scipy imported) and set up first, as the
runner does (:mod:`gcbench.algorithms.execute`):

- ``greedy`` (``order=natural``): gcbench's serial reference, ``time_ms`` of its registered
  call (the visit order and its scratch arrays inside; the pattern's column view, which the
  CPU backend builds when the pattern is prepared, outside);
- ``scipy-group-columns`` (``order=natural``): the peer, ``time_ms`` of the ``group_columns``
  call (SciPy's column permutation ``A[:, order]`` and ``group_sparse`` inside); its
  ``csc_array``, built in its ``setup``, outside (``setup_ms``, shown);
- ``group_sparse``: SciPy's compiled loop alone on that ``csc_array`` (natural order needs no
  permutation): the fastest SciPy can color these columns.

After one warm-up of each, the repetitions are interleaved (one of each case in turn) so that
drift in the shared machine's load falls on all alike. Every case's colors must equal the
greedy's, column for column, in every repetition; those colors are validated and their
compressed product checked (``recovers``) once, after the timing. Prints one markdown row per
input: the median ms with its 95 % interval (``gcbench.stats.median_ci``, order statistics),
the colors, and the greedy's time over the faster SciPy time with its interval
(``ratio_ci``). The inputs of thousands of colors, where ``group_sparse`` sweeps every column
once per color (seconds), are added with ``--many``.

    PYTHONPATH=. python3 benchmarks/serial_d2.py [--reps 11] [--input SPEC PROBLEM]... [--many]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np
from _common import cell, header

from gcbench.algorithms import get, peers
from gcbench.algorithms.execute import prepare, prime, run_timed, setup
from gcbench.algorithms.pattern_validation import recovers, validate_pattern
from gcbench.graphs.pattern import Pattern
from gcbench.graphs.sources import load_instance
from gcbench.stats import ratio_ci

# (spec, problem): 3-D 27-point stencils (the structural Jacobians of issue 44's measurement),
# the distance2 suite's 7-point interior stencil (smaller), a random rectangular matrix of
# near-constant rows (exponent 10: lengths 6 to 12, mean 8) both ways round, the power-law
# matrix's rows, and two meshes' d2.
INPUTS = (
    ("gen:stencil?dim=3&side=21&points=27", "pd2"),
    ("gen:stencil?dim=3&side=48&points=27", "pd2"),
    ("gen:stencil?dim=3&side=96&points=7&rows=interior", "pd2"),
    ("gen:stencil?dim=3&side=96&points=7&rows=interior", "pd2-rows"),
    ("gen:skewed?rows=200000&cols=50000&mean=8&exponent=10&seed=0", "pd2"),
    ("gen:skewed?rows=200000&cols=50000&mean=8&exponent=10&seed=0", "pd2-rows"),
    ("gen:skewed?rows=200000&cols=200000&mean=8&exponent=3&seed=0", "pd2-rows"),
    ("gen:rgg?scale=18&seed=0", "d2"),
    ("gen:delaunay?scale=18&seed=0", "d2"),
)
# Thousands of colors: group_sparse sweeps every column once per group (seconds).
MANY = (
    ("gen:skewed?rows=200000&cols=200000&mean=8&exponent=3&seed=0", "pd2"),
    ("gen:kron?scale=14&seed=0", "d2"),
)
CASES = ("greedy", "scipy-group-columns", "group_sparse")
PARAMS = {"order": "natural"}


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def timed_calls(pattern: Pattern, problem: str) -> tuple[dict[str, Callable[[], tuple]], float]:
    """Each case as a call returning (colors, ms), primed and set up as the runner does; the
    peer's ``setup_ms``."""
    from scipy.optimize._group_columns import group_sparse

    prepared = prepare(pattern, "cpu")  # builds the column view, once, untimed
    calls = {}
    setup_ms = 0.0
    for name in CASES[:2]:
        spec = get(name, "cpu", problem=problem)
        params = spec.resolve_params(PARAMS)
        prime(spec, None, params)
        view = prepared.fresh()
        ms = setup(spec, view)
        if spec.peer:
            setup_ms = ms
            matrix = peers._scipy_columns(view.handle)  # what setup built (its cache)

        def call(spec=spec, view=view, params=params):  # type: ignore[no-untyped-def]
            coloring, ms = run_timed(spec, view, None, params)
            return np.asarray(coloring.colors, dtype=np.int32), ms

        calls[name] = call

    def bare():  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        groups = group_sparse(pattern.n_rows, pattern.n_cols, matrix.indices, matrix.indptr)
        return groups.astype(np.int32), (time.perf_counter() - start) * 1e3

    calls["group_sparse"] = bare
    return calls, setup_ms


def measure(spec: str, problem: str, reps: int) -> str:
    pattern = load_instance(spec, problem)
    assert isinstance(pattern, Pattern)
    calls, setup_ms = timed_calls(pattern, problem)
    reference = None
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for rep in range(reps + 1):  # the first round is the warm-up
        for name, call in calls.items():
            colors, ms = call()
            if reference is None:
                reference = colors
            elif not np.array_equal(colors, reference):
                raise SystemExit(f"{spec} {problem}: {name}'s colors differ from greedy's")
            if rep:
                times[name].append(ms)
    assert reference is not None
    if not (validate_pattern(pattern, reference).valid and recovers(pattern, reference)):
        raise SystemExit(f"{spec} {problem}: the greedy's coloring is invalid")
    scipy_best = min(("scipy-group-columns", "group_sparse"), key=lambda n: np.median(times[n]))
    ratio = ratio_ci(times[scipy_best], times["greedy"])
    shown = "" if ratio is None else f"{ratio.ratio:.2f} [{ratio.low:.2f}, {ratio.high:.2f}]"
    size = f"{pattern.n_rows:,} × {pattern.n_cols:,}, {pattern.nnz:,}"
    colors = int(reference.max()) + 1 if reference.size else 0
    greedy, peer, sparse = (cell(times[name], ".3g") for name in
                            ("greedy", "scipy-group-columns", "group_sparse"))  # fmt: skip
    return (
        f"| {spec} | {problem} | {size} | {colors} | {greedy} | {peer} ({setup_ms:.3g}) "
        f"| {sparse} | {shown} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=11, help="timed repetitions of each case")
    parser.add_argument("--input", nargs=2, action="append", metavar=("SPEC", "PROBLEM"))
    parser.add_argument("--many", action="store_true", help="add the inputs of many colors")
    args = parser.parse_args()
    inputs = [tuple(i) for i in args.input] if args.input else list(INPUTS)
    if args.many:
        inputs += MANY
    print(
        f"{time.strftime('%Y-%m-%d')}, {platform.node()}, {os.cpu_count()} CPUs, commit "
        f"{commit()}; {args.reps} interleaved repetitions after one warm-up"
    )
    print(
        header(
            "| input | problem | rows × columns, nonzeros | colors | greedy natural ms "
            "| group_columns ms (setup ms) | group_sparse alone ms | greedy ÷ faster SciPy |"
        )
    )
    for spec, problem in inputs:
        print(measure(spec, problem, args.reps), flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
