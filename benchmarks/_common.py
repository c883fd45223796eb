"""What the benchmark scripts share: the graphs the issues benchmark on, and the per-case
protocol (prime, set up, warm up, repeat the timed call, validate every coloring) through
:mod:`gcbench.algorithms.execute` as the runner does, so a script's figures are the ones
``gcbench run`` would record."""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench import algorithms
from gcbench.algorithms.execute import (
    Prepared,
    Repetition,
    prime,
    repetitions,
    run_timed,
    runs,
    setup,
)
from gcbench.algorithms.registry import AlgorithmSpec, Coloring
from gcbench.algorithms.sampling import Sampling
from gcbench.algorithms.validation import Validation
from gcbench.errors import GcbenchError
from gcbench.grammar import parse_param_string
from gcbench.stats import median_ci

# The issue-31 command's five graphs (docs/statistics.md), which the round-trip and recoloring
# benchmarks start from.
ISSUE_31_GRAPHS = (
    "gen:rgg?scale=20",
    "gen:kron?scale=18",
    "gen:delaunay?scale=20",
    "gen:grid2d?side=2048",
    "gen:rmat?scale=18",
)

# The seeds' benchmark graphs as generated stand-ins (issues 4 and 5; issue 6 takes a subset).
LARGE_GRAPHS = (
    "gen:rgg?scale=20",
    "gen:rgg?scale=22",
    "gen:rgg?scale=24",
    "gen:delaunay?scale=20",
    "gen:grid2d?side=2048",
    "gen:kron?scale=18",
    "gen:kron?scale=20&edgefactor=48",
)


@dataclass
class Timed:
    """The repetitions of one case (each validated), their setup, and the last coloring."""

    runs: list[Repetition]
    setup_ms: float

    @property
    def times_ms(self) -> list[float]:
        return [r.time_ms for r in self.runs]

    @property
    def iterations(self) -> list[int | None]:
        return [r.coloring.iterations for r in self.runs]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def coloring(self) -> Coloring:
        return self.runs[-1].coloring

    @property
    def colors(self) -> np.ndarray:
        return self.runs[-1].colors

    @property
    def validation(self) -> Validation:
        """The first invalid repetition's validation, else the last one's."""
        bad = [r.validation for r in self.runs if not r.validation.valid]
        return (bad or [self.runs[-1].validation])[0]


def time_case(
    name: str,
    prepared: Prepared,
    params: dict[str, Any],
    *,
    reps: int,
    block_size: int | None = None,
    slow_ms: float = math.inf,
) -> Timed:
    """``name`` on a fresh view of ``prepared``: primed (compilation), set up (``setup_ms``),
    one warm-up, then ``reps`` timed runs, or one when the warm-up took longer than
    ``slow_ms``; every run validated."""
    spec = algorithms.get(name)
    resolved = spec.resolve_params(params)
    view = prepared.fresh()
    prime(spec, block_size, resolved)
    setup_ms = setup(spec, view)

    def runs(count: int) -> list[Repetition]:
        return list(
            repetitions(
                spec, view, block_size, resolved, sampling=Sampling(count, 0), setup_ms=setup_ms
            )
        )

    warm = runs(1)[0]
    return Timed(runs(1 if warm.time_ms > slow_ms else reps), setup_ms)


def interleaved(
    spec: AlgorithmSpec,
    prepared: Prepared,
    variants: dict[str, dict[str, Any]],
    reps: int,
    meter: Any = None,
    warmups: int = 2,
) -> dict[str, list[Repetition]]:
    """``reps`` validated repetitions of ``spec`` under each of ``variants`` (label -> given
    params), one of each in turn after ``warmups`` each, so drift in the machine's state falls
    on all of them alike; ``meter`` records each repetition's conditions. An invalid coloring
    raises GcbenchError."""
    streams = {}
    for label, given in variants.items():
        params = spec.resolve_params(given)
        prime(spec, None, params)
        view = prepared.fresh()
        streams[label] = runs(spec, view, None, params, setup_ms=setup(spec, view), meter=meter)
    for _ in range(warmups):
        for stream in streams.values():
            next(stream)
    out: dict[str, list[Repetition]] = {label: [] for label in variants}
    for _ in range(reps):
        for label, stream in streams.items():
            run = next(stream)
            if not run.validation.valid:
                raise GcbenchError(f"{spec.name} {label}: invalid coloring ({run.validation})")
            out[label].append(run)
    return out


