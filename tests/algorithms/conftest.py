"""Shared inputs for the algorithm tests: one small graph per generated family, and a
hypothesis strategy of random small graphs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import strategies as st

from gcbench.graphs import generators
from gcbench.graphs.graph import Graph, from_edges


def _family_instances() -> dict[str, Graph]:
    small = {
        "rgg": {"scale": 9},
        "kron": {"scale": 9},
        "rmat": {"scale": 9},
        "delaunay": {"scale": 8},
        "regular": {"n": 200, "d": 5},
        "er": {"n": 300, "avg_degree": 6.0},
        "grid2d": {"side": 15},
        "complete": {"n": 12},
        "cycle": {"n": 11},
        "bipartite": {"a": 5, "b": 7},
        "crown": {"n": 8},
        "mycielski": {"k": 6},
        "queen": {"n": 7},
        "star": {"leaves": 9},
        "empty": {"n": 4},
    }
    return {name: generators.get_family(name).generate(params) for name, params in small.items()}


FAMILY_GRAPHS = _family_instances()


@pytest.fixture(params=sorted(FAMILY_GRAPHS), scope="session")
def family_graph(request: pytest.FixtureRequest) -> Graph:
    """One small instance of every generated family."""
    return FAMILY_GRAPHS[request.param]


@st.composite
def _graphs(draw: st.DrawFn, max_n: int = 40) -> Graph:
    n = draw(st.integers(0, max_n))
    if n == 0:
        return from_edges(0, np.empty(0), np.empty(0), name="random")
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
    rows = np.array([p[0] for p in pairs], dtype=np.int64)
    cols = np.array([p[1] for p in pairs], dtype=np.int64)
    return from_edges(n, rows, cols, name="random")


@pytest.fixture(scope="session")
def graphs() -> st.SearchStrategy[Graph]:
    """Random small simple graphs (self loops and duplicates are normalised away)."""
    return _graphs()
