"""Suite parsing and expansion into cases (docs/architecture.md, "Suites and cases")."""

from __future__ import annotations

import pytest

from gcbench.algorithms import AlgorithmSpec, Param, canonical_params, get, register, unregister
from gcbench.algorithms.availability import skip_notes
from gcbench.algorithms.sampling import DEFAULT_NOISE, Sampling
from gcbench.bench.options import RunOptions
from gcbench.bench.runner import build_suite
from gcbench.bench.suite import (
    ON_CPU,
    SWEEP,
    expand,
    list_suites,
    load_suite,
    offline,
    parse_block_sizes,
    parse_suite,
    skipped,
)
from gcbench.errors import SpecError

GRAPH = "gen:cycle?n=5"


def _never(graph, **_):
    raise AssertionError("expansion must not run algorithms")


@pytest.fixture(scope="module", autouse=True)
def specs(bench_env):
    """Fake GPU algorithms (never run): one whose block size matters, one with a default
    block size, one that takes none; and a CPU one whose block size matters."""
    fakes = [
        AlgorithmSpec(
            "t-gpu-sweep", "gpu", "t", _never, block_size_matters=True, default_block_size=256
        ),
        AlgorithmSpec("t-gpu-fixed", "gpu", "t", _never, default_block_size=128),
        AlgorithmSpec("t-gpu-vendor", "gpu", "t", _never, params=(Param("k", 1, int),)),
        AlgorithmSpec("t-cpu-blocks", "cpu", "t", _never, block_size_matters=True),
        AlgorithmSpec(
            "t-cpu-missing", "cpu", "t", _never, requires=("gcbench_no_such_pkg",), extra="peers"
        ),
    ]
    for spec in fakes:
        register(spec)
    yield
    for spec in fakes:
        unregister(spec.name)


def defaults(name):
    """Every declared parameter of ``name`` at its default (registry-wide ones included)."""
    return {p.name: p.default for p in get(name).params}


def suite(algorithms, graphs=(GRAPH,), **top):
    return parse_suite({"graphs": list(graphs), "algorithms": algorithms, **top}, default_name="t")


def test_axes_multiply_and_defaults_are_explicit():
    s = suite(
        [{"name": "test-distinct", "params": {"offset": [0, 1, 2]}}, {"name": "test-sleep"}],
        graphs=[GRAPH, "gen:cycle?n=7"],
    )
    cases = expand(s, backend="cpu")
    expected = [
        (g, a, p)
        for g in (GRAPH, "gen:cycle?n=7")
        for a, p in [
            ("test-distinct", {**defaults("test-distinct"), "offset": k}) for k in (0, 1, 2)
        ]
        + [("test-sleep", {**defaults("test-sleep"), "seconds": 30.0})]
    ]
    assert [(c.graph, c.algorithm, dict(c.params)) for c in cases] == expected
    assert all(c.block_size is None and c.backend == "cpu" for c in cases)
    assert cases[1].params_text == canonical_params({**defaults("test-distinct"), "offset": 1})


def test_scalar_params_and_cli_strings_are_parsed_by_the_registry():
    cases = expand(suite([{"name": "test-distinct", "params": {"offset": 4}}]), backend="cpu")
    assert [dict(c.params) for c in cases] == [{**defaults("test-distinct"), "offset": 4}]
    cases = expand(
        suite([{"name": "test-distinct"}]), backend="cpu", param_axes={"offset": ["1", "2"]}
    )
    assert [c.params["offset"] for c in cases] == [1, 2]


def test_graph_specs_are_canonical_and_standin_tables_parse():
    s = suite(
        [{"name": "test-distinct"}],
        graphs=["gen:rgg?seed=0&scale=8", {"spec": "ss:G/m", "standin": "gen:cycle?n=9"}],
    )
    cases = expand(s, backend="cpu")
    assert [(c.graph, c.standin) for c in cases] == [
        ("gen:rgg?scale=8&seed=0", None),
        ("ss:G/m", "gen:cycle?n=9"),
    ]


def test_duplicate_cases_are_dropped():
    s = suite([{"name": "test-distinct"}, {"name": "test-distinct", "params": {"offset": 0}}])
    assert len(expand(s, backend="cpu")) == 1


