"""``auto``: the decision list on synthetic features, the fitted picks, one spec per backend,
and its rows through the runner (CPU); on a GPU, the GPU spec picks a GPU algorithm."""

from __future__ import annotations

import csv
from types import SimpleNamespace

import numpy as np
import pytest

import gcbench
from gcbench import algorithms, load_graph
from gcbench.algorithms import auto
from gcbench.algorithms.auto import KINDS, OBJECTIVES, Features, Pick, Rule
from gcbench.bench import runner
from gcbench.bench.results import row_key
from gcbench.bench.suite import (
    AlgorithmEntry,
    GraphEntry,
    Suite,
    expand,
    skipped,
)
from gcbench.errors import SpecError
from gcbench.grammar import parse_param_string, requested_params

CPU = runner.DeviceChoice("cpu", "test")


def _labelled_rule() -> Rule:
    """A rule whose every (objective, kind) names a different greedy order."""
    orders = iter(["ff", "r", "ldf", "sdl", "id", "sd"])
    return Rule(
        skew=10.0,
        large_nnz=1000.0,
        picks={o: {k: Pick("greedy", f"order={next(orders)}") for k in KINDS} for o in OBJECTIVES},
    )


@pytest.mark.parametrize(
    ("features", "kind"),
    [
        (Features(n=100, nnz=400, max_degree=40), "skewed"),  # max/mean = 10: at the threshold
        (Features(n=100, nnz=5000, max_degree=60), "large"),  # skew 60/50, nnz over 1000
        (Features(n=100, nnz=400, max_degree=39), "small"),  # 9.75, below both thresholds
        (Features(n=100, nnz=999, max_degree=20), "small"),
        (Features(n=100, nnz=1000, max_degree=20), "large"),  # nnz at the threshold
        (Features(n=1000, nnz=10**6, max_degree=10**5), "skewed"),  # skew before size
        (Features(n=0, nnz=0, max_degree=0), "small"),
        (Features(n=50, nnz=0, max_degree=0), "small"),
    ],
)
@pytest.mark.parametrize("backend", ["gpu", "cpu"])
def test_each_branch_of_the_decision_list(monkeypatch, features, kind, backend):
    rule = _labelled_rule()
    monkeypatch.setitem(auto.RULES, backend, rule)
    assert rule.kind(features) == kind
    for objective in OBJECTIVES:
        assert auto.choose(features, objective, backend) == rule.picks[objective][kind]


def test_features_from_the_offsets_alone():
    graph = load_graph("gen:kron?scale=10")
    f = auto.features(graph, "cpu")
    assert (f.n, f.nnz, f.max_degree) == (graph.n, graph.nnz, graph.max_degree)
    assert f.mean_degree == pytest.approx(graph.avg_degree)
    assert f.skew == pytest.approx(graph.max_degree / graph.avg_degree)
    assert auto.features(SimpleNamespace(indptr=np.zeros(1, np.int64)), "cpu") == Features(0, 0, 0)
    assert auto.features(SimpleNamespace(indptr=np.zeros(6, np.int64)), "cpu").skew == 1.0


@pytest.mark.parametrize("backend", ["gpu", "cpu"])
def test_every_fitted_pick_is_an_algorithm_of_its_backend(backend):
    rule = auto.RULES[backend]
    assert rule.skew >= 0 and rule.large_nnz >= 0
    for objective in OBJECTIVES:
        for kind in KINDS:
            pick = rule.picks[objective][kind]
            spec = algorithms.get(pick.algorithm, backend)
            assert spec.backend == backend and not spec.peer and not spec.chooser
            spec.resolve_params(parse_param_string(pick.params))  # names and values exist
            assert (pick.block_size is not None) == (backend == "gpu" and spec.name != "cusparse")


def test_one_spec_per_backend_under_one_name():
    gpu, cpu = algorithms.get("auto", "gpu"), algorithms.get("auto", "cpu")
    assert (gpu.backend, cpu.backend) == ("gpu", "cpu") and gpu.chooser and cpu.chooser
    assert algorithms.get("auto") is gpu and algorithms.backends("auto") == ("cpu", "gpu")
    assert algorithms.get("greedy", "gpu").backend == "cpu"  # one backend: asked for any
    names = [(s.name, s.backend) for s in algorithms.all_specs()]
    assert ("auto", "cpu") in names and ("auto", "gpu") in names
    assert [s.backend for s in algorithms.all_specs("cpu") if s.name == "auto"] == ["cpu"]


