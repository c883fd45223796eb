"""The CPU's side of the backend seam (:mod:`gcbench.algorithms.devices`): the graph stays
where it is, the clock is ``time.perf_counter``, validation runs on the host and the
reduction and balancing passes run their numba steps."""

from __future__ import annotations

import contextlib
import copy
import time
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any

import numpy as np

from gcbench.algorithms import balance, reduction
from gcbench.algorithms.cpu.threads import os_threads
from gcbench.algorithms.registry import Coloring
from gcbench.algorithms.validation import Validation, validate
from gcbench.graphs.graph import Graph
from gcbench.graphs.pattern import Pattern


class PerfClock:
    """Marks of ``time.perf_counter`` (the CPU's clock of the timing protocol)."""

    def __init__(self) -> None:
        self.marks: list[float] = []

    def mark(self) -> None:
        self.marks.append(time.perf_counter())

    def ms(self, first: int = 0, last: int = -1) -> float:
        return (self.marks[last] - self.marks[first]) * 1e3


class CpuBackend:
    """The CPU: algorithms read the host Graph itself (docs/architecture.md, "Backends")."""

    name = "cpu"
    takes_block_size = False
    copies_graph = False
    fragile = False
    times_solves = False

    def problem(self) -> str | None:
        return None

    def upload(self, graph: Graph | Pattern) -> tuple[Graph | Pattern, float]:
        """The graph itself; a Pattern's column view (a transpose) is built now, once, so no
        timed call builds it."""
        if isinstance(graph, Pattern):
            graph.columns  # noqa: B018 -- cached on the pattern
        return graph, 0.0

    def fresh(self, handle: Graph | Pattern) -> Graph | Pattern:
        return copy.copy(handle)

    def clock(self) -> PerfClock:
        return PerfClock()

    def watch(self) -> AbstractContextManager[None]:
        return contextlib.nullcontext()  # a CPU algorithm has no device to wait for

    def hold(self) -> AbstractContextManager[None]:
        return contextlib.nullcontext()  # nothing is queued: the call runs as it is made

    def finish(
        self, graph: Graph | Pattern, handle: Any, coloring: Coloring
    ) -> tuple[np.ndarray, Validation, float]:
        colors = np.asarray(coloring.colors, dtype=np.int32)
        if isinstance(graph, Pattern):
            from gcbench.algorithms.pattern_validation import recovers, validate_pattern

            validation = validate_pattern(graph, colors, parallel=False)
            return colors, replace(validation, recovered=recovers(graph, colors)), 0.0
        return colors, validate(graph, colors, parallel=False), 0.0

    def reduce(self, handle: Graph, coloring: Coloring, mode: str, sync: str | None) -> Coloring:
        return reduction.reduce_host(handle, coloring, mode)

    def balance(self, handle: Graph, coloring: Coloring, mode: str) -> Coloring:
        return balance.balance_host(handle, coloring, mode)

    def facts(self) -> dict[str, str]:
        return {}

    def monitors(self) -> tuple[None, None]:
        return None, None

    def threads(self, params: dict[str, Any]) -> int:
        return os_threads(params)

    def degrees(self, handle: Graph) -> tuple[int, int, int]:
        indptr = handle.indptr
        n = int(indptr.shape[0]) - 1
        if n <= 0:
            return 0, 0, 0
        return n, int(indptr[-1]), int(np.diff(indptr).max())


BACKEND = CpuBackend()
