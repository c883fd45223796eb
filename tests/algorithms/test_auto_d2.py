"""``auto`` for the distance-2 problems: the rule's branches, the features of a pattern, the
picks on the inputs the rule was chosen from, and its rows on the CPU (the serial greedy)."""

from __future__ import annotations

import numpy as np
import pytest

import gcbench
from gcbench import algorithms
from gcbench.algorithms import auto_d2
from gcbench.algorithms.auto_d2 import JP, NB, SERIAL, VB, NetFeatures
from gcbench.graphs.pattern import from_entries

BIG = 10**6  # entries: past the serial greedy's


def _features(*, skew=1.0, col_skew=1.0, heavy=0.0, symmetric=False, nnz=BIG) -> NetFeatures:
    """Features of a pattern of 10^5 nets and columns with these skews and heavy share."""
    nets = columns = 10**5
    mean = nnz / nets
    return NetFeatures(nets, columns, nnz, round(skew * mean), round(col_skew * mean),
                       round(heavy * nnz), symmetric)  # fmt: skip


@pytest.mark.parametrize(
    ("features", "pick"),
    [
        (_features(skew=100, heavy=0.1), JP),  # a few long nets: at the threshold
        (_features(skew=99, heavy=0.1), NB),  # just under it: a plain matrix
        (_features(skew=1000, heavy=0.5), NB),  # many long nets (kron's d2)
        (_features(skew=10, heavy=0.5, symmetric=True), NB),  # ... whatever the skew
        (_features(skew=499, heavy=0.49), JP),  # a long net: 4,990 columns of 10^6 entries
        (_features(skew=500, heavy=0.49, symmetric=True), SERIAL),  # 5,000: jp-d2's rounds
        # would cost more than the host's pass (a star, a dense row)
        (_features(col_skew=100), NB),  # columns in many nets
        (_features(symmetric=True), VB),  # a graph's pattern
        (_features(symmetric=True, col_skew=100), NB),
        (_features(), NB),  # a stencil, a random Jacobian
        (_features(nnz=auto_d2.TINY), SERIAL),  # tiny: the host
        (_features(nnz=auto_d2.TINY + 1, symmetric=True), VB),
        (NetFeatures(0, 0, 0, 0, 0, 0, False), SERIAL),
    ],
)
def test_each_branch_of_the_rule(features, pick):
    assert auto_d2.choose(features, "gpu") == pick
    assert auto_d2.choose(features, "cpu") == SERIAL


# The inputs the rule was chosen from (docs/auto.md, "Distance-2": their features as computed
# by net_features, and the fastest configuration of docs/performance.md's tables, the serial
# greedy included: 24 ms on the dense row, 41 ms on the star, against jp-d2's 52 and 1,333).
MEASURED = [
    ("rgg 20 d2", NetFeatures(1048576, 1048576, 14839142, 32, 32, 0, True), VB),
    ("rgg 20 pd2", NetFeatures(1048576, 1048576, 13790566, 31, 31, 0, True), VB),
    ("grid 2048 pd2", NetFeatures(4194304, 4194304, 16769024, 4, 4, 0, True), VB),
    ("kron 18 d2", NetFeatures(262144, 262144, 7872250, 25364, 25364, 6668000, True), NB),
    ("7-pt stencil pd2", NetFeatures(2000376, 2097152, 14002632, 7, 7, 0, False), NB),
    ("skewed pd2", NetFeatures(1000000, 1000000, 8000000, 11035, 26, 928000, False), JP),
    ("skewed pd2-rows", NetFeatures(1000000, 1000000, 8000000, 26, 11035, 0, False), NB),
    ("dense row pd2", NetFeatures(100000, 100000, 804992, 5000, 23, 5000, False), SERIAL),
    ("dense row pd2-rows", NetFeatures(100000, 100000, 804992, 23, 5000, 0, False), NB),
    ("uniform 2e5 x 5e4 pd2", NetFeatures(200000, 50000, 1600000, 8, 60, 0, False), NB),
    ("uniform 5e4 x 2e5 pd2", NetFeatures(50000, 200000, 400000, 8, 11, 0, False), NB),
    ("star 10^5 d2", NetFeatures(100001, 100001, 300001, 100001, 100001, 100001, True), SERIAL),
]


@pytest.mark.parametrize(("name", "features", "pick"), MEASURED, ids=[m[0] for m in MEASURED])
def test_the_measured_inputs_get_their_fastest_algorithm(name, features, pick):
    assert auto_d2.choose(features, "gpu") == pick


def test_features_of_a_pattern():
    rows = np.array([0] * 40 + [1, 1, 2])  # a net of 40 columns, one of 2, one of 1
    cols = np.array(list(range(40)) + [0, 1, 2])
    pattern = from_entries(3, 40, rows, cols, name="p")
    f = auto_d2.net_features(pattern)
    assert (f.nets, f.columns, f.nnz, f.max_net, f.max_column) == (3, 40, 43, 40, 2)
    assert f.heavy_entries == 40 and not f.symmetric
    assert f.net_skew == pytest.approx(40 * 3 / 43) and f.column_skew == pytest.approx(2 * 40 / 43)


@pytest.mark.parametrize("problem", auto_d2.PROBLEMS)
def test_auto_on_the_cpu_colors_with_the_serial_greedy(problem):
    result = gcbench.color("gen:rgg?scale=10", "auto", problem=problem, device="cpu")
    assert result.validation.valid and result.validation.recovered
    assert result.params["choice"] == "greedy" and result.params["choice.order"] == "natural"


def test_one_spec_per_backend_for_each_distance2_problem():
    for problem in auto_d2.PROBLEMS:
        specs = {s.backend: s for s in algorithms.all_specs(None, problem) if s.name == "auto"}
        assert set(specs) == {"cpu", "gpu"}
        assert all(s.chooser and s.native_reduce for s in specs.values())
        assert [p.name for p in specs["gpu"].params] == ["reduce"]
