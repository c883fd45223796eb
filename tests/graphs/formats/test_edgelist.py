"""SNAP / plain edge lists: parsing, relabelling, errors, writing."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench.graphs.formats import _scan, read_graph, write_edgelist
from gcbench.graphs.formats.edgelist import relabel
from gcbench.graphs.graph import check_invariant


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz", ".el", ".el.gz", ".tsv", ".edges"])
def test_round_trip(tmp_path, connected_graph, assert_same_csr, suffix):
    path = tmp_path / f"g{suffix}"
    write_edgelist(connected_graph, path)
    got = read_graph(path)
    assert_same_csr(got, connected_graph)
    assert got.name == "g"
    assert got.source == str(path)


def test_relabels_in_increasing_order_of_original_id(write_file):
    big = 2**62 + 5
    path = write_file("ids.txt", f"1000 5\n{big} 1000\n7 5\n-3 7\n")
    g = read_graph(path)
    # sorted original ids: -3, 5, 7, 1000, big -> 0..4
    check_invariant(g)
    assert g.n == 5
    assert sorted(zip(*(a.tolist() for a in g.edges()), strict=True)) == [
        (0, 2),
        (1, 2),
        (1, 3),
        (3, 4),
    ]


def test_contiguous_ids_are_kept(write_file):
    g = read_graph(write_file("c.txt", "0 1\n1 2\n2 3\n"))
    assert g.indices.tolist() == [1, 0, 2, 1, 3, 2]


@pytest.mark.parametrize("high", [50, 799, 10**6, 2**62])
def test_relabel_matches_sorted_unique(high):
    """high < 800 (the endpoint count) takes the presence table, the others the hash."""
    rng = np.random.default_rng(high % 1000)
    first = rng.integers(-5 if high > 10**6 else 0, high, 400)
    second = rng.integers(0, high, 400)
    ids = np.concatenate((first, second))
    n = relabel(ids)
    unique, inverse = np.unique(np.concatenate((first, second)), return_inverse=True)
    assert n == unique.size
    np.testing.assert_array_equal(ids, inverse)


def test_comments_blank_lines_tabs_extra_columns_crlf(write_file):
    text = (
        "# Directed graph: demo\n% KONECT style comment\n\n"
        "1\t2\t0.5\r\n  2   3 17 extra words\n\t\n3 1\n# trailing comment\n4 1"
    )
    g = read_graph(write_file("mixed.txt", text))
    assert g.n == 4
    assert g.m == 4


def test_directedness_is_decided_by_the_data(write_file):
    once = read_graph(write_file("once.txt", "0 1\n1 2\n"))
    both = read_graph(write_file("both.txt", "0 1\n1 0\n1 2\n2 1\n"))
    assert once.normalisation.directed
    assert not both.normalisation.directed


@pytest.mark.parametrize(
    ("body", "line", "fragment"),
    [
        ("1 2\n# c\n3 x\n", 3, "vertex id is not an integer"),
        ("1 2\n1.5 2\n", 2, "vertex id is not an integer"),
        ("1 2\n12abc 4\n", 2, "vertex id is not an integer"),
        ("1 2\n\n7\n", 3, "expected two vertex ids"),
        ("99999999999999999999 1\n", 1, "vertex id does not fit a 64-bit"),
        ("1 - 2\n", 1, "vertex id is not an integer"),
    ],
)
def test_bad_token_names_file_and_line(write_file, input_error, body, line, fragment):
    path = write_file("bad.txt", body)
    with input_error(path, f"line {line}: {fragment}"):
        read_graph(path)


def test_line_numbers_across_blocks(write_file, input_error, monkeypatch, assert_same_csr):
    """Blocks are cut at line ends; a tiny block size exercises the carried partial lines."""
    body = "".join(f"{i} {i + 1}\n" for i in range(40)) + "# note\n"
    good = read_graph(write_file("good.txt", body))
    monkeypatch.setattr(_scan, "BLOCK", 7)
    assert_same_csr(read_graph(write_file("good2.txt", body)), good)
    path = write_file("bad.txt", body + "5 oops\n")
    with input_error(path, "line 42:"):
        read_graph(path)


@pytest.mark.parametrize("text", ["", "# only comments\n% here\n\n"])
def test_no_edges(write_file, input_error, text):
    path = write_file("empty.txt", text)
    with input_error(path, "no edges"):
        read_graph(path)


def test_truncated_gzip(tmp_path, connected_graph, input_error):
    path = tmp_path / "t.txt.gz"
    write_edgelist(connected_graph, path)
    path.write_bytes(path.read_bytes()[:-12])
    with input_error(path, "gzip"):
        read_graph(path)


def test_writer_lists_each_edge_once_with_header(tmp_path, connected_graph):
    path = tmp_path / "g.txt"
    write_edgelist(connected_graph, path)
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# connected")
    pairs = np.array([line.split() for line in lines[1:]], dtype=np.int64)
    assert len(pairs) == connected_graph.m
    assert np.all(pairs[:, 0] < pairs[:, 1])