def test_block_sizes_apply_where_the_algorithm_takes_one():
    s = suite(
        [
            {"name": n}
            for n in ("t-gpu-sweep", "t-gpu-fixed", "t-gpu-vendor", "t-cpu-blocks", "test-distinct")
        ],
        block_sizes=[64, 128],
    )
    got = {(c.algorithm, c.block_size) for c in expand(s, backend="gpu")}
    assert got == {
        ("t-gpu-sweep", 64),
        ("t-gpu-sweep", 128),
        ("t-gpu-fixed", 64),
        ("t-gpu-fixed", 128),
        ("t-gpu-vendor", None),
        ("t-cpu-blocks", 64),
        ("t-cpu-blocks", 128),
        ("test-distinct", None),
    }


def test_without_block_sizes_each_algorithm_uses_its_default():
    names = ("t-gpu-sweep", "t-gpu-fixed", "t-gpu-vendor", "t-cpu-blocks")
    got = {
        (c.algorithm, c.block_size)
        for c in expand(suite([{"name": n} for n in names]), backend="gpu")
    }
    assert got == {
        ("t-gpu-sweep", 256),
        ("t-gpu-fixed", 128),
        ("t-gpu-vendor", None),
        ("t-cpu-blocks", 256),
    }


def test_sweep_only_for_algorithms_whose_block_size_matters():
    s = suite([{"name": "t-gpu-sweep"}, {"name": "t-gpu-fixed", "block_sizes": [32]}])
    cases = expand(s, backend="gpu", block_sizes="sweep")
    sizes = {
        a: [c.block_size for c in cases if c.algorithm == a] for a in ("t-gpu-sweep", "t-gpu-fixed")
    }
    assert sizes == {"t-gpu-sweep": list(SWEEP), "t-gpu-fixed": [32]}
    assert SWEEP == (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
    cases = expand(s, backend="gpu", block_sizes=(512,))
    assert {c.block_size for c in cases} == {512}
    in_file = suite([{"name": "t-gpu-sweep"}, {"name": "t-gpu-fixed"}], block_sizes="sweep")
    got = {(c.algorithm, c.block_size) for c in expand(in_file, backend="gpu")}
    assert ("t-gpu-fixed", 128) in got and len(got) == len(SWEEP) + 1


@pytest.mark.parametrize("name", ["jpl", "jpl-minmax", "gunrock", "cohen", "luby", "cf", "gm-gpu"])
def test_the_sweep_gives_warp_kernels_only_sizes_they_take(name):
    """The JPL family, cf and gm-gpu launch whole warps: their sweep is 32..1024, and every
    size it leaves out is one their spec refuses."""
    cases = expand(suite([{"name": name}, {"name": "vb"}]), backend="gpu", block_sizes="sweep")
    got = [c.block_size for c in cases if c.algorithm == name]
    assert got == [32, 64, 128, 256, 512, 1024]
    assert [c.block_size for c in cases if c.algorithm == "vb"] == list(SWEEP)
    for size in set(SWEEP) - set(got):
        with pytest.raises(SpecError, match="not a multiple of 32"):
            get(name).check_block_size(size)


def test_cpu_runs_leave_gpu_algorithms_out():
    s = suite([{"name": "t-gpu-sweep"}, {"name": "test-distinct"}])
    assert [c.algorithm for c in expand(s, backend="cpu")] == ["test-distinct"]
    assert [(u.name, u.device) for u in skipped(s, "cpu")] == [("t-gpu-sweep", ON_CPU)]
    with pytest.raises(SpecError, match="no algorithm can run here: t-gpu-sweep needs a GPU"):
        expand(suite([{"name": "t-gpu-sweep"}]), backend="cpu")


@pytest.mark.parametrize("entry", [{"name": "*"}, {"name": "t-cpu-missing"}])
def test_algorithms_whose_package_is_missing_are_skipped_with_the_extra(entry):
    s = suite([entry, {"name": "test-distinct"}])
    assert "t-cpu-missing" not in {c.algorithm for c in expand(s, backend="cpu")}
    assert [(u.name, u.missing, u.extra) for u in skipped(s, "cpu")] == [
        ("t-cpu-missing", ("gcbench_no_such_pkg",), "peers")
    ]
    assert skip_notes(skipped(s, "cpu")) == [
        "skipped t-cpu-missing: it needs gcbench_no_such_pkg (not installed; "
        "pip install 'gcbench[peers]')"
    ]
    with pytest.raises(SpecError, match=r"no algorithm can run here.*gcbench\[peers\]"):
        expand(suite([{"name": "t-cpu-missing"}]), backend="cpu")


def test_a_wildcard_on_the_cpu_does_not_list_the_gpu_algorithms_as_skipped():
    s = suite([{"name": "*", "exclude": ["t-cpu-missing"]}])
    assert skipped(s, "cpu") == [] and "t-gpu-sweep" not in {
        c.algorithm for c in expand(s, backend="cpu")
    }


def test_wildcard_means_every_algorithm_of_the_backend():
    gpu = {c.algorithm for c in expand(suite([{"name": "*"}]), backend="gpu")}
    assert {"t-gpu-sweep", "t-gpu-fixed", "t-gpu-vendor"} <= gpu
    assert all(c.backend == "gpu" for c in expand(suite([{"name": "*"}]), backend="gpu"))
    cpu = expand(suite([{"name": "*", "backend": "cpu", "exclude": ["test-exit"]}]), backend="gpu")
    names = {c.algorithm for c in cpu}
    assert "test-distinct" in names and "test-exit" not in names
    assert all(c.params == defaults(c.algorithm) for c in cpu)


def test_a_wildcard_leaves_out_budgeted_searches_that_a_suite_can_still_name():
    """tabucol's time is its budget: `name = "*"` leaves it out, naming it runs it."""
    assert get("tabucol").wildcard is False
    assert "tabucol" not in {c.algorithm for c in expand(suite([{"name": "*"}]), backend="cpu")}
    named = expand(suite([{"name": "tabucol", "params": {"budget_ms": 5}}]), backend="cpu")
    assert [(c.algorithm, c.params["budget_ms"]) for c in named] == [("tabucol", 5.0)]


@pytest.mark.parametrize(
    ("algorithms", "kwargs", "message"),
    [
        ([{"name": "nope"}], {}, "unknown algorithm 'nope'"),
        ([{"name": "test-distinct", "params": {"colour": 1}}], {}, "unknown parameter 'colour'"),
        ([{"name": "test-distinct", "params": {"offset": "x"}}], {}, "is not a int"),
        ([{"name": "test-distinct", "params": {"offset": [500]}}], {}, "outside"),
        ([{"name": "test-distinct", "params": {"offset": []}}], {}, "empty list"),
        ([{"name": "test-distinct"}], {"param_axes": {"nope": ["1"]}}, "no selected algorithm"),
        ([{"name": "*", "exclude": ["nope"]}], {}, "unknown algorithm 'nope'"),
    ],
)
def test_expansion_errors(algorithms, kwargs, message):
    with pytest.raises(SpecError, match=message):
        expand(suite(algorithms), backend="cpu", **kwargs)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"graphs": [GRAPH], "algorithms": [{"name": "greedy"}], "repz": 3}, "unknown key"),
        ({"graphs": [GRAPH], "algorithms": [{"name": "greedy"}], "reps": 0}, "must be ≥ 1"),
        ({"graphs": [GRAPH], "algorithms": [{"name": "greedy"}], "reps": 1.5}, "not an integer"),
        ({"graphs": [GRAPH], "algorithms": [{"name": "greedy"}], "timeout": 0}, "> 0"),
        ({"graphs": [GRAPH], "algorithms": [{"name": "greedy"}], "timeout_s": 9}, "is now timeout"),
        ({"graphs": [GRAPH], "algorithms": [{"name": "greedy"}], "block_sizes": []}, "no block"),
        ({"graphs": [{"spec": GRAPH, "standby": "x"}], "algorithms": []}, "unknown key"),
        ({"graphs": [3], "algorithms": []}, "neither a spec"),
        ({"graphs": [GRAPH], "algorithms": [{"params": {}}]}, "needs name"),
        ({"graphs": [GRAPH], "algorithms": [{"name": "greedy", "backend": "gpu"}]}, "only apply"),
        ({"graphs": [GRAPH], "algorithms": [{"name": "*", "params": {"a": 1}}]}, "default par"),
        ({"graphs": [GRAPH], "algorithms": [{"name": "*", "backend": "tpu"}]}, "backend must"),
    ],
)
def test_parse_errors(data, message):
    with pytest.raises(SpecError, match=message):
        parse_suite(data, default_name="t")


