"""The library calls underneath the CLI: load a graph, color it, validate a coloring."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench import algorithms
from gcbench.algorithms.execute import execute, prepare
from gcbench.graph import Graph
from gcbench.sources import load_graph
from gcbench.validate import Validation

__all__ = ["ColorResult", "color", "load_graph"]


@dataclass(frozen=True)
class ColorResult:
    """A validated coloring with its timing (one run; use ``gcbench run`` for benchmarks)."""

    colors: np.ndarray
    validation: Validation
    iterations: int | None
    time_ms: float
    transfer_ms: float
    trace: dict[str, list[float]]


def color(
    graph: Graph | str, algorithm: str, *, block_size: int | None = None, **params: Any
) -> ColorResult:
    """Color ``graph`` (a Graph or a spec string) with ``algorithm`` and validate the result."""
    if isinstance(graph, str):
        graph = load_graph(graph)
    spec = algorithms.get(algorithm)
    resolved = spec.resolve_params(params)
    outcome = execute(spec, prepare(graph, spec.backend), block_size, resolved)
    return ColorResult(
        outcome.colors,
        outcome.validation,
        outcome.coloring.iterations,
        outcome.time_ms,
        outcome.transfer_ms,
        outcome.coloring.trace,
    )
