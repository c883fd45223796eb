"""Class balancing on the GPU (balance=shuffle): the same colors as the host twin, valid, no
color more, class_cv never higher on every graph of the test set, through every GPU algorithm;
and the validation kernel's balance columns equal the host's."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench import algorithms
from gcbench.algorithms import balance
from gcbench.algorithms.execute import execute
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.gpu.balance import balance_device
from gcbench.algorithms.registry import Coloring
from gcbench.algorithms.validation import validate

pytestmark = pytest.mark.gpu

ALGORITHMS = ("ecl-gc", "jpl-minmax", "cusparse", "gm-gpu")


def colored(on_gpu, spec: str, name: str = "ecl-gc", **params):
    """(graph, prepared, one validated run of ``name`` on ``spec``)."""
    graph, prepared = on_gpu(spec)
    algo = algorithms.get(name)
    return graph, prepared, execute(algo, prepared, None, algo.resolve_params(params))


def test_equals_the_host_twin_and_keeps_the_invariants(on_gpu, family_spec):
    graph, prepared, run = colored(on_gpu, family_spec)
    cp = runtime.cupy()
    done = balance_device(prepared.handle, Coloring(cp.asarray(run.colors), 0), "shuffle")
    on_device = cp.asnumpy(done.colors)
    on_host, report = balance.balance_colors(graph, run.colors)
    assert np.array_equal(on_device, on_host), family_spec
    before, after = validate(graph, run.colors), validate(graph, on_device)
    assert after.valid and after.colors == before.colors, family_spec
    assert after.class_cv <= before.class_cv, (family_spec, before.class_cv, after.class_cv)
    assert done.trace["class_cv_after"] == [after.class_cv] == [report.cv_after]
    assert done.trace["balance_ms"][0] >= 0


@pytest.mark.parametrize("name", ALGORITHMS)
def test_every_gpu_algorithm_balances_inside_its_run(on_gpu, family_spec, name):
    if name == "cusparse" and on_gpu(family_spec)[0].nnz == 0:
        pytest.skip("csrcolor colors nothing on a graph without edges (test_cusparse.py)")
    graph, _, run = colored(on_gpu, family_spec, name, balance="shuffle")
    trace, v = run.coloring.trace, run.validation
    assert v.valid and v == validate(graph, run.colors), (family_spec, name)
    assert trace["class_cv_after"] == [v.class_cv] and v.class_cv <= trace["class_cv_before"][0]
    assert 0 <= trace["balance_ms"][0] <= run.time_ms


def test_after_reduce(on_gpu):
    _, _, run = colored(on_gpu, "gen:rgg?scale=14", reduce="both", balance="shuffle")
    trace = run.coloring.trace
    assert run.validation.valid and trace["colors_after"] == [float(run.validation.colors)]
    assert trace["class_cv_after"][0] <= trace["class_cv_before"][0]


@pytest.mark.parametrize("top", [0, 3, 300])
def test_validation_balance_columns_equal_the_host(on_gpu, family_spec, top):
    graph, prepared = on_gpu(family_spec)
    rng = np.random.default_rng(top)
    colors = rng.integers(0, top + 1, graph.n).astype(np.int32)
    if graph.n:
        colors[rng.random(graph.n) < 0.4] = 0  # one large class: many lanes of a warp share it
        colors[rng.random(graph.n) < 0.05] = -1
    cp = runtime.cupy()
    assert runtime.validate_device(prepared.handle, cp.asarray(colors)) == validate(graph, colors)
