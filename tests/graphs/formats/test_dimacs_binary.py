"""DIMACS binary .col.b files: the bit layout, the p line's count, round trips, malformed files."""

from __future__ import annotations

import gzip

import pytest

from gcbench import memory
from gcbench.errors import GraphTooLargeError, InsufficientMemoryError
from gcbench.graphs import generators
from gcbench.graphs.formats import (
    SUPPORTED_SUFFIXES,
    dimacs_binary,
    read_graph,
    write_dimacs_binary,
)


def bitmap(n: int, edges: list[tuple[int, int]]) -> bytes:
    """The lower-triangle bitmap, bit by bit as the format describes it (the test's oracle)."""
    rows = [bytearray((i + 8) // 8) for i in range(n)]
    for u, v in edges:
        i, j = max(u, v), min(u, v)
        rows[i][j >> 3] |= 0x80 >> (j & 7)
    return b"".join(rows)


def col_b(n: int, edges: list[tuple[int, int]], *, declared: int | None = None,
          preamble: bytes | None = None, tail: bytes = b"") -> bytes:  # fmt: skip
    """A whole .col.b file; ``declared`` is the p line's M (default: the edges given)."""
    m = len(edges) if declared is None else declared
    text = b"c test\np edge %d %d\n" % (n, m) if preamble is None else preamble
    return b"%d\n" % len(text) + text + bitmap(n, edges) + tail


K4 = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]


def write(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def test_suffixes_are_registered():
    assert ".col.b" in SUPPORTED_SUFFIXES and ".col.b.gz" in SUPPORTED_SUFFIXES


def test_bits_are_msb_first_lower_triangle_and_ids_0_based(tmp_path):
    # vertex 9 ~ 0 and 9 ~ 8: row 9 has two bytes, 0x80 (bit 0) and 0x80 (bit 8)
    data = col_b(10, [(9, 0), (8, 9), (1, 0)])
    assert data.endswith(b"\x80\x80")
    g = read_graph(write(tmp_path, "g.col.b", data))
    assert (g.name, g.n, g.m) == ("g", 10, 3)
    assert g.indptr.tolist() == [0, 2, 3, 3, 3, 3, 3, 3, 3, 4, 6]
    assert g.indices.tolist() == [1, 9, 0, 9, 0, 8]
    assert not g.normalisation.directed


@pytest.mark.parametrize("declared", [6, 12])
def test_the_p_line_may_count_each_edge_twice(tmp_path, declared):
    g = read_graph(write(tmp_path, "k4.col.b", col_b(4, K4, declared=declared)))
    assert (g.n, g.m) == (4, 6)


def test_a_diagonal_bit_is_a_self_loop_dropped_by_normalisation(tmp_path):
    g = read_graph(write(tmp_path, "l.col.b", col_b(3, [(1, 1), (2, 0)])))
    assert g.m == 1 and g.normalisation.self_loops == 1


@pytest.mark.parametrize("suffix", [".col.b", ".col.b.gz", ".COL.B"])
@pytest.mark.parametrize("chunk", [dimacs_binary.CHUNK, 5])
def test_round_trip(tmp_path, suffix, chunk, monkeypatch, isolated_graph, connected_graph,
                    assert_same_csr):  # fmt: skip
    """Whole files and chunks of a few rows (5 bytes: from row 32 on, one row per chunk)."""
    monkeypatch.setattr(dimacs_binary, "CHUNK", chunk)
    for graph in (isolated_graph, connected_graph, generators.mycielski(5)):
        path = tmp_path / f"g{suffix}"
        write_dimacs_binary(graph, path)
        got = read_graph(path)
        assert_same_csr(got, graph)
        assert got.name == "g"


def test_writer_layout_matches_the_format(tmp_path):
    path = tmp_path / "k4.col.b"
    write_dimacs_binary(generators.complete(4), path)
    preamble = b"c gen:complete?n=4\np edge 4 6\n"
    assert path.read_bytes() == b"%d\n" % len(preamble) + preamble + bitmap(4, K4)


def test_empty_graphs(tmp_path):
    assert read_graph(write(tmp_path, "e.col.b", col_b(0, []))).n == 0
    g = read_graph(write(tmp_path, "i.col.b", col_b(9, [])))
    assert (g.n, g.m) == (9, 0)


@pytest.mark.parametrize("suffix", [".col.b", ".col.b.gz"])
@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"", "does not start with its preamble's length"),
        (b"p edge 4 6\n", "does not start with its preamble's length"),
        (b"12", "does not start with its preamble's length"),
        (b"99\nc short\np edge 1 0\n", "a preamble of 99 bytes but only 19 bytes follow"),
        (col_b(4, K4, preamble=b"c no problem line\n"), "has no 'p edge N M' line"),
        (col_b(4, K4, preamble=b"c x\np edge 4 x\n"), "line 3: expected 'p edge N M'"),
        (col_b(4, K4, preamble=b"p edge 4 6\ne 1 2\n"), "line 3: expected only c comment"),
        (col_b(4, K4)[:-1], "is truncated: the bitmap of 4 vertices takes 4 bytes"),
        (col_b(4, K4, tail=b"\n"), "has 1 bytes after the bitmap of 4 vertices"),
        (col_b(4, K4, declared=7), "declares 7 edges but the file has 6 bits set"),
        (col_b(4, K4, declared=5), "sets more bits than the p line's 5 edges"),
        (col_b(4, [], declared=0)[:-1] + b"\x01", "bitmap row 3 sets bit 7"),
    ],
)
def test_malformed_files_are_one_line_input_errors(tmp_path, input_error, suffix, data, fragment):
    path = write(tmp_path, f"bad{suffix}", data)
    with input_error(path, fragment):
        read_graph(path)


def test_the_preamble_is_not_read_past_the_file(tmp_path, input_error):
    path = write(tmp_path, "huge.col.b", b"99999999999999999999\np edge 1 0\n")
    with input_error(path, "a preamble of 99999999999999999999 bytes but only 11 bytes"):
        read_graph(path)


def test_declared_sizes_are_checked_before_decoding(tmp_path, monkeypatch):
    big = write(tmp_path, "big.col.b", col_b(0, [], preamble=b"p edge 3000000000 0\n"))
    with pytest.raises(GraphTooLargeError, match="3000000000 vertices"):
        read_graph(big)
    monkeypatch.setenv(memory.ENV, "64M")
    many = write(tmp_path, "many.col.b", col_b(4, K4, declared=10**9))
    with pytest.raises(InsufficientMemoryError, match="many.col.b"):
        read_graph(many)


def test_dense_random_graph_matches_its_oracle(tmp_path, assert_same_csr):
    graph = generators.er(300, p=0.5)
    path = tmp_path / "dense.col.b"
    first, second = (a.tolist() for a in graph.edges())
    path.write_bytes(col_b(300, list(zip(first, second, strict=True))))
    assert_same_csr(read_graph(path), graph)
