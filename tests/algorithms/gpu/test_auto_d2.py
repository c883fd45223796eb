"""The distance-2 ``auto`` on the GPU: every pick colors validly and recovers the product,
records the configuration the rule names, and a host pick (the serial greedy on a tiny
pattern) lets go of the device and records no host columns."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench import algorithms
from gcbench.algorithms import auto_d2
from gcbench.algorithms.execute import execute, prepare
from gcbench.graphs.sources import load_instance

pytestmark = pytest.mark.gpu

INPUTS = [  # (spec, problem, the rule's branch)
    ("gen:rgg?scale=14", "d2", "vb-bit"),  # a mesh
    ("gen:kron?scale=14", "d2", "nb-bit"),  # many long nets
    ("gen:uniform?rows=50000&cols=50000&dense=1&width=1000", "pd2", "jp-d2"),  # one long net
    ("gen:uniform?rows=50000&cols=50000&dense=1&width=1000", "pd2-rows", "nb-bit"),  # a column
    ("gen:stencil?dim=3&side=24&points=7&rows=interior", "pd2", "nb-bit"),  # a matrix
    ("gen:uniform?rows=20000&cols=20000&dense=1&width=2000", "pd2", "greedy"),  # too long a net
    ("gen:grid2d?side=20", "d2", "greedy"),  # tiny
]


@pytest.mark.parametrize(("spec", "problem", "branch"), INPUTS)
def test_each_pick_colors_and_records_its_choice(spec, problem, branch):
    pattern = load_instance(spec, problem)
    pick = auto_d2.choose(auto_d2.net_features(pattern), "gpu")
    assert pick.algorithm == branch
    auto = algorithms.get("auto", "gpu", problem)
    outcome = execute(auto, prepare(pattern, "gpu"), None, auto.resolve_params({}))
    assert outcome.validation.valid and outcome.validation.recovered
    params = outcome.coloring.params
    assert params["choice"] == pick.algorithm and params["reduce"] == "none"
    assert "balance" not in params
    assert outcome.time_ms > 0
    if pick is auto_d2.SERIAL:  # on the host: its waits are not counted
        assert outcome.coloring.host_syncs is None
        serial = algorithms.get("greedy", "cpu", problem)
        alone = execute(serial, prepare(pattern, "cpu"), None, serial.resolve_params({}))
        np.testing.assert_array_equal(outcome.colors, alone.colors)
    if pick is auto_d2.JP:  # deterministic: the chosen algorithm's own colors
        jp = algorithms.get("jp-d2", "gpu", problem)
        alone = execute(jp, prepare(pattern, "gpu"), None, jp.resolve_params({"order": "random"}))
        np.testing.assert_array_equal(outcome.colors, alone.colors)
