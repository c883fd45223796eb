"""DIMACS graph-coloring ``.col`` files: ``c`` comments, ``p edge N M``, ``e u v`` (1-based)."""

from __future__ import annotations

from pathlib import Path
from typing import IO

import numpy as np

from gcbench.errors import InputError
from gcbench.formats._io import open_binary, open_writer, read_errors, write_pairs
from gcbench.formats._scan import scan_pairs
from gcbench.graph import Graph, from_edges

_FORMATS = ("edge", "edges", "col")


def read_dimacs(path: Path, *, name: str) -> Graph:
    """Read a DIMACS ``.col`` file; vertex ids are kept (``e 1 2`` joins vertices 0 and 1).

    ``n`` (vertex weight) lines are ignored like comments; the number of ``e`` lines must equal
    the M of the ``p`` line.
    """
    with open_binary(path) as handle:
        n, m, lines = _read_problem_line(handle, path)
        first, second = scan_pairs(
            handle,
            path,
            comments=b"cn",
            tag="e",
            lines_before=lines,
            unexpected="expected an 'e u v' edge line",
        )
    if first.size != m:
        raise InputError(
            f"graph file {path}: the p line declares {m} edges but the file has {first.size} "
            "e lines; fix the count in the p line"
        )
    bad = np.flatnonzero((first < 1) | (first > n) | (second < 1) | (second > n))
    if bad.size:
        k = int(bad[0])
        raise InputError(
            f"graph file {path}: edge {k + 1} (e {first[k]} {second[k]}) names a vertex outside "
            f"1..{n}; fix the edge or the p line"
        )
    return from_edges(n, first - 1, second - 1, name=name, source=str(path), directed_input=False)


def _read_problem_line(handle: IO[bytes], path: Path) -> tuple[int, int, int]:
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
        raise InputError(f"{where}: expected 'p edge N M' with N, M >= 0, got {text[:60]!r}")


def write_dimacs(graph: Graph, path: Path | str) -> None:
    """Write ``graph`` as a DIMACS ``.col`` file, each undirected edge once (``e u v``, u < v)."""
    path = Path(path)
    rows, cols = graph.edges()
    with open_writer(path) as handle:
        handle.write(f"c {graph.name}\np edge {graph.n} {graph.m}\n".encode())
        write_pairs(handle, rows + 1, cols + 1, prefix="e ")
