"""TabuCol: valid, never more colors than DSatur, its trace, χ reached on small graphs whose χ
is known, the same colors from one seed when the search finishes in its budget, and the
memory check before its tables."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench.algorithms import get
from gcbench.algorithms.cpu import tabucol
from gcbench.algorithms.cpu.greedy import greedy_colors
from gcbench.algorithms.cpu.tabucol import tabucol_colors
from gcbench.algorithms.validation import validate
from gcbench.errors import InsufficientMemoryError
from gcbench.graphs import generators


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """The search compiled (or loaded) before any budget runs, as the spec's setup does."""
    tabucol.warm()


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
    assert np.all(steps <= -1) and np.all(np.diff(trace["tabu_ms"]) >= 0)  # (an emptied class: -2)
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


@pytest.mark.parametrize(
    ("family", "params", "expected"),
    [
        ("queen", {"n": 8}, 9),  # χ = 9; DSatur 12; a clique of 8, so the budget runs out
        ("regular", {"n": 200, "d": 5}, 3),  # DSatur 4
        ("er", {"n": 200, "avg_degree": 20.0}, None),  # DSatur 8: fewer
    ],
)
def test_the_search_beats_dsatur(family, params, expected):
    graph = _graph(family, **params)
    colors, moves, _ = tabucol_colors(graph, budget_ms=1000)
    assert validate(graph, colors).valid and moves > 0
    dsatur = _count(greedy_colors(graph, "sd"))
    assert _count(colors) == expected if expected else _count(colors) < dsatur


def test_the_incremental_tables_match_a_recount():
    """After many moves on an infeasible k (a 3-coloring of a graph that needs more), γ, the
    conflict list and the conflict count equal what _start computes from the colors afresh."""
    graph = _graph("er", n=300, avg_degree=12.0)
    n, k = graph.n, 3
    colors = (np.arange(n) % k).astype(np.int32)
    arrays = [np.empty((n, k), np.int32), np.empty(n, np.int32), np.empty(n, np.int32)]
    gamma, conflicted, where = arrays
    state = np.zeros(4, np.int64)
    tabucol._start(graph.indptr, graph.indices, colors, gamma, conflicted, where, state)
    tabu = np.zeros((n, k), np.int64)
    rng = np.ones(1, np.uint64)
    assert not tabucol._search(graph.indptr, graph.indices, colors, gamma, tabu, conflicted,
                               where, state, rng, 5000)  # fmt: skip
    assert state[0] == 5000
    fresh = [np.empty_like(a) for a in arrays]
    recount = np.zeros(4, np.int64)
    tabucol._start(graph.indptr, graph.indices, colors, *fresh, recount)
    np.testing.assert_array_equal(gamma, fresh[0])
    assert state[1] == recount[1] > 0  # the conflicting edges
    assert state[3] == recount[3]
    assert set(conflicted[: state[3]].tolist()) == set(fresh[1][: recount[3]].tolist())
    listed = conflicted[: state[3]]
    np.testing.assert_array_equal(where[listed], np.arange(state[3]))


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
