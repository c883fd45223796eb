"""SNAP-style edge lists: ``u v`` per line, ``#``/``%`` comments, ids relabelled to 0..n-1."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gcbench.errors import InputError
from gcbench.formats._io import open_binary, open_writer, read_errors, write_pairs
from gcbench.formats._scan import scan_pairs
from gcbench.graph import Graph, from_edges


def read_edgelist(path: Path, *, name: str) -> Graph:
    """Read an edge list; vertex i is the i-th smallest id that occurs in the file.

    Whitespace separates columns, columns after the second are ignored, and whether the
    graph is directed is decided by the data (some (u, v) listed without (v, u)).
    """
    with open_binary(path) as handle:
        first, second = scan_pairs(handle, path, comments=b"#%")
    return _from_pairs(first, second, path, name, "'u v' lines")


def read_csv_edgelist(path: Path, *, name: str) -> Graph:
    """Read a comma-separated edge list (SNAP publishes some graphs so, e.g. twitch_gamers):
    ``u,v`` per line, an optional first line of column names, further columns ignored; ids
    relabelled as in :func:`read_edgelist`."""
    import pandas as pd

    with read_errors(path), open_binary(path) as handle:
        head = handle.readline().split(b",")[0].strip().lstrip(b"+-")
    header = 0 if head and not head.isdigit() else None
    try:
        with read_errors(path):
            frame = pd.read_csv(path, header=header, usecols=[0, 1], dtype=np.int64,
                                comment="#", skip_blank_lines=True, engine="c")  # fmt: skip
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(
            f"graph file {path} is not a comma-separated list of integer vertex ids ({reason})"
        ) from None
    columns = frame.to_numpy()
    return _from_pairs(columns[:, 0], columns[:, 1], path, name, "'u,v' lines")


def _from_pairs(first: np.ndarray, second: np.ndarray, path: Path, name: str, form: str) -> Graph:
    if first.size == 0:
        raise InputError(f"graph file {path} has no edges; an edge list needs {form}")
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
