"""``fetch_all`` (gcbench fetch as a library call), the ssstats.csv catalogue, and the listing."""

from __future__ import annotations

import sys

import pytest

from gcbench.errors import FetchError
from gcbench.graphs.fetch import cached_graphs, catalogue, fetch_all


@pytest.fixture
def collection(server, make):
    """A SuiteSparse-layout mirror with two matrices and its ssstats.csv."""
    server.put(
        "files/ssstats.csv",
        make.ssstats([("Test", "tiny", 60, 60, 400), ("Other", "Tiny", 5, 5, 9)]),
    )
    matrix = make.random_matrix(60, 400, 0)
    server.put("MM/Test/tiny.tar.gz", make.tarball([("tiny/tiny.mtx", make.mtx_text(matrix))]))
    return matrix


def test_parse_ssstats_reads_rows_after_the_two_header_lines(make):
    text = make.ssstats(
        [("HB", "ash85", 85, 85, 523), ("DIMACS10", "rgg_n_2_20_s0", 1 << 20, 1 << 20, 13_783_240)]
    )
    entries = catalogue.parse_ssstats(text.splitlines())
    assert [(m.spec, m.rows, m.nnz, m.kind) for m in entries] == [
        ("ss:HB/ash85", 85, 523, "undirected graph"),
        ("ss:DIMACS10/rgg_n_2_20_s0", 1 << 20, 13_783_240, "undirected graph"),
    ]


def test_lookup_is_exact_with_case_insensitive_suggestions(collection, data_dir):
    exact, similar = catalogue.lookup("Test", "tiny", data_dir=data_dir)
    assert exact.spec == "ss:Test/tiny" and [m.spec for m in similar] == ["ss:Other/Tiny"]
    exact, similar = catalogue.lookup("Test", "tin", data_dir=data_dir)  # no substring matches
    assert exact is None and similar == []
    assert (data_dir / "ss" / "ssstats.csv").is_file()
    assert "ssgetpy" not in sys.modules  # a mirror is configured: ssgetpy is never imported


def test_catalogue_that_is_not_one_is_refused(server, data_dir):
    server.put("files/ssstats.csv", "<html>maintenance</html>\n")
    with pytest.raises(FetchError, match="not a SuiteSparse catalogue"):
        catalogue.lookup("Test", "tiny", data_dir=data_dir)
    assert not (data_dir / "ss" / "ssstats.csv").exists()


def test_fetch_all_reports_each_spec_and_carries_on(collection, server, make, data_dir):
    seen = []
    results = fetch_all(
        ["ss:Test/tiny", "ss:Test/Tiny", "snap:absent", "gen:cycle?n=5", "ss:Test/tiny"],
        data_dir=data_dir,
        progress=False,
        on_result=seen.append,
    )
    assert seen == results
    status = {r.spec: (r.status, r.error) for r in results}
    assert len(results) == 4  # the duplicate is fetched once
    assert status["ss:Test/tiny"][0] == "downloaded"
    assert status["ss:Test/Tiny"] == (
        "failed",
        "ss:Test/Tiny is not in the SuiteSparse catalogue; did you mean ss:Test/tiny, "
        "ss:Other/Tiny?",
    )
    assert status["snap:absent"][0] == "failed" and "HTTP 404" in status["snap:absent"][1]
    assert (
        status["gen:cycle?n=5"][0] == "failed"
        and "not an ss:, snap: or dimacs: spec" in status["gen:cycle?n=5"][1]
    )
    tiny = results[0]
    expected_m = make.expected_csr(collection)[1].size // 2
    assert (tiny.n, tiny.m, tiny.url) == (60, expected_m, f"{server.url}/MM/Test/tiny.tar.gz")
    assert server.count("/MM/Test/Tiny.tar.gz") == 0  # refused before any download

    again = fetch_all(["ss:Test/tiny"], data_dir=data_dir)
    assert again[0].status == "cached" and again[0].url == tiny.url
    assert server.count("/MM/Test/tiny.tar.gz") == 1
    forced = fetch_all(["ss:Test/tiny"], data_dir=data_dir, force=True, progress=False)
    assert forced[0].status == "downloaded"
    assert server.count("/MM/Test/tiny.tar.gz") == 2


def test_fetch_without_a_catalogue_lets_the_download_decide(server, make, data_dir):
    server.put(
        "MM/Test/tiny.tar.gz",
        make.tarball([("tiny/tiny.mtx", make.mtx_text(make.random_matrix(9, 20, 1)))]),
    )
    (result,) = fetch_all(["ss:Test/tiny"], data_dir=data_dir, progress=False)
    assert result.status == "downloaded"
    assert server.count("/files/ssstats.csv") == 1


def test_cached_graphs_lists_spec_size_and_source(collection, server, make, data_dir):
    server.put("snap/wiki-Tiny.txt.gz", make.edge_list_gz(make.random_matrix(30, 90, 2)))
    fetch_all(["ss:Test/tiny", "snap:wiki-Tiny"], data_dir=data_dir, progress=False)
    (data_dir / "stray.npz").write_bytes(b"not a cache")
    listed = cached_graphs(data_dir)
    assert [(g.spec, g.source, g.stale) for g in listed] == [
        ("snap:wiki-Tiny", f"{server.url}/snap/wiki-Tiny.txt.gz", False),
        ("ss:Test/tiny", f"{server.url}/MM/Test/tiny.tar.gz", False),
    ]
    from gcbench.graphs.formats import load_cache

    for g in listed:
        graph = load_cache(g.path, spec=g.spec)
        assert (g.n, g.m, g.bytes) == (graph.n, graph.m, g.path.stat().st_size)
    assert cached_graphs(data_dir / "nowhere") == []
