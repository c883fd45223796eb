"""DIMACS .col files: header, e lines, counts, errors, writing."""

from __future__ import annotations

import pytest

from gcbench.graphs.formats import read_graph, write_dimacs


@pytest.mark.parametrize("suffix", [".col", ".col.gz"])
def test_round_trip_keeps_isolated_vertices(tmp_path, isolated_graph, assert_same_csr, suffix):
    path = tmp_path / f"g{suffix}"
    write_dimacs(isolated_graph, path)
    got = read_graph(path)
    assert_same_csr(got, isolated_graph)
    assert got.n == 8
    assert not got.normalisation.directed


def test_writer_format(tmp_path, isolated_graph):
    path = tmp_path / "g.col"
    write_dimacs(isolated_graph, path)
    lines = path.read_text().splitlines()
    assert lines[:3] == ["c isolated", "p edge 8 6", "e 1 2"]
    assert len(lines) == 2 + 6


def test_p_col_comments_and_vertex_weight_lines(write_file):
    text = "c myciel-like\nc more\n\np col 4 3\nc inside\ne 1 2\nn 1 5\ne 2 3\n\ne 4 1\n"
    g = read_graph(write_file("w.col", text))
    assert g.indptr.tolist() == [0, 2, 4, 5, 6]
    assert g.indices.tolist() == [1, 3, 0, 2, 1, 0]


def test_edges_listed_both_ways_count_as_lines(write_file):
    g = read_graph(write_file("b.col", "p edge 2 2\ne 1 2\ne 2 1\n"))
    assert g.m == 1
    assert g.normalisation.duplicates == 0


def test_a_p_line_counting_each_edge_twice_is_accepted(write_file):
    """As in several published DIMACS coloring instances; a self loop (homer) is dropped."""
    g = read_graph(write_file("q.col", "p edge 3 6\ne 1 2\ne 2 3\ne 3 3\n"))
    assert (g.n, g.m, g.normalisation.self_loops) == (3, 2, 1)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("c x\ne 1 2\np edge 2 1\n", "line 2: an e line comes before"),
        ("p edge 3 3\ne 1 2\ne 2 3\n", "declares 3 edges but the file has 2"),
        ("p edge 3 1\ne 1 2\ne 2 3\n", "declares 1 edges but the file has 2"),
        ("p edge 3 5\ne 1 2\ne 2 3\n", "declares 5 edges but the file has 2 e lines"),
        ("p edge 3 2\ne 1 2\ne 0 3\n", "edge 2 (e 0 3) names a vertex outside 1..3"),
        ("p edge 3 2\ne 1 2\ne 2 4\n", "edge 2 (e 2 4) names a vertex outside 1..3"),
        ("", "no 'p edge N M' line"),
        ("c only comments\n", "no 'p edge N M' line"),
        ("p edge x 2\ne 1 2\n", "line 1: expected 'p edge N M'"),
        ("p graph 3 2\n", "line 1: expected 'p edge N M'"),
        ("p edge 3 1\ne 1 2\np edge 3 1\n", "line 3: expected an 'e u v' edge line"),
        ("p edge 3 1\nc\nx 1 2\n", "line 3: expected an 'e u v' edge line"),
        ("p edge 3 1\ne 1 b\n", "line 2: vertex id is not an integer"),
        ("p edge 3 1\ne 1\n", "line 2: expected two vertex ids"),
    ],
)
def test_bad_input_names_the_file(write_file, input_error, text, fragment):
    path = write_file("bad.col", text)
    with input_error(path, fragment):
        read_graph(path)
