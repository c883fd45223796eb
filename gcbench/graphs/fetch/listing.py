"""``gcbench list graphs`` and ``gcbench cache``: what the cache holds, read from the ``.npz``
headers only, and removing what is no longer wanted.

Sizes come from the array headers inside each file, so listing a cache of multi-gigabyte
graphs reads a few kilobytes per graph. Graph caches and the pattern caches of ``ss:``
matrices (``.pattern.npz``, :data:`gcbench.graphs.formats.npz.PATTERN`) are both listed, each
with its ``kind``. Files that are not gcbench caches are skipped; caches written by another
format version are listed as stale (they will be rebuilt on next use).
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gcbench.graphs.fetch.remote import resolve
from gcbench.graphs.formats.npz import LAYOUTS, Layout, stored_length
from gcbench.resources import data_dir as default_data_dir


@dataclass(frozen=True)
class CachedGraph:
    """One cache file: its spec, size, where it came from, and whether it is still current.

    ``kind`` is ``"graph"`` (``n`` vertices, ``m`` edges) or ``"pattern"``, the matrix pattern
    of an ``ss:`` spec (``n`` rows, ``m`` nonzeros); :attr:`label` tells them apart in a
    listing, since both have the same spec."""

    spec: str
    n: int
    m: int
    bytes: int
    source: str
    path: Path
    stale: bool
    kind: str = "graph"

    @property
    def label(self) -> str:
        """The spec, and "(pattern)" after a pattern's."""
        return self.spec if self.kind == "graph" else f"{self.spec} ({self.kind})"

    @property
    def nnz(self) -> int:
        """Stored entries: 2m of a graph's symmetric CSR, a pattern's nonzeros."""
        return 2 * self.m if self.kind == "graph" else self.m


def cached_graphs(data_dir: Path | None = None) -> list[CachedGraph]:
    """Every graph and pattern cached under ``data_dir`` (default: the data directory), sorted
    by spec (a graph before its pattern)."""
    if data_dir is None:
        data_dir = default_data_dir()
    root = Path(data_dir)
    if not root.is_dir():
        return []
    found = []
    for path in root.rglob("*.npz"):
        if ".tmp" in path.relative_to(root).parts:
            continue
        entry = describe(path)
        if entry is not None:
            found.append(entry)
    return sorted(found, key=lambda g: (g.spec, str(g.path)))


def is_cached(spec: str, data_dir: Path | None = None, *, pattern: bool = False) -> bool:
    """Whether the remote graph ``spec`` (``ss:``/``snap:``/``dimacs:``), or with ``pattern``
    the matrix pattern of the ``ss:`` spec, is in the cache, current, so that an offline run
    can load it (its headers are read, not its arrays)."""
    remote = resolve(spec, Path(data_dir) if data_dir is not None else default_data_dir())
    path = remote.pattern_cache if pattern else remote.cache
    entry = describe(path) if path.is_file() else None
    kind = "pattern" if pattern else "graph"
    return entry is not None and not entry.stale and entry.spec == spec and entry.kind == kind


def describe(path: Path) -> CachedGraph | None:
    """One cache file, graph or pattern, from its headers (a few kilobytes read), None if it
    is not one."""
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            layout = next((lay for lay in LAYOUTS if _holds(names, lay)), None)
            if layout is None:
                return None
            rows = stored_length(zf, f"{layout.starts_key}.npy") - 1
            entries = stored_length(zf, f"{layout.ids_key}.npy")
        with np.load(path, allow_pickle=False) as npz:
            spec, source = str(npz[layout.spec_key]), str(npz[layout.source_key])
            version = int(npz[layout.version_key]) if layout.version_key in npz.files else None
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile):
        return None
    m = entries // 2 if layout.kind == "graph" else entries
    stale = version != layout.version
    return CachedGraph(spec, rows, m, path.stat().st_size, source, path, stale, layout.kind)


def _holds(names: set[str], layout: Layout) -> bool:
    """Whether an npz of members ``names`` has what a listing reads of ``layout``."""
    keys = (layout.spec_key, layout.source_key, layout.starts_key, layout.ids_key)
    return {f"{key}.npy" for key in keys} <= names


def last_used(graph: CachedGraph) -> float:
    """When the graph or pattern was last built or loaded from the cache (seconds since the
    epoch): its file's modification time, which :func:`gcbench.graphs.formats.npz.load_cache`
    and :func:`~gcbench.graphs.formats.npz.load_pattern_cache` set on use."""
    return graph.path.stat().st_mtime


def remove(graphs: list[CachedGraph]) -> int:
    """Delete the cache files of ``graphs``; returns the bytes freed (on disk)."""
    freed = 0
    for graph in graphs:
        try:
            size = graph.path.stat().st_size
            graph.path.unlink()
        except FileNotFoundError:
            continue
        freed += size
    return freed
