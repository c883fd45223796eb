"""What the GPU algorithm tests share: one small graph of every generated family (the test
set of DESIGN §7), and each graph generated and copied to the device once per session."""

from __future__ import annotations

import pytest

from gcbench import load_graph
from gcbench.algorithms.execute import prepare

KRON_HUB = "gen:kron?scale=16&edgefactor=48"  # max degree 17,312
FAMILY_SPECS = (
    "gen:rgg?scale=14",
    KRON_HUB,
    "gen:grid2d?side=100",
    "gen:delaunay?scale=12",
    "gen:regular?n=1000&d=7",
    "gen:er?n=2000&avg_degree=10",
    "gen:complete?n=200",
    "gen:cycle?n=1001",
    "gen:bipartite?a=50&b=70",
    "gen:mycielski?k=8",
    "gen:queen?n=12",
    "gen:crown?n=40",
    "gen:star?leaves=100000",
    "gen:empty?n=0",
    "gen:empty?n=1000",
)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that takes ``family_spec`` runs once per graph of the test set."""
    if "family_spec" in metafunc.fixturenames:
        metafunc.parametrize("family_spec", FAMILY_SPECS)


@pytest.fixture(scope="session")
def on_gpu(tmp_path_factory):
    """spec -> (Graph, Prepared), each graph generated and copied to the device once."""
    root = tmp_path_factory.getbasetemp() / "gcbench-data"
    cache: dict = {}

    def get(spec: str):
        if spec not in cache:
            graph = load_graph(spec, data_dir=root)
            cache[spec] = graph, prepare(graph, "gpu")
        return cache[spec]

    return get
