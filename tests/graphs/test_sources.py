"""Graph specs: parsing, canonical form, errors, the generated-graph cache, path specs."""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import tarfile
import threading
from pathlib import Path

import numpy as np
import pytest

from gcbench.errors import FetchError, InputError, SpecError
from gcbench.graphs import generators
from gcbench.graphs.fetch import cached_graphs
from gcbench.graphs.formats.edgelist import write_edgelist
from gcbench.graphs.formats.npz import load_cache, save_cache
from gcbench.graphs.graph import Graph, check_invariant
from gcbench.graphs.sources import (
    GraphSpec,
    cache_path,
    canonical_spec,
    data_dir,
    known_chi,
    load_action,
    load_graph,
    load_instance,
    load_pattern,
    offline_ready,
    parse_spec,
)


def test_data_dir_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("GCBENCH_DATA", str(tmp_path / "x"))
    assert data_dir() == tmp_path / "x"
    monkeypatch.delenv("GCBENCH_DATA")
    assert data_dir() == Path.home() / ".cache" / "gcbench"


@pytest.mark.parametrize(
    ("spec", "kind", "name"),
    [
        ("gen:rgg?scale=16", "gen", "rgg"),
        ("ss:DIMACS10/rgg_n_2_20_s0", "ss", "DIMACS10/rgg_n_2_20_s0"),
        ("snap:com-LiveJournal", "snap", "com-LiveJournal"),
        ("graphs/road.mtx.gz", "path", "graphs/road.mtx.gz"),
        ("  snap:roadNet-CA ", "snap", "roadNet-CA"),
        ("dimacs:le450_15c", "dimacs", "le450_15c"),
        ("dimacs:DSJC500.5", "dimacs", "DSJC500.5"),
    ],
)
def test_parse_spec_kinds(spec, kind, name):
    parsed = parse_spec(spec)
    assert (parsed.kind, parsed.name) == (kind, name)


def test_an_existing_file_with_a_colon_is_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("run:1.el").write_text("0 1\n")
    assert parse_spec("run:1.el") == GraphSpec("path", "run:1.el")


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("gen:rgg?scale=16", "gen:rgg?scale=16&seed=0"),
        ("gen:rgg?seed=0&scale=16", "gen:rgg?scale=16&seed=0"),
        ("gen:rgg?scale=016&seed=7", "gen:rgg?scale=16&seed=7"),
        (" gen:rgg? scale = 16 ", "gen:rgg?scale=16&seed=0"),
        ("gen:kron?scale=20&edgefactor=48", "gen:kron?edgefactor=48&scale=20&seed=0"),
        (
            "gen:rmat?scale=4&a=.5&b=0.2&c=1e-1",
            "gen:rmat?a=0.5&b=0.2&c=0.1&edgefactor=16&scale=4&seed=0",
        ),
        ("gen:er?n=100&avg_degree=4", "gen:er?avg_degree=4.0&n=100&seed=0"),
        ("gen:grid2d?side=256", "gen:grid2d?side=256"),
        ("gen:grid2d?cols=3&rows=2", "gen:grid2d?cols=3&rows=2"),
        ("gen:empty?n=0", "gen:empty?n=0"),
        ("ss:DIMACS10/delaunay_n20", "ss:DIMACS10/delaunay_n20"),
        (" dimacs:fpsol2.i.1", "dimacs:fpsol2.i.1"),
        ("data/../data/g.mtx", "data/g.mtx"),
    ],
)
def test_canonical_spec(spec, canonical):
    assert canonical_spec(spec) == canonical
    assert canonical_spec(canonical) == canonical


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty graph spec"),
        ("foo:bar", "unknown spec kind 'foo'"),
        ("gen:hypercube?n=4", "unknown graph family 'hypercube'; known: bipartite, complete"),
        ("gen:rgg?scale=16&radius=2", "unknown parameter 'radius' for rgg; known: scale:int"),
        ("gen:rgg?scale=1.5", "scale=1.5 is not an integer"),
        ("gen:rgg?scale=31", r"scale=31 is outside \[0, 30\]"),
        ("gen:complete?n=-3", "n=-3 is outside"),
        ("gen:rgg", "needs parameter 'scale'"),
        ("gen:rgg?scale", "malformed parameter 'scale'"),
        ("gen:rgg?scale=", "malformed parameter"),
        ("gen:rgg?scale=3&scale=4", "given twice"),
        ("gen:RGG?scale=3", "malformed spec"),
        ("gen:regular?n=7&d=3", "odd"),
        ("ss:rgg_n_2_20_s0", "expected ss:GROUP/NAME"),
        ("ss:a/b/c", "expected ss:GROUP/NAME"),
        ("snap:", "expected snap:NAME"),
        ("dimacs:a/b", "expected dimacs:NAME"),
        ("dimacs:le450_15e", "not a DIMACS coloring instance; did you mean dimacs:le450_15"),
        ("dimacs:Myciel5", "did you mean dimacs:myciel5, "),
    ],
)
def test_bad_specs_are_one_line_spec_errors(spec, message):
    with pytest.raises(SpecError, match=message) as info:
        parse_spec(spec)
    assert "\n" not in str(info.value)
    if spec.strip():
        assert spec.strip() in str(info.value)  # names the spec


