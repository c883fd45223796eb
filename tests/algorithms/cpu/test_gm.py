"""Gebremedhin-Manne (gm-sync, gm-async): valid under real thread races, paper properties."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcbench.algorithms import get
from gcbench.algorithms.cpu.gm import run_gm
from gcbench.algorithms.cpu.greedy import greedy_colors
from gcbench.algorithms.validation import validate
from gcbench.graphs import generators
from gcbench.graphs.graph import Graph

GM = ("gm-sync", "gm-async")


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    name=st.sampled_from(GM),
    threads=st.sampled_from([1, 2, 3, 5]),
    superstep=st.sampled_from([1, 4, 1024]),
)
def test_valid_on_random_graphs(graphs, data, name, threads, superstep) -> None:  # type: ignore[no-untyped-def]
    g = data.draw(graphs)
    params = {"threads": threads} | ({"superstep": superstep} if name == "gm-sync" else {})
    coloring = get(name).run(g, **params)
    result = validate(g, coloring.colors)
    assert result.valid
    assert result.colors <= g.max_degree + 1


@pytest.mark.parametrize("name", GM)
def test_valid_on_every_family(name: str, family_graph: Graph) -> None:
    for threads in (2, 4):
        assert validate(family_graph, get(name).run(family_graph, threads=threads).colors).valid


def test_one_worker_async_is_serial_first_fit() -> None:
    g = generators.rgg(11)
    coloring = get("gm-async").run(g, threads=1)
    assert np.array_equal(coloring.colors, greedy_colors(g, "ff"))
    assert coloring.iterations == 1 and coloring.trace["active"] == [g.n, 0]


def test_one_worker_sync_recolors_classes_in_reverse() -> None:
    # with one worker there are no races: pass 1 is first fit, pass 2 first fit over the
    # classes of pass 1 from the largest color down (never more colors)
    g = generators.kron(10)
    first = greedy_colors(g, "ff")
    order = np.lexsort((np.arange(g.n), -first)).astype(np.int32)
    expected = [-1] * g.n
    for v in order.tolist():
        used = {expected[u] for u in g.indices[g.indptr[v] : g.indptr[v + 1]].tolist()}
        expected[v] = next(c for c in range(g.n) if c not in used)
    coloring = get("gm-sync").run(g, threads=1, superstep=64)
    assert coloring.colors.tolist() == expected
    assert np.unique(coloring.colors).size <= np.unique(first).size
    steps = -(-g.n // 64) + np.unique(first).size
    assert coloring.iterations == steps


def test_sync_uses_no_more_colors_than_async_on_average() -> None:
    sync, asyn = [], []
    for seed in range(6):
        g = generators.er(3000, avg_degree=20.0, seed=seed)
        sync.append(validate(g, get("gm-sync").run(g, threads=2).colors).colors)
        asyn.append(validate(g, get("gm-async").run(g, threads=2).colors).colors)
    assert np.mean(sync) <= np.mean(asyn)


def test_thread_count_is_restored() -> None:
    before = numba.get_num_threads()
    run_gm(generators.cycle(30), improved=True, threads=1)
    assert numba.get_num_threads() == before


def test_specs_declare_their_nature() -> None:
    for name in GM:
        spec = get(name)
        assert spec.backend == "cpu" and not spec.deterministic and spec.description
    assert get("gm-sync").resolve_params({})["superstep"] == 1024