def test_empty_suites_are_refused():
    with pytest.raises(SpecError, match="no graphs"):
        expand(suite([{"name": "greedy"}], graphs=()), backend="cpu")
    with pytest.raises(SpecError, match="no algorithms"):
        expand(suite([]), backend="cpu")


def test_block_size_strings():
    assert parse_block_sizes("32, 64,32") == (32, 64)
    assert parse_block_sizes(" sweep") == "sweep"
    with pytest.raises(SpecError, match="not an integer"):
        parse_block_sizes("32,x")
    with pytest.raises(SpecError, match=r"in \[1, 1024\]"):
        parse_block_sizes([2048])


def test_quick_is_offline_and_expands_on_both_backends():
    quick = load_suite("quick")
    assert quick.name == "quick" and quick.description
    assert quick.graphs and all(
        g.spec.startswith("gen:") and g.standin is None for g in quick.graphs
    )
    cpu = expand(quick, backend="cpu")
    assert {c.backend for c in cpu} == {"cpu"} and "greedy" in {c.algorithm for c in cpu}
    assert {c.backend for c in expand(quick, backend="gpu")} >= {"gpu"}
    assert ("quick", quick.description) in list_suites()


def test_load_suite_by_path_and_errors(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(
        'graphs = [{spec = "ss:G/m", standin = "gen:cycle?n=5"}]\nreps = 2\n'
        '[[algorithms]]\nname = "test-distinct"\nparams = { offset = [1, 2] }\n'
    )
    s = load_suite(path)
    assert (s.name, s.reps, s.warmup, s.path) == ("mine", 2, "auto", path)  # warm-up: default
    assert s.sampling == Sampling(reps=2, warmup=None, noise=DEFAULT_NOISE, case_time_s=1.5)
    assert len(expand(s, backend="cpu")) == 2
    with pytest.raises(SpecError, match="known suite.*quick"):
        load_suite("no-such-suite")
    path.write_text("graphs = [")
    with pytest.raises(SpecError, match="cannot read it as TOML"):
        load_suite(path)


def test_command_line_replacements():
    given = RunOptions(graphs=["gen:cycle?n=3"], algorithms=["all", "greedy"], reps=5, warmup=0,
                       timeout=2.5, noise="2%", case_time=4)  # fmt: skip
    s = build_suite(given)
    assert (s.name, s.reps, s.warmup, s.timeout) == ("custom", 5, 0, 2.5)
    assert (s.noise, s.case_time) == (0.02, 4.0)
    assert [a.name for a in s.algorithms] == ["*", "greedy"]
    assert build_suite(RunOptions()).name == "quick"
    assert build_suite(RunOptions(suite="quick", graphs=["gen:cycle?n=3"])).name == "quick"
    assert build_suite(RunOptions(reps="auto", warmup="auto")).sampling == Sampling(
        case_time_s=0.5  # the quick suite's own: a first look
    )
    assert build_suite(RunOptions(graphs=["gen:cycle?n=3"])).sampling == Sampling()
    for wrong, match in (({"reps": 0}, "reps"), ({"noise": "150%"}, "noise"),
                         ({"case_time": 0}, "case-time")):  # fmt: skip
        with pytest.raises(SpecError, match=match):
            build_suite(RunOptions(**wrong))


@pytest.mark.parametrize("name", [name for name, _ in list_suites()])
def test_every_shipped_suite_expands_on_the_gpu(name):
    assert expand(load_suite(name), backend="gpu")


def test_offline_keeps_cached_graphs_runs_standins_and_skips_the_rest():
    s = suite(
        [{"name": "test-distinct"}],
        graphs=[
            GRAPH,
            "ss:G/cached",
            {"spec": "ss:G/s", "standin": "gen:cycle?n=7"},
            {"spec": "ss:G/road", "no_standin": "road network"},
            "snap:plain",
        ],
    )
    asked = []
    kept, notes = offline(
        s, cached=lambda spec, problems: asked.append(problems) or spec == "ss:G/cached"
    )
    assert [g.spec for g in kept.graphs] == [GRAPH, "ss:G/cached", "ss:G/s"]
    assert notes == [
        "offline, not in the cache, run as stand-ins: ss:G/s -> gen:cycle?n=7",
        "offline, not in the cache and without a stand-in, skipped (gcbench fetch caches them): "
        "ss:G/road (road network); snap:plain (no stand-in given)",
    ]
    assert set(asked) == {("d1",)}  # the problems whose input must be in the cache
    with pytest.raises(SpecError, match="no graph can run offline.*ss:G/road"):
        offline(suite([{"name": "greedy"}], graphs=[{"spec": "ss:G/road", "no_standin": "r"}]),
                cached=lambda spec, problems: False)  # fmt: skip


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"spec": "ss:G/m", "standin": "gen:cycle?n=5", "no_standin": "x"}, "not both"),
        ({"spec": "ss:G/m", "no_standin": " "}, "must say why"),
        ({"spec": "ss:G/m", "no_standin": 3}, "must say why"),
    ],
)
def test_no_standin_is_a_reason_and_excludes_a_standin(entry, message):
    with pytest.raises(SpecError, match=message):
        suite([{"name": "greedy"}], graphs=[entry])


