"""What the GPU algorithm tests share: one small graph of every generated family (the test
set of docs/architecture.md, "Tests"), and each graph generated and copied to the device once
per session."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench import load_graph
from gcbench.algorithms.execute import prepare
from gcbench.graphs.graph import Graph, from_edges

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


def kron_with_hub(data_dir=None) -> Graph:
    """gen:kron?scale=17 plus a vertex adjacent to all 131,072 others (degree > 10^5)."""
    kron = load_graph("gen:kron?scale=17", data_dir=data_dir)
    rows, cols = kron.edges()
    everyone = np.arange(1, kron.n, dtype=rows.dtype)
    rows = np.concatenate([rows, np.zeros_like(everyone)])
    cols = np.concatenate([cols, everyone])
    name = "kron 17 + hub"
    return from_edges(kron.n, rows, cols, name=name, source=name)


@pytest.fixture(scope="session")
def kron_hub(tmp_path_factory):
    """(Graph, Prepared) of :func:`kron_with_hub`, built and copied to the device once."""
    graph = kron_with_hub(tmp_path_factory.getbasetemp() / "gcbench-data")
    return graph, prepare(graph, "gpu")