def test_load_generated_graph_is_named_by_its_canonical_spec_and_cached(data_dir):
    g = load_graph("gen:grid2d?side=6")
    check_invariant(g)
    assert g.name == g.source == "gen:grid2d?side=6"
    assert (g.n, g.m) == (36, 60)
    path = data_dir / "generated" / "grid2d_side=6.npz"
    assert path == cache_path(parse_spec("gen:grid2d?side=6"), data_dir)
    assert load_cache(path, spec=g.name) is not None


def test_second_load_reads_the_cache(data_dir):
    spec = "gen:rgg?scale=8&seed=1"
    load_graph(spec)
    path = cache_path(parse_spec(spec), data_dir)
    stand_in = generators.cycle(256)  # same spec recorded, different graph: proves a cache read
    save_cache(stand_in, path, spec=spec)
    again = load_graph(spec)
    assert np.array_equal(again.indices, stand_in.indices)
    rebuilt = load_graph(spec, refresh=True)
    assert np.array_equal(rebuilt.indices, generators.rgg(8, seed=1).indices)
    assert np.array_equal(load_cache(path, spec=spec).indices, rebuilt.indices)


@pytest.mark.parametrize("damage", ["garbage", "foreign spec"])
def test_stale_cache_is_rebuilt(data_dir, damage):
    spec = "gen:cycle?n=9"
    path = cache_path(parse_spec(spec), data_dir)
    path.parent.mkdir(parents=True)
    if damage == "garbage":
        path.write_bytes(b"not an npz file")
    else:
        save_cache(generators.star(8), path, spec="gen:star?leaves=8")
    g = load_graph(spec)
    assert (g.n, g.m) == (9, 9)
    assert load_cache(path, spec=spec) is not None  # the file was rewritten


def test_explicit_data_dir_wins_over_the_environment(data_dir, tmp_path):
    other = tmp_path / "elsewhere"
    load_graph("gen:star?leaves=3", data_dir=other)
    assert (other / "generated" / "star_leaves=3.npz").exists()
    assert not data_dir.exists()


def test_path_spec_reads_the_file(tmp_path):
    path = tmp_path / "cycle.el"
    write_edgelist(generators.cycle(7), path)
    g = load_graph(str(path))
    assert g.name == str(path)
    assert (g.n, g.m) == (7, 7)


def test_remote_specs_go_to_fetch(data_dir):
    with pytest.raises(FetchError):
        load_graph("snap:com-Nowhere", offline=True)


@pytest.mark.parametrize(
    "spec",
    [
        "\x1b[2J:foo",
        "gen:rgg?scale=\x1b[31m1",
        "gen:rgg?scale=5&\x07=1",
        "ss:\xff/" + "x" * 300,
        "dimacs:" + "x" * 300,
    ],
)
def test_spec_errors_escape_junk(spec):
    with pytest.raises(SpecError) as info:
        parse_spec(spec)
    message = str(info.value)
    assert message.isascii() and message.isprintable() and len(message) < 300, message


@pytest.mark.parametrize(
    ("spec", "chi"),
    [
        ("dimacs:le450_15c", 15),
        ("dimacs:queen13_13", 13),
        ("dimacs:myciel7", 8),
        ("dimacs:flat1000_76_0", 76),
        ("dimacs:DSJC500.5", None),  # the page says "?"
        ("dimacs:queen10_10", None),
        ("dimacs:nowhere", None),
        ("gen:mycielski?k=4", 4),  # the family's construction (tests/graphs/test_known_chi.py)
        ("gen:er?n=10&p=0.5&seed=0", None),
        ("ss:DIMACS10/rgg_n_2_20_s0", None),
        ("snap:com-LiveJournal", None),
        ("graphs/le450_15c.col", None),
    ],
)
def test_known_chi_is_the_published_value(spec, chi):
    assert known_chi(spec) == chi