def back_to_back(
    name: str, prepared: Prepared, params: dict[str, Any], reps: int, warmup_ms: float = 100.0
) -> float:
    """Median ms of ``reps`` calls of ``name`` in a row on one set-up fresh view of
    ``prepared``, with no validation or copy between them: the shape of an original code's
    own timing loop. Before them, calls for at least ``warmup_ms`` of wall time (at least one),
    so that the host is in the steady state of such a loop: after an idle second and one
    warm-up call, ecl-gc's median on delaunay 20 read 3-5 % slower, all of it host time between
    the start event and the launch; its device time alone did not move
    (docs/history/ecl-gc.md, "The back-to-back warm-up")."""
    spec = algorithms.get(name)
    view = prepared.fresh()
    setup(spec, view)
    warm_until = time.perf_counter() + warmup_ms / 1e3
    run_timed(spec, view, None, params)
    while time.perf_counter() < warm_until:  # bounded: each call returns, the clock moves on
        run_timed(spec, view, None, params)
    return statistics.median(run_timed(spec, view, None, params)[1] for _ in range(reps))


def variant(text: str) -> tuple[str, dict[str, Any]]:
    """``name:k=v,k=v`` -> (name, resolved params)."""
    spec, params = variant_for(text)
    return spec.name, params


def variant_for(text: str, problem: str = "d1") -> tuple[AlgorithmSpec, dict[str, Any]]:
    """``name:k=v,k=v`` -> (the spec that solves ``problem``, its resolved params)."""
    name, _, given = text.partition(":")
    spec = algorithms.get(name, problem=problem)
    return spec, spec.resolve_params(parse_param_string(given.replace(",", ";")))


def header(line: str) -> str:
    """A markdown table's header line and the separator line under it."""
    return f"{line}\n|" + " --- |" * (line.count("|") - 1)


def conditions_line(rows: list[dict]) -> str:
    """The SM clock, the host's round trip and the load a graph's repetitions ran under."""
    parts = []
    for column, unit in (("sm_clock_mhz", "MHz"), ("round_trip_us", "µs round trip"),
                         ("load_avg", "load a core")):  # fmt: skip
        values = sorted(r[column] for r in rows if r.get(column) is not None)
        if values:
            pick = [values[int(q * (len(values) - 1))] for q in (0.5, 0.05, 0.95)]
            parts.append(f"{pick[0]:.3g} [{pick[1]:.3g}, {pick[2]:.3g}] {unit}")
    return ", ".join(parts) or "not recorded"


def known_median(values: list[Any], digits: str = ".3g") -> str:
    """The median of the values that are not None ("—" if none: a call that waits uncounted
    leaves ``host_syncs`` and ``device_ms`` empty)."""
    known = [v for v in values if v is not None]
    return f"{statistics.median(known):{digits}}" if known else "—"


def cell(values: list[float], digits: str = ".3f") -> str:
    """The median of ``values`` with its 95 % interval (order statistics) where there is one."""
    ci = median_ci(values)
    mid = statistics.median(values)
    return f"{mid:{digits}} [{ci[0]:{digits}}, {ci[1]:{digits}}]" if ci else f"{mid:{digits}}"


def gpu_banner() -> str:
    """The line a GPU benchmark's output starts with: the device, its stack and the date."""
    from gcbench.algorithms.gpu import runtime

    facts = runtime.device_facts()
    return (f"{facts.name}, driver {facts.driver_version}, CUDA {facts.cuda_runtime}, "
            f"CuPy {facts.cupy_version}, {time.strftime('%Y-%m-%d')}")  # fmt: skip


def gpu_meter() -> Any:
    """A Conditions meter of the GPU (SM clock, the host's round trip, load) for
    :func:`interleaved`."""
    from gcbench.algorithms import devices
    from gcbench.bench.conditions import Conditions

    gpu, trip = devices.get("gpu").monitors()
    return Conditions("gpu", gpu, trip)
