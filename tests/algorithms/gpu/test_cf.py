"""cf, communication-free coloring: valid on every generated family, deterministic, and its
passes and pull-down behave as docs/independent-set.md says."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench import algorithms, validate
from gcbench.algorithms.execute import execute
from gcbench.algorithms.gpu import cf


def run(on_gpu, spec: str, block_size: int = 256, **params):
    graph, prepared = on_gpu(spec)
    algo = algorithms.get("cf")
    outcome = execute(algo, prepared, block_size, algo.resolve_params(params))
    return graph, outcome


@pytest.mark.gpu
@pytest.mark.parametrize(("block_size", "tile"), [(32, 32), (256, 2048), (1024, 1000)])
def test_valid_on_every_family(on_gpu, family_spec, block_size, tile):
    graph, outcome = run(on_gpu, family_spec, block_size, tile=tile)
    check = validate(graph, outcome.colors)
    assert check.valid and outcome.validation.valid, (check, outcome.validation)
    active = outcome.coloring.trace["active"]
    assert outcome.coloring.iterations == len(active)
    if graph.n:
        assert active[-1] == 0
    # after the pull-down every vertex holds the smallest color its neighbours leave free
    # below its own, so the colors in use are 0..k-1 with no gap and never exceed max degree
    assert check.max_color == check.colors - 1
    assert check.max_color <= graph.max_degree


@pytest.mark.gpu
def test_one_tile_needs_one_pass(on_gpu):
    graph, outcome = run(on_gpu, "gen:complete?n=200", 64, tile=200)
    assert outcome.coloring.iterations == 1
    assert validate(graph, outcome.colors).colors == 200


@pytest.mark.gpu
def test_cross_tile_conflicts_are_recolored_in_more_passes(on_gpu):
    graph, outcome = run(on_gpu, "gen:complete?n=200", 64, tile=32)
    assert outcome.coloring.iterations > 1
    assert outcome.coloring.trace["active"][0] > 0
    assert validate(graph, outcome.colors).colors == 200


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["gen:rgg?scale=14", "gen:kron?scale=16&edgefactor=48"])
def test_deterministic(on_gpu, spec):
    _, first = run(on_gpu, spec)
    _, second = run(on_gpu, spec)
    np.testing.assert_array_equal(first.colors, second.colors)


def first_fit_in_id_order(graph) -> np.ndarray:
    """Serial greedy: each vertex in id order takes the smallest color no neighbour holds."""
    colors = np.full(graph.n, -1, dtype=np.int32)
    for v in range(graph.n):
        taken = set(colors[graph.indices[graph.indptr[v] : graph.indptr[v + 1]]].tolist())
        colors[v] = next(c for c in range(graph.n) if c not in taken)
    return colors


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["gen:grid2d?side=40", "gen:queen?n=12", "gen:rgg?scale=11"])
def test_pull_down_of_the_identity_coloring_is_greedy_in_id_order(on_gpu, spec):
    """With one vertex per class, pulling down class by class is serial first fit."""
    import cupy as cp

    graph, prepared = on_gpu(spec)
    colors = cp.arange(graph.n, dtype=np.int32)
    cf._pull_down(prepared.handle, colors, graph.n, 64)
    np.testing.assert_array_equal(colors.get(), first_fit_in_id_order(graph))
