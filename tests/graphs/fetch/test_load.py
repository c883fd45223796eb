"""Download → cache → load of a SuiteSparse tarball (as a graph and as a matrix pattern) and a
SNAP edge list from a local server."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gcbench.errors import FetchError
from gcbench.graphs.fetch import is_cached, load_remote, load_remote_pattern
from gcbench.graphs.sources import load_graph


def serve_suitesparse(server, make, group="Test", name="tiny", seed=0):
    matrix = make.random_matrix(60, 400, seed)
    tar = make.tarball([(f"{name}/{name}.mtx", make.mtx_text(matrix))])
    url = server.put(f"MM/{group}/{name}.tar.gz", tar)
    return matrix, url


def assert_same(graph, matrix, make):
    indptr, indices = make.expected_csr(matrix)
    np.testing.assert_array_equal(graph.indptr, indptr)
    np.testing.assert_array_equal(graph.indices, indices)


def test_suitesparse_download_cache_load(server, make, data_dir, leftovers):
    matrix, url = serve_suitesparse(server, make)
    graph = load_graph("ss:Test/tiny")
    assert_same(graph, matrix, make)
    assert graph.name == "ss:Test/tiny"
    assert graph.source == url
    assert graph.normalisation.directed
    # only the cache file remains: no tarball, no extracted .mtx, no temporary directory
    cache = data_dir / "ss" / "Test" / "tiny.npz"
    assert [p for p in leftovers(data_dir) if p.is_file()] == [cache]
    assert not (data_dir / ".tmp").exists()


def test_snap_download_cache_load(server, make, data_dir):
    matrix = make.random_matrix(50, 300, 1)
    url = server.put("snap/wiki-Tiny.txt.gz", make.edge_list_gz(matrix))
    graph = load_remote("snap:wiki-Tiny", data_dir=data_dir, offline=False)
    assert_same(graph, matrix, make)
    assert (graph.name, graph.source) == ("snap:wiki-Tiny", url)
    assert (data_dir / "snap" / "wiki-Tiny.npz").is_file()


def test_snap_community_graph_uses_the_snap_path(server, make, data_dir):
    matrix = make.random_matrix(40, 200, 2)
    url = server.put("snap/bigdata/communities/com-lj.ungraph.txt.gz", make.edge_list_gz(matrix))
    graph = load_remote("snap:com-LiveJournal", data_dir=data_dir, offline=False)
    assert graph.source == url
    assert_same(graph, matrix, make)


def test_cached_graph_needs_no_network(server, make, data_dir):
    matrix, _ = serve_suitesparse(server, make)
    first = load_remote("ss:Test/tiny", data_dir=data_dir, offline=False)
    seen = len(server.requests)
    assert seen == 1
    again = load_remote("ss:Test/tiny", data_dir=data_dir, offline=False)
    offline = load_remote("ss:Test/tiny", data_dir=data_dir, offline=True)
    assert len(server.requests) == seen
    for graph in (again, offline):
        np.testing.assert_array_equal(graph.indices, first.indices)
        assert graph.source == first.source


def test_refresh_downloads_again(server, make, data_dir):
    serve_suitesparse(server, make)
    load_remote("ss:Test/tiny", data_dir=data_dir, offline=False)
    matrix, _ = serve_suitesparse(server, make, seed=5)
    graph = load_remote("ss:Test/tiny", data_dir=data_dir, offline=False, refresh=True)
    assert server.count("/MM/Test/tiny.tar.gz") == 2
    assert_same(graph, matrix, make)


def test_offline_without_cache_makes_no_request(server, data_dir, leftovers):
    with pytest.raises(FetchError, match=r"not in the cache .* offline mode forbids") as info:
        load_remote("ss:Test/tiny", data_dir=data_dir, offline=True)
    assert "gen: spec" in str(info.value) and "\n" not in str(info.value)
    assert server.requests == []
    assert leftovers(data_dir) == []


def test_spec_names_cannot_escape_the_cache(data_dir):
    from gcbench.errors import SpecError

    for spec in ("ss:../etc/passwd", "ss:Group/..", "snap:..", "ss:/abs/x", "ss:a/b/c"):
        with pytest.raises(SpecError):
            load_remote(spec, data_dir=data_dir, offline=False)


def expected_pattern(matrix) -> tuple[np.ndarray, np.ndarray]:
    """The oracle of a matrix read as a pattern: its entries as they are (diagonal kept,
    nothing symmetrised), duplicates once, as sorted CSR."""
    pattern = abs(matrix).tocsr()
    pattern.sum_duplicates()
    pattern.sort_indices()
    return pattern.indptr.astype(np.int64), pattern.indices.astype(np.int32)


def test_suitesparse_pattern_download_cache_load(server, make, data_dir, leftovers):
    matrix = sp.coo_matrix(make.random_matrix(60, 400, 3).toarray()[:40])  # 40 × 60, unsymmetric
    tar = make.tarball([("wide/wide.mtx", make.mtx_text(matrix))])
    url = server.put("MM/Test/wide.tar.gz", tar)
    pattern = load_remote_pattern("ss:Test/wide", data_dir=data_dir, offline=False)
    assert (pattern.name, pattern.source, pattern.n_rows, pattern.n_cols) == (
        "ss:Test/wide", url, 40, 60
    )  # fmt: skip
    indptr, indices = expected_pattern(matrix)
    np.testing.assert_array_equal(pattern.indptr, indptr)
    np.testing.assert_array_equal(pattern.indices, indices)
    cache = data_dir / "ss" / "Test" / "wide.pattern.npz"
    assert [p for p in leftovers(data_dir) if p.is_file()] == [cache]
    assert not (data_dir / ".tmp").exists()
    again = load_remote_pattern("ss:Test/wide", data_dir=data_dir, offline=True)
    assert server.count("/MM/Test/wide.tar.gz") == 1
    assert (again.source, again.indices.tolist()) == (url, pattern.indices.tolist())
    load_remote_pattern("ss:Test/wide", data_dir=data_dir, offline=False, refresh=True)
    assert server.count("/MM/Test/wide.tar.gz") == 2


def test_graph_and_pattern_of_one_matrix_are_cached_apart(server, make, data_dir):
    serve_suitesparse(server, make)
    graph = load_remote("ss:Test/tiny", data_dir=data_dir, offline=False)
    assert not is_cached("ss:Test/tiny", data_dir, pattern=True)
    pattern = load_remote_pattern("ss:Test/tiny", data_dir=data_dir, offline=False)
    assert server.count("/MM/Test/tiny.tar.gz") == 2
    assert is_cached("ss:Test/tiny", data_dir) and is_cached("ss:Test/tiny", data_dir, pattern=True)
    assert pattern.nnz > graph.m  # the diagonal and both directions kept, not symmetrised
    assert load_remote("ss:Test/tiny", data_dir=data_dir, offline=True).m == graph.m


def test_pattern_offline_without_cache_makes_no_request(server, data_dir, leftovers):
    with pytest.raises(FetchError, match=r"not in the cache as a matrix .* forbids") as info:
        load_remote_pattern("ss:Test/tiny", data_dir=data_dir, offline=True)
    assert ".mtx file" in str(info.value) and "\n" not in str(info.value)
    assert server.requests == []
    assert leftovers(data_dir) == []


def test_an_unreadable_matrix_is_one_line_and_leaves_nothing(server, make, data_dir, leftovers):
    server.put("MM/Test/bad.tar.gz", make.tarball([("bad/bad.mtx", b"not a matrix\n")]))
    with pytest.raises(FetchError, match=r"^ss:Test/bad: downloaded .* but cannot read it"):
        load_remote_pattern("ss:Test/bad", data_dir=data_dir, offline=False)
    assert leftovers(data_dir) == []
