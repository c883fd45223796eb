"""The GPU runtime: compile caching, the device CSR, the uncolored start, the event clock, the
validation kernel, device facts, and the shared bounded round loop."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

from gcbench import load_graph, validate
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.registry import UNCOLORED


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    return load_graph("gen:rgg?scale=12", data_dir=tmp_path_factory.getbasetemp() / "gcbench-data")


@pytest.mark.gpu
def test_a_kernel_compiles_once_per_process_and_defines():
    # A define no other test uses, so the first call is a compile whatever ran before.
    before = runtime._module.cache_info()
    runtime.kernel("validate", "validate_coloring", GCB_TEST_ONLY_DEFINE=7)
    first = runtime._module.cache_info()
    assert first.misses == before.misses + 1
    runtime.kernel("validate", "validate_coloring", GCB_TEST_ONLY_DEFINE=7)
    again = runtime._module.cache_info()
    assert again.misses == first.misses and again.hits == first.hits + 1
    runtime.kernel("validate", "validate_coloring", GCB_TEST_ONLY_DEFINE=8)
    assert runtime._module.cache_info().misses == again.misses + 1


def test_uncolored_is_the_kernels_uncolored():
    header = runtime.kernel_source("validate")
    value = re.search(r"#define GCB_UNCOLORED \((-?\d+)\)", header)
    assert value is not None and int(value.group(1)) == UNCOLORED


@pytest.mark.gpu
@pytest.mark.parametrize("n", [0, 1, 1000])
def test_uncolored_starts_every_vertex_uncolored(n):
    colors = runtime.uncolored(n)
    assert colors.dtype == np.int32 and colors.shape == (n,)
    assert (colors.get() == UNCOLORED).all()


@pytest.mark.gpu
def test_event_clock_counts_host_work_while_the_device_waits():
    with runtime.timed() as clock:
        time.sleep(0.02)  # nothing queued: the exit mark is stamped once recorded
        clock.mark()
    assert len(clock.marks) == 3
    assert clock.ms(0, 1) >= 19.0
    assert clock.ms() == pytest.approx(clock.ms(0, 1) + clock.ms(1, 2), abs=0.01)


def _compiled_before_holding() -> None:
    """CuPy compiles a kernel on its first use, for far longer than a hold waits: the tests'
    operations are compiled first, as ``execute.prime`` compiles an algorithm's."""
    cp = runtime.cupy()
    cp.zeros(1000, dtype=np.int32).sum()
    cp.arange(3, dtype=np.int32).get()


@pytest.mark.gpu
def test_a_held_stream_leaves_the_hosts_queueing_out_of_the_timed_region():
    _compiled_before_holding()
    with runtime.held():
        clock = runtime.EventClock()
        clock.mark()
        time.sleep(0.001)  # the host's queueing: under the hold's timeout
        runtime.cupy().zeros(1000, dtype=np.int32).sum()
        clock.mark()
    assert clock.ms() < 0.5 and not runtime.hold_timed_out()
    with runtime.timed() as unheld:  # the same without the hold: the sleep is timed
        time.sleep(0.001)
        runtime.cupy().zeros(1000, dtype=np.int32).sum()
    assert unheld.ms() >= 0.9


@pytest.mark.gpu
def test_a_wait_inside_a_hold_lets_it_go_and_an_unsaid_one_times_out():
    _compiled_before_holding()
    with runtime.held():
        value = runtime.read_back(runtime.cupy().arange(3, dtype=np.int32))
    runtime.cupy().cuda.get_current_stream().synchronize()
    assert value.tolist() == [0, 1, 2] and not runtime.hold_timed_out()
    start = time.perf_counter()
    with runtime.held():
        value = runtime.cupy().arange(3, dtype=np.int32).get()  # a wait nobody counts
    waited = time.perf_counter() - start
    assert value.tolist() == [0, 1, 2] and runtime.hold_timed_out()
    assert waited >= runtime.HOLD_TIMEOUT_MS / 1e3 * 0.9


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
    on_device = runtime.validate_device(dg, cp.asarray(colors))
    on_host = validate(graph, colors)
    assert on_device == on_host
    assert on_host.conflicts > 0 and on_host.uncolored == 25 and not on_device.valid


