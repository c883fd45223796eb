"""``sync=graph`` (gcbench/algorithms/gpu/loops.py): where it cannot run, it says why in one
line and what to do; where it can, the independent-set family colors through one graph launch
(tests/algorithms/gpu/test_sync.py compares it with the host's protocols)."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from gcbench import algorithms
from gcbench.algorithms.gpu import loops, runtime
from gcbench.errors import GpuUnavailableError


@pytest.fixture
def fresh_check():
    loops.unsupported.cache_clear()
    yield loops.unsupported
    loops.unsupported.cache_clear()


def test_without_cuda_bindings_graph_says_what_to_install(monkeypatch, fresh_check):
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)  # the import now fails
    reason = fresh_check()
    assert "cuda-bindings" in reason and "gcbench[cuda12]" in reason and "sync=device" in reason
    with pytest.raises(GpuUnavailableError, match="sync=device"):
        loops.require()


def test_a_driver_older_than_conditional_nodes_is_named(monkeypatch, fresh_check):
    pytest.importorskip("cuda.bindings")
    old = SimpleNamespace(
        cuda=SimpleNamespace(runtime=SimpleNamespace(driverGetVersion=lambda: 12030))
    )
    monkeypatch.setattr(runtime, "cupy", lambda: old)
    reason = fresh_check()
    assert "12.4" in reason and "12030" in reason


def test_the_independent_set_family_and_gm_gpu_default_to_graph_and_the_others_cannot_take_it():
    for name in ("jpl", "jpl-minmax", "gunrock", "cohen", "luby", "very-random", "gm-gpu"):
        sync = algorithms.get(name).param("sync")
        assert sync.default == "graph" and "device" in sync.choices, name
    for name in ("vb-bit", "eb"):
        assert "graph" not in algorithms.get(name).param("sync").choices, name
