"""SNAP-style edge lists: ``u v`` per line, ``#``/``%`` comments, ids relabelled to 0..n-1."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from gcbench import memory
from gcbench.errors import InputError, excerpt
from gcbench.graphs.formats._io import (
    open_binary,
    open_writer,
    read_errors,
    require_for_edges,
    text_size,
    write_pairs,
)
from gcbench.graphs.formats._scan import BLOCK_BYTES, SCAN_BYTES_PER_PAIR, scan_pairs
from gcbench.graphs.graph import Graph, from_edges

# Extra bytes of relabelling through pandas.factorize: its codes (int64) per id, and its hash
# table and uniques per distinct id (measured: benchmarks/build_memory.py).
FACTORIZE_BYTES_PER_ID = 8
FACTORIZE_BYTES_PER_DISTINCT = 48
# pandas.read_csv's peak: per pair (the parsed columns) and fixed (the parser's buffers);
# measured about 26 bytes per pair over 80 MiB.
CSV_BYTES_PER_PAIR = 48
CSV_PARSER_BYTES = 128 << 20


def read_edgelist(path: Path, *, name: str) -> Graph:
    """Read an edge list; vertex i is the i-th smallest id that occurs in the file.

    Whitespace separates columns, columns after the second are ignored, and whether the
    graph is directed is decided by the data (some (u, v) listed without (v, u)).
    """
    with open_binary(path) as handle:
        ids = scan_pairs(handle, path, comments=b"#%", check=_scan_check(path))
    return _from_ids(ids, path, name, "'u v' lines")


def _scan_check(path: Path) -> Callable[[int, int], None]:
    """The scanner's budget check: the pairs read so far, projected to the whole file from its
    (decompressed) size, at the scan's bytes per pair."""
    with read_errors(path):
        total = text_size(path)

    def check(pairs: int, consumed: int) -> None:
        if consumed:
            pairs = pairs * max(total, consumed) // consumed
        memory.require(SCAN_BYTES_PER_PAIR * pairs + BLOCK_BYTES, f"graph file {path}")

    return check


def read_csv_edgelist(path: Path, *, name: str) -> Graph:
    """Read a comma-separated edge list (SNAP publishes some graphs so, e.g. twitch_gamers):
    ``u,v`` per line, an optional first line of column names, further columns ignored; ids
    relabelled as in :func:`read_edgelist`."""
    import pandas as pd

    with read_errors(path), open_binary(path) as handle:
        first_line = handle.readline()
        sample = first_line + handle.read(1 << 20)
    head = first_line.split(b",")[0].strip().lstrip(b"+-")
    header = 0 if head and not head.isdigit() else None
    if sample:  # pairs projected from the first MiB's line length
        lines = sample.count(b"\n") or 1
        with read_errors(path):
            pairs = text_size(path) * lines // len(sample)
        memory.require(CSV_BYTES_PER_PAIR * pairs + CSV_PARSER_BYTES, f"graph file {path}")
    try:
        with read_errors(path):
            frame = pd.read_csv(path, header=header, usecols=[0, 1], dtype=np.int64,
                                comment="#", skip_blank_lines=True, engine="c")  # fmt: skip
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(
            f"graph file {path} is not a comma-separated list of integer vertex ids "
            f"({excerpt(reason, 80)})"
        ) from None
    ids = np.concatenate([frame.iloc[:, 0].to_numpy(), frame.iloc[:, 1].to_numpy()])
    del frame
    return _from_ids(ids, path, name, "'u,v' lines")


def _from_ids(ids: np.ndarray, path: Path, name: str, form: str) -> Graph:
    """The graph of pairs (ids[i], ids[E + i]), relabelled in place."""
    if ids.size == 0:
        raise InputError(f"graph file {path} has no edges; an edge list needs {form}")
    n = relabel(ids, what=f"graph file {path}")
    require_for_edges(path, n, ids)
    half = ids.size // 2
    return from_edges(n, ids[:half], ids[half:], name=name, source=str(path))


def relabel(ids: np.ndarray, *, what: str = "edge list") -> int:
    """Replace the int64 ``ids`` in place by 0..n-1 in increasing order; returns n.

    Budget-checked (``what`` names the input in the message) before its tables are allocated.
    """
    low, high = int(ids.min()), int(ids.max())
    # Ids below the number of ids (the SNAP norm) go through a presence table no larger than
    # the ids; others are hashed. Both give the same order.
    if low >= 0 and high < ids.size:
        memory.require(ids.nbytes + 9 * (high + 1), what, held=ids.nbytes)
        present = np.zeros(high + 1, dtype=np.bool_)
        present[ids] = True
        new_id = np.cumsum(present, dtype=np.int64)
        del present
        new_id -= 1
        np.take(new_id, ids, out=ids, mode="clip")  # in range: clip never applies
        return int(new_id[-1]) + 1
    import pandas  # a hash table: several times faster than np.unique(return_inverse=True)

    distinct = min(ids.size, high - low + 1)
    memory.require(
        ids.nbytes + FACTORIZE_BYTES_PER_ID * ids.size + FACTORIZE_BYTES_PER_DISTINCT * distinct,
        what,
        held=ids.nbytes,
    )
    codes, uniques = pandas.factorize(ids, sort=False)
    rank = np.empty(uniques.size, dtype=np.int64)
    rank[np.argsort(uniques)] = np.arange(uniques.size)
    np.take(rank, codes, out=ids, mode="clip")
    return int(uniques.size)


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
