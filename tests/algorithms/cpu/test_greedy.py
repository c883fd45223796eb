"""Serial greedy: validity, exact chromatic numbers where greedy must reach them, and the
dynamic orders against plain-Python references with the documented tie rules."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gcbench
from gcbench.algorithms.cpu.greedy import ORDERS, greedy_colors
from gcbench.algorithms.priority import ldf_order
from gcbench.algorithms.validation import validate
from gcbench.errors import SpecError
from gcbench.graphs import generators
from gcbench.graphs.graph import Graph


def _neighbours(g: Graph, v: int) -> list[int]:
    return g.indices[g.indptr[v] : g.indptr[v + 1]].tolist()


def _first_fit(g: Graph, v: int, colors: list[int]) -> int:
    used = {colors[u] for u in _neighbours(g, v)}
    return next(c for c in range(g.n + 1) if c not in used)


def _reference_dynamic(g: Graph, saturation: bool) -> list[int]:
    """O(n^2) greedy: next vertex maximises (key, degree, -id); key = distinct neighbour
    colors (DSatur) or colored neighbours (incidence degree)."""
    colors = [-1] * g.n
    for _ in range(g.n):

        def key(v: int) -> tuple[int, int, int]:
            seen = [colors[u] for u in _neighbours(g, v) if colors[u] >= 0]
            return (len(set(seen)) if saturation else len(seen), int(g.degrees[v]), -v)

        v = max((v for v in range(g.n) if colors[v] < 0), key=key)
        colors[v] = _first_fit(g, v, colors)
    return colors


def _colors_used(colors: np.ndarray) -> int:
    return int(np.unique(colors).size)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), order=st.sampled_from(ORDERS))
def test_every_order_is_valid_within_max_degree_plus_one(graphs, data, order) -> None:  # type: ignore[no-untyped-def]
    g = data.draw(graphs)
    colors = greedy_colors(g, order, seed=3)
    result = validate(g, colors)
    assert result.valid
    assert colors.dtype == np.int32
    assert result.colors <= g.max_degree + 1
    assert result.max_color == result.colors - 1  # first fit never skips a color


@settings(max_examples=30, deadline=None)
@given(data=st.data(), saturation=st.booleans())
def test_dynamic_orders_match_reference(graphs, data, saturation) -> None:  # type: ignore[no-untyped-def]
    g = data.draw(graphs)
    order = "sd" if saturation else "id"
    assert greedy_colors(g, order).tolist() == _reference_dynamic(g, saturation)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_ldf_is_first_fit_in_ldf_order(graphs, data) -> None:  # type: ignore[no-untyped-def]
    g = data.draw(graphs)
    colors = [-1] * g.n
    for v in ldf_order(g).tolist():
        colors[v] = _first_fit(g, v, colors)
    assert greedy_colors(g, "ldf").tolist() == colors


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_sdl_stays_within_degeneracy_plus_one(graphs, data) -> None:  # type: ignore[no-untyped-def]
    g = data.draw(graphs)
    rows, cols = g.edges()
    nxg = nx.Graph()
    nxg.add_nodes_from(range(g.n))
    nxg.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
    degeneracy = max(nx.core_number(nxg).values(), default=0)
    assert _colors_used(greedy_colors(g, "sdl")) <= degeneracy + 1


@pytest.mark.parametrize(
    "g",
    [generators.crown(6), generators.cycle(12), generators.grid2d(rows=7, cols=9),
     generators.bipartite(4, 9)],
    ids=lambda g: g.name,
)  # fmt: skip
def test_dsatur_two_colors_bipartite_graphs(g: Graph) -> None:
    colors = greedy_colors(g, "sd")
    assert validate(g, colors).valid and _colors_used(colors) == 2


def test_first_fit_on_crown_needs_n_colors() -> None:
    # the classic worst case: interleaved labels make vertex-order first fit use n colors
    assert _colors_used(greedy_colors(generators.crown(7), "ff")) == 7


@pytest.mark.parametrize("order", ORDERS)
def test_exact_chromatic_numbers(order: str) -> None:
    assert _colors_used(greedy_colors(generators.complete(9), order)) == 9
    assert _colors_used(greedy_colors(generators.cycle(9), order)) == 3
    for k in (3, 4, 5, 6):
        g = generators.mycielski(k)
        colors = greedy_colors(g, order)
        assert validate(g, colors).valid
        assert _colors_used(colors) >= k  # chi(M_k) = k bounds every valid coloring


@pytest.mark.parametrize("order", ORDERS)
def test_empty_and_isolated(order: str) -> None:
    assert greedy_colors(generators.empty(0), order).size == 0
    assert greedy_colors(generators.empty(5), order).tolist() == [0] * 5


def test_valid_on_every_family(family_graph: Graph) -> None:
    for order in ORDERS:
        assert validate(family_graph, greedy_colors(family_graph, order)).valid


def test_random_order_follows_the_seed() -> None:
    g = generators.rgg(10)
    a, b = greedy_colors(g, "r", seed=1), greedy_colors(g, "r", seed=1)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, greedy_colors(g, "r", seed=2))


def test_registry_entry() -> None:
    g = generators.queen(7)
    result = gcbench.color(g, "greedy", order="sd")
    assert result.validation.valid and result.iterations is None
    assert gcbench.color(g, "greedy").colors.tolist() == greedy_colors(g, "ldf").tolist()
    with pytest.raises(SpecError, match="order"):
        gcbench.color(g, "greedy", order="largest")
