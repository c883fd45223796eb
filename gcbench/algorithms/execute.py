"""Running one algorithm on one graph with the timing protocol of DESIGN §4.

Shared by :func:`gcbench.color` and the benchmark runner, so a coloring is timed and
validated the same way wherever it is asked for.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench.algorithms import reduction
from gcbench.algorithms.registry import AlgorithmSpec, Coloring
from gcbench.graph import Graph
from gcbench.validate import Validation, validate


@dataclass
class Prepared:
    """A graph made ready for one backend: the host Graph, or its DeviceGraph on the GPU."""

    graph: Graph
    backend: str
    handle: Any
    transfer_ms: float


@dataclass
class Outcome:
    """One timed, validated execution."""

    coloring: Coloring
    colors: np.ndarray
    validation: Validation
    time_ms: float
    transfer_ms: float


def prepare(graph: Graph, backend: str) -> Prepared:
    """Move ``graph`` to where ``backend`` runs; the GPU copy is timed (DESIGN §4)."""
    if backend == "cpu":
        return Prepared(graph, backend, graph, 0.0)
    from gcbench.algorithms.gpu import runtime

    cp = runtime.cupy()
    cp.cuda.Device().synchronize()  # creates the CUDA context (~0.1 s) outside the timed copy
    start = time.perf_counter()
    dgraph = runtime.to_device(graph)
    cp.cuda.Device().synchronize()
    return Prepared(graph, backend, dgraph, (time.perf_counter() - start) * 1e3)


def setup(spec: AlgorithmSpec, prepared: Prepared) -> float:
    """Run ``spec.setup`` on the prepared graph once; return its time in ms (0 if none).

    Callers add this to ``transfer_ms``: per-graph structures are not the algorithm's time.
    """
    if spec.setup is None:
        return 0.0
    start = time.perf_counter()
    spec.setup(prepared.handle)
    if spec.backend == "gpu":
        from gcbench.algorithms.gpu import runtime

        runtime.cupy().cuda.Device().synchronize()
    return (time.perf_counter() - start) * 1e3


def invoke(
    spec: AlgorithmSpec, handle: Any, block_size: int | None, params: dict[str, Any]
) -> Coloring:
    """The call :func:`run_timed` times: ``spec.run`` on ``handle`` (a Graph or DeviceGraph),
    then, for a ``reduce`` other than "none" on a spec without ``native_reduce``, the
    reduction on the algorithm's own backend (the GPU one needs no copy to the host)."""
    kwargs = dict(params)
    mode = "none" if spec.native_reduce else kwargs.pop("reduce", "none")
    if spec.backend == "gpu" or spec.block_size_matters:
        kwargs["block_size"] = block_size or spec.default_block_size or 256
    coloring = spec.run(handle, **kwargs)
    return reduction.apply(spec.backend, handle, coloring, mode)


def run_timed(
    spec: AlgorithmSpec, prepared: Prepared, block_size: int | None, params: dict[str, Any]
) -> tuple[Coloring, float]:
    """Run ``spec`` once (:func:`invoke`); return its Coloring and the time of the call alone
    in ms. GPU: CUDA events on the current stream around the call (host round trips it makes
    are inside). CPU: ``time.perf_counter``.
    """
    if spec.backend == "cpu":
        start = time.perf_counter()
        coloring = invoke(spec, prepared.handle, block_size, params)
        return coloring, (time.perf_counter() - start) * 1e3
    from gcbench.algorithms.gpu import runtime

    cp = runtime.cupy()
    begin, end = cp.cuda.Event(), cp.cuda.Event()
    begin.record()
    coloring = invoke(spec, prepared.handle, block_size, params)
    end.record()
    end.synchronize()
    return coloring, float(cp.cuda.get_elapsed_time(begin, end))


def finish(
    spec: AlgorithmSpec, prepared: Prepared, coloring: Coloring
) -> tuple[np.ndarray, Validation, float]:
    """Validate ``coloring`` and bring its colors to the host; returns (colors, validation,
    copy-back ms). The GPU validates with its own kernel before the copy."""
    if spec.backend == "cpu":
        colors = np.asarray(coloring.colors, dtype=np.int32)
        return colors, validate(prepared.graph, colors), 0.0
    from gcbench.algorithms.gpu import runtime

    cp = runtime.cupy()
    dcolors = cp.asarray(coloring.colors, dtype=np.int32)
    start = time.perf_counter()
    colors = cp.asnumpy(dcolors)
    copy_ms = (time.perf_counter() - start) * 1e3
    validation = runtime.validate_device(prepared.handle, dcolors, host_colors=colors)
    return colors, validation, copy_ms


def execute(
    spec: AlgorithmSpec, prepared: Prepared, block_size: int | None, params: dict[str, Any]
) -> Outcome:
    """Run, time, copy back and validate once (after :func:`setup`, for one-off calls)."""
    setup_ms = setup(spec, prepared)
    coloring, time_ms = run_timed(spec, prepared, block_size, params)
    colors, validation, copy_ms = finish(spec, prepared, coloring)
    return Outcome(coloring, colors, validation, time_ms, prepared.transfer_ms + setup_ms + copy_ms)
