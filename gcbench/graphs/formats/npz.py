"""The ``.npz`` caches: normalised graphs saved once and reloaded without re-normalising, and
the matrix patterns of ``ss:`` matrices (``.pattern.npz``) for the partial distance-2
problems.

A cache file is trusted only when its format version and recorded spec match and its arrays
are well-formed; anything else is rebuilt by the caller (docs/architecture.md, "The graph").
Graph and pattern caches have different keys (:data:`GRAPH`, :data:`PATTERN`), so that a
reader of one passes the other by.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from gcbench import memory
from gcbench.errors import InputError, InsufficientMemoryError
from gcbench.graphs.bounds import Bounds
from gcbench.graphs.formats._io import check_vertices
from gcbench.graphs.graph import Graph, Normalisation, from_trusted_csr
from gcbench.graphs.pattern import Pattern, check_structure
from gcbench.outputs import replaced

if TYPE_CHECKING:
    from numpy.lib.npyio import NpzFile

FORMAT_VERSION = 1
PATTERN_FORMAT = 1

_NORMALISATION = tuple(f"normalisation_{f.name}" for f in dataclasses.fields(Normalisation))
# The graph's bounds (gcbench/graphs/bounds.py), written since they exist; a cache without
# them is still read, and they are computed again when asked for.
_BOUNDS = ("bounds_clique", "bounds_degeneracy")
_T = TypeVar("_T")


@dataclasses.dataclass(frozen=True)
class Layout:
    """The keys of one kind of cache file: what it is (``kind``), its format version and
    where that is stored, the keys of the spec and source it records, of its CSR arrays (row
    starts, ids) and every key it must hold; ``writer`` is the function that saves one."""

    kind: str
    version: int
    version_key: str
    spec_key: str
    source_key: str
    starts_key: str
    ids_key: str
    keys: tuple[str, ...]
    writer: str


GRAPH = Layout(
    "graph", FORMAT_VERSION, "format_version", "spec", "source", "indptr", "indices",
    ("format_version", "indptr", "indices", "name", "source", "spec", *_NORMALISATION),
    "gcbench.graphs.formats.save_cache",
)  # fmt: skip
PATTERN = Layout(
    "pattern", PATTERN_FORMAT, "pattern_format", "pattern_spec", "pattern_source",
    "row_starts", "column_ids",
    ("pattern_format", "pattern_spec", "pattern_source", "shape", "symmetric", "row_starts",
     "column_ids"),
    "gcbench.graphs.formats.npz.save_pattern_cache",
)  # fmt: skip
LAYOUTS = (GRAPH, PATTERN)


def save_cache(graph: Graph, path: Path | str, *, spec: str) -> None:
    """Write ``graph`` and its bounds (computed here when not yet known, so that they are
    computed once per cached graph; left out when the memory for them is lacking) to ``path``
    atomically (a temporary file renamed into place)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {
        "format_version": np.int64(FORMAT_VERSION),
        "indptr": graph.indptr,
        "indices": graph.indices,
        "name": np.str_(graph.name),
        "source": np.str_(graph.source),
        "spec": np.str_(spec),
    }
    with contextlib.suppress(InsufficientMemoryError):  # a cache without them is still one
        arrays["bounds_clique"] = np.int64(graph.bounds.clique)
        arrays["bounds_degeneracy"] = np.int64(graph.bounds.degeneracy)
    for key, value in zip(_NORMALISATION, dataclasses.astuple(graph.normalisation), strict=True):
        arrays[key] = np.asarray(value)
    _write(path, arrays)


def save_pattern_cache(pattern: Pattern, path: Path | str, *, spec: str) -> None:
    """Write ``pattern`` (cached as ``spec``) to ``path`` atomically, as :func:`save_cache`
    writes a graph."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write(
        path,
        {
            "pattern_format": np.int64(PATTERN_FORMAT),
            "pattern_spec": np.str_(spec),
            "pattern_source": np.str_(pattern.source),
            "shape": np.array([pattern.n_rows, pattern.n_cols], dtype=np.int64),
            "symmetric": np.bool_(pattern.symmetric),
            "row_starts": pattern.indptr,
            "column_ids": pattern.indices,
        },
    )


def _write(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` whole: to a temporary file in the same directory, so that
    the rename is atomic, opened with "x" (not mkstemp) so that the file gets the usual umask
    permissions instead of 0600."""
    with replaced(path) as temporary, open(temporary, "xb") as out:
        np.savez(out, **arrays)


def load_cache(path: Path | str, *, spec: str | None) -> Graph | None:
    """The graph cached at ``path``, or None when it must be rebuilt.

    None for a missing file, another format version, another recorded spec (when ``spec`` is
    given), an npz gcbench did not write, or a corrupt or truncated file. A cache written
    before graphs' bounds were cached gets them (computed and written once). A cache that is used
    has its modification time set to now: ``gcbench cache --older-than`` goes by it (access
    times move whenever anything reads the file, ``gcbench cache`` itself included).
    """
    try:
        graph = read_cache(Path(path), spec=spec)
    except InputError:
        return None
    missing = spec is not None and "bounds" not in graph.__dict__  # written before bounds
    if missing:
        with contextlib.suppress(InsufficientMemoryError):
            graph.bounds  # noqa: B018 (computed here, so that they are added to the file once)
    with contextlib.suppress(OSError):  # a read-only cache is still used
        if missing and "bounds" in graph.__dict__:
            save_cache(graph, path, spec=spec)
        os.utime(path)
    return graph


