"""The device validation of a Pattern's coloring and the device recovery check, against their
host twins (gcbench/algorithms/pattern_validation.py): the same Validation on valid and
crafted invalid colorings (a distance-1 conflict alone among them: kokkos-kernels #624), on
rows of 10⁵ columns, with color ids beyond n; the same recovery verdict; and the memory checks."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from gcbench.algorithms.cpu.greedy_d2 import greedy_d2_colors
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.gpu.pattern_check import recovers_device, validate_pattern_device
from gcbench.algorithms.pattern_validation import recovers, validate_pattern
from gcbench.errors import InputError, InsufficientMemoryError
from gcbench.graphs import generators
from gcbench.graphs.graph import from_edges
from gcbench.graphs.pattern import Pattern, adjacency, closed_neighbourhoods, from_entries

HUB = 100_000


def _hub() -> Pattern:
    """Row 0 holds every one of 10⁵ columns, and each column has a row of its own besides."""
    cols = np.arange(HUB)
    rows = np.concatenate([np.zeros(HUB, dtype=np.int64), 1 + cols])
    return from_entries(HUB + 1, HUB, rows, np.concatenate([cols, cols]), name="hub")


@functools.cache
def _patterns() -> dict[str, Pattern]:
    """The test patterns, built once and only when a GPU test asks for them."""
    graphs = {
        "grid": generators.get_family("grid2d").generate({"side": 30}),
        "star": generators.get_family("star").generate({"leaves": 300}),
        "kron": generators.get_family("kron").generate({"scale": 10}),
    }
    out = {f"d2 {name}": closed_neighbourhoods(g) for name, g in graphs.items()}
    out["pd2 kron"] = adjacency(graphs["kron"])
    rng = np.random.default_rng(7)
    rect = from_entries(900, 700, rng.integers(0, 900, 6000), rng.integers(0, 700, 6000))
    out["pd2 rectangular"] = rect
    out["pd2-rows rectangular"] = rect.transposed()
    out["hub"] = _hub()
    return out


NAMES = ["d2 grid", "d2 star", "d2 kron", "pd2 kron", "pd2 rectangular", "pd2-rows rectangular",
         "hub"]  # fmt: skip


def _colorings(pattern: Pattern) -> dict[str, np.ndarray]:
    """Valid and invalid colorings of every kind the validator counts. The valid one is the
    greedy's, or every column its own color where the greedy's Σ row² is too long (the hub)."""
    n = pattern.n_cols
    rng = np.random.default_rng(n)
    small = pattern.pairs <= 10**8
    valid = greedy_d2_colors(pattern, "random") if small else np.arange(n, dtype=np.int32)
    holes = valid.copy()
    holes[rng.choice(n, max(n // 10, 1), replace=False)] = -1
    return {
        "greedy": valid,
        "distinct": np.arange(n, dtype=np.int32),
        "one color": np.zeros(n, dtype=np.int32),
        "few colors": rng.integers(0, 5, n).astype(np.int32),
        "uncolored": np.full(n, -1, dtype=np.int32),
        "holes": holes,
        "beyond n": valid + n,  # color ids >= n: the class counts come from the host
        "mixed": np.where(rng.random(n) < 0.2, -1, rng.integers(0, 3 * n, n)).astype(np.int32),
    }


def _device(pattern: Pattern, colors: np.ndarray):
    return runtime.pattern_to_device(pattern), runtime.cupy().asarray(colors)


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_device_validation_equals_the_host_validation(name):
    pattern = _patterns()[name]
    dp = runtime.pattern_to_device(pattern)
    for kind, colors in _colorings(pattern).items():
        got = validate_pattern_device(dp, runtime.cupy().asarray(colors))
        assert got == validate_pattern(pattern, colors), (name, kind)
        assert got.recovered is None


@pytest.mark.gpu
def test_a_hub_row_of_one_color_counts_all_but_one_of_its_columns():
    pattern = _patterns()["hub"]
    dp, colors = _device(pattern, np.zeros(HUB, dtype=np.int32))
    assert validate_pattern_device(dp, colors).conflicts == HUB - 1


@pytest.mark.gpu
def test_a_distance_one_conflict_alone_is_caught():
    """Two adjacent vertices with no common neighbour share no row of A, only one of A + I:
    the d2 pattern sees their conflict, a validator on A alone would not (kokkos-kernels
    #624). On a grid, forcing one edge's ends to one color is the only conflict."""
    edge = from_edges(2, [0], [1])
    same = np.zeros(2, dtype=np.int32)
    for pattern, conflicts in ((closed_neighbourhoods(edge), 2), (adjacency(edge), 0)):
        dp, colors = _device(pattern, same)
        got = validate_pattern_device(dp, colors)
        assert got.conflicts == conflicts and got == validate_pattern(pattern, same)
    grid = closed_neighbourhoods(generators.get_family("grid2d").generate({"side": 10}))
    colors = greedy_d2_colors(grid)
    colors[1] = colors[0]  # vertices 0 and 1 are adjacent
    dp, dcolors = _device(grid, colors)
    got = validate_pattern_device(dp, dcolors)
    assert got.conflicts > 0 and got == validate_pattern(grid, colors)


@pytest.mark.gpu
def test_empty_patterns():
    for pattern, colors in (
        (from_entries(0, 0, [], []), np.empty(0, dtype=np.int32)),
        (from_entries(0, 3, [], []), np.array([0, -1, 2], dtype=np.int32)),
        (from_entries(4, 0, [], []), np.empty(0, dtype=np.int32)),
    ):
        dp, dcolors = _device(pattern, colors)
        assert validate_pattern_device(dp, dcolors) == validate_pattern(pattern, colors)
        assert recovers_device(dp, dcolors) == recovers(pattern, colors)


@pytest.mark.gpu
def test_wrong_length_is_an_error():
    dp, colors = _device(_patterns()["d2 grid"], np.zeros(5, dtype=np.int32))
    with pytest.raises(InputError, match="5 colors given for 900 columns"):
        validate_pattern_device(dp, colors)
    with pytest.raises(InputError, match="5 colors given"):
        recovers_device(dp, colors)


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_device_recovery_equals_the_host_recovery(name):
    pattern = _patterns()[name]
    dp = runtime.pattern_to_device(pattern)
    verdicts = {}
    for kind, colors in _colorings(pattern).items():
        verdicts[kind] = recovers_device(dp, runtime.cupy().asarray(colors))
        assert verdicts[kind] is recovers(pattern, colors), (name, kind)
    assert verdicts["greedy"] and verdicts["beyond n"] and verdicts["distinct"]
    assert not verdicts["holes"] and not verdicts["uncolored"]


@pytest.mark.gpu
def test_a_recovery_check_that_cannot_fit_answers_none(monkeypatch):
    pattern = _patterns()["d2 grid"]
    dp, colors = _device(pattern, greedy_d2_colors(pattern))
    monkeypatch.setattr(runtime, "device_free_bytes", lambda: 1000)
    assert recovers_device(dp, colors) is None
    with pytest.raises(InsufficientMemoryError, match="validating a coloring of"):
        validate_pattern_device(dp, colors)
