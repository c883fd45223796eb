"""File plumbing shared by the readers and writers: gzip by extension, error translation, and
the readers' checks of a declared size against int32 vertex ids and the memory budget."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import numpy as np

from gcbench import memory
from gcbench.errors import GraphTooLargeError, InputError
from gcbench.graphs.graph import INT32_LIMIT

# Pairs formatted per write call: bounds the text held in memory while writing.
_WRITE_BATCH = 1 << 20


def is_gzip(path: Path) -> bool:
    return path.name.lower().endswith(".gz")


def open_binary(path: Path) -> IO[bytes]:
    """Open ``path`` for reading bytes, decompressing when its name ends in ``.gz``."""
    try:
        return gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise InputError(f"cannot open graph file {path}: {exc.strerror or exc}") from exc


@contextmanager
def read_errors(path: Path) -> Iterator[None]:
    """Turn decompression and I/O failures while reading ``path`` into one-line InputErrors."""
    try:
        yield
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise InputError(
            f"graph file {path} is not a complete gzip stream ({exc}); download or copy it again"
        ) from exc
    except OSError as exc:
        raise InputError(f"cannot read graph file {path}: {exc.strerror or exc}") from exc


def text_size(path: Path) -> int:
    """Bytes of ``path`` once decompressed, for projecting its edge count: the file size, or
    for gzip the size its trailer records (modulo 2^32, so at least the compressed size)."""
    size = path.stat().st_size
    if not is_gzip(path) or size < 18:
        return size
    with open(path, "rb") as handle:
        handle.seek(-4, 2)
        return max(size, int.from_bytes(handle.read(4), "little"))


def is_empty(path: Path) -> bool:
    """True when ``path`` holds no bytes once decompressed."""
    with read_errors(path), open_binary(path) as handle:
        return handle.read(1) == b""


@contextmanager
def open_writer(path: Path) -> Iterator[IO[bytes]]:
    """Open ``path`` for writing bytes, gzip-compressed when its name ends in ``.gz``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if is_gzip(path):
        with gzip.open(path, "wb", compresslevel=6) as handle:
            yield handle
    else:
        with open(path, "wb") as handle:
            yield handle


def write_pairs(handle: IO[bytes], first: np.ndarray, second: np.ndarray, prefix: str = "") -> None:
    """Write one ``<prefix>a b`` line per pair, formatting a batch of pairs per call."""
    line = prefix + "%d %d\n"
    for start in range(0, first.size, _WRITE_BATCH):
        stop = min(start + _WRITE_BATCH, first.size)
        pairs = np.column_stack((first[start:stop], second[start:stop])).ravel().tolist()
        handle.write(((line * (stop - start)) % tuple(pairs)).encode("ascii"))


def check_vertices(path: Path, n: int) -> None:
    """Refuse a declared vertex count that int32 vertex ids cannot number (docs/architecture.md,
    "The graph")."""
    if n > INT32_LIMIT:
        raise GraphTooLargeError(
            f"graph file {path} declares {n} vertices; gcbench numbers vertices with int32 ids "
            f"(at most {INT32_LIMIT})"
        )


def require_for_edges(path: Path, n: int, ids: np.ndarray) -> None:
    """Budget check before :func:`gcbench.graphs.graph.from_edges` builds the CSR of the pairs whose
    ids the reader holds in ``ids`` (first ids, then second ids)."""
    memory.require(
        ids.nbytes + memory.build_bytes(n, ids.size // 2), f"graph file {path}", held=ids.nbytes
    )
