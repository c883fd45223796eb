"""The seed suites and classic-coloring in configs/: their graphs resolve to real download
locations, their stand-ins and gen: graphs are valid specs, and they name registered
algorithms (the papers' for the seed suites)."""

from __future__ import annotations

import pytest

from gcbench import algorithms
from gcbench.bench import runner
from gcbench.bench.suite import WILDCARD, load_suite, remote_specs
from gcbench.graphs import generators
from gcbench.graphs.fetch import is_remote, resolve
from gcbench.graphs.fetch.dimacs_instances import INSTANCES
from gcbench.graphs.sources import canonical_spec, parse_spec

SUITES = {"seed-deveci": 7, "seed-borione": 28, "seed-ecl": 17, "classic-coloring": 68}


@pytest.mark.parametrize("name", SUITES)
def test_graphs_resolve_and_standins_are_valid(name, tmp_path):
    suite = load_suite(name)
    assert len(suite.graphs) == SUITES[name]
    specs = [g.spec for g in suite.graphs]
    assert len(set(specs)) == len(specs)
    for entry in suite.graphs:
        assert canonical_spec(entry.spec) == entry.spec  # the CSV shows what the file says
        if is_remote(entry.spec):
            target = resolve(entry.spec, tmp_path)
            assert target.url.startswith("https://") and target.cache.is_relative_to(tmp_path)
        if entry.standin is not None:
            assert is_remote(entry.spec) and entry.standin.startswith("gen:")
            assert canonical_spec(entry.standin) == entry.standin
    assert remote_specs(name) == [s for s in specs if is_remote(s)]


@pytest.mark.parametrize("name", SUITES)
def test_algorithms_are_registered(name):
    named = {a.name for a in load_suite(name).algorithms} - {WILDCARD}
    known = {s.name for s in algorithms.all_specs()}
    assert named <= known, f"unknown algorithms {sorted(named - known)}"


def test_synthetic_inputs_use_the_generated_families():
    ecl = {g.spec: g.standin for g in load_suite("seed-ecl").graphs}
    assert ecl["ss:DIMACS10/kron_g500-logn21"] == "gen:kron?edgefactor=48&scale=21&seed=0"
    assert ecl["ss:DIMACS10/delaunay_n24"] == "gen:delaunay?scale=21&seed=0"  # smaller: 24 s
    assert "gen:grid2d?side=1024" in ecl
    rgg = {g.spec: g.standin for g in load_suite("seed-borione").graphs if "rgg" in g.spec}
    assert rgg == {
        f"ss:DIMACS10/rgg_n_2_{k}_s0": f"gen:rgg?scale={k}&seed=0" for k in range(15, 25)
    }


def test_classic_coloring_is_every_instance_with_a_published_chi_and_dsjc():
    suite = load_suite("classic-coloring")
    wanted = [i.spec for i in INSTANCES.values() if i.chi is not None or i.name.startswith("DSJC")]
    assert sorted(g.spec for g in suite.graphs) == sorted(wanted)
    assert [(a.name, a.backend) for a in suite.algorithms] == [("*", None)]
    for entry in suite.graphs:
        if entry.standin is None:
            continue
        instance = INSTANCES[entry.spec.removeprefix("dimacs:")]
        standin = parse_spec(entry.standin)
        graph = generators.get_family(standin.name).generate(standin.params)
        assert graph.n == instance.n, entry.spec
        if standin.name != "er":  # queens and Mycielski graphs are the instances themselves
            assert instance.m in (graph.m, 2 * graph.m), entry.spec


@pytest.mark.parametrize("name", SUITES)
def test_every_remote_graph_has_a_standin_or_says_why_not(name):
    for entry in load_suite(name).graphs:
        if is_remote(entry.spec):
            assert (entry.standin is None) != (entry.no_standin is None), entry.spec
        else:
            assert entry.standin is None and entry.no_standin is None, entry.spec


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
@pytest.mark.parametrize("name", SUITES)
def test_offline_runs_expand_with_no_missing_standin(name, backend, data_dir):
    """``gcbench run --suite NAME --offline`` with nothing cached: every graph either runs (a
    gen: spec, or a remote one as its stand-in) or is skipped up front with its reason, so no
    case can become an error row for want of a stand-in (the cases are not run)."""
    suite = load_suite(name)
    plan = runner.plan(suite=name, offline=True, choice=runner.DeviceChoice(backend, "test"))
    running = {(c.graph, c.standin) for c in plan.cases}
    for entry in suite.graphs:
        if entry.no_standin is None:
            assert (entry.spec, entry.standin) in running, entry.spec
        else:
            assert not any(graph == entry.spec for graph, _ in running), entry.spec
    assert all(standin is not None for graph, standin in running if is_remote(graph))
    skipped = [e for e in suite.graphs if e.no_standin is not None]
    offline = [n for n in plan.notes if n.startswith("offline")]
    if skipped:
        assert all(f"{e.spec} ({e.no_standin})" in offline[-1] for e in skipped)
    assert "no stand-in given" not in " ".join(plan.notes)
    # A GPU run also runs the CPU algorithms a suite names (the seed suites' greedy reference);
    # "*" means the run's device only.
    named = {
        algorithms.get(a.name, backend).backend for a in suite.algorithms if a.name != WILDCARD
    }
    assert {c.backend for c in plan.cases} == {backend} | (named & {"cpu"})