@pytest.fixture
def d2_fakes():
    """A fake distance-2 GPU algorithm and a fake d2 spec under a d1 name (as greedy has)."""
    fakes = [
        AlgorithmSpec("t-d2", "gpu", "t", _never, block_size_matters=True,
                      default_block_size=128, problems=("d2", "pd2", "pd2-rows")),
        AlgorithmSpec("t-gpu-fixed", "gpu", "t", _never, default_block_size=64,
                      problems=("d2",), params=(Param("order", "natural", str),)),
    ]  # fmt: skip
    for spec in fakes:
        register(spec)
    yield
    unregister("t-d2")
    unregister("t-gpu-fixed")  # both of its specs, then the module's d1 one again
    register(AlgorithmSpec("t-gpu-fixed", "gpu", "t", _never, default_block_size=128))


def test_problems_are_an_axis_of_the_case_and_its_key(d2_fakes):
    given = suite([{"name": "t-gpu-fixed"}, {"name": "t-d2"}], problems=["d1", "d2"])
    cases = expand(given, backend="gpu")
    seen = [(c.problem, c.algorithm, c.block_size, c.params_text) for c in cases]
    assert seen == [
        ("d1", "t-gpu-fixed", 128, "balance=none;reduce=none"),
        ("d2", "t-gpu-fixed", 64, "order=natural;reduce=none"),  # the d2 spec of that name
        ("d2", "t-d2", 128, "reduce=none"),
    ]
    keys = {c.case_key() for c in cases}
    assert len(keys) == 3 and {k[1] for k in keys} == {"d1", "d2"}
    assert cases[0].key(2) == (GRAPH, "d1", "t-gpu-fixed", "balance=none;reduce=none", "128", "2")


