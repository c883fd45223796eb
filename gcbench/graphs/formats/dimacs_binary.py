"""DIMACS binary graph-coloring files (``.col.b``), the format of the DSJ and flat instances.

Layout (docs/formats.md, "DIMACS binary ``.col.b``"): a decimal number L and a newline; L bytes
of preamble text (``c`` comment lines and a ``p edge N M`` line); then the lower triangle of the
adjacency matrix, row i = 0..N-1 in exactly (i + 8) // 8 bytes, bit j of row i (j <= i) set when
vertices i and j are adjacent, in byte j >> 3 under mask 0x80 >> (j & 7) (most significant bit
first). Vertex ids are the row and bit numbers (0-based).
"""

from __future__ import annotations

import bisect
import io
from pathlib import Path
from typing import IO, Any

import numpy as np

from gcbench import memory
from gcbench.errors import InputError, excerpt
from gcbench.graphs.formats._io import (
    check_vertices,
    is_gzip,
    open_binary,
    open_writer,
    read_errors,
    require_for_edges,
)
from gcbench.graphs.formats.dimacs import check_declared_edges, read_problem_line
from gcbench.graphs.graph import Graph, from_edges

CHUNK = 1 << 17  # bitmap bytes decoded at a time (whole rows; one row if a row is longer)
# What decoding a chunk of c bytes holds at most: the bytes, their bits unpacked (one byte
# each) and, for each of up to 8c bits set, its position, byte, row and column (int64) and the
# int32 pair kept.
_CHUNK_BYTES_PER_BYTE = 1 + 8 + 8 * (4 * 8 + 8)
# Bytes per edge while decoding: the kept int32 pairs, then their concatenation.
_BYTES_PER_EDGE = 16
_LENGTH_LINE = 32  # the preamble length's line is read with this limit


def row_offset(row: Any) -> Any:
    """Where row ``row`` starts in the bitmap (bytes): sum of (r + 8) // 8 over r < row; of
    each row when ``row`` is an int64 array."""
    q, s = divmod(row, 8)
    return row + 4 * q * (q - 1) + s * q


