"""Matrix Market read as a matrix pattern (read_mtx_pattern), for the partial distance-2
problems: rectangular and unsymmetric as stored, symmetric kinds mirrored, diagonal kept."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from gcbench import memory
from gcbench.errors import GraphTooLargeError, InsufficientMemoryError
from gcbench.graphs.formats import read_graph
from gcbench.graphs.formats.mtx import read_mtx_pattern
from gcbench.graphs.pattern import check_pattern

pytest.importorskip("fast_matrix_market")

BANNER = "%%MatrixMarket matrix coordinate"


def read(path):
    pattern = read_mtx_pattern(path, name="m")
    check_pattern(pattern)
    return pattern


def test_general_rectangular_is_read_as_stored(write_file):
    text = f"{BANNER} pattern general\n% rows 3, columns 5\n3 5 6\n1 5\n1 1\n3 2\n2 2\n1 5\n3 4\n"
    pattern = read(write_file("r.mtx", text))
    assert (pattern.n_rows, pattern.n_cols, pattern.symmetric) == (3, 5, False)
    assert pattern.indptr.tolist() == [0, 2, 3, 5]  # the duplicate (1, 5) counts once
    assert pattern.indices.tolist() == [0, 4, 1, 1, 3]  # diagonal (1, 1) and (2, 2) kept
    assert (pattern.name, pattern.source) == ("m", str(write_file("r.mtx", text)))


def test_general_square_is_not_symmetrised(write_file):
    pattern = read(write_file("d.mtx", f"{BANNER} pattern general\n3 3 2\n1 2\n2 3\n"))
    assert pattern.indices.tolist() == [1, 2]
    assert pattern.indptr.tolist() == [0, 1, 2, 2]


@pytest.mark.parametrize(
    ("header", "body"),
    [
        ("pattern symmetric", "2 1\n3 1\n4 4\n3 1\n"),
        ("real skew-symmetric", "2 1 -1.5\n3 1 2.5e3\n4 4 1\n"),
        ("complex hermitian", "2 1 0 1\n3 1 1 -1\n4 4 2 0\n"),
        ("integer symmetric", "2 1 3\n3 1 0\n4 4 7\n"),
    ],
)
def test_symmetric_kinds_are_mirrored_with_the_diagonal(write_file, header, body):
    count = body.count("\n")
    pattern = read(write_file("s.mtx", f"{BANNER} {header}\n4 4 {count}\n{body}"))
    assert pattern.symmetric
    assert pattern.indptr.tolist() == [0, 2, 3, 4, 5]
    assert pattern.indices.tolist() == [1, 2, 0, 0, 3]
    assert pattern.columns[1] is pattern.indices  # its own transpose: no second copy


def test_random_files_match_scipy(tmp_path):
    rng = np.random.default_rng(3)
    for shape, symmetric in (((40, 70), False), ((30, 12), False), ((50, 50), True)):
        matrix = sp.random(*shape, density=0.1, random_state=rng, format="coo")
        if symmetric:
            matrix = sp.coo_matrix(sp.tril(matrix + matrix.T + sp.identity(50)))
        path = tmp_path / "random.mtx"
        scipy.io.mmwrite(path, matrix, symmetry="symmetric" if symmetric else "general")
        expected = scipy.io.mmread(path).tocsr()
        expected.sort_indices()
        pattern = read(path)
        np.testing.assert_array_equal(pattern.indptr, expected.indptr)
        np.testing.assert_array_equal(pattern.indices, expected.indices)
        assert pattern.symmetric == symmetric


@pytest.mark.parametrize("gz_name", ["a.mtx.gz", "A.MTX.GZ"])
def test_gzip_matches_plain(write_file, gz_name):
    text = f"{BANNER} real general\n3 6 4\n1 2 0.5\n2 6 1\n3 1 -2\n1 6 4\n"
    plain, packed = read(write_file("a.mtx", text)), read(write_file(gz_name, text))
    np.testing.assert_array_equal(plain.indptr, packed.indptr)
    np.testing.assert_array_equal(plain.indices, packed.indices)
    assert (packed.n_rows, packed.n_cols) == (3, 6)


BAD_FILES = {
    "bad banner": ("%%MatrixMarket matrx coordinate pattern general\n2 3 1\n1 2\n", "matrx"),
    "no banner": ("2 3 1\n1 2\n", "banner"),
    "fewer entries": (f"{BANNER} pattern general\n3 4 3\n1 2\n2 3\n", "Truncated"),
    "more entries": (f"{BANNER} pattern general\n3 4 1\n1 2\n2 3\n", "Too many"),
    "row out of range": (f"{BANNER} pattern general\n3 5 2\n1 2\n4 3\n", "out of bounds"),
    "column out of range": (f"{BANNER} pattern general\n5 3 2\n1 2\n2 4\n", "out of bounds"),
    "index zero": (f"{BANNER} pattern general\n3 3 2\n1 2\n0 3\n", "out of bounds"),
    "negative size": (f"{BANNER} pattern general\n-3 4 1\n1 2\n", "negative"),
    "non-numeric entry": (f"{BANNER} pattern general\n3 4 1\n1 x\n", "integer"),
    "missing size line": (f"{BANNER} pattern general\n", "EOF"),
    "symmetric, not square": (f"{BANNER} pattern symmetric\n3 4 1\n2 1\n", "3x4 'symmetric'"),
    "dense array": ("%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n", "coordinate"),
    "empty": ("", "empty"),
}


@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz"])
@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_input_is_one_line_naming_the_file(write_file, input_error, case, suffix):
    text, fragment = BAD_FILES[case]
    path = write_file("bad" + suffix, text)
    with input_error(path, fragment):
        read_mtx_pattern(path, name="bad")


def test_sizes_beyond_int32_ids_are_refused_before_reading(write_file):
    path = write_file("huge.mtx", f"{BANNER} pattern general\n5 3000000000 1\n1 1\n")
    with pytest.raises(GraphTooLargeError, match="5x3000000000 matrix; gcbench numbers rows"):
        read_mtx_pattern(path, name="huge")


def test_the_budget_is_checked_from_the_header(write_file, monkeypatch):
    """A header announcing 10^8 entries is refused before anything is read, mirrored ones
    counted twice."""
    path = write_file("big.mtx", f"{BANNER} pattern symmetric\n9 9 100000000\n1 1\n")
    monkeypatch.setenv(memory.ENV, "2G")
    with pytest.raises(InsufficientMemoryError, match=r"big.mtx: needs about 4\.\d GiB"):
        read_mtx_pattern(path, name="big")  # 2·10^8 entries: 8 + 17 bytes each


def test_graph_reader_points_rectangular_matrices_to_pd2(write_file, input_error):
    path = write_file("r.mtx", f"{BANNER} pattern general\n3 4 1\n1 2\n")
    with input_error(path, "3x4 matrix; an adjacency matrix must be square") as info:
        read_graph(path)
    assert str(info.value).endswith("color a rectangular matrix with --problem pd2 or pd2-rows")


def test_missing_package_is_one_line(write_file, input_error, monkeypatch):
    path = write_file("g.mtx", f"{BANNER} pattern general\n2 3 1\n1 2\n")
    monkeypatch.setitem(sys.modules, "fast_matrix_market", None)
    with input_error(path, "pip install fast_matrix_market"):
        read_mtx_pattern(path, name="g")


def test_complex_values_are_ignored(write_file):
    text = f"{BANNER} complex general\n2 3 3\n1 1 1 2\n2 3 0 0\n1 3 -1 5\n"
    pattern = read(write_file("c.mtx", text))
    assert pattern.indices.tolist() == [0, 2, 2] and pattern.indices.dtype == np.int32
