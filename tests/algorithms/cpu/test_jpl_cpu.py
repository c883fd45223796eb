"""jpl-cpu: min-max Jones-Plassmann-Luby on CPU threads."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcbench.algorithms import get
from gcbench.algorithms.validation import validate
from gcbench.errors import RoundCapError
from gcbench.graphs import generators
from gcbench.graphs.graph import Graph

JPL = get("jpl-cpu")


def _reference(g: Graph, seed: int) -> list[int]:
    """Alg. 4 with two sets per round, in plain Python, with the same permuted values."""
    rand = np.random.default_rng(seed).permutation(g.n).tolist()
    colors = [-1] * g.n
    rnd = 0
    while -1 in colors:
        decided = {}
        for v in (v for v in range(g.n) if colors[v] < 0):
            around = [rand[u] for u in g.indices[g.indptr[v] : g.indptr[v + 1]] if colors[u] < 0]
            if all(rand[v] > r for r in around):
                decided[v] = 2 * rnd
            elif all(rand[v] < r for r in around):
                decided[v] = 2 * rnd + 1
        for v, c in decided.items():
            colors[v] = c
        rnd += 1
    return colors


@settings(max_examples=40, deadline=None)
@given(data=st.data(), seed=st.integers(0, 5), threads=st.sampled_from([1, 2, 3]))
def test_matches_reference_for_any_thread_count(graphs, data, seed, threads) -> None:  # type: ignore[no-untyped-def]
    g = data.draw(graphs)
    coloring = JPL.run(g, seed=seed, threads=threads)
    assert coloring.colors.tolist() == _reference(g, seed)
    assert validate(g, coloring.colors).valid
    assert coloring.iterations == len(coloring.trace.get("active", []))


def test_valid_on_every_family(family_graph: Graph) -> None:
    assert validate(family_graph, JPL.run(family_graph, threads=2).colors).valid


def test_rounds_and_trace() -> None:
    g = generators.rgg(12)
    coloring = JPL.run(g)
    active = coloring.trace["active"]
    assert active[-1] == 0 and all(a > b for a, b in zip(active, active[1:], strict=False))
    assert coloring.iterations == len(active)
    assert np.array_equal(coloring.colors, JPL.run(g, threads=1).colors)


def test_round_cap_raises_with_partial_coloring() -> None:
    g = generators.grid2d(side=20)
    with pytest.raises(RoundCapError, match="jpl-cpu") as info:
        JPL.run(g, max_rounds=1)
    partial = np.asarray(info.value.coloring)
    assert (partial >= 0).any() and (partial < 0).any()
