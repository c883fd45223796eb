"""gcbench/algorithms/balance.py: balance=none|shuffle as every algorithm's parameter, applied
by the runner after reduce, and the host pass (Lu et al. 2015): never a color more, always
valid, class_cv never higher, quotas at the target, deterministic (the device pass:
gpu/test_balance.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gcbench
from gcbench import algorithms, grammar
from gcbench.algorithms import auto
from gcbench.algorithms.balance import MAX_ROUNDS, balance_colors
from gcbench.algorithms.cpu.greedy import ORDERS, greedy_colors
from gcbench.algorithms.registry import BALANCE_MODES
from gcbench.algorithms.validation import color_class_sizes, validate
from gcbench.errors import SpecError
from gcbench.graphs.graph import from_edges


def test_every_algorithm_has_balance():
    for spec in algorithms.all_specs():
        assert spec.param("balance").choices == BALANCE_MODES, spec.name


def test_an_unknown_mode_is_an_error():
    with pytest.raises(SpecError, match="balance=tilt is not one of none|shuffle"):
        gcbench.color("gen:cycle?n=9", "greedy", balance="tilt")


def test_the_runner_balances_after_reduce_inside_the_timed_call(data_dir):
    spec = "gen:rgg?scale=12"
    plain = gcbench.color(spec, "greedy", reduce="both")
    both = gcbench.color(spec, "greedy", reduce="both", balance="shuffle")
    v0, v1 = plain.validation, both.validation
    assert v1.valid and v1.colors == v0.colors and v1.class_cv < v0.class_cv
    trace = both.trace
    assert trace["colors_after"] == [float(v0.colors)]  # reduce ran first
    assert trace["class_cv_before"] == [v0.class_cv] and trace["class_cv_after"] == [v1.class_cv]
    assert 0 < trace["reduce_ms"][0] + trace["balance_ms"][0] <= both.time_ms
    assert both.params["balance"] == "shuffle"


def test_auto_records_its_balance_once(data_dir):
    result = gcbench.color("gen:grid2d?side=30", "auto", device="cpu", balance="shuffle")
    assert result.params["balance"] == "shuffle" and "choice.balance" not in result.params
    assert result.validation.valid and "balance_ms" in result.trace
    text = algorithms.canonical_params(result.params)
    assert grammar.requested_params(text).startswith("balance=shuffle;")
    assert auto.CHOICE in result.params


HARD = (
    "gen:grid2d?side=64",
    "gen:kron?scale=10&edgefactor=48",
    "gen:rgg?scale=11",
    "gen:star?leaves=200",
    "gen:mycielski?k=7",
)


def check_balanced(graph, before: np.ndarray, after: np.ndarray) -> None:
    """The invariants of a balancing pass, whatever the input coloring."""
    v0, v1 = validate(graph, before), validate(graph, after)
    assert v1.valid, (graph.name, v1)
    assert v1.colors == v0.colors and v1.max_color == v0.max_color, graph.name
    assert v1.class_cv <= v0.class_cv, (graph.name, v0.class_cv, v1.class_cv)
    sizes0, sizes1 = color_class_sizes(before), color_class_sizes(after)
    if v0.colors:
        target = math.ceil(graph.n / v0.colors)
        assert np.all(sizes1[sizes0 > target] >= target)  # a full class never drops below t
        assert np.all(sizes1[sizes0 < target] <= target)  # nor does a short one rise above t
        assert np.all((sizes1 == sizes0) | (sizes0 != target))  # a class at t is left alone
        assert v1.min_class >= v0.min_class and v1.max_class <= v0.max_class


@pytest.mark.parametrize("order", ["ff", "ldf", "sd"])
def test_every_family_stays_valid_with_no_more_colors_and_no_higher_cv(family_graph, order):
    graph = family_graph
    before = greedy_colors(graph, order)
    after, report = balance_colors(graph, before)
    check_balanced(graph, before, after)
    assert report.cv_after == validate(graph, after).class_cv
    assert report.rounds <= MAX_ROUNDS


@pytest.mark.parametrize("spec", HARD)
def test_hard_graphs_are_balanced_deterministically(spec, data_dir):
    graph = gcbench.load_graph(spec)
    before = greedy_colors(graph, "ldf")
    after, report = balance_colors(graph, before)
    check_balanced(graph, before, after)
    again, _ = balance_colors(graph, before)
    assert np.array_equal(after, again)
    if spec.startswith(("gen:grid2d", "gen:rgg", "gen:kron")):
        assert report.moved > 0 and report.cv_after < 0.5 * report.cv_before, report


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(ORDERS), st.integers(1, 120))
def test_random_graphs_and_orders(seed, order, n):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(0, 4 * n + 1))
    graph = from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m), name="random")
    before = greedy_colors(graph, order, seed=int(seed % 1000))
    after, _ = balance_colors(graph, before)
    check_balanced(graph, before, after)


def test_a_star_cannot_be_balanced():
    """Every leaf touches the centre's class and the centre touches every leaf's: nothing moves."""
    graph = gcbench.load_graph("gen:star?leaves=50")
    before = greedy_colors(graph, "ldf")
    after, report = balance_colors(graph, before)
    assert np.array_equal(after, before) and report.moved == 0


def test_quotas_stop_at_the_target():
    """A path 0-1-2-3-4-5 colored 0,1,0,1,0,2 and isolated 6, 7 in class 0: class 0 holds 5 of
    8 vertices and t = ceil(8/3) = 3, so exactly two leave it; 4 cannot move (its neighbours
    hold classes 1 and 2)."""
    graph = from_edges(8, [0, 1, 2, 3, 4], [1, 2, 3, 4, 5], name="path")
    before = np.array([0, 1, 0, 1, 0, 2, 0, 0], dtype=np.int32)
    after, report = balance_colors(graph, before)
    check_balanced(graph, before, after)
    sizes = color_class_sizes(after).tolist()
    assert sizes[0] == 3 and sorted(sizes[1:]) == [2, 3] and report.moved == 2
    assert after[4] == 0 and after[[1, 3, 5]].tolist() == [1, 1, 2]


def test_incomplete_colorings_are_left_alone():
    graph = from_edges(3, [0], [1])
    colors = np.array([0, -1, 0], dtype=np.int32)
    after, report = balance_colors(graph, colors)
    assert report is None and after.tolist() == colors.tolist()
