"""``sync=graph`` (gcbench/algorithms/gpu/loops.py): where it cannot run, it says why in one
line and what to do; where it can, the round-based families that take it default to it and
color through one graph launch (tests/algorithms/gpu/test_sync.py compares it with the host's
protocols)."""

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


def test_the_round_based_families_default_to_graph_where_they_take_it():
    takes = {
        (problem, spec.name): spec.param("sync")
        for problem in ("d1", "d2")
        for spec in algorithms.all_specs("gpu", problem)
        if any(p.name == "sync" for p in spec.params)
    }
    families = ("jpl", "jpl-minmax", "gunrock", "cohen", "luby", "very-random")
    deveci = ("vb", "vb-bit", "eb", "eb-cs", "eb-tent", "eb-er")
    for name in (*families, *deveci, "gm-gpu"):
        assert "graph" in takes["d1", name].choices, name
    for name in ("vb-bit", "nb-bit", "jp-d2"):
        assert "graph" in takes["d2", name].choices, name
    for key, sync in takes.items():
        assert sync.default == ("graph" if "graph" in sync.choices else "device"), key
        assert {"device", "batch", "round"} <= set(sync.choices), key


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["jpl", "gunrock", "cohen", "vb", "vb-bit", "eb-er", "gm-gpu"])
def test_what_a_captured_loop_writes_stays_its_own(on_gpu, name):
    """The captured launches hold raw pointers: if a buffer they write went back to CuPy's
    pool, arrays allocated later would be overwritten by the next coloring."""
    import gc

    from gcbench.algorithms.execute import execute

    cp = runtime.cupy()
    graph, prepared = on_gpu("gen:rgg?scale=12")
    algo = algorithms.get(name)
    params = algo.resolve_params({"sync": "graph"})
    first = execute(algo, prepared, None, params)
    gc.collect()
    sizes = (graph.n, graph.n + 1, graph.nnz, graph.nnz + graph.n, graph.nnz // 2, 2 * graph.n)
    hogs = [cp.full(size, 7, dtype=cp.int32) for size in sizes for _ in range(16)]
    again = execute(algo, prepared, None, params)
    assert again.validation.valid and first.validation.valid
    assert all(bool((hog == 7).all()) for hog in hogs)
