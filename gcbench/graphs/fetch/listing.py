"""``gcbench list graphs`` and ``gcbench cache``: what the cache holds, read from the ``.npz``
headers only, and removing what is no longer wanted.

Sizes come from the array headers inside each file, so listing a cache of multi-gigabyte
graphs reads a few kilobytes per graph. Files that are not gcbench caches are skipped; caches
written by another format version are listed as stale (they will be rebuilt on next use).
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gcbench.graphs.fetch.remote import resolve
from gcbench.resources import data_dir as default_data_dir


@dataclass(frozen=True)
class CachedGraph:
    """One cache file: its spec, size, where it came from, and whether it is still current."""

    spec: str
    n: int
    m: int
    bytes: int
    source: str
    path: Path
    stale: bool


def cached_graphs(data_dir: Path | None = None) -> list[CachedGraph]:
    """Every graph cached under ``data_dir`` (default: the data directory), sorted by spec."""
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


def is_cached(spec: str, data_dir: Path | None = None) -> bool:
    """Whether the remote graph ``spec`` (``ss:``/``snap:``/``dimacs:``) is in the cache,
    current, so that an offline run can load it (its headers are read, not its arrays)."""
    path = resolve(spec, Path(data_dir) if data_dir is not None else default_data_dir()).cache
    entry = describe(path) if path.is_file() else None
    return entry is not None and not entry.stale and entry.spec == spec


def describe(path: Path) -> CachedGraph | None:
    """One cache file from its headers (a few kilobytes read), None if it is not one."""
    from gcbench.graphs.formats import FORMAT_VERSION
    from gcbench.graphs.formats.npz import stored_length

    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            if not {"spec.npy", "source.npy", "indptr.npy", "indices.npy"} <= names:
                return None
            rows = stored_length(zf, "indptr.npy") - 1
            entries = stored_length(zf, "indices.npy")
        with np.load(path, allow_pickle=False) as npz:
            spec, source = str(npz["spec"]), str(npz["source"])
            version = int(npz["format_version"]) if "format_version" in npz.files else None
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile):
        return None
    return CachedGraph(
        spec, rows, entries // 2, path.stat().st_size, source, path, version != FORMAT_VERSION
    )


def last_used(graph: CachedGraph) -> float:
    """When the graph was last built or loaded from the cache (seconds since the epoch): its
    file's modification time, which :func:`gcbench.graphs.formats.npz.load_cache` sets on use."""
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
