"""TabuCol: valid, never more colors than DSatur, its trace, χ reached on small graphs whose χ
is known, the same colors from one seed when the search finishes in its budget, and the
memory check before its tables."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench.algorithms import get
from gcbench.algorithms.cpu.greedy import greedy_colors
from gcbench.algorithms.cpu.tabucol import tabucol_colors
from gcbench.algorithms.validation import validate
from gcbench.errors import InsufficientMemoryError
from gcbench.graphs import generators


def _graph(family: str, **params: object):
    return generators.get_family(family).generate(params)


def _count(colors: np.ndarray) -> int:
    return int(colors.max()) + 1 if colors.size else 0


def test_valid_never_more_than_dsatur_and_traced(family_graph):
    colors, moves, trace = tabucol_colors(family_graph, budget_ms=100)
    assert validate(family_graph, colors).valid
    start = _count(greedy_colors(family_graph, "sd"))
    assert trace["tabu_colors"][0] == start >= _count(colors) == trace["tabu_colors"][-1]
    steps = np.diff(trace["tabu_colors"])
    assert np.all(steps == -1) and np.all(np.diff(trace["tabu_ms"]) >= 0)
    assert moves >= 0 and np.unique(colors).size == _count(colors)  # colors 0..k-1, all used


@pytest.mark.parametrize(
    ("family", "params", "chi", "budget_ms"),
    [
        ("queen", {"n": 7}, 7, 3000),  # n prime to 6: χ = n, a row is a clique; DSatur needs 11
        ("queen", {"n": 5}, 5, 3000),
        ("grid2d", {"side": 30}, 2, 3000),
        ("mycielski", {"k": 6}, 6, 200),  # triangle-free: the search runs out its budget
        ("cycle", {"n": 101}, 3, 100),
    ],
)
def test_known_chromatic_numbers_are_reached(family, params, chi, budget_ms):
    graph = _graph(family, **params)
    colors, _, trace = tabucol_colors(graph, budget_ms=budget_ms)
    assert validate(graph, colors).valid
    assert _count(colors) == chi
    if family in ("queen", "grid2d"):  # stopped at the clique found, long before its budget
        assert trace["tabu_ms"][-1] < budget_ms / 3


def test_the_seed_fixes_the_colors_found_in_the_budget():
    """queen 7: χ = 7 is found within the budget in every run, and the search stops there."""
    graph = _graph("queen", n=7)
    first = tabucol_colors(graph, budget_ms=3000, seed=3)[0]
    np.testing.assert_array_equal(tabucol_colors(graph, budget_ms=3000, seed=3)[0], first)
    assert _count(first) == 7


def test_no_budget_returns_dsatur():
    graph = _graph("queen", n=8)
    colors, moves, trace = tabucol_colors(graph, budget_ms=0)
    np.testing.assert_array_equal(colors, greedy_colors(graph, "sd"))
    assert moves == 0 and len(trace["tabu_colors"]) == 1


def test_the_tables_are_checked_against_memory_first(monkeypatch):
    graph = _graph("mycielski", k=7)  # triangle-free: a clique of 2, DSatur's 7 colors
    monkeypatch.setattr("gcbench.graphs.bounds.peak_bytes", lambda n, degree: 0)
    monkeypatch.setenv("GCBENCH_MAX_MEMORY", "1")
    with pytest.raises(InsufficientMemoryError, match="tabucol on .* with 6 colors"):
        tabucol_colors(graph, budget_ms=100)


def test_registered_as_a_budgeted_cpu_search():
    spec = get("tabucol", "cpu")
    assert not spec.deterministic and not spec.wildcard
    assert [p.name for p in spec.params][:2] == ["budget_ms", "seed"]
    coloring = spec.run(_graph("cycle", n=9), budget_ms=50)
    assert _count(coloring.colors) == 3 and coloring.trace["tabu_colors"][-1] == 3
