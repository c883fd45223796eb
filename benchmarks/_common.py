"""What the benchmark scripts share: the graphs the issues benchmark on, and the per-case
protocol (set up, warm up, repeat the timed call, validate the last coloring) through
:mod:`gcbench.algorithms.execute` as the runner does, so a script's figures are the ones
``gcbench run`` would record."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench import algorithms
from gcbench.algorithms.execute import Prepared, finish, run_timed, setup
from gcbench.algorithms.registry import Coloring
from gcbench.validate import Validation

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
    """The repetitions of one case: their times and round counts, and the last coloring."""

    times_ms: list[float]
    iterations: list[int | None]
    coloring: Coloring
    colors: np.ndarray
    validation: Validation
    setup_ms: float

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms)


def time_case(
    name: str,
    prepared: Prepared,
    params: dict[str, Any],
    *,
    reps: int,
    block_size: int | None = None,
    slow_ms: float = math.inf,
) -> Timed:
    """``name`` on ``prepared``: setup, one warm-up (compilation, caches), then ``reps`` timed
    runs, or one when the warm-up took longer than ``slow_ms``."""
    spec = algorithms.get(name)
    resolved = spec.resolve_params(params)
    setup_ms = setup(spec, prepared)
    coloring, warm_ms = run_timed(spec, prepared, block_size, resolved)
    times, iterations = [], []
    for _ in range(1 if warm_ms > slow_ms else reps):
        coloring, ms = run_timed(spec, prepared, block_size, resolved)
        times.append(ms)
        iterations.append(coloring.iterations)
    colors, validation, _ = finish(spec, prepared, coloring)
    return Timed(times, iterations, coloring, colors, validation, setup_ms)
