"""Test-only CPU algorithms, loaded through GCBENCH_PLUGINS by the runner and its workers.

Each one misbehaves in one way the runner must survive and record.
"""

from __future__ import annotations

import os
import time

import numpy as np

from gcbench.algorithms import AlgorithmSpec, Coloring, Param, register
from gcbench.errors import RoundCapError, UnsupportedError


def _distinct(graph, *, offset: int = 0, **_) -> Coloring:
    """Every vertex its own color: always valid; a two-series trace."""
    colors = np.arange(graph.n, dtype=np.int32) + offset
    return Coloring(colors, 2, {"active": [float(graph.n), 0.0], "edges": [float(graph.m), 0.0]})


def _setup(graph) -> None:
    time.sleep(0.02)


def _exit(graph, **_) -> Coloring:
    os._exit(3)


def _segfault(graph, **_) -> Coloring:
    import ctypes

    ctypes.string_at(0)  # reads address 0: SIGSEGV


def _sleep(graph, *, seconds: float, **_) -> Coloring:
    time.sleep(seconds)
    return _distinct(graph)


def _invalid(graph, **_) -> Coloring:
    return Coloring(np.zeros(graph.n, dtype=np.int32), 1)


def _roundcap(graph, **_) -> Coloring:
    raise RoundCapError("test-roundcap: still 5 active after 3 rounds")


def _memory(graph, **_) -> Coloring:
    raise MemoryError("cannot allocate the test's forbidden array")


def _unsupported(graph, **_) -> Coloring:
    raise UnsupportedError("test-unsupported: needs a package that is not installed")


def _spec(name: str, run, **extra) -> AlgorithmSpec:
    return register(AlgorithmSpec(name, "cpu", "gcbench tests", run, **extra))


_spec(
    "test-distinct",
    _distinct,
    params=(Param("offset", 0, int, low=0, high=100),),
    setup=_setup,
    description="every vertex its own color",
)
_spec("test-exit", _exit)
_spec("test-segfault", _segfault)
_spec("test-sleep", _sleep, params=(Param("seconds", 30.0, float, low=0.0),))
_spec("test-invalid", _invalid)
_spec("test-roundcap", _roundcap)
_spec("test-memory", _memory)
_spec("test-unsupported", _unsupported)
