"""The seam between the algorithms and the device they run on (docs/architecture.md,
"Backends").

A :class:`Backend` is one small object per device, chosen once by name (``"cpu"`` or
``"gpu"``, an :class:`~gcbench.algorithms.registry.AlgorithmSpec`'s ``backend``): it moves a
graph to the device, gives the clock the timing protocol reads, brings a coloring back and
validates it, runs the backend-neutral passes (color reduction, class balancing) on its own
side, and says whether it is usable here. Everything above the seam (``execute``, ``auto``,
the library calls) asks it instead of branching on the device's name; the GPU's object is
imported only when asked for, so a CPU-only install never imports CuPy.
"""

from __future__ import annotations

import importlib
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from gcbench.algorithms.registry import Coloring
from gcbench.algorithms.validation import Validation
from gcbench.graphs.graph import Graph

NAMES = ("cpu", "gpu")


class Clock(Protocol):
    """Marks on one backend's timeline (CUDA events on the GPU, ``perf_counter`` on the CPU)."""

    def mark(self) -> None:
        """Stamp a mark now (on the GPU: when the device reaches it)."""

    def ms(self, first: int = 0, last: int = -1) -> float:
        """Milliseconds from mark ``first`` to mark ``last``."""
        ...


class Backend(Protocol):
    """One device's side of running an algorithm."""

    name: str
    # Every algorithm of the backend takes a block size (a GPU kernel's launch shape).
    takes_block_size: bool
    # The graph is copied to the device once per graph (the runner says so while it lasts).
    copies_graph: bool
    # An unexpected failure may leave the device unusable for the process (a CUDA context):
    # the runner replaces its worker.
    fragile: bool
    # Its rows time the triangular solves of ``--metrics levels`` (cuSPARSE, on the GPU).
    times_solves: bool

    def problem(self) -> str | None:
        """Why nothing runs on this backend here (None: usable); may initialise the device."""
        ...

    def upload(self, graph: Graph) -> tuple[Any, float]:
        """``graph`` where the algorithms of the backend read it (the handle they are given)
        and the ms the copy took, refused first when it cannot fit."""
        ...

    def fresh(self, handle: Any) -> Any:
        """The same graph with nothing an algorithm cached on it."""
        ...

    def clock(self) -> Clock:
        """A new clock with no marks."""
        ...

    def watch(self) -> AbstractContextManager[Any]:
        """A context that counts the host's blocking reads inside it (``syncs``) and the device
        time they left idle (``idle_ms()``, read after the region): ``host_syncs`` and
        ``device_ms`` (docs/decisions.md, "Rounds without the host"); None on the CPU."""
        ...

    def hold(self) -> AbstractContextManager[Any]:
        """A context entered before a timed call's start mark: the device waits until the host
        has queued the call (or first waits for the device inside it), so the host's launch
        latency is not timed (docs/decisions.md, "The device held until the call is
        queued"); nothing on the CPU."""
        ...

    def finish(
        self, graph: Graph, handle: Any, coloring: Coloring
    ) -> tuple[np.ndarray, Validation, float]:
        """The colors on the host, their validation and the ms of the copy back."""
        ...

    def reduce(self, handle: Any, coloring: Coloring, mode: str, sync: str | None) -> Coloring:
        """``coloring`` after the color reduction ``mode`` (gcbench.algorithms.reduction);
        ``sync`` is the algorithm's host protocol (None when it has none): under ``round``,
        the papers' protocol, the GPU reduction reads its state after every round too."""
        ...

    def balance(self, handle: Any, coloring: Coloring, mode: str) -> Coloring:
        """``coloring`` after the class balancing ``mode`` (gcbench.algorithms.balance)."""
        ...

    def facts(self) -> dict[str, str]:
        """The device's columns of a row (name, driver, runtime, library versions, compute
        capability); empty on the CPU."""
        ...

    def monitors(self) -> tuple[Any, Any]:
        """What the conditions meter reads on this device: the GPU's NVML handle and its host
        round trip (gcbench.bench.conditions); (None, None) on the CPU."""
        ...

    def threads(self, params: dict[str, Any]) -> int:
        """The host threads a coloring with ``params`` runs on."""
        ...

    def degrees(self, handle: Any) -> tuple[int, int, int]:
        """(n, stored entries, maximum degree): what ``auto`` reads of a graph when its call is
        bound, before the timer (the GPU knows them from the upload; the CPU asks numpy)."""
        ...


_BACKENDS: dict[str, Backend] = {}


def get(name: str) -> Backend:
    """The backend called ``name``; its module (``gcbench.algorithms.<name>.backend``) is
    imported the first time."""
    if name not in NAMES:
        raise ValueError(f"unknown backend {name!r}; known: {', '.join(NAMES)}")
    if name not in _BACKENDS:
        _BACKENDS[name] = importlib.import_module(f"gcbench.algorithms.{name}.backend").BACKEND
    return _BACKENDS[name]


def usable(name: str) -> bool:
    """Whether ``name`` can run here (for the GPU: CuPy imports and a device answers)."""
    return get(name).problem() is None
