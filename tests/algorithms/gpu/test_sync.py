"""Rounds without the host (issue 43; docs/decisions.md, "Rounds without the host"): every
round-based GPU algorithm (distance-1 and distance-2) colors the same under each host protocol
(``sync``), counts its rounds and trace as before, makes at most ⌈log₂ rounds⌉ + 2 blocking
reads with ``sync=device``, and still stops at its round cap."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gcbench import algorithms, validate
from gcbench.algorithms.execute import execute, prepare
from gcbench.algorithms.gpu import distance2, independent_set, loops, runtime, slots
from gcbench.algorithms.pattern_validation import validate_pattern
from gcbench.algorithms.rounds import GRAPH, SYNCS
from gcbench.errors import RoundCapError
from gcbench.graphs import generators
from gcbench.graphs.pattern import Pattern, closed_neighbourhoods, from_entries


def _round_based(deterministic: bool) -> list[str]:
    return sorted(
        spec.name
        for spec in algorithms.all_specs("gpu")
        if any(p.name == "sync" for p in spec.params)
        and not spec.colors_patterns
        and spec.deterministic == deterministic
    )


DETERMINISTIC = _round_based(True)
SPECULATIVE = _round_based(False)
MANY_ROUNDS = "gen:complete?n=300"  # one vertex a round for most, >= 37 rounds for cohen


def syncs(name: str) -> tuple[str, ...]:
    """The host protocols ``name`` takes (the independent-set family also takes graph)."""
    return algorithms.get(name).param("sync").choices


def run(on_gpu, spec: str, name: str, **params):
    graph, prepared = on_gpu(spec)
    algo = algorithms.get(name)
    return graph, execute(algo, prepared, None, algo.resolve_params(params))


def test_the_round_based_algorithms_are_found():
    assert {"jpl", "jpl-minmax", "gunrock", "cohen", "luby", "very-random"} <= set(DETERMINISTIC)


@pytest.mark.gpu
@pytest.mark.parametrize("name", DETERMINISTIC)
def test_deterministic_colors_equal_under_every_protocol(on_gpu, family_spec, name):
    graph, base = run(on_gpu, family_spec, name, sync="round")
    assert validate(graph, base.colors).valid
    for sync in syncs(name):
        _, other = run(on_gpu, family_spec, name, sync=sync)
        np.testing.assert_array_equal(other.colors, base.colors, err_msg=sync)
        assert other.coloring.iterations == base.coloring.iterations, sync
        assert other.coloring.trace == base.coloring.trace, sync


@pytest.mark.gpu
@pytest.mark.parametrize("name", SPECULATIVE)
def test_speculative_colorings_are_valid_under_every_protocol(on_gpu, family_spec, name):
    for sync in syncs(name):
        graph, outcome = run(on_gpu, family_spec, name, sync=sync)
        assert validate(graph, outcome.colors).valid and outcome.validation.valid
        active = next(iter(outcome.coloring.trace.values()), [])
        assert outcome.coloring.iterations == len(active)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(set(DETERMINISTIC + SPECULATIVE) - {"cf"}))
def test_blocking_reads_per_protocol(on_gpu, name):
    """(cf's passes and pull-down: tests/algorithms/gpu/test_cf.py.)"""
    counted, rounds = {}, {}
    for sync in syncs(name):
        _, outcome = run(on_gpu, MANY_ROUNDS, name, sync=sync)
        rounds[sync] = outcome.coloring.iterations  # speculative ones may differ per run
        counted[sync] = outcome.coloring.host_syncs
        assert rounds[sync] >= 30, (sync, rounds[sync])
        assert 0 < outcome.coloring.device_ms <= outcome.time_ms * 1.0001
    if name == "gm-gpu":  # a read per batch of passes; sync=round keeps the batch fixed
        assert counted["round"] >= rounds["round"] / algorithms.get(name).param("batch").default
    else:
        assert counted["round"] == rounds["round"]
    assert counted["batch"] <= math.ceil(math.log2(rounds["batch"] + 1)) + 1
    assert counted["device"] <= math.ceil(math.log2(rounds["device"])) + 2
    assert counted.get(GRAPH, 0) == 0  # the WHILE node repeats the rounds: no read at all


def _selection(dg):
    colors = runtime.uncolored(dg.n)
    vals = independent_set.permutation_values(dg.n, 0)
    plan = independent_set.Plan("jpl", "permutation")
    return colors, independent_set.Selection(dg, colors, vals, plan, 256)


@pytest.mark.gpu
@pytest.mark.parametrize("sync", SYNCS)
def test_the_round_cap_still_raises_with_the_partial_colors(on_gpu, sync):
    _, prepared = on_gpu(MANY_ROUNDS)
    dg = prepared.handle
    colors, select = _selection(dg)
    host = slots.Slots((dg.n, 0))

    def launch(rnd: int) -> None:
        select.launch(host.gate(rnd))

    with pytest.raises(RoundCapError, match="after 12 rounds") as err:
        slots.drive(launch, host, cap=12, algorithm="jpl", colors=colors, sync=sync)
    partial = err.value.coloring.get()
    assert (partial >= 0).sum() == 12  # a complete graph: one vertex a round


@pytest.mark.gpu
def test_the_round_cap_stops_a_graph_loop_and_raises_after_the_call(on_gpu):
    _, prepared = on_gpu(MANY_ROUNDS)
    dg = prepared.handle
    colors, select = _selection(dg)
    rounds = loops.DeviceRounds(start=(dg.n,), cap=12)

    def body(handle: int) -> None:
        select.launch(rounds.gate(0))
        rounds.step(handle)

    loop = loops.Loop(rounds.reset, body)
    for _ in range(2):  # a second launch starts again from the reset
        colors.fill(-1)
        loop.launch()
        coloring = loops.coloring(colors, rounds, algorithm="jpl")
        with pytest.raises(RoundCapError, match="after 12 rounds") as err:
            coloring.resolve(coloring)
        assert (err.value.coloring.get() >= 0).sum() == 12
        assert coloring.iterations == 12 and coloring.trace["active"] == list(range(299, 287, -1))


@pytest.mark.gpu
def test_a_timed_call_without_reads_has_device_time_equal_to_its_time(on_gpu):
    _, outcome = run(on_gpu, "gen:grid2d?side=100", "ecl-gc")
    assert outcome.coloring.host_syncs == 0
    assert outcome.coloring.device_ms == pytest.approx(outcome.time_ms)


@pytest.mark.gpu
@pytest.mark.parametrize("name", [s.name for s in algorithms.all_specs("gpu")])
def test_no_timed_call_waits_for_the_device_without_saying_so(on_gpu, name):
    """The timing protocol holds the device until a call is queued and lets it go at the
    call's first counted wait; a wait it does not count would run the hold out of time."""
    _, outcome = run(on_gpu, "gen:kron?scale=12", name)
    assert outcome.validation.valid
    assert not runtime.hold_timed_out(), (name, outcome.coloring.host_syncs)


def _patterns() -> dict[str, Pattern]:
    """d2 patterns with a hub row (301 jp-d2 rounds) and a second color window, and a
    rectangular pd2 pattern."""
    rng = np.random.default_rng(5)
    return {
        "star-300": closed_neighbourhoods(generators.get_family("star").generate({"leaves": 300})),
        "complete-100": closed_neighbourhoods(
            generators.get_family("complete").generate({"n": 100})
        ),
        "rectangular": from_entries(
            900, 700, rng.integers(0, 900, 5000), rng.integers(0, 700, 5000), name="r5"
        ),
    }


PATTERNS = _patterns()
DISTANCE2 = {"vb-bit": distance2.vb_bit, "nb-bit": distance2.nb_bit, "jp-d2": distance2.jp_d2}


@pytest.mark.gpu
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize("name", sorted(DISTANCE2))
def test_distance2_under_every_protocol(pattern, name):
    dp = runtime.pattern_to_device(PATTERNS[pattern])
    outcomes = {}
    choices = algorithms.get(name, problem="d2").param("sync").choices
    assert GRAPH in choices
    for sync in choices:
        with runtime.watch() as watch:
            coloring = DISTANCE2[name](dp, sync=sync)
        if coloring.resolve is not None:  # graph: rounds and trace are read after the call
            coloring.resolve(coloring)
        colors = coloring.colors.get()
        assert validate_pattern(PATTERNS[pattern], colors).valid, sync
        assert coloring.iterations == len(coloring.trace["active"]) >= 1
        assert coloring.trace["active"][-1] == 0, sync
        if sync == "device":
            assert watch.syncs <= math.ceil(math.log2(coloring.iterations)) + 2
        if sync == "round":
            assert watch.syncs == coloring.iterations
        if sync == GRAPH:  # the WHILE node repeats the rounds: no read at all
            assert watch.syncs == 0
        outcomes[sync] = colors, coloring
    if name == "jp-d2":  # deterministic colors, rounds and trace
        base_colors, base = outcomes["round"]
        for sync, (colors, coloring) in outcomes.items():
            np.testing.assert_array_equal(colors, base_colors, err_msg=sync)
            assert coloring.trace["active"] == base.trace["active"], sync


@pytest.mark.gpu
@pytest.mark.parametrize("name", [s.name for s in algorithms.all_specs("gpu", problem="d2")])
def test_no_distance2_call_waits_for_the_device_without_saying_so(name):
    spec = algorithms.get(name, problem="d2")
    outcome = execute(spec, prepare(PATTERNS["star-300"], "gpu"), None, spec.resolve_params({}))
    assert outcome.validation.valid
    assert not runtime.hold_timed_out(), (name, outcome.coloring.host_syncs)
