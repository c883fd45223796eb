"""Matrix Market (``.mtx``, ``.mtx.gz``) through fast_matrix_market; values are ignored."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from types import ModuleType
from typing import IO

from gcbench import memory
from gcbench.errors import InputError, excerpt
from gcbench.graphs.formats._io import (
    check_vertices,
    is_empty,
    is_gzip,
    open_binary,
    open_writer,
    read_errors,
    write_pairs,
)
from gcbench.graphs.graph import Graph, from_edges

# What fast_matrix_market allocates per stored entry: int32 row and column indices (int64
# from 2^31 rows, which gcbench refuses anyway) and the value, which gcbench then drops.
MTX_INDEX_BYTES = 8
MTX_VALUE_BYTES = {"complex": 16}  # every other field: 8 (pattern is read as float64)


def read_mtx(path: Path, *, name: str) -> Graph:
    """Read the pattern of a square coordinate Matrix Market file, keeping vertex ids.

    Only the stored triangle is read; :func:`from_edges` symmetrises it. A ``general`` matrix
    counts as directed input, the symmetric kinds (``symmetric``, ``skew-symmetric``,
    ``hermitian``) as undirected. Values of any field are ignored: ``kron_g500`` files carry
    integer multiplicities, not weights that change the graph.
    """
    fmm = _fast_matrix_market(path)
    with _fmm_errors(path):
        with _fmm_source(path) as source:
            header = fmm.read_header(source)
        if header.format != "coordinate":
            raise InputError(
                f"graph file {path} is a dense '{header.format}' Matrix Market file; "
                "graphs must be stored as 'coordinate' (sparse)"
            )
        if header.nrows != header.ncols:
            raise InputError(
                f"graph file {path} holds a {header.nrows}x{header.ncols} matrix; "
                "an adjacency matrix must be square"
            )
        check_vertices(path, header.nrows)
        entries = header.nnz
        values = MTX_VALUE_BYTES.get(header.field, 8) * entries
        build = memory.build_bytes(header.nrows, entries)
        memory.require(MTX_INDEX_BYTES * entries + max(values, build), f"graph file {path}")
        with _fmm_source(path) as source:
            (_, (rows, cols)), _ = fmm.read_coo(source, generalize_symmetry=False)
    return from_edges(
        header.nrows,
        rows,
        cols,
        name=name,
        source=str(path),
        directed_input=header.symmetry == "general",
    )


def write_mtx(graph: Graph, path: Path | str) -> None:
    """Write ``graph`` as a ``pattern symmetric`` Matrix Market file (lower triangle, 1-based)."""
    path = Path(path)
    rows, cols = graph.edges()  # rows < cols: swapped below to store the lower triangle
    with open_writer(path) as handle:
        header = (
            "%%MatrixMarket matrix coordinate pattern symmetric\n"
            f"% {graph.name}\n{graph.n} {graph.n} {graph.m}\n"
        )
        handle.write(header.encode())
        write_pairs(handle, cols + 1, rows + 1)


def _fast_matrix_market(path: Path) -> ModuleType:
    """Import fast_matrix_market on first use (it is not needed for any other format)."""
    try:
        import fast_matrix_market
    except ImportError as exc:
        raise InputError(
            f"reading {path} needs the fast_matrix_market package; pip install fast_matrix_market"
        ) from exc
    return fast_matrix_market


def _fmm_source(path: Path) -> AbstractContextManager[str | IO[bytes]]:
    """What fast_matrix_market reads: the path (its fast native reader) or, for gzip, our stream
    (so gzip is recognised by the same case-insensitive rule as every other format)."""
    return open_binary(path) if is_gzip(path) else nullcontext(str(path))


@contextmanager
def _fmm_errors(path: Path) -> Iterator[None]:
    """Name the file in fast_matrix_market's parse errors and say what to do."""
    with read_errors(path):
        try:
            yield
        except ValueError as exc:
            if is_empty(path):
                raise InputError(f"graph file {path} is empty; download or copy it again") from exc
            detail = excerpt(" ".join(str(exc).split()), 120)
            raise InputError(
                f"graph file {path} is not valid Matrix Market ({detail}); "
                "fix the file or download it again"
            ) from exc