# --- matrix patterns and problem instances (issue 36) -----------------------------------------

MTX = "%%MatrixMarket matrix coordinate real general\n3 5 5\n1 1 2\n1 5 1\n2 3 -1\n3 3 4\n1 5 9\n"


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("gen:stencil?side=64&points=5", "gen:stencil?dim=2&points=5&rows=all&side=64"),
        (
            "gen:stencil?rows=interior&points=27&dim=3&side=10",
            "gen:stencil?dim=3&points=27&rows=interior&side=10",
        ),
        (
            "gen:skewed?rows=100&cols=50&mean=4",
            "gen:skewed?cols=50&exponent=2.5&mean=4.0&rows=100&seed=0",
        ),
    ],
)
def test_matrix_families_canonicalise_like_graph_families(spec, canonical):
    assert canonical_spec(spec) == canonical
    assert canonical_spec(canonical) == canonical
    assert parse_spec(spec).is_matrix and not parse_spec("gen:cycle?n=4").is_matrix
    assert known_chi(canonical) is None


def test_unknown_family_lists_the_matrix_families_too():
    with pytest.raises(SpecError, match="known: bipartite, .*; matrix families: skewed, stencil"):
        parse_spec("gen:hypercube?n=4")
    with pytest.raises(SpecError, match="gen:stencil.*rows=edge: choose all or interior"):
        parse_spec("gen:stencil?side=4&points=5&rows=edge")


@pytest.mark.parametrize("problem", ["d1", "d2"])
def test_a_matrix_family_is_no_graph(data_dir, problem):
    with pytest.raises(SpecError) as info:
        load_instance("gen:stencil?side=4&points=5", problem)
    assert (
        str(info.value) == "gen:stencil is a matrix family: color it with --problem pd2 or pd2-rows"
    )
    with pytest.raises(SpecError, match="gen:skewed is a matrix family"):
        load_graph("gen:skewed?rows=4&cols=4&mean=2")
    assert not data_dir.exists()  # nothing generated, nothing cached


def test_load_pattern_of_a_matrix_family_is_generated_and_not_cached(data_dir):
    pattern = load_pattern("gen:stencil?side=5&points=9&rows=interior")
    assert pattern.name == "gen:stencil?dim=2&points=9&rows=interior&side=5"
    assert (pattern.n_rows, pattern.n_cols, pattern.max_row) == (9, 25, 9)
    assert load_action(pattern.name, problem="pd2") == "generating"
    assert not data_dir.exists()