def load_pattern_cache(path: Path | str, *, spec: str) -> Pattern | None:
    """The pattern cached at ``path`` for ``spec``, or None when it must be rebuilt, by the
    rules of :func:`load_cache` (a used cache's modification time set to now too)."""
    path = Path(path)
    try:
        pattern = _read(path, PATTERN, spec, _pattern)
        check_structure(pattern)
    except InputError:
        return None
    with contextlib.suppress(OSError):  # a read-only cache is still used
        os.utime(path)
    return pattern


def _pattern(npz: NpzFile) -> Pattern:
    """The pattern a pattern cache holds, its dimensions checked (the arrays are checked by
    the caller)."""
    n_rows, n_cols = (int(v) for v in npz["shape"])
    if min(n_rows, n_cols) < 0:
        raise InputError(f"pattern cache of {npz['pattern_spec']} has shape {n_rows} × {n_cols}")
    return Pattern(
        str(npz["pattern_spec"]),
        n_rows,
        n_cols,
        npz["row_starts"],
        npz["column_ids"],
        str(npz["pattern_source"]),
        bool(npz["symmetric"]),
    )


def read_cache(path: Path, *, spec: str | None = None, name: str | None = None) -> Graph:
    """Load a cache file or raise an InputError that says why it cannot be used.

    The graph keeps its recorded name and source unless ``name`` is given (then the source is
    ``path``).
    """
    indptr, indices, stored_name, source, normalisation, stored_bounds = _read(
        path, GRAPH, spec, _graph_fields
    )
    _check_arrays(path, indptr, indices)
    if name is not None:
        stored_name, source = name, str(path)
    graph = from_trusted_csr(
        indptr, indices, name=stored_name, source=source, normalisation=normalisation
    )
    if len(stored_bounds) == len(_BOUNDS):
        graph.__dict__["bounds"] = Bounds(*stored_bounds)  # Graph.bounds, known already
    return graph


def _graph_fields(
    npz: NpzFile,
) -> tuple[np.ndarray, np.ndarray, str, str, Normalisation, list[int]]:
    """What a graph cache holds: CSR arrays, name, source, normalisation, bounds (if any)."""
    return (
        npz["indptr"],
        npz["indices"],
        str(npz["name"]),
        str(npz["source"]),
        Normalisation(*(npz[key].item() for key in _NORMALISATION)),
        [int(npz[key]) for key in _BOUNDS if key in npz.files],
    )


def _read(
    path: Path,
    layout: Layout,
    spec: str | None,
    build: Callable[[NpzFile], _T],
) -> _T:
    """``build`` of the open cache file at ``path`` once it has passed the checks of
    ``layout``: the memory budget, every key present, the format version, the recorded spec
    (when ``spec`` is given). An InputError says why a file fails them or cannot be read."""
    what = f"{layout.kind} file {path}"
    try:
        with np.load(path, allow_pickle=False) as npz:
            _require(path, npz.zip, layout)
            missing = [key for key in layout.keys if key not in npz.files]
            if missing:
                raise InputError(
                    f"{what} is not a gcbench {layout.kind} cache (no {', '.join(missing)}); "
                    f"save {layout.kind}s with {layout.writer}"
                )
            version = int(npz[layout.version_key])
            if version != layout.version:
                raise InputError(
                    f"{what} has cache format {version}, this gcbench reads "
                    f"{layout.version}; delete it and build it again"
                )
            recorded = str(npz[layout.spec_key])
            if spec is not None and recorded != spec:
                raise InputError(f"{what} caches {recorded!r}, not {spec!r}; build it again")
            return build(npz)
    except (OSError, EOFError, ValueError, TypeError, zipfile.BadZipFile) as exc:
        # numpy's reasons name its own remedies (allow_pickle) that do not apply here
        raise InputError(
            f"{what} is not a gcbench {layout.kind} cache (not a readable npz archive of "
            "arrays); delete it and build it again"
        ) from exc


def _require(path: Path, archive: zipfile.ZipFile, layout: Layout) -> None:
    """Budget check from the array headers, before the arrays are read: the row starts
    (int64) and ids (int32) themselves, and the checks' temporaries (np.diff of the starts,
    masks)."""
    starts, ids = f"{layout.starts_key}.npy", f"{layout.ids_key}.npy"
    if not {starts, ids} <= set(archive.namelist()):
        return  # not a gcbench cache: refused below, with the reason
    n = stored_length(archive, starts) - 1
    check_vertices(path, n)
    entries = stored_length(archive, ids)
    memory.require(17 * (n + 1) + 4 * entries + memory.HEADROOM, f"{layout.kind} file {path}")


def stored_length(archive: zipfile.ZipFile, member: str) -> int:
    """The length of a 1-d array stored in an npz, from its .npy header alone."""
    with archive.open(member) as f:
        major, _ = np.lib.format.read_magic(f)
        read_header = (
            np.lib.format.read_array_header_1_0
            if major == 1
            else np.lib.format.read_array_header_2_0
        )
        shape, _, _ = read_header(f)
    return int(shape[0]) if shape else 0


def _check_arrays(path: Path, indptr: np.ndarray, indices: np.ndarray) -> None:
    """Cheap structural checks (one pass, no sort): the full invariant held when it was saved."""
    well_formed = (
        indptr.dtype == np.int64
        and indices.dtype == np.int32
        and indptr.ndim == 1
        and indices.ndim == 1
        and indptr.size >= 1
        and indptr[0] == 0
        and indptr[-1] == indices.size
        and not np.any(np.diff(indptr) < 0)
        and (indices.size == 0 or (indices.min() >= 0 and indices.max() < indptr.size - 1))
    )
    if not well_formed:
        raise InputError(
            f"graph file {path} holds malformed CSR arrays; delete it and build it again"
        )
