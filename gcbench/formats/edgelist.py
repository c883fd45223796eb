"""SNAP-style edge lists: ``u v`` per line, ``#``/``%`` comments, ids relabelled to 0..n-1."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gcbench.errors import InputError
from gcbench.formats._io import open_binary, open_writer, write_pairs
from gcbench.formats._scan import scan_pairs
from gcbench.graph import Graph, from_edges


def read_edgelist(path: Path, *, name: str) -> Graph:
    """Read an edge list; vertex i is the i-th smallest id that occurs in the file.

    Whitespace separates columns, columns after the second are ignored, and whether the
    graph is directed is decided by the data (some (u, v) listed without (v, u)).
    """
    with open_binary(path) as handle:
        first, second = scan_pairs(handle, path, comments=b"#%")
    if first.size == 0:
        raise InputError(f"graph file {path} has no edges; an edge list needs 'u v' lines")
    n, first, second = relabel(first, second)
    return from_edges(n, first, second, name=name, source=str(path))


def relabel(first: np.ndarray, second: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """Map the ids that occur to 0..n-1 in increasing order; returns (n, first, second)."""
    low = min(int(first.min()), int(second.min()))
    high = max(int(first.max()), int(second.max()))
    # Ids below the number of endpoints (the SNAP norm) go through a presence table no larger
    # than the id arrays; others are hashed. Both give the same order.
    if low >= 0 and high < first.size + second.size:
        present = np.zeros(high + 1, dtype=np.bool_)
        present[first] = True
        present[second] = True
        new_id = np.cumsum(present, dtype=np.int64) - 1
        return int(new_id[-1]) + 1, new_id[first], new_id[second]
    import pandas  # a hash table: several times faster than np.unique(return_inverse=True)

    codes, ids = pandas.factorize(np.concatenate((first, second)), sort=True)
    return int(ids.size), codes[: first.size], codes[first.size :]


def write_edgelist(graph: Graph, path: Path | str) -> None:
    """Write each undirected edge once (``u v``, u < v, 0-based) under a ``#`` comment header.

    Isolated vertices cannot be expressed in this format; reading the file back drops them.
    """
    path = Path(path)
    rows, cols = graph.edges()
    with open_writer(path) as handle:
        header = f"# {graph.name}: undirected, {graph.n} vertices, {graph.m} edges\n"
        handle.write(header.encode())
        write_pairs(handle, rows, cols)
