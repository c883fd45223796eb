"""read_graph: dispatch on the extension, names, missing and unsupported files."""

from __future__ import annotations

import pytest

from gcbench.graphs.formats import SUPPORTED_SUFFIXES, read_graph, write_edgelist


def test_missing_file(tmp_path, input_error):
    path = tmp_path / "absent.mtx"
    with input_error(path, "not found"):
        read_graph(path)


def test_unknown_extension_lists_supported(write_file, input_error):
    path = write_file("g.graph", "0 1\n")
    with input_error(path, "unsupported extension") as info:
        read_graph(path)
    for suffix in (".mtx", ".mtx.gz", ".txt.gz", ".col", ".col.b", ".npz"):
        assert suffix in str(info.value)


def test_directory_is_refused(tmp_path, input_error):
    path = tmp_path / "dir.txt"
    path.mkdir()
    with input_error(path, "not a file"):
        read_graph(path)


def test_supported_suffixes():
    expected = {".mtx", ".txt", ".el", ".tsv", ".edges", ".csv", ".col", ".col.b"}
    assert set(SUPPORTED_SUFFIXES) == expected | {s + ".gz" for s in expected} | {".npz"}


@pytest.mark.parametrize(
    ("file_name", "stem"),
    [("web.txt.gz", "web"), ("web.graph.el", "web.graph"), ("WEB.TXT", "WEB")],
)
def test_name_defaults_to_stem_and_source_is_path(tmp_path, connected_graph, file_name, stem):
    path = tmp_path / file_name
    write_edgelist(connected_graph, path)
    g = read_graph(path)
    assert (g.name, g.source) == (stem, str(path))
    assert read_graph(str(path), name="given").name == "given"
