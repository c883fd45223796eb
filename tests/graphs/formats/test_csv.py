"""Comma-separated edge lists (SNAP's CSV datasets): header or not, gzip, errors."""

from __future__ import annotations

import pytest

from gcbench.errors import InputError
from gcbench.graphs.formats import read_graph


def _csv(graph, header: bool) -> str:
    u, v = graph.edges()
    body = "".join(f"{a},{b},ignored\n" for a, b in zip(u.tolist(), v.tolist(), strict=True))
    return ("numeric_id_1,numeric_id_2,weight\n" if header else "") + body


@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("name", ["g.csv", "g.csv.gz"])
def test_round_trip(write_file, connected_graph, assert_same_csr, header, name):
    got = read_graph(write_file(name, _csv(connected_graph, header)))
    assert_same_csr(got, connected_graph)
    assert got.name == "g"


def test_ids_relabelled_like_other_edge_lists(write_file):
    g = read_graph(write_file("ids.csv", "node_1,node_2\n100,7\n7,55\n"))
    assert g.n == 3 and g.m == 2
    assert sorted(zip(*(a.tolist() for a in g.edges()), strict=True)) == [(0, 1), (0, 2)]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("a,b\n1,x\n", "integer vertex ids"), ("a,b\n", "has no edges"), ("", "g.csv")],
)
def test_bad_files_are_one_line_errors(write_file, text, fragment):
    path = write_file("g.csv", text)
    with pytest.raises(InputError) as info:
        read_graph(path)
    message = str(info.value)
    assert fragment in message and str(path) in message and "\n" not in message