@pytest.mark.parametrize("name", ["j.mtx", "j.MTX.gz"])
def test_load_pattern_reads_a_matrix_file_as_it_is(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(gzip.compress(MTX.encode()) if name.endswith("gz") else MTX.encode())
    pattern = load_pattern(str(path))
    assert (pattern.name, pattern.source) == (str(path), str(path))
    assert (pattern.n_rows, pattern.n_cols) == (3, 5)
    assert pattern.indptr.tolist() == [0, 2, 3, 4]
    assert pattern.indices.tolist() == [0, 4, 2, 2]


def test_load_pattern_of_a_missing_matrix_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_pattern(str(tmp_path / "none.mtx"))


def test_load_pattern_of_a_graph_is_its_adjacency_matrix(data_dir, tmp_path):
    pattern = load_pattern("gen:cycle?n=5")
    assert pattern.symmetric and pattern.name == "gen:cycle?n=5"
    assert pattern.indices[:2].tolist() == [1, 4]  # no diagonal
    path = tmp_path / "c.el"
    write_edgelist(generators.cycle(6), path)
    assert load_pattern(str(path)).nnz == 12


def test_load_instance_per_problem(data_dir, tmp_path):
    graph = load_instance("gen:grid2d?rows=2&cols=3", "d1")
    assert isinstance(graph, Graph) and graph.m == 7
    d2 = load_instance("gen:grid2d?cols=3&rows=2", "d2")
    assert d2.name == "gen:grid2d?cols=3&rows=2" and d2.nnz == graph.nnz + graph.n
    assert d2.indices[: d2.indptr[1]].tolist() == [0, 1, 3]  # N[0], the diagonal included
    path = tmp_path / "j.mtx"
    path.write_text(MTX)
    pd2 = load_instance(str(path), "pd2")
    rows = load_instance(str(path), "pd2-rows")
    assert (pd2.n_rows, pd2.n_cols, rows.n_rows, rows.n_cols) == (3, 5, 5, 3)
    assert rows.name == pd2.name == str(path)
    assert rows.indices.tolist() == [0, 1, 2, 0]  # columns 0, 2 (twice) and 4 of the matrix
    assert load_instance("gen:cycle?n=4", "pd2").nnz == 8  # a graph's A
    with pytest.raises(SpecError, match="problem d3: choose from d1, d2, pd2, pd2-rows"):
        load_instance("gen:cycle?n=4", "d3")


class _Files(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep pytest output clean
        pass


@pytest.fixture
def suitesparse(tmp_path, monkeypatch):
    """A local SuiteSparse: serves ``MM/Test/tiny.tar.gz`` holding ``tiny/tiny.mtx`` (MTX)."""
    root = tmp_path / "www"
    (root / "MM" / "Test").mkdir(parents=True)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("tiny/tiny.mtx")
        info.size = len(MTX)
        tar.addfile(info, io.BytesIO(MTX.encode()))
    (root / "MM" / "Test" / "tiny.tar.gz").write_bytes(buffer.getvalue())
    handler = functools.partial(_Files, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setenv("GCBENCH_SUITESPARSE_URL", url)
    try:
        yield url
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_suitesparse_matrix_as_a_pattern_is_downloaded_once(data_dir, suitesparse, monkeypatch):
    assert load_action("ss:Test/tiny", problem="pd2") == "fetching"
    pattern = load_pattern("ss:Test/tiny")
    assert (pattern.name, pattern.source) == ("ss:Test/tiny", f"{suitesparse}/MM/Test/tiny.tar.gz")
    assert (pattern.n_rows, pattern.n_cols, pattern.indices.tolist()) == (3, 5, [0, 4, 2, 2])
    cache = data_dir / "ss" / "Test" / "tiny.pattern.npz"
    assert [p for p in data_dir.rglob("*") if p.is_file()] == [cache]  # no download left
    assert load_action("ss:Test/tiny", problem="pd2-rows") == "loading"
    [listed] = cached_graphs(data_dir)  # listed, as a pattern
    assert (listed.label, listed.kind, listed.path) == ("ss:Test/tiny (pattern)", "pattern", cache)
    assert (listed.n, listed.m, listed.nnz, listed.stale) == (3, 4, 4, False)
    monkeypatch.setenv("GCBENCH_SUITESPARSE_URL", "http://127.0.0.1:9")  # nobody there
    again = load_instance("ss:Test/tiny", "pd2-rows", offline=True)
    assert (again.n_rows, again.n_cols, again.source) == (5, 3, pattern.source)
    with pytest.raises(FetchError, match="ss:Test/tiny: cannot reach 127.0.0.1:9"):
        load_pattern("ss:Test/tiny", refresh=True)
    assert cache.is_file()


def test_suitesparse_pattern_offline_without_cache(data_dir):
    with pytest.raises(FetchError, match="ss:Test/none is not in the cache as a matrix"):
        load_pattern("ss:Test/none", offline=True)


def test_a_damaged_pattern_cache_is_fetched_again(data_dir, suitesparse):
    cache = data_dir / "ss" / "Test" / "tiny.pattern.npz"
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"not an npz")
    assert load_pattern("ss:Test/tiny").nnz == 4
    assert load_pattern("ss:Test/tiny", offline=True).nnz == 4


def test_offline_ready_asks_for_what_each_problem_loads(data_dir, suitesparse, monkeypatch):
    assert offline_ready("gen:cycle?n=5", ("d1", "pd2")) and offline_ready("x.mtx", ("pd2",))
    assert not offline_ready("ss:Test/tiny", ("pd2",))
    load_pattern("ss:Test/tiny")  # the pattern only
    assert offline_ready("ss:Test/tiny", ("pd2", "pd2-rows"))
    assert not offline_ready("ss:Test/tiny") and not offline_ready("ss:Test/tiny", ("d1", "pd2"))
    assert not offline_ready("ss:Test/tiny", ("d2",))  # d2 colors A + I of the graph
    monkeypatch.setenv("GCBENCH_SUITESPARSE_URL", "http://127.0.0.1:9")  # nobody there
    assert load_instance("ss:Test/tiny", "pd2", offline=True).nnz == 4
    save_cache(load_graph("gen:cycle?n=5"), data_dir / "snap" / "web.npz", spec="snap:web")
    assert offline_ready("snap:web", ("d1", "d2", "pd2"))  # a graph's pattern: its adjacency
    assert load_action("snap:web", problem="pd2") == "loading"
