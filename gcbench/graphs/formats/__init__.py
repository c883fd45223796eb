"""Graph file readers and writers, dispatched on the file extension, and the npz CSR cache.

Every reader normalises through :func:`gcbench.graphs.graph.from_edges`; see docs/formats.md.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gcbench import memory
from gcbench.errors import InputError
from gcbench.graphs.formats.dimacs import read_dimacs, write_dimacs
from gcbench.graphs.formats.dimacs_binary import read_dimacs_binary, write_dimacs_binary
from gcbench.graphs.formats.edgelist import read_csv_edgelist, read_edgelist, write_edgelist
from gcbench.graphs.formats.mtx import read_mtx, write_mtx
from gcbench.graphs.formats.npz import FORMAT_VERSION, load_cache, read_cache, save_cache
from gcbench.graphs.graph import Graph

__all__ = [
    "FORMAT_VERSION",
    "SUPPORTED_SUFFIXES",
    "load_cache",
    "read_graph",
    "save_cache",
    "write_dimacs",
    "write_dimacs_binary",
    "write_edgelist",
    "write_mtx",
]


def _read_npz(path: Path, *, name: str) -> Graph:
    return read_cache(path, spec=None, name=name)


_TEXT_READERS: dict[str, Callable[..., Graph]] = {
    ".mtx": read_mtx,
    ".txt": read_edgelist,
    ".el": read_edgelist,
    ".tsv": read_edgelist,
    ".edges": read_edgelist,
    ".csv": read_csv_edgelist,
    ".col": read_dimacs,
}
_READERS: dict[str, Callable[..., Graph]] = {
    **_TEXT_READERS,
    **{suffix + ".gz": reader for suffix, reader in _TEXT_READERS.items()},
    ".col.b": read_dimacs_binary,
    ".col.b.gz": read_dimacs_binary,
    ".npz": _read_npz,
}
SUPPORTED_SUFFIXES: tuple[str, ...] = tuple(_READERS)


def read_graph(path: Path | str, *, name: str | None = None) -> Graph:
    """Read the graph file at ``path``; ``name`` defaults to the file name without its suffix.

    The extension picks the reader (case-insensitive): Matrix Market, SNAP/plain edge list,
    DIMACS ``.col`` and binary ``.col.b`` (each optionally gzipped), or a gcbench ``.npz``
    cache.
    """
    path = Path(path)
    check_path(path)
    suffix = _suffix(path)
    stem = path.name[: len(path.name) - len(suffix)]
    with memory.guard(f"reading graph file {path}"):
        return _READERS[suffix](path, name=name or stem)


def check_path(path: Path) -> None:
    """Refuse, in the one wording every command uses, a graph path that does not exist or is
    not a file (a directory)."""
    if not path.exists():
        raise InputError(f"graph file {path} not found; check the path or use a gen: spec")
    if not path.is_file():
        raise InputError(f"graph file {path} is a directory, not a file; give the file's path")


def _suffix(path: Path) -> str:
    lower = path.name.lower()
    for suffix in sorted(_READERS, key=len, reverse=True):
        if lower.endswith(suffix):
            return suffix
    raise InputError(
        f"graph file {path} has an unsupported extension; use one of {', '.join(_READERS)}"
    )
