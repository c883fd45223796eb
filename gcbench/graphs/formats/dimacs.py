"""DIMACS graph-coloring ``.col`` files: ``c`` comments, ``p edge N M``, ``e u v`` (1-based)."""

from __future__ import annotations

from pathlib import Path
from typing import IO

import numpy as np

from gcbench import memory
from gcbench.errors import InputError, excerpt
from gcbench.graphs.formats._io import (
    check_vertices,
    open_binary,
    open_writer,
    read_errors,
    require_for_edges,
    write_pairs,
)
from gcbench.graphs.formats._scan import BLOCK_BYTES, SCAN_BYTES_PER_PAIR, scan_pairs
from gcbench.graphs.graph import Graph, from_edges

_FORMATS = ("edge", "edges", "col")


def read_dimacs(path: Path, *, name: str) -> Graph:
    """Read a DIMACS ``.col`` file; vertex ids are kept (``e 1 2`` joins vertices 0 and 1).

    ``n`` (vertex weight) lines are ignored like comments; the M of the ``p`` line must equal
    the number of ``e`` lines or twice it (:func:`check_declared_edges`).
    """
    with open_binary(path) as handle:
        n, m, lines = read_problem_line(handle, path)
        check_vertices(path, n)
        what = f"graph file {path}"
        memory.require(SCAN_BYTES_PER_PAIR * m + BLOCK_BYTES, what)

        def check(pairs: int, _: int) -> None:  # more e lines than declared: count them all
            memory.require(SCAN_BYTES_PER_PAIR * pairs + BLOCK_BYTES, what)

        ids = scan_pairs(
            handle,
            path,
            comments=b"cn",
            tag="e",
            lines_before=lines,
            unexpected="expected an 'e u v' edge line",
            check=check,
        )
    pairs = ids.size // 2
    check_declared_edges(path, m, pairs, "e lines")
    k = _first_outside(ids, n)
    if k >= 0:
        raise InputError(
            f"graph file {path}: edge {k + 1} (e {ids[k]} {ids[pairs + k]}) names a vertex "
            f"outside 1..{n}; fix the edge or the p line"
        )
    ids -= 1
    require_for_edges(path, n, ids)
    return from_edges(
        n, ids[:pairs], ids[pairs:], name=name, source=str(path), directed_input=False
    )


def check_declared_edges(path: Path, declared: int, found: int, what: str) -> None:
    """Accept a ``p`` line whose M is the ``found`` edges or twice them: the published DIMACS
    coloring instances count each edge twice in several files (docs/formats.md, "DIMACS
    ``.col``"). Anything else is an InputError (a truncated or mangled file)."""
    if declared not in (found, 2 * found):
        raise InputError(
            f"graph file {path}: the p line declares {declared} edges but the file has "
            f"{found} {what}; fix the count in the p line"
        )


def _first_outside(ids: np.ndarray, n: int) -> int:
    """The first edge k (pair ids[k], ids[m + k]) naming a vertex outside 1..n, or -1; in
    chunks, so no temporary is as large as the ids."""
    m, step = ids.size // 2, 1 << 20
    for start in range(0, m, step):
        first, second = ids[start : min(start + step, m)], ids[m + start : m + start + step]
        bad = np.flatnonzero((first < 1) | (first > n) | (second < 1) | (second > n))
        if bad.size:
            return start + int(bad[0])
    return -1


def read_problem_line(handle: IO[bytes], path: Path) -> tuple[int, int, int]:
    """Consume lines up to the ``p`` line; returns (n, m, lines consumed)."""
    lines = 0
    while True:
        with read_errors(path):
            raw = handle.readline()
        if not raw:
            raise InputError(f"graph file {path} has no 'p edge N M' line; is it a DIMACS file?")
        lines += 1
        text = raw.decode("utf-8", "replace").strip()
        if not text or text[0] == "c":
            continue
        tokens = text.split()
        problem = tokens[0] == "p" and len(tokens) >= 4 and tokens[1] in _FORMATS
        if problem and tokens[2].isdigit() and tokens[3].isdigit():
            return int(tokens[2]), int(tokens[3]), lines
        where = f"graph file {path} line {lines}"
        if tokens[0] == "e":
            raise InputError(f"{where}: an e line comes before the 'p edge N M' line; add one")
        raise InputError(f"{where}: expected 'p edge N M' with N, M >= 0, got {excerpt(raw)}")


def write_dimacs(graph: Graph, path: Path | str) -> None:
    """Write ``graph`` as a DIMACS ``.col`` file, each undirected edge once (``e u v``, u < v)."""
    path = Path(path)
    rows, cols = graph.edges()
    with open_writer(path) as handle:
        handle.write(f"c {graph.name}\np edge {graph.n} {graph.m}\n".encode())
        write_pairs(handle, rows + 1, cols + 1, prefix="e ")
