"""Matrix Market reading (through fast_matrix_market) and writing."""

from __future__ import annotations

import gzip
import sys

import numpy as np
import pytest

from gcbench.graphs.formats import read_graph, write_mtx
from gcbench.graphs.graph import check_invariant

pytest.importorskip("fast_matrix_market")

BANNER = "%%MatrixMarket matrix coordinate"


@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz"])
def test_round_trip(tmp_path, isolated_graph, assert_same_csr, suffix):
    path = tmp_path / f"g{suffix}"
    write_mtx(isolated_graph, path)
    got = read_graph(path)
    assert_same_csr(got, isolated_graph)
    assert got.n == 8  # isolated vertices 3 and 7 survive: ids are kept
    assert not got.normalisation.directed


def test_writer_stores_lower_triangle_pattern(tmp_path, connected_graph):
    path = tmp_path / "g.mtx"
    write_mtx(connected_graph, path)
    lines = path.read_text().splitlines()
    assert lines[0] == f"{BANNER} pattern symmetric"
    body = [line for line in lines[1:] if not line.startswith("%")]
    assert body[0] == f"60 60 {connected_graph.m}"
    pairs = np.array([line.split() for line in body[1:]], dtype=np.int64)
    assert len(pairs) == connected_graph.m
    assert np.all(pairs[:, 0] > pairs[:, 1])


def test_general_is_symmetrised_and_reported_directed(write_file):
    path = write_file("d.mtx", f"{BANNER} pattern general\n3 3 2\n1 2\n2 3\n")
    g = read_graph(path)
    check_invariant(g)
    assert g.indptr.tolist() == [0, 1, 3, 4]
    assert g.indices.tolist() == [1, 0, 2, 1]
    assert g.normalisation.directed
    assert g.normalisation.asymmetric_added == 2


def test_symmetric_reads_stored_triangle(write_file):
    path = write_file("s.mtx", f"{BANNER} pattern symmetric\n4 4 3\n2 1\n3 1\n4 4\n")
    g = read_graph(path)
    assert g.indptr.tolist() == [0, 2, 3, 4, 4]
    assert g.indices.tolist() == [1, 2, 0, 0]
    assert not g.normalisation.directed
    assert g.normalisation.self_loops == 1


def test_skew_symmetric_real(write_file):
    path = write_file("k.mtx", f"{BANNER} real skew-symmetric\n3 3 2\n2 1 -1.5\n3 2 2.5e3\n")
    g = read_graph(path)
    assert g.indices.tolist() == [1, 0, 2, 1]
    assert not g.normalisation.directed


def test_hermitian_complex(write_file):
    path = write_file("h.mtx", f"{BANNER} complex hermitian\n3 3 3\n1 1 2 0\n3 1 1 -1\n3 2 0 1\n")
    g = read_graph(path)
    assert g.indices.tolist() == [2, 2, 0, 1]
    assert g.normalisation.self_loops == 1


def test_integer_values_ignored_kron_style(write_file):
    """kron_g500 files store integer multiplicities; only the pattern makes the graph."""
    text = f"{BANNER} integer symmetric\n%comment\n4 4 5\n2 1 3\n3 1 1\n3 1 7\n4 2 0\n4 4 2\n"
    g = read_graph(write_file("kron_g500-logn2.mtx", text))
    assert g.name == "kron_g500-logn2"
    assert g.indptr.tolist() == [0, 2, 4, 5, 6]
    assert g.indices.tolist() == [1, 2, 0, 3, 0, 1]
    assert g.normalisation.duplicates == 1
    assert g.normalisation.self_loops == 1


@pytest.mark.parametrize("gz_name", ["a.mtx.gz", "A.MTX.GZ"])
def test_gzip_matches_plain(write_file, assert_same_csr, gz_name):
    text = f"{BANNER} pattern general\n5 5 4\n1 2\n2 3\n5 1\n4 2\n"
    assert_same_csr(read_graph(write_file(gz_name, text)), read_graph(write_file("a.mtx", text)))


BAD_FILES = {
    "bad banner": ("%%MatrixMarket matrx coordinate pattern general\n2 2 1\n1 2\n", "matrx"),
    "no banner": ("2 2 1\n1 2\n", "banner"),
    "fewer entries": (f"{BANNER} pattern general\n3 3 3\n1 2\n2 3\n", "Truncated"),
    "more entries": (f"{BANNER} pattern general\n3 3 1\n1 2\n2 3\n", "Too many"),
    "row out of range": (f"{BANNER} pattern general\n3 3 2\n1 2\n4 3\n", "out of bounds"),
    "column out of range": (f"{BANNER} pattern general\n3 3 2\n1 2\n2 9\n", "out of bounds"),
    "index zero": (f"{BANNER} pattern general\n3 3 2\n1 2\n0 3\n", "out of bounds"),
    "negative size": (f"{BANNER} pattern general\n-3 -3 1\n1 2\n", "negative"),
    "non-integer size": (f"{BANNER} pattern general\n3.5 3.5 1\n1 2\n", "integer"),
    "non-numeric entry": (f"{BANNER} pattern general\n3 3 1\n1 x\n", "integer"),
    "missing size line": (f"{BANNER} pattern general\n", "EOF"),
    "non-square": (f"{BANNER} pattern general\n3 4 1\n1 2\n", "3x4"),
    "dense array": ("%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n", "coordinate"),
    "empty": ("", "empty"),
}


@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz"])
@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_input_names_the_file(write_file, input_error, case, suffix):
    text, fragment = BAD_FILES[case]
    path = write_file("bad" + suffix, text)
    with input_error(path, fragment):
        read_graph(path)


@pytest.mark.parametrize("cut", [0.5, 0.98])
def test_truncated_gzip(tmp_path, connected_graph, input_error, cut):
    path = tmp_path / "t.mtx.gz"
    write_mtx(connected_graph, path)
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * cut)])
    with input_error(path, "gzip"):
        read_graph(path)


def test_not_gzip_despite_name(write_file, input_error, tmp_path):
    path = tmp_path / "plain.mtx.gz"
    path.write_text(f"{BANNER} pattern general\n2 2 1\n1 2\n")
    with input_error(path, "gzip"):
        read_graph(path)


def test_missing_package_is_one_line(write_file, input_error, monkeypatch):
    path = write_file("g.mtx", f"{BANNER} pattern general\n2 2 1\n1 2\n")
    monkeypatch.setitem(sys.modules, "fast_matrix_market", None)
    with input_error(path, "pip install fast_matrix_market"):
        read_graph(path)


def test_gzip_writer_output_is_gzip(tmp_path, isolated_graph):
    path = tmp_path / "g.mtx.gz"
    write_mtx(isolated_graph, path)
    assert gzip.decompress(path.read_bytes()).startswith(b"%%MatrixMarket")
