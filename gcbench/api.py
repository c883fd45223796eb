"""The library calls underneath the CLI: load a graph, color it, validate a coloring."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench import algorithms
from gcbench.algorithms.execute import execute, prepare
from gcbench.errors import GpuUnavailableError, SpecError
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
    params: dict[str, Any]  # as a results row records them (auto: with its choice)


def color(
    graph: Graph | str,
    algorithm: str,
    *,
    block_size: int | None = None,
    device: str = "auto",
    **params: Any,
) -> ColorResult:
    """Color ``graph`` (a Graph or a spec string) with ``algorithm`` and validate the result.

    ``device`` (gpu|cpu|auto) matters for ``auto``, which exists for both: "auto" means the
    GPU when one is usable. Other algorithms run where they run; asking one for the other
    device is an error."""
    if isinstance(graph, str):
        graph = load_graph(graph)
    spec = algorithms.get(algorithm, _backend(algorithm, device))
    if device in ("gpu", "cpu") and spec.backend != device:
        raise SpecError(f"{algorithm} runs on the {spec.backend.upper()}, not --device {device}")
    resolved = spec.resolve_params(params)
    outcome = execute(spec, prepare(graph, spec.backend), block_size, resolved)
    return ColorResult(
        outcome.colors,
        outcome.validation,
        outcome.coloring.iterations,
        outcome.time_ms,
        outcome.transfer_ms,
        outcome.coloring.trace,
        outcome.coloring.params or resolved,
    )


def _backend(algorithm: str, device: str) -> str | None:
    """The backend to ask the registry for: ``device`` if given, else, for a name on both
    backends, the GPU if usable (this process may initialise CUDA; the runner's parent never
    calls this)."""
    if device in ("gpu", "cpu"):
        return device
    if device != "auto":
        raise SpecError(f"device {device!r}: choose gpu, cpu or auto")
    if len(algorithms.backends(algorithm)) == 1:
        return None
    from gcbench.algorithms.gpu import runtime

    try:
        runtime.cupy()
    except GpuUnavailableError:
        return "cpu"
    return "gpu"
