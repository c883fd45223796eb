"""Shared inputs for the CPU algorithm tests: a hypothesis strategy of random small graphs
(one small graph per generated family: tests/algorithms/conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import strategies as st

from gcbench.graphs.graph import Graph, from_edges


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
