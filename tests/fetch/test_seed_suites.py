"""The seed suites in configs/: their graphs resolve to real download locations, their stand-ins
and gen: graphs are valid specs, and they name the algorithms the papers compare."""

from __future__ import annotations

import pytest

from gcbench import algorithms
from gcbench.bench.suite import load_suite, remote_specs
from gcbench.fetch import is_remote, resolve
from gcbench.sources import canonical_spec

SUITES = {"seed-deveci": 7, "seed-borione": 28, "seed-ecl": 17}


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
    named = {a.name for a in load_suite(name).algorithms}
    known = {s.name for s in algorithms.all_specs()}
    assert named <= known, f"unknown algorithms {sorted(named - known)}"


def test_synthetic_inputs_use_the_generated_families():
    ecl = {g.spec: g.standin for g in load_suite("seed-ecl").graphs}
    assert ecl["ss:DIMACS10/kron_g500-logn21"] == "gen:kron?edgefactor=48&scale=21&seed=0"
    assert ecl["ss:DIMACS10/delaunay_n24"] == "gen:delaunay?scale=24&seed=0"
    assert "gen:grid2d?side=1024" in ecl
    rgg = {g.spec: g.standin for g in load_suite("seed-borione").graphs if "rgg" in g.spec}
    assert rgg == {
        f"ss:DIMACS10/rgg_n_2_{k}_s0": f"gen:rgg?scale={k}&seed=0" for k in range(15, 25)
    }
