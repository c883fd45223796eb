"""Matrix Market (``.mtx``, ``.mtx.gz``) through fast_matrix_market, read as a graph or as a
matrix pattern; values are ignored."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from types import ModuleType
from typing import IO, Any

import numpy as np

from gcbench import memory
from gcbench.errors import GraphTooLargeError, InputError, MatrixInputError, excerpt
from gcbench.graphs.formats._io import (
    check_vertices,
    is_empty,
    is_gzip,
    open_binary,
    open_writer,
    read_errors,
    write_pairs,
)
from gcbench.graphs.graph import INT32_LIMIT, Graph, from_edges
from gcbench.graphs.pattern import Pattern, from_entries
from gcbench.graphs.pattern import build_bytes as pattern_build_bytes

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
        header = _coordinate_header(fmm, path)
        if header.nrows != header.ncols:
            raise MatrixInputError(
                f"graph file {path} holds a {header.nrows}x{header.ncols} matrix; "
                "an adjacency matrix must be square",
                "color a rectangular matrix with --problem pd2 or pd2-rows",
            )
        check_vertices(path, header.nrows)
        build = memory.build_bytes(header.nrows, header.nnz)
        rows, cols = _stored_entries(fmm, path, header, header.nnz, build)
    return from_edges(
        header.nrows,
        rows,
        cols,
        name=name,
        source=str(path),
        directed_input=header.symmetry == "general",
    )


def read_mtx_pattern(path: Path, *, name: str) -> Pattern:
    """Read a coordinate Matrix Market file as the pattern of the matrix it holds, for the
    partial distance-2 problems (docs/formats.md, "Matrix Market as a matrix pattern").

    Rectangular matrices are read as they are. A ``general`` file's entries are the pattern,
    nothing symmetrised; the symmetric kinds (``symmetric``, ``skew-symmetric``,
    ``hermitian``) store one triangle of a square matrix, which is mirrored, so the pattern is
    its own transpose. The diagonal is kept, duplicates count once, values of any field are
    ignored.
    """
    fmm = _fast_matrix_market(path)
    with _fmm_errors(path):
        header = _coordinate_header(fmm, path)
        mirrored = header.symmetry != "general"
        if mirrored and header.nrows != header.ncols:
            raise InputError(
                f"graph file {path} is a {header.nrows}x{header.ncols} '{header.symmetry}' "
                "matrix, but only a square matrix can be stored as one triangle; fix the "
                "header (general) or the size line"
            )
        if max(header.nrows, header.ncols) > INT32_LIMIT:
            raise GraphTooLargeError(
                f"graph file {path} declares a {header.nrows}x{header.ncols} matrix; gcbench "
                f"numbers rows and columns with int32 ids (at most {INT32_LIMIT})"
            )
        entries = header.nnz * (2 if mirrored else 1)
        build = pattern_build_bytes(header.nrows, entries)
        rows, cols = _stored_entries(fmm, path, header, entries, build)
    if mirrored:
        rows, cols = np.concatenate((rows, cols)), np.concatenate((cols, rows))
    return from_entries(
        header.nrows,
        header.ncols,
        rows,
        cols,
        name=name,
        source=str(path),
        symmetric=mirrored,
    )


def _coordinate_header(fmm: ModuleType, path: Path) -> Any:
    """The header of ``path``, refused unless it describes a coordinate (sparse) file."""
    with _fmm_source(path) as source:
        header = fmm.read_header(source)
    if header.format != "coordinate":
        raise InputError(
            f"graph file {path} is a dense '{header.format}' Matrix Market file; "
            "graphs and matrices must be stored as 'coordinate' (sparse)"
        )
    return header


def _stored_entries(
    fmm: ModuleType, path: Path, header: Any, entries: int, build: int
) -> tuple[np.ndarray, np.ndarray]:
    """The stored entries of ``path`` (0-based row and column ids, int32), once the budget
    allows fast_matrix_market's index arrays for ``entries`` entries (what the caller holds
    at most) and the larger of its value array, dropped on return, and ``build``, the bytes
    the caller's builder needs beyond its input."""
    values = MTX_VALUE_BYTES.get(header.field, 8) * header.nnz
    memory.require(MTX_INDEX_BYTES * entries + max(values, build), f"graph file {path}")
    with _fmm_source(path) as source:
        (_, (rows, cols)), _ = fmm.read_coo(source, generalize_symmetry=False)
    return rows, cols


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
