"""Shared inputs for the algorithm tests: one small graph per generated family."""

from __future__ import annotations

import pytest

from gcbench.graphs import generators
from gcbench.graphs.graph import Graph


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
