"""``dimacs:NAME``: the DIMACS coloring instances from a local server, an ASCII ``.col`` and a
binary ``.col.b`` one, cached, loaded offline, listed; unknown names refused before any request."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from gcbench.cli import main
from gcbench.errors import FetchError, SpecError
from gcbench.graphs import generators
from gcbench.graphs.fetch import fetch_all, is_remote, load_remote, resolve
from gcbench.graphs.fetch.dimacs_instances import INSTANCES, PAGE
from gcbench.graphs.formats import write_dimacs, write_dimacs_binary
from gcbench.graphs.sources import load_graph


def serve_ascii(server, tmp_path, name="myciel3", graph=None):
    """Serve ``graph`` (default the Grötzsch graph, which myciel3 is) as ``<name>.col``."""
    graph = graph or generators.mycielski(4)
    path = tmp_path / f"{name}.col"
    write_dimacs(graph, path)
    return graph, server.put(f"dimacs/{name}.col", path.read_bytes())


def serve_binary(server, tmp_path, name="DSJC125.1", graph=None):
    """Serve ``graph`` (default K_{3,4}) as ``<name>.col.b`` with its p line counting each edge
    twice, as the published DSJ files do."""
    graph = graph or generators.bipartite(3, 4)
    path = tmp_path / f"{name}.col.b"
    write_dimacs_binary(graph, path)
    length, _, rest = path.read_bytes().partition(b"\n")
    preamble, bitmap = rest[: int(length)], rest[int(length) :]
    counted = b"p edge %d %d\n" % (graph.n, graph.m)
    assert preamble.endswith(counted)
    preamble = preamble.replace(counted, b"p edge %d %d\n" % (graph.n, 2 * graph.m))
    data = b"%d\n" % len(preamble) + preamble + bitmap
    return graph, server.put(f"dimacs/{name}.col.b", data)


def assert_same(got, want):
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)


def test_locations_and_the_default_site(monkeypatch, tmp_path):
    monkeypatch.delenv("GCBENCH_DIMACS_URL", raising=False)
    ascii_, binary = resolve("dimacs:le450_15c", tmp_path), resolve("dimacs:DSJC500.5", tmp_path)
    assert ascii_.url == "https://mat.tepper.cmu.edu/COLOR/instances/le450_15c.col"
    assert binary.url == "https://mat.tepper.cmu.edu/COLOR/instances/DSJC500.5.col.b"
    assert ascii_.cache == tmp_path / "dimacs" / "le450_15c.npz"
    assert (ascii_.collection, is_remote("dimacs:le450_15c")) == ("DIMACS", True)
    monkeypatch.setenv("GCBENCH_DIMACS_URL", "http://mirror.example/col/")
    assert resolve("dimacs:fpsol2.i.1", tmp_path).url == "http://mirror.example/col/fpsol2.i.1.col"


def test_ascii_instance_download_cache_load(server, tmp_path, data_dir, leftovers):
    graph, url = serve_ascii(server, tmp_path)
    got = load_graph("dimacs:myciel3")
    assert_same(got, graph)
    assert (got.name, got.source, got.n, got.m) == ("dimacs:myciel3", url, 11, 20)
    cache = data_dir / "dimacs" / "myciel3.npz"
    assert [p for p in leftovers(data_dir) if p.is_file()] == [cache]


def test_binary_instance_then_offline_with_no_request(server, tmp_path, data_dir):
    graph, url = serve_binary(server, tmp_path)
    first = load_remote("dimacs:DSJC125.1", data_dir=data_dir, offline=False)
    assert_same(first, graph)
    assert (first.source, first.m) == (url, 12)  # the p line's 24 counted each edge twice
    seen = list(server.requests)
    assert seen == [("/dimacs/DSJC125.1.col.b", None)]
    again = load_graph("dimacs:DSJC125.1", offline=True)
    assert_same(again, graph)
    assert server.requests == seen


def test_refresh_downloads_again(server, tmp_path, data_dir):
    serve_ascii(server, tmp_path)
    load_graph("dimacs:myciel3")
    k4, _ = serve_ascii(server, tmp_path, graph=generators.complete(4))
    assert_same(load_graph("dimacs:myciel3", refresh=True), k4)
    assert server.count("/dimacs/myciel3.col") == 2


def test_offline_without_cache_makes_no_request(server, data_dir, leftovers):
    with pytest.raises(FetchError, match=r"dimacs:myciel3 is not in the cache .* offline mode"):
        load_graph("dimacs:myciel3", offline=True)
    assert server.requests == [] and leftovers(data_dir) == []


def test_unknown_names_name_the_closest_before_any_request(server, data_dir):
    with pytest.raises(SpecError) as info:
        load_graph("dimacs:queen13_31")
    assert str(info.value).startswith(
        "dimacs:queen13_31 is not a DIMACS coloring instance; did you mean dimacs:queen13_13"
    )
    with pytest.raises(SpecError, match=r"did you mean dimacs:DSJC500\.5"):
        load_remote("dimacs:dsjc500.5", data_dir=data_dir, offline=False)
    with pytest.raises(SpecError, match=f"instances are listed at {PAGE}"):
        load_graph("dimacs:xyzzy")
    [failed] = fetch_all(["dimacs:le450_15x"], data_dir=data_dir, progress=False)
    assert failed.status == "failed" and "did you mean dimacs:le450_15" in failed.error
    assert server.requests == []


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (404, None, r"dimacs:myciel3: .*404"),
        (200, "<html><body>moved</body></html>", r"dimacs:myciel3: .* an HTML page"),
        (200, "c not a graph\n", r"dimacs:myciel3: downloaded .* cannot read it: .*no 'p edge"),
    ],
)
def test_a_bad_download_is_one_line_and_leaves_nothing(
    server, data_dir, leftovers, status, body, message
):
    if body is None:
        server.status["/dimacs/myciel3.col"] = status
    else:
        server.put("dimacs/myciel3.col", body)
    with pytest.raises(FetchError, match=message) as info:
        load_graph("dimacs:myciel3")
    assert "\n" not in str(info.value)
    assert [p for p in leftovers(data_dir) if p.is_file()] == []


def test_fetch_list_and_cache_commands(server, tmp_path, data_dir):
    serve_ascii(server, tmp_path)
    serve_binary(server, tmp_path, name="flat300_20_0")
    suite = tmp_path / "mine.toml"
    suite.write_text(
        'name = "mine"\n'
        'graphs = [{ spec = "dimacs:myciel3", standin = "gen:mycielski?k=4" }, '
        '"dimacs:flat300_20_0", "gen:cycle?n=5"]\n'
        '[[algorithms]]\nname = "greedy"\n'
    )
    runner = CliRunner()
    done = runner.invoke(main, ["fetch", "--suite", str(suite)])
    assert done.exit_code == 0, done.output
    assert [line.split()[:2] for line in done.stdout.splitlines()] == [
        ["downloaded", "dimacs:myciel3"],
        ["downloaded", "dimacs:flat300_20_0"],
    ]
    again = runner.invoke(main, ["fetch", "dimacs:myciel3"])
    assert again.exit_code == 0 and again.stdout.startswith("cached     dimacs:myciel3  n=11 m=20")

    listed = runner.invoke(main, ["list", "graphs"]).stdout.splitlines()[1:]
    assert [row.split()[:3] for row in listed] == [
        ["dimacs:flat300_20_0", "7", "12"],
        ["dimacs:myciel3", "11", "20"],
    ]
    assert listed[1].endswith(f"{server.url}/dimacs/myciel3.col")
    cached = runner.invoke(main, ["cache", "dimacs:myciel3"]).stdout.splitlines()
    assert cached[1].startswith("dimacs:myciel3 ")

    wrong = runner.invoke(main, ["fetch", "dimacs:qeen5_5"])
    assert wrong.exit_code == 1 and wrong.stdout == ""
    assert wrong.stderr.splitlines() == [
        "error: dimacs:qeen5_5 is not a DIMACS coloring instance; did you mean "
        "dimacs:queen5_5, dimacs:queen15_15, dimacs:queen9_9?",
        "1 of 1 graphs could not be fetched",
    ]
    assert len(server.requests) == 2


def test_the_catalogue_is_the_pages_list(tmp_path):
    assert len(INSTANCES) == 79
    binary = [i.name for i in INSTANCES.values() if i.binary]
    assert len(binary) == 21 and all(n.startswith(("DSJ", "flat")) for n in binary)
    assert sum(i.chi is not None for i in INSTANCES.values()) == 56
    dsjc = INSTANCES["DSJC125.1"]
    assert (dsjc.file, dsjc.n, dsjc.m, dsjc.chi) == ("DSJC125.1.col.b", 125, 1472, None)
    assert INSTANCES["le450_15c"].file == "le450_15c.col"
    for entry in INSTANCES.values():
        assert resolve(entry.spec, tmp_path).url.endswith("/" + entry.file)


@pytest.mark.parametrize("k", range(3, 8))
def test_the_mycielski_entries_match_the_generator(k):
    """myciel<k> is M_{k+1}: its page counts and χ are the family's (docs/graphs.md)."""
    entry, graph = INSTANCES[f"myciel{k}"], generators.mycielski(k + 1)
    assert (entry.n, entry.m, entry.chi) == (graph.n, graph.m, k + 1)


@pytest.mark.parametrize("n", [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
def test_the_queen_entries_match_the_generator_counting_edges_once_or_twice(n):
    entry = INSTANCES[f"queen{n}_{n}"]
    edges = n * (n - 1) * (5 * n - 1) // 3  # gen:queen's m (docs/graphs.md)
    assert entry.n == n * n and entry.m in (edges, 2 * edges)
