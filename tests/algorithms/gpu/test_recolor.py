"""Iterated greedy recoloring on the GPU (reduce=ig): the host passes' colors vertex for
vertex on every graph of the test set, from any start; valid and never more colors through
the runner; one blocking read a pass."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench import algorithms
from gcbench.algorithms import recolor
from gcbench.algorithms.execute import execute
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.gpu.recolor import recolor_on_device
from gcbench.algorithms.reduction import reduce_colors
from gcbench.algorithms.validation import validate

pytestmark = pytest.mark.gpu


def random_first_fit(graph, seed: int) -> np.ndarray:
    """A valid start with many more colors than needed: the serial greedy in a random order."""
    from gcbench.algorithms.cpu.greedy import greedy_colors

    return np.asarray(greedy_colors(graph, "r", seed=seed), dtype=np.int32)


def test_device_passes_equal_host_passes(on_gpu, family_spec):
    graph, prepared = on_gpu(family_spec)
    start = random_first_fit(graph, 1)
    host, expected = recolor.recolor_colors(graph, start)
    cp = runtime.cupy()
    device, passes = recolor_on_device(prepared.handle, cp.asarray(start))
    assert passes == expected, family_spec
    assert np.array_equal(cp.asnumpy(device), host), family_spec
    assert validate(graph, host).valid


def test_a_hub_above_a_hundred_thousand_neighbours(kron_hub):
    graph, prepared = kron_hub
    start = random_first_fit(graph, 2)
    host, expected = recolor.recolor_colors(graph, start)
    cp = runtime.cupy()
    device, passes = recolor_on_device(prepared.handle, cp.asarray(start))
    assert passes == expected and expected.colors_after < expected.colors_before
    assert np.array_equal(cp.asnumpy(device), host)


@pytest.mark.parametrize("name", ["jpl", "ecl-gc", "vb"])
def test_reduce_ig_through_the_runner(on_gpu, name):
    spec = algorithms.get(name)
    graph, prepared = on_gpu("gen:kron?scale=16&edgefactor=48")
    plain = execute(spec, prepared, 256, spec.resolve_params({}))
    reduced = execute(spec, prepared, 256, spec.resolve_params({"reduce": "ig"}))
    assert reduced.validation.valid
    assert reduced.validation.colors <= plain.validation.colors
    trace = reduced.coloring.trace
    assert trace["colors_after"] == [reduced.validation.colors]
    assert trace["colors_before"][0] >= trace["colors_after"][0]
    assert 0 < trace["reduce_ms"][0] <= reduced.time_ms
    if spec.deterministic:  # vb is speculative: its two runs may start from other colorings
        assert trace["colors_before"] == [plain.validation.colors]
        host, report = reduce_colors(graph, plain.colors, "ig")
        assert np.array_equal(reduced.colors, host) and report.rounds == trace["reduce_rounds"][0]


@pytest.mark.parametrize("spec", ["gen:complete?n=300", "gen:queen?n=12", "gen:crown?n=100"])
def test_heavy_vertices_and_several_windows(on_gpu, monkeypatch, spec):
    # every vertex heavy (a block each) and 64-color windows: a complete graph's last class
    # passes four windows; the crown keeps 100 colors
    from gcbench.algorithms.gpu import recolor as device_recolor

    monkeypatch.setattr(device_recolor, "HEAVY", 8)
    monkeypatch.setattr(device_recolor, "WINDOW", 64)
    graph, prepared = on_gpu(spec)
    start = random_first_fit(graph, 4)
    host, expected = recolor.recolor_colors(graph, start)
    device, passes = recolor_on_device(prepared.handle, runtime.cupy().asarray(start))
    assert passes == expected and np.array_equal(runtime.cupy().asnumpy(device), host)


def test_one_blocking_read_a_pass(on_gpu):
    graph, prepared = on_gpu("gen:rgg?scale=14")
    start = random_first_fit(graph, 3)
    cp = runtime.cupy()
    colors = cp.asarray(start)
    with runtime.watch() as watch:
        _, passes = recolor_on_device(prepared.handle, colors)
    # the start's smallest and largest color, its class sizes, then one read a pass
    assert watch.syncs == 2 + passes.passes


def _pattern_passes(pattern, seed: int):
    """(host passes, device passes) from the serial greedy's coloring in a random order."""
    from gcbench.algorithms.cpu.greedy_d2 import greedy_d2_colors

    start = greedy_d2_colors(pattern, "random")
    host, expected = recolor.recolor_colors(pattern, start)
    cp = runtime.cupy()
    device, passes = recolor_on_device(runtime.pattern_to_device(pattern), cp.asarray(start))
    return (host, expected), (cp.asnumpy(device), passes)


def test_pattern_columns_equal_host_passes(family_graph):
    from gcbench.graphs.pattern import adjacency, closed_neighbourhoods

    for pattern in (closed_neighbourhoods(family_graph), adjacency(family_graph)):
        (host, expected), (device, passes) = _pattern_passes(pattern, 5)
        assert passes == expected, pattern.name
        assert np.array_equal(device, host), pattern.name


def test_pattern_rectangular_and_several_windows(monkeypatch):
    # 32-color windows: the square of a 100-clique needs 100 colors (four windows); a row of
    # 200 of the 1,500 columns among sparse ones
    from gcbench.algorithms.gpu import recolor as device_recolor
    from gcbench.graphs import generators
    from gcbench.graphs.pattern import closed_neighbourhoods, from_entries

    monkeypatch.setattr(device_recolor, "WINDOW", 32)
    rng = np.random.default_rng(3)
    rows = np.concatenate([np.zeros(200, dtype=np.int64), rng.integers(1, 2000, 8000)])
    cols = np.concatenate([rng.choice(1500, 200, replace=False), rng.integers(0, 1500, 8000)])
    clique = generators.get_family("complete").generate({"n": 100})
    for pattern in (from_entries(2000, 1500, rows, cols, name="hub-row"),
                    from_entries(2000, 1500, rows, cols, name="hub-row").transposed(),
                    closed_neighbourhoods(clique)):  # fmt: skip
        (host, expected), (device, passes) = _pattern_passes(pattern, 6)
        assert passes == expected and np.array_equal(device, host), pattern.name


@pytest.mark.parametrize("name", ["vb-bit", "nb-bit", "jp-d2"])
def test_distance2_reduce_ig_through_the_runner(name):
    from gcbench import color

    plain = color("gen:rgg?scale=12", name, problem="d2")
    reduced = color("gen:rgg?scale=12", name, problem="d2", reduce="ig")
    assert reduced.validation.valid and reduced.validation.recovered
    trace = reduced.trace
    assert trace["colors_after"] == [reduced.validation.colors]
    assert trace["colors_after"][0] <= trace["colors_before"][0]
    if name == "jp-d2":  # deterministic: the same start, and the host passes' colors
        from gcbench.graphs.sources import load_instance

        assert trace["colors_before"] == [plain.validation.colors]
        pattern = load_instance("gen:rgg?scale=12", "d2")
        assert np.array_equal(reduced.colors, recolor.recolor_colors(pattern, plain.colors)[0])
