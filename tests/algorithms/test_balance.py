"""balance=none|shuffle as every algorithm's parameter, applied by the runner after reduce
(the passes themselves: tests/algorithms/cpu/test_balance.py and gpu/test_balance.py)."""

from __future__ import annotations

import pytest

import gcbench
from gcbench import algorithms
from gcbench.algorithms import auto
from gcbench.algorithms.registry import BALANCE_MODES
from gcbench.errors import SpecError


def test_every_algorithm_has_balance():
    for spec in algorithms.all_specs():
        assert spec.param("balance").choices == BALANCE_MODES, spec.name


def test_an_unknown_mode_is_an_error():
    with pytest.raises(SpecError, match="balance=tilt is not one of none|shuffle"):
        gcbench.color("gen:cycle?n=9", "greedy", balance="tilt")


def test_the_runner_balances_after_reduce_inside_the_timed_call(data_dir):
    spec = "gen:rgg?scale=12"
    plain = gcbench.color(spec, "greedy", reduce="both")
    both = gcbench.color(spec, "greedy", reduce="both", balance="shuffle")
    v0, v1 = plain.validation, both.validation
    assert v1.valid and v1.colors == v0.colors and v1.class_cv < v0.class_cv
    trace = both.trace
    assert trace["colors_after"] == [float(v0.colors)]  # reduce ran first
    assert trace["class_cv_before"] == [v0.class_cv] and trace["class_cv_after"] == [v1.class_cv]
    assert 0 < trace["reduce_ms"][0] + trace["balance_ms"][0] <= both.time_ms
    assert both.params["balance"] == "shuffle"


def test_auto_records_its_balance_once(data_dir):
    result = gcbench.color("gen:grid2d?side=30", "auto", device="cpu", balance="shuffle")
    assert result.params["balance"] == "shuffle" and "choice.balance" not in result.params
    assert result.validation.valid and "balance_ms" in result.trace
    text = algorithms.canonical_params(result.params)
    assert algorithms.registry.requested_params(text).startswith("balance=shuffle;")
    assert auto.CHOICE in result.params