def read_dimacs_binary(path: Path, *, name: str) -> Graph:
    """Read a DIMACS binary ``.col.b`` file; vertex ids are the bitmap's rows (0-based).

    The M of the ``p`` line must equal the bits set or twice them (the published files count
    each edge twice in several cases); it is checked, not recorded.
    """
    with open_binary(path) as handle:
        n, m = _read_preamble(handle, path)
        check_vertices(path, n)
        size = row_offset(n)
        if not is_gzip(path):  # sizes known up front: refuse before decoding anything
            _check_body_size(path, n, size, path.stat().st_size - handle.tell())
        peak = _CHUNK_BYTES_PER_BYTE * max(CHUNK, n // 8 + 1)
        memory.require(_BYTES_PER_EDGE * m + peak, f"graph file {path}")
        ids = _decode(handle, path, n, m, size)
    found = ids.size // 2
    check_declared_edges(path, m, found, "bits set in its bitmap")
    require_for_edges(path, n, ids)
    return from_edges(
        n, ids[:found], ids[found:], name=name, source=str(path), directed_input=False
    )


def _read_preamble(handle: IO[bytes], path: Path) -> tuple[int, int]:
    """Consume the length line and the preamble; returns the ``p`` line's (N, M)."""
    with read_errors(path):
        first = handle.readline(_LENGTH_LINE)
    digits = first.rstrip(b"\r\n")
    if not (first.endswith(b"\n") and digits.isdigit()):
        raise InputError(
            f"graph file {path} does not start with its preamble's length (a number on a line "
            f"of its own), got {excerpt(first)}; is it a DIMACS binary .col.b file?"
        )
    length = int(digits)
    if not is_gzip(path):
        left = path.stat().st_size - handle.tell()
        if length > left:
            raise _preamble_too_long(path, length, left)
    preamble = _read_exact(handle, path, length)
    if len(preamble) < length:
        raise _preamble_too_long(path, length, len(preamble))
    # Line 1 of the file is the length: a stand-in comment keeps the line numbers of the
    # messages the file's own.
    text = io.BytesIO(b"c\n" + preamble)
    n, m, lines = read_problem_line(text, path)
    for raw in text:
        lines += 1
        stripped = raw.strip()
        if stripped and not stripped.startswith(b"c"):
            raise InputError(
                f"graph file {path} line {lines}: expected only c comment lines after the "
                f"p line in the preamble, got {excerpt(raw)}"
            )
    return n, m


def _preamble_too_long(path: Path, length: int, left: int) -> InputError:
    return InputError(
        f"graph file {path}: its first line gives a preamble of {length} bytes but only {left} "
        "bytes follow; the file is truncated or not a DIMACS binary file"
    )


def _check_body_size(path: Path, n: int, size: int, left: int) -> None:
    """Refuse a bitmap shorter (truncated) or longer (trailing bytes) than N rows take."""
    if left < size:
        raise InputError(
            f"graph file {path} is truncated: the bitmap of {n} vertices takes {size} bytes "
            f"after the preamble but the file has {left}; download or copy it again"
        )
    if left > size:
        raise InputError(
            f"graph file {path} has {left - size} bytes after the bitmap of {n} vertices "
            f"({size} bytes); the p line's vertex count or the file is wrong"
        )


def _read_exact(handle: IO[bytes], path: Path, count: int) -> bytes:
    """Up to ``count`` bytes (fewer only at the end of the file), read in bounded pieces."""
    parts, left = [], count
    with read_errors(path):
        while left > 0:
            part = handle.read(min(left, 1 << 20))
            if not part:
                break
            parts.append(part)
            left -= len(part)
    return b"".join(parts)


def _chunk_end(first: int, n: int) -> int:
    """The row after the last of a chunk starting at row ``first``: as many whole rows as fit
    :data:`CHUNK` bytes, at least one."""
    start = row_offset(first)
    rows = range(first + 1, n + 1)
    fit = bisect.bisect_right(rows, CHUNK, key=lambda r: row_offset(r) - start)
    return first + max(fit, 1)


def _decode(handle: IO[bytes], path: Path, n: int, m: int, size: int) -> np.ndarray:
    """The bitmap's edges as one int32 array: every row id, then every column id."""
    rows_found: list[np.ndarray] = []
    cols_found: list[np.ndarray] = []
    found, first = 0, 0
    while first < n:
        end = _chunk_end(first, n)
        start = row_offset(first)
        want = row_offset(end) - start
        data = _read_exact(handle, path, want)
        if len(data) < want:
            _check_body_size(path, n, size, start + len(data))
        pos = np.flatnonzero(np.unpackbits(np.frombuffer(data, dtype=np.uint8)))
        if pos.size:
            byte = pos >> 3
            starts = row_offset(np.arange(first, end, dtype=np.int64)) - start
            local = np.searchsorted(starts, byte, side="right") - 1
            col = ((byte - starts[local]) << 3) | (pos & 7)
            row = local + first
            bad = np.flatnonzero(col > row)
            if bad.size:
                i, j = int(row[bad[0]]), int(col[bad[0]])
                raise InputError(
                    f"graph file {path}: bitmap row {i} sets bit {j}; a row i holds bits "
                    "0..i only (the rest of its last byte must be 0)"
                )
            found += pos.size
            if found > m:
                raise InputError(
                    f"graph file {path}: its bitmap sets more bits than the p line's {m} "
                    "edges; fix the count in the p line"
                )
            rows_found.append(row.astype(np.int32))
            cols_found.append(col.astype(np.int32))
        first = end
    with read_errors(path):
        extra = handle.read(1 << 20)
    if extra:
        _check_body_size(path, n, size, size + len(extra))
    return np.concatenate([*rows_found, *cols_found]) if found else np.empty(0, np.int32)


def write_dimacs_binary(graph: Graph, path: Path | str) -> None:
    """Write ``graph`` as a DIMACS binary ``.col.b`` file (``p edge N M`` with M = its edges,
    each once; gzip-compressed when ``path`` ends in ``.gz``)."""
    path = Path(path)
    lower, higher = graph.edges()  # each edge once, lower id first: row higher, bit lower
    rows, cols = higher.astype(np.int64), lower.astype(np.int64)
    bitmap = np.zeros(row_offset(graph.n), dtype=np.uint8)
    masks = np.right_shift(0x80, cols & 7).astype(np.uint8)
    np.bitwise_or.at(bitmap, row_offset(rows) + (cols >> 3), masks)
    preamble = f"c {graph.name}\np edge {graph.n} {graph.m}\n".encode()
    with open_writer(path) as handle:
        handle.write(b"%d\n" % len(preamble) + preamble)
        handle.write(bitmap.tobytes())