@pytest.mark.gpu
@pytest.mark.parametrize("top", [7, 5000, 10**9])  # 10**9 > n: distinct colors counted on host
def test_validate_device_counts_distinct_and_max_colors(graph, top):
    cp = runtime.cupy()
    rng = np.random.default_rng(1)
    colors = rng.choice(np.array([0, 3, top], dtype=np.int32), graph.n)
    colors[:3] = (0, 3, top)
    on_device = runtime.validate_device(runtime.to_device(graph), cp.asarray(colors))
    assert on_device == validate(graph, colors)
    assert on_device.colors == 3 and on_device.max_color == top


@pytest.mark.gpu
def test_device_facts_fields():
    facts = runtime.device_facts()
    assert facts.name and facts.compute_capability.isdigit() and facts.pci_bus_id
    assert facts.multiprocessors > 0 and facts.max_threads_per_sm >= 1024
    for version in (facts.driver_version, facts.cuda_runtime):
        major, minor = version.split(".")
        assert int(major) >= 11 and minor.isdigit()
    assert facts.cupy_version == runtime.cupy().__version__
    assert runtime.persistent_grid(256) == facts.multiprocessors * facts.max_threads_per_sm // 256


def _kernel_dir(tmp_path, value: int, system: str = "// no system header"):
    (tmp_path / "probe.cu").write_text(
        f'#include "probe.cuh"\n{system}\n'
        'extern "C" __global__ void probe(int* out) { *out = probe_value(); }\n'
    )
    (tmp_path / "probe.cuh").write_text(
        f"#pragma once\n__device__ int probe_value() {{ return {value}; }}\n"
    )
    return tmp_path


def test_kernel_source_inlines_local_headers_once_with_line_directives(tmp_path):
    kdir = _kernel_dir(tmp_path, 7, "#include <cuda/std/climits>")
    source = runtime.kernel_source("probe", kdir)
    assert "return 7;" in source and "pragma once" not in source
    assert "#include <cuda/std/climits>" in source  # not ours: left to the compiler
    assert '#line 1 "probe.cuh"' in source and '#line 2 "probe.cu"' in source
    lines = source.splitlines()
    after = lines.index('#line 2 "probe.cu"')
    assert lines[after + 1] == "#include <cuda/std/climits>"  # line 2 of probe.cu


def test_editing_a_header_changes_the_compiled_source(tmp_path):
    # CuPy keys its disk cache on the source text: an edited header must change that text.
    kdir = _kernel_dir(tmp_path, 7)
    before = runtime.kernel_source("probe", kdir)
    _kernel_dir(tmp_path, 8)
    assert runtime.kernel_source("probe", kdir) != before
    for family in ("ecl_gc", "validate"):
        assert "gcb_hash32" in runtime.kernel_source(family)  # common.cuh is in the source


@pytest.mark.gpu
def test_editing_a_header_yields_a_new_module(tmp_path, monkeypatch):
    cp = runtime.cupy()
    monkeypatch.setenv("CUPY_CACHE_DIR", str(tmp_path / "cache"))
    kdir = tmp_path / "kernels"
    kdir.mkdir()
    seen = []
    for value in (7, 8, 7):
        _kernel_dir(kdir, value)
        module = cp.RawModule(
            code=runtime.kernel_source("probe", kdir), options=runtime.compile_options()
        )
        out = cp.zeros(1, dtype=cp.int32)
        module.get_function("probe")((1,), (1,), (out,))
        seen.append(int(out.get()[0]))
    assert seen == [7, 8, 7]