def test_a_graph_may_ask_for_its_own_problems(d2_fakes):
    graphs = [GRAPH, {"spec": "gen:cycle?n=6", "problems": ["pd2"]}]
    cases = expand(suite([{"name": "t-d2"}], graphs=graphs, problems=["d2"]), backend="gpu")
    assert [(c.graph, c.problem) for c in cases] == [(GRAPH, "d2"), ("gen:cycle?n=6", "pd2")]
    # --problem replaces the suite's problems and each graph's own
    options = RunOptions(suite=None, problems="pd2-rows").checked()
    replaced = options.applied_to(suite([{"name": "t-d2"}], graphs=graphs, problems=["d2"]))
    assert [c.problem for c in expand(replaced, backend="gpu")] == ["pd2-rows", "pd2-rows"]


@pytest.mark.parametrize(
    ("entry", "top", "message"),
    [
        ({"name": "t-d2"}, {}, "t-d2 does not solve --problem d1 .*algorithms that do"),
        ({"name": "t-gpu-vendor"}, {"problems": ["pd2"]}, "does not solve --problem pd2"),
        ({"name": "t-d2"}, {"problems": ["d3"]}, "problems d3: choose from d1, d2, pd2"),
        ({"name": "t-d2"}, {"problems": "d2"}, None),  # one name is a one-item list
    ],
)
def test_an_algorithm_that_solves_none_of_the_problems_is_one_line(d2_fakes, entry, top, message):
    if message is None:
        assert expand(suite([entry], **top), backend="gpu")
        return
    with pytest.raises(SpecError, match=message):
        expand(suite([entry], **top), backend="gpu")


def test_a_wildcard_takes_the_algorithms_of_each_problem(d2_fakes):
    cases = expand(suite([{"name": "*"}], problems=["pd2"]), backend="gpu")
    assert {c.algorithm for c in cases} >= {"t-d2"}
    assert all(get(c.algorithm, c.backend, c.problem).colors_patterns for c in cases)


@pytest.mark.parametrize(
    ("order", "problems"), [("ldf", ["d1"]), ("natural", ["d2", "pd2"]), ("ff", ["d1"])]
)
def test_an_entrys_params_apply_to_the_problems_that_take_them(order, problems):
    given = suite([{"name": "greedy", "params": {"order": order}}], problems=["d1", "d2", "pd2"])
    cases = expand(given, backend="cpu")
    assert [c.problem for c in cases] == problems
    with pytest.raises(SpecError, match="order=sdx is not one of"):  # refused by every one
        expand(suite([{"name": "greedy", "params": {"order": "sdx"}}], problems=["d1", "d2"]),
               backend="cpu")  # fmt: skip
