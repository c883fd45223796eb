"""The GPU's side of the backend seam (:mod:`gcbench.algorithms.devices`): the graph is
uploaded once per graph (timed, refused first when it cannot fit), the clock is CUDA events
on the current stream, validation runs on the device before the colors are copied back, and
the reduction and balancing passes launch their kernels on the device colors."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from gcbench import memory
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.gpu.balance import balance_device
from gcbench.algorithms.gpu.reduction import reduce_device
from gcbench.algorithms.registry import Coloring
from gcbench.algorithms.validation import Validation
from gcbench.errors import GpuUnavailableError
from gcbench.graphs.graph import Graph
from gcbench.graphs.pattern import Pattern

DeviceInput = runtime.DeviceGraph | runtime.DevicePattern


class GpuBackend:
    """The GPU: algorithms read the graph's int32 CSR on the device (docs/architecture.md,
    "Backends")."""

    name = "gpu"
    takes_block_size = True
    copies_graph = True
    fragile = True
    times_solves = True

    def problem(self) -> str | None:
        try:
            runtime.cupy()
        except GpuUnavailableError as exc:
            return str(exc)
        return None

    def upload(self, graph: Graph | Pattern) -> tuple[DeviceInput, float]:
        """A Graph as a DeviceGraph, a Pattern (docs/distance2.md) as a DevicePattern; the
        host passes (the largest degree, a pattern's column view) come before the timer."""
        cp = runtime.cupy()
        cp.cuda.Device().synchronize()  # creates the CUDA context (~0.1 s) outside the timing
        if isinstance(graph, Pattern):
            upload = memory.estimate_pattern_upload_bytes(
                graph.n_rows, graph.n_cols, graph.nnz, graph.symmetric
            )
            graph.columns  # noqa: B018 -- the host's transpose, built before the timer
            copy: Callable[[], DeviceInput] = partial(runtime.pattern_to_device, graph)
        else:
            upload = memory.estimate_upload_bytes(graph.n, graph.nnz)
            largest = graph.max_degree  # a host pass over the offsets: before the timer
            copy = partial(runtime.to_device, graph, largest)
        runtime.require_device(upload, f"uploading {graph.name}")
        start = time.perf_counter()
        handle = copy()
        cp.cuda.Device().synchronize()
        return handle, (time.perf_counter() - start) * 1e3

    def fresh(self, handle: DeviceInput) -> DeviceInput:
        return handle.fresh()

    def clock(self) -> runtime.EventClock:
        return runtime.EventClock()

    def watch(self) -> AbstractContextManager[runtime.HostWatch]:
        return runtime.watch()

    def hold(self) -> AbstractContextManager[runtime.Hold]:
        return runtime.held()

    def finish(
        self, graph: Graph | Pattern, handle: DeviceInput, coloring: Coloring
    ) -> tuple[np.ndarray, Validation, float]:
        cp = runtime.cupy()
        dcolors = cp.asarray(coloring.colors, dtype=np.int32)
        if isinstance(handle, runtime.DevicePattern):
            from gcbench.algorithms.gpu.pattern_check import (
                recovers_device,
                validate_pattern_device,
            )

            validation = validate_pattern_device(handle, dcolors)
            validation = replace(validation, recovered=recovers_device(handle, dcolors))
        else:
            validation = runtime.validate_device(handle, dcolors)
        start = time.perf_counter()
        colors = cp.asnumpy(dcolors)
        return colors, validation, (time.perf_counter() - start) * 1e3

    def reduce(
        self, handle: runtime.DeviceGraph, coloring: Coloring, mode: str, sync: str | None
    ) -> Coloring:
        return reduce_device(handle, coloring, mode, sync="round" if sync == "round" else None)

    def balance(self, handle: runtime.DeviceGraph, coloring: Coloring, mode: str) -> Coloring:
        return balance_device(handle, coloring, mode)

    def facts(self) -> dict[str, str]:
        facts = runtime.device_facts()
        capability = facts.compute_capability
        return {
            "device_name": facts.name,
            "driver_version": facts.driver_version,
            "cuda_runtime": facts.cuda_runtime,
            "cupy_version": facts.cupy_version,
            "compute_capability": f"{capability[:-1]}.{capability[-1]}",
        }

    def monitors(self) -> tuple[Any, runtime.RoundTrip]:
        from gcbench.algorithms.gpu import clocks

        return clocks.open_gpu(runtime.device_facts().pci_bus_id), runtime.RoundTrip()

    def threads(self, params: dict[str, Any]) -> int:
        return 1

    def degrees(self, handle: runtime.DeviceGraph) -> tuple[int, int, int]:
        """Known from the upload (the host's offsets gave the largest degree then): no device
        work and no read back inside the timed call (docs/auto.md, "The rule")."""
        return handle.n, handle.nnz, handle.max_degree


BACKEND = GpuBackend()