def test_suites_resolve_auto_by_backend_and_leave_it_out_of_wildcards():
    suite = Suite("t", graphs=(GraphEntry("gen:cycle?n=5"),),
                  algorithms=(AlgorithmEntry("auto"), AlgorithmEntry("*")))  # fmt: skip
    for backend in ("cpu", "gpu"):
        cases = expand(suite, backend=backend)
        autos = [c for c in cases if c.algorithm == "auto"]
        assert [c.backend for c in autos] == [backend] and autos[0].block_size is None
    assert skipped(suite, "cpu") == []


def test_recorded_params_are_canonical_and_resume_keys_drop_the_choice():
    pick = Pick("ecl-gc", "reduce=none;shortcuts=both", 512)
    params = {"reduce": "none", "shortcuts": "both"}
    text = algorithms.canonical_params(auto.recorded("fast", "auto", pick, params))
    assert text == (
        "choice=ecl-gc;choice.block_size=512;choice.reduce=none;choice.shortcuts=both;"
        "objective=fast;reduce=auto"
    )
    assert requested_params(text) == "objective=fast;reduce=auto"
    assert requested_params("order=ldf;reduce=none") == "order=ldf;reduce=none"
    row = {"graph": "g", "algorithm": "auto", "params": text, "block_size": None, "rep": 0}
    assert row_key(row) == ("g", "d1", "auto", "objective=fast;reduce=auto", "", "0")


def test_color_api_on_the_cpu_picks_a_cpu_algorithm():
    for objective in OBJECTIVES:
        result = gcbench.color("gen:kron?scale=9", "auto", device="cpu", objective=objective)
        assert result.validation.valid
        chosen = result.params[auto.CHOICE]
        assert algorithms.get(chosen, "cpu").backend == "cpu"
        assert result.params["objective"] == objective
    with pytest.raises(SpecError, match="runs on the GPU"):
        gcbench.color("gen:cycle?n=5", "ecl-gc", device="cpu")


def test_reduce_overrides_the_pick(monkeypatch):
    monkeypatch.setitem(auto.RULES, "cpu", _labelled_rule())
    result = gcbench.color("gen:grid2d?side=30", "auto", device="cpu", reduce="both")
    assert result.params["choice.reduce"] == "both" and result.params["reduce"] == "both"
    assert "colors_after" in result.trace


def test_auto_rows_through_the_runner_carry_the_choice(tmp_path, data_dir):
    out = tmp_path / "rows.csv"
    summary = runner.run(graphs=["gen:grid2d?side=20"], algorithms=["auto", "greedy"],
                         params={"objective": "fast,fewest"}, reps=2, warmup=0, out=out,
                         progress=False, choice=CPU)  # fmt: skip
    assert summary.exit_code == 0
    with out.open(newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["algorithm"] == "auto"]
    assert len(rows) == 4 and {r["backend"] for r in rows} == {"cpu"}
    for row in rows:
        params = parse_param_string(row["params"])
        assert row["status"] == "ok" and row["block_size"] == ""
        assert params["objective"] in OBJECTIVES
        assert algorithms.get(params[auto.CHOICE], "cpu").backend == "cpu"
        assert row["params"] == algorithms.canonical_params(params)  # canonical k=v;k=v
    again = runner.run(graphs=["gen:grid2d?side=20"], algorithms=["auto", "greedy"],
                       params={"objective": "fast,fewest"}, reps=2, warmup=0, resume=out,
                       progress=False, choice=CPU)  # fmt: skip
    assert again.written == 0


@pytest.mark.gpu
def test_on_the_gpu_auto_picks_a_gpu_algorithm():
    for objective in OBJECTIVES:
        result = gcbench.color("gen:kron?scale=14", "auto", device="gpu", objective=objective)
        assert result.validation.valid
        assert algorithms.get(result.params[auto.CHOICE], "gpu").backend == "gpu"


@pytest.mark.gpu
@pytest.mark.parametrize(
    "spec", ["gen:star?leaves=100000", "gen:grid2d?side=300", "gen:kron?scale=14", "gen:cycle?n=3"]
)
def test_the_gpu_features_known_from_the_upload_equal_the_host_features(spec):
    from gcbench.algorithms.gpu import runtime

    graph = load_graph(spec)
    handle = runtime.to_device(graph)
    want = auto.features(graph, "cpu")
    assert auto.features(handle, "gpu") == want
    assert auto.features(handle.fresh(), "gpu") == want  # a setup's view keeps them
