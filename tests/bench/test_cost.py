"""Cost estimates without loading graphs (what --gpus/--cluster order by and --shard balances)."""

from __future__ import annotations

import pytest

from gcbench.bench.cost import UNKNOWN_NNZ, estimate_nnz, largest_first
from gcbench.bench.graphrun import GraphWork
from gcbench.bench.worker import LoadJob
from gcbench.graphs.fetch import resolve
from gcbench.graphs.formats.npz import save_cache, save_pattern_cache
from gcbench.graphs.sources import canonical_spec, load_graph, load_pattern

EXACT = [
    "gen:grid2d?side=9", "gen:grid2d?rows=3&cols=7", "gen:complete?n=9", "gen:cycle?n=11",
    "gen:bipartite?a=3&b=5", "gen:crown?n=6", "gen:mycielski?k=5", "gen:queen?n=8",
    "gen:rook?n=6", "gen:star?leaves=40", "gen:empty?n=4", "gen:regular?n=100&d=4",
]  # fmt: skip
EXPECTED = ["gen:rgg?scale=13", "gen:delaunay?scale=12", "gen:er?n=400&p=0.05"]


@pytest.mark.parametrize("spec", EXACT)
def test_exact_families_are_estimated_exactly(spec, tmp_path):
    spec = canonical_spec(spec)
    assert estimate_nnz(spec) == 2 * load_graph(spec, data_dir=tmp_path).m


@pytest.mark.parametrize("spec", EXPECTED)
def test_random_families_are_estimated_within_ten_percent(spec, tmp_path):
    spec = canonical_spec(spec)
    real = 2 * load_graph(spec, data_dir=tmp_path).m
    assert abs(estimate_nnz(spec) / real - 1) < 0.1


def test_kron_is_estimated_before_duplicates_are_dropped(tmp_path):
    spec = canonical_spec("gen:kron?scale=10&edgefactor=8")
    assert estimate_nnz(spec) == 2 * 8 * 1024 >= 2 * load_graph(spec, data_dir=tmp_path).m


def test_remote_graphs_use_the_cache_header_unless_told_not_to(tmp_path, monkeypatch):
    monkeypatch.setenv("GCBENCH_DATA", str(tmp_path))
    spec, standin = "ss:Group/cached", canonical_spec("gen:cycle?n=50")
    assert estimate_nnz(spec) == UNKNOWN_NNZ
    assert estimate_nnz(spec, standin) == 100
    save_cache(load_graph("gen:grid2d?side=10", data_dir=tmp_path), resolve(spec, tmp_path).cache,
               spec=spec)  # fmt: skip
    assert estimate_nnz(spec, standin) == 360  # the 10 x 10 grid's 180 edges
    assert estimate_nnz(spec, standin, use_cache=False) == 100  # shards: the same everywhere


def test_paths_use_the_npz_header_or_the_file_size(tmp_path):
    npz = tmp_path / "g.npz"
    save_cache(load_graph("gen:cycle?n=30", data_dir=tmp_path), npz, spec=str(npz))
    assert estimate_nnz(str(npz)) == 60
    text = tmp_path / "g.txt"
    text.write_text("0 1\n" * 100)
    assert estimate_nnz(str(text)) == 400 / 8


def test_largest_first_orders_by_nnz_times_cases_and_keeps_ties_in_order():
    def work(spec: str, cases: int) -> GraphWork:
        return GraphWork(LoadJob(canonical_spec(spec), None, False), ((None, (0,)),) * cases)

    small, big = work("gen:cycle?n=10", 1), work("gen:cycle?n=100", 1)
    tie = work("gen:star?leaves=10", 1)  # 20 entries, as small
    many = work("gen:cycle?n=10", 20)  # 20 cases of 20 entries outweigh 1 case of 200
    assert largest_first([small, big, tie, many]) == [many, big, small, tie]


STENCILS = [
    "gen:stencil?side=7&points=5", "gen:stencil?side=6&points=9",
    "gen:stencil?dim=3&side=5&points=7", "gen:stencil?dim=3&side=4&points=27",
    "gen:stencil?side=1&points=9",
    "gen:stencil?side=6&points=9&rows=interior", "gen:stencil?dim=3&side=5&points=7&rows=interior",
    "gen:stencil?side=2&points=5&rows=interior",
    "gen:uniform?rows=300&cols=40&length=6", "gen:uniform?rows=300&cols=900&dense=2&width=700",
]  # fmt: skip


@pytest.mark.parametrize("spec", STENCILS)
def test_stencil_and_uniform_matrices_are_estimated_exactly(spec):
    spec = canonical_spec(spec)
    assert estimate_nnz(spec) == load_pattern(spec).nnz


@pytest.mark.parametrize(
    "spec", ["gen:skewed?rows=2000&cols=500&mean=6", "gen:skewed?rows=300&cols=40&mean=25.5&seed=3"]
)
def test_skewed_matrices_are_estimated_within_one_percent(spec):
    spec = canonical_spec(spec)
    assert abs(estimate_nnz(spec) / load_pattern(spec).nnz - 1) < 0.01


def test_a_remote_matrix_uses_its_cached_pattern_when_its_graph_is_not(tmp_path, monkeypatch):
    monkeypatch.setenv("GCBENCH_DATA", str(tmp_path))
    spec, remote = "ss:Group/matrix", resolve("ss:Group/matrix", tmp_path)
    pattern = load_pattern("gen:stencil?side=4&points=5")  # 64 nonzeros
    save_pattern_cache(pattern, remote.pattern_cache, spec=spec)
    assert estimate_nnz(spec) == 64
    assert estimate_nnz(spec, use_cache=False) == UNKNOWN_NNZ
    save_cache(load_graph("gen:cycle?n=50", data_dir=tmp_path), remote.cache, spec=spec)
    assert estimate_nnz(spec) == 100  # the graph's header first
