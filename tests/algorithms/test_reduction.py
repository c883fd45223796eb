"""Color reduction (ecl-gc §4) on host colorings: never more colors, always valid."""

from __future__ import annotations

import numpy as np
import pytest

import gcbench
from gcbench import algorithms
from gcbench.algorithms.cpu.greedy import greedy_colors
from gcbench.algorithms.reduction import reduce_colors
from gcbench.algorithms.registry import REDUCE_MODES
from gcbench.algorithms.validation import validate
from gcbench.errors import SpecError
from gcbench.graphs.graph import from_edges

MODES = ("h1", "h2", "both")
FAMILIES = (
    "gen:grid2d?side=64",
    "gen:kron?scale=10",
    "gen:rgg?scale=11",
    "gen:delaunay?scale=10",
    "gen:queen?n=12",
    "gen:er?n=1500&avg_degree=20",
    "gen:regular?n=1000&d=40",
    "gen:mycielski?k=7",
    "gen:crown?n=30",
    "gen:complete?n=40",
    "gen:star?leaves=100",
    "gen:cycle?n=101",
)


def graph(edges: list[tuple[int, int]], n: int):
    rows, cols = np.array(edges).T
    return from_edges(n, rows, cols, name="test", source="test")


# Figure 7 of the paper: the hic vertices D and E (color 2) see B (1) and C (0); C can move to
# color 1, which frees color 0 for both.
FIGURE7 = graph([(0, 1), (1, 3), (2, 3), (1, 4), (2, 4)], 5)
FIGURE7_COLORS = np.array([0, 1, 0, 2, 2], dtype=np.int32)


@pytest.mark.parametrize("mode", MODES)
def test_figure7_drops_a_color(mode):
    reduced, report = reduce_colors(FIGURE7, FIGURE7_COLORS, mode)
    assert reduced.tolist() == [0, 1, 1, 0, 0]
    assert (report.colors_before, report.colors_after, report.rounds) == (3, 2, 1)
    assert FIGURE7_COLORS.tolist() == [0, 1, 0, 2, 2]  # the input is not modified


def test_heuristic2_gives_each_set_its_own_move():
    # hic vertices 8 and 9 (color 3) share no neighbour, so they form two sets. 8's neighbour
    # 0 (color 0) may move to 1: 8 takes 0. 9's neighbour 3 (color 0) is stuck between 6 (1)
    # and 7 (2), but 4 (color 1) may move to 2: 9 takes 1. Heuristic 1 must give both one color.
    g = graph([(8, 0), (8, 1), (8, 2), (9, 3), (9, 4), (9, 5), (3, 6), (3, 7)], 10)
    colors = np.array([0, 1, 2, 0, 1, 2, 1, 2, 3, 3], dtype=np.int32)
    reduced, report = reduce_colors(g, colors, "h2")
    assert reduced[8] == 0 and reduced[9] == 1 and report.colors_after == 3
    assert validate(g, reduced).valid
    reduced, report = reduce_colors(g, colors, "h1")
    assert reduced[8] == reduced[9] and report.colors_after == 3
    assert validate(g, reduced).valid


@pytest.mark.parametrize("spec", FAMILIES)
def test_never_more_colors_and_always_valid(spec, data_dir):
    g = gcbench.load_graph(spec)
    for order in ("ldf", "r"):
        colors = greedy_colors(g, order)
        start = validate(g, colors).colors
        for mode in MODES:
            reduced, report = reduce_colors(g, colors, mode)
            check = validate(g, reduced)
            assert check.valid, (spec, order, mode)
            assert check.colors == report.colors_after <= start == report.colors_before
            assert check.max_color == check.colors - 1  # dense labels


def test_grid2d_reaches_four_colors_where_ldf_needs_five(data_dir):
    """The paper's road-map observation (§7.2.1): LDF 5 colors, ECL-GC_Reduction 4."""
    g = gcbench.load_graph("gen:grid2d?side=256")
    colors = greedy_colors(g, "ldf")
    assert validate(g, colors).colors == 5
    assert reduce_colors(g, colors, "h1")[1].colors_after == 5  # one move cannot fix them all
    for mode in ("h2", "both"):
        reduced, report = reduce_colors(g, colors, mode)
        assert validate(g, reduced).valid and report.colors_after == 4


def test_gaps_are_closed_first_and_count_as_colors():
    colors = np.array([0, 5, 0, 9, 9], dtype=np.int32)
    reduced, report = reduce_colors(FIGURE7, colors, "h2")
    assert report.colors_before == 3 and report.colors_after == 2
    assert validate(FIGURE7, reduced).valid


def test_incomplete_colorings_are_left_alone():
    colors = np.array([0, 1, -1, 2, 2], dtype=np.int32)
    reduced, report = reduce_colors(FIGURE7, colors, "both")
    assert report is None and reduced.tolist() == colors.tolist()


def test_unknown_mode_is_an_error():
    with pytest.raises(SpecError, match="reduce=h3"):
        reduce_colors(FIGURE7, FIGURE7_COLORS, "h3")


def test_every_algorithm_has_reduce():
    for spec in algorithms.all_specs():
        extra = ("auto",) if spec.chooser else ()  # auto: reduce=auto lets its rule decide
        assert spec.param("reduce").choices == (*extra, *REDUCE_MODES), spec.name


def test_runner_applies_reduction_inside_the_timed_call(data_dir):
    plain = gcbench.color("gen:grid2d?side=128", "greedy")
    reduced = gcbench.color("gen:grid2d?side=128", "greedy", reduce="both")
    assert plain.validation.colors == 5 and "colors_after" not in plain.trace
    assert reduced.validation.valid and reduced.validation.colors == 4
    assert reduced.trace["colors_before"] == [5.0] and reduced.trace["colors_after"] == [4.0]
    assert 0 < reduced.trace["reduce_ms"][0] <= reduced.time_ms
