"""The shared execution protocol: fresh views, the primer graph, repetitions, validation of
every run (the timing itself is tested through the runner in tests/bench/test_protocol.py)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from gcbench import algorithms, load_graph
from gcbench.algorithms import execute
from gcbench.algorithms.registry import AlgorithmSpec, Coloring
from gcbench.algorithms.sampling import Sampling
from gcbench.algorithms.validation import validate
from gcbench.graphs.graph import check_invariant

HARD = ("gen:kron?scale=12&edgefactor=48", "gen:star?leaves=5000", "gen:grid2d?side=40")


def test_primer_graph_takes_every_path():
    graph = execute.primer_graph()
    check_invariant(graph)
    assert graph.max_degree >= 69  # a hub row for warp/block paths, 70 colors past a 64-window
    side = execute.PRIMER_GRID
    assert graph.n == 70 + 41 + side * side + 25 > 2048  # more than one cf tile
    assert graph.m == 70 * 69 // 2 + 40 + 2 * side * (side - 1) + 24


def test_fresh_view_shares_arrays_but_no_cache():
    graph = load_graph("gen:cycle?n=9")
    prepared = execute.prepare(graph, "cpu")
    view = prepared.fresh()
    assert view.handle is not graph and view.handle.indices is graph.indices
    view.handle.__dict__["cached"] = 1
    assert "cached" not in prepared.fresh().handle.__dict__


def test_every_repetition_is_validated():
    spec = algorithms.get("greedy")
    prepared = execute.prepare(load_graph("gen:queen?n=8"), "cpu")
    sampling = Sampling(reps=3, warmup=1)
    case = execute.measure(spec, prepared, None, spec.resolve_params({}), sampling=sampling)
    assert len(case.runs) == 3 and case.valid
    for run in case.runs:
        assert run.validation == validate(prepared.graph, run.colors)


def test_a_spec_binds_its_lookups_before_the_timed_region():
    """run_timed binds first: what ``bind`` does (here a 200 ms wait) is not in the time, the
    bound call is, and the call gets the checked parameters."""
    events = []

    def bind(graph, **params):
        events.append(("bind", params))
        time.sleep(0.2)

        def call():
            events.append("call")
            time.sleep(0.01)
            return Coloring(np.zeros(graph.n, dtype=np.int32), 1, {})

        return call

    spec = AlgorithmSpec(
        name="test-bind", backend="cpu", family="test", run=lambda graph: None, bind=bind
    )
    prepared = execute.prepare(load_graph("gen:cycle?n=4"), "cpu")
    coloring, ms = execute.run_timed(spec, prepared, None, {"balance": "none"})
    assert events == [("bind", {}), "call"]
    assert 10 <= ms < 200
    assert list(coloring.colors) == [0, 0, 0, 0]
    assert execute.invoke(spec, prepared.handle, None, {}).iterations == 1


@pytest.mark.gpu
@pytest.mark.parametrize("reduce", ["none", "both"])
def test_no_gpu_algorithm_compiles_after_priming(reduce):
    """The primer graph leaves nothing to compile for any GPU algorithm on the hard graphs."""
    from gcbench.algorithms.gpu import runtime

    for spec in algorithms.all_specs("gpu"):
        if spec.name.startswith("test-"):
            continue
        params = spec.resolve_params({"reduce": reduce})
        execute.prime(spec, None, params)
        before = runtime.compile_count()
        for name in HARD:
            prepared = execute.prepare(load_graph(name), "gpu")
            case = execute.measure(spec, prepared, None, params, sampling=Sampling(1, 0))
            assert case.valid, (spec.name, name)
            assert np.all(case.last.colors >= 0)
        assert runtime.compile_count() == before, spec.name
