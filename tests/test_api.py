"""The library calls underneath the CLI: ``gcbench.info``."""

from __future__ import annotations

import numpy as np

import gcbench
from gcbench.graphs.graph import from_edges


def test_info_of_a_graph_counts_degrees_and_normalisation():
    # a self loop, a duplicate, one direction only, and vertex 4 isolated
    rows, cols = np.array([1, 1, 1, 2]), np.array([1, 2, 2, 3])
    stats = gcbench.info(from_edges(5, rows, cols, name="g"))
    assert (stats.name, stats.n, stats.m) == ("g", 5, 2)
    assert (stats.min_degree, stats.max_degree, stats.isolated) == (0, 2, 2)
    assert stats.avg_degree == 4 / 5
    assert (stats.normalisation.self_loops, stats.normalisation.duplicates) == (1, 1)
    assert stats.normalisation.directed


def test_info_of_a_spec_loads_it(data_dir):
    stats = gcbench.info("gen:complete?n=6")
    assert (stats.name, stats.n, stats.m) == ("gen:complete?n=6", 6, 15)
    assert stats.min_degree == stats.max_degree == 5 and stats.isolated == 0


def test_info_of_the_empty_graph():
    stats = gcbench.info(from_edges(0, np.array([], int), np.array([], int), name="e"))
    assert (stats.n, stats.m, stats.min_degree, stats.max_degree, stats.isolated) == (0, 0, 0, 0, 0)
    assert stats.avg_degree == 0.0
