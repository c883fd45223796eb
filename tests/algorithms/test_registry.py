"""Registry entries: parameter parsing, canonical params, unknown names, a pass after a
coloring."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gcbench.algorithms.registry import (
    AlgorithmSpec,
    Coloring,
    Param,
    get,
    register,
    unregister,
)
from gcbench.errors import SpecError


def _spec() -> AlgorithmSpec:
    return AlgorithmSpec(
        name="test-registry-algo",
        backend="cpu",
        family="test",
        run=lambda graph, **kw: Coloring([], None),
        params=(
            Param("order", "ff", str, choices=("ff", "ldf")),
            Param("seed", 0, int, low=0),
            Param("flag", False, bool),
        ),
    )


def test_resolve_params_parses_and_checks():
    spec = _spec()
    resolved = spec.resolve_params({"seed": "7", "flag": "true"})
    assert resolved["seed"] == 7 and resolved["flag"] is True and resolved["order"] == "ff"
    with pytest.raises(SpecError, match="unknown parameter 'sed'.*order, seed, flag"):
        spec.resolve_params({"sed": 1})
    with pytest.raises(SpecError, match="order=xx is not one of ff|ldf"):
        spec.resolve_params({"order": "xx"})
    with pytest.raises(SpecError, match="seed='x' is not a int"):
        spec.resolve_params({"seed": "x"})
    with pytest.raises(SpecError, match="outside"):
        spec.resolve_params({"seed": -1})


def test_register_and_get():
    spec = register(_spec())
    try:
        assert get(spec.name) is spec
    finally:
        unregister(spec.name)
    with pytest.raises(SpecError, match="unknown algorithm 'test-registry-algo'"):
        get(spec.name)


@pytest.mark.parametrize(
    ("step", "size", "taken"),
    [(32, 32, True), (32, 1024, True), (32, 0, False), (32, 16, False), (32, 100, False),
     (32, 2048, False), (1, 1, True), (1, 1000, True), (1, 0, False), (1, 1025, False)],
)  # fmt: skip
def test_block_sizes_are_multiples_of_the_step_up_to_1024(step, size, taken):
    spec = replace(_spec(), backend="gpu", block_size_step=step)
    if taken:
        spec.check_block_size(size)
    else:
        with pytest.raises(SpecError, match=f"test-registry-algo: block size {size} is"):
            spec.check_block_size(size)


def test_a_refused_block_size_never_reaches_the_algorithm():
    from gcbench.algorithms.execute import invoke

    calls = []
    spec = replace(_spec(), backend="gpu", block_size_step=32, params=(), run=calls.append)
    with pytest.raises(SpecError, match="not a multiple of 32 in 32..1024"):
        invoke(spec, None, 100, {})
    assert calls == []


def test_a_pass_after_the_coloring_replaces_the_colors_and_adds_its_series():
    before = Coloring([1, 0, 1], 3, {"active": [3.0, 1.0]}, params={"order": "ldf"})
    after = before.after_pass([0, 1, 0], {"reduce_ms": 0.5, "reduce_rounds": 2})
    assert after.colors == [0, 1, 0] and after.iterations == 3
    assert after.params == {"order": "ldf"}
    assert after.trace == {"active": [3.0, 1.0], "reduce_ms": [0.5], "reduce_rounds": [2.0]}
    assert all(isinstance(v, float) for v in after.trace["reduce_rounds"])
    assert before.colors == [1, 0, 1] and "reduce_ms" not in before.trace


def test_a_name_may_solve_d1_and_the_distance2_problems_with_two_specs():
    d1 = register(_spec())
    d2 = register(replace(_spec(), problems=("d2", "pd2"), params=()))
    try:
        assert get(d1.name) is d1 and get(d1.name, problem="pd2") is d2
        assert {p.name for p in d1.params} >= {"reduce", "balance"}
        # no distance-1 passes on a distance-2 spec: its own reduce (iterated greedy) only
        assert [(p.name, p.choices) for p in d2.params] == [("reduce", ("none", "ig"))]
        assert d2.colors_patterns and not d1.colors_patterns
        with pytest.raises(SpecError, match=r"does not solve --problem pd2-rows \(it solves"):
            get(d1.name, problem="pd2-rows")
    finally:
        unregister(d1.name)


@pytest.mark.parametrize("problems", [(), ("d1", "d2"), ("d4",)])
def test_a_spec_solves_d1_or_distance2_problems(problems):
    with pytest.raises(ValueError, match="problems"):
        register(replace(_spec(), problems=problems))
