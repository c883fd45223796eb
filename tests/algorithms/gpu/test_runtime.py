"""The GPU runtime: compile caching, the device CSR, the validation kernel, device facts, and
the shared bounded round loop."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench import load_graph, validate
from gcbench.algorithms.gpu import runtime
from gcbench.errors import RoundCapError


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    return load_graph("gen:rgg?scale=12", data_dir=tmp_path_factory.getbasetemp() / "gcbench-data")


@pytest.mark.gpu
def test_a_kernel_compiles_once_per_process_and_defines():
    # A define no other test uses, so the first call is a compile whatever ran before.
    before = runtime._module.cache_info()
    runtime.kernel("validate", "count_conflicts", GCB_TEST_ONLY_DEFINE=7)
    first = runtime._module.cache_info()
    assert first.misses == before.misses + 1
    runtime.kernel("validate", "count_conflicts", GCB_TEST_ONLY_DEFINE=7)
    again = runtime._module.cache_info()
    assert again.misses == first.misses and again.hits == first.hits + 1
    runtime.kernel("validate", "count_conflicts", GCB_TEST_ONLY_DEFINE=8)
    assert runtime._module.cache_info().misses == again.misses + 1


@pytest.mark.gpu
def test_to_device_round_trip(graph):
    dg = runtime.to_device(graph)
    assert dg.n == graph.n and dg.nnz == graph.nnz
    assert dg.indptr.dtype == np.int32 and dg.indices.dtype == np.int32
    np.testing.assert_array_equal(dg.indptr.get(), graph.indptr)
    np.testing.assert_array_equal(dg.indices.get(), graph.indices)


@pytest.mark.gpu
def test_validate_device_agrees_with_numpy_on_a_bad_coloring(graph):
    cp = runtime.cupy()
    rng = np.random.default_rng(0)
    colors = rng.integers(0, 4, graph.n).astype(np.int32)  # 4 colors: many conflicts
    colors[rng.choice(graph.n, 25, replace=False)] = -1
    dg = runtime.to_device(graph)
    on_device = runtime.validate_device(dg, cp.asarray(colors), host_colors=colors)
    on_host = validate(graph, colors)
    assert on_device == on_host
    assert on_host.conflicts > 0 and on_host.uncolored == 25 and not on_device.valid


@pytest.mark.gpu
def test_device_facts_fields():
    facts = runtime.device_facts()
    assert facts.name and facts.compute_capability.isdigit()
    assert facts.multiprocessors > 0 and facts.max_threads_per_sm >= 1024
    for version in (facts.driver_version, facts.cuda_runtime):
        major, minor = version.split(".")
        assert int(major) >= 11 and minor.isdigit()
    assert facts.cupy_version == runtime.cupy().__version__
    assert runtime.persistent_grid(256) == facts.multiprocessors * facts.max_threads_per_sm // 256


def test_run_rounds_counts_rounds_and_stops_at_the_cap():
    left = iter([5, 3, 0])
    assert runtime.run_rounds(lambda r: next(left), cap=10, algorithm="t") == (3, [5.0, 3.0, 0.0])
    marker = object()
    with pytest.raises(RoundCapError, match="still 7 active after 4 rounds") as info:
        runtime.run_rounds(lambda r: 7, cap=4, algorithm="t", colors=marker)
    assert info.value.coloring is marker
