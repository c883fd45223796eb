"""The device color reduction (``reduce=h1|h2|both``) without the host: its rounds in a CUDA
graph and under the host's protocol give the host twin's colors and report, vertex for vertex,
from any complete coloring (first-fit, with unused colors, with color ids beyond n); two
blocking reads whatever the rounds; room for the hic vertices grows when they outnumber it."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench import algorithms
from gcbench.algorithms.cpu.greedy import greedy_colors
from gcbench.algorithms.execute import execute
from gcbench.algorithms.gpu import loops, reduction, runtime
from gcbench.algorithms.reduction import reduce_colors
from gcbench.algorithms.registry import Coloring

pytestmark = pytest.mark.gpu

MODES = ("h1", "h2", "both")
SPECS = (
    "gen:rgg?scale=14",
    "gen:kron?scale=16&edgefactor=48",
    "gen:grid2d?side=100",
    "gen:delaunay?scale=12",
    "gen:er?n=2000&avg_degree=10",
    "gen:complete?n=200",
    "gen:bipartite?a=50&b=70",
    "gen:mycielski?k=8",
    "gen:queen?n=12",
    "gen:star?leaves=100000",
    "gen:empty?n=1000",
    "gen:empty?n=0",
)


def _syncs() -> tuple[str, ...]:
    return reduction.SYNCS if loops.unsupported() is None else ("round",)


def _starts(graph) -> dict[str, np.ndarray]:
    """Complete colorings: first-fit in random order, the same with every other color id
    unused, and with ids beyond n; where n <= 20,000, a color a vertex (many rounds, up to
    the cap of 256)."""
    first_fit = greedy_colors(graph, "r", seed=3)
    starts = {"first-fit": first_fit, "gaps": first_fit * 2, "beyond-n": first_fit * (graph.n + 1)}
    if graph.n <= 20_000:
        starts["distinct"] = np.arange(graph.n, dtype=np.int32)[::-1].copy()
    return starts


@pytest.mark.parametrize("spec", SPECS)
def test_graph_and_host_rounds_equal_the_host_twin(on_gpu, spec):
    graph, prepared = on_gpu(spec)
    cp = runtime.cupy()
    for start_name, start in _starts(graph).items():
        for mode in MODES:
            host, report = reduce_colors(graph, start, mode)
            for sync in _syncs():
                colors, got = reduction.reduce_on_device(
                    prepared.handle, cp.asarray(start), mode, sync=sync
                )
                where = (spec, start_name, mode, sync)
                np.testing.assert_array_equal(colors.get(), host, err_msg=str(where))
                assert got == report, where


def test_an_incomplete_coloring_is_left_as_it_is(on_gpu):
    graph, prepared = on_gpu("gen:rgg?scale=14")
    start = greedy_colors(graph, "r", seed=3)
    start[17] = -1
    for sync in _syncs():
        colors, report = reduction.reduce_on_device(
            prepared.handle, runtime.cupy().asarray(start), "both", sync=sync
        )
        assert report is None
        np.testing.assert_array_equal(colors.get(), start)


@pytest.mark.parametrize("spec", ["gen:grid2d?side=100", "gen:er?n=2000&avg_degree=10"])
def test_hic_vertices_beyond_the_room_grow_it(on_gpu, monkeypatch, spec):
    graph, _ = on_gpu(spec)
    start = greedy_colors(graph, "r", seed=3)
    host, report = reduce_colors(graph, start, "h2")
    assert report.rounds > 0  # Heuristic 2 had hic vertices to list
    monkeypatch.setattr(reduction, "MIN_ROOM", 1)
    monkeypatch.setattr(reduction, "ROOM_SHARE", graph.n + 1)
    for sync in _syncs():
        dgraph = runtime.to_device(graph)  # a workspace of its own, with room for one
        assert dgraph.extra("reduction", reduction.Workspace).room == 1
        colors, got = reduction.reduce_on_device(
            dgraph, runtime.cupy().asarray(start), "h2", sync=sync
        )
        np.testing.assert_array_equal(colors.get(), host, err_msg=sync)
        assert got == report and dgraph.extras["reduction"].room > 1


def test_two_blocking_reads_whatever_the_rounds(on_gpu):
    if loops.unsupported() is not None:
        pytest.skip(loops.unsupported())
    graph, prepared = on_gpu("gen:queen?n=12")
    start = runtime.cupy().arange(graph.n, dtype=np.int32)  # 144 colors, 123 rounds to 21
    counted = {}
    for sync in reduction.SYNCS:
        coloring = Coloring(start, 1, {})
        with runtime.watch() as watch:
            reduced = reduction.reduce_device(prepared.handle, coloring, "both", sync=sync)
        reduced.resolve(reduced)
        counted[sync] = watch.syncs
        rounds = reduced.trace["reduce_rounds"][0]
        assert rounds == 123 and reduced.trace["reduce_ms"][0] > 0
    assert counted["graph"] == 2
    assert counted["round"] == rounds + 2  # the failing last round is read too


def test_the_algorithms_sync_picks_the_reductions_protocol(on_gpu):
    if loops.unsupported() is not None:
        pytest.skip(loops.unsupported())
    _, prepared = on_gpu("gen:rgg?scale=14")
    spec = algorithms.get("jpl")
    runs = {
        sync: execute(spec, prepared, None, spec.resolve_params({"sync": sync, "reduce": "both"}))
        for sync in ("graph", "round")
    }
    np.testing.assert_array_equal(runs["graph"].colors, runs["round"].colors)
    assert runs["graph"].coloring.host_syncs == 2  # jpl's rounds none, the reduction's two
    per_round = runs["round"].coloring
    assert per_round.trace["reduce_rounds"][0] > 0
    assert per_round.host_syncs >= per_round.iterations + per_round.trace["reduce_rounds"][0] + 1
