"""The ``.npz`` CSR cache: normalised graphs saved once and reloaded without re-normalising.

A cache file is trusted only when its format version and recorded spec match and its arrays
are well-formed; anything else is rebuilt by the caller (docs/architecture.md, "The graph").
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import zipfile
from pathlib import Path

import numpy as np

from gcbench import memory
from gcbench.errors import InputError, InsufficientMemoryError
from gcbench.graphs.bounds import Bounds
from gcbench.graphs.formats._io import check_vertices
from gcbench.graphs.graph import Graph, Normalisation, from_trusted_csr

FORMAT_VERSION = 1

_NORMALISATION = tuple(f"normalisation_{f.name}" for f in dataclasses.fields(Normalisation))
_KEYS = ("format_version", "indptr", "indices", "name", "source", "spec", *_NORMALISATION)
# The graph's bounds (gcbench/graphs/bounds.py), written since they exist; a cache without
# them is still read, and they are computed again when asked for.
_BOUNDS = ("bounds_clique", "bounds_degeneracy")


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
    # Same directory, so the rename is atomic; opened with "x" (not mkstemp) so the file gets
    # the usual umask permissions instead of 0600.
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temporary, "xb") as out:
            np.savez(out, **arrays)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


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


def read_cache(path: Path, *, spec: str | None = None, name: str | None = None) -> Graph:
    """Load a cache file or raise an InputError that says why it cannot be used.

    The graph keeps its recorded name and source unless ``name`` is given (then the source is
    ``path``).
    """
    try:
        with np.load(path, allow_pickle=False) as npz:
            _require(path, npz.zip)
            missing = [key for key in _KEYS if key not in npz.files]
            if missing:
                raise InputError(
                    f"graph file {path} is not a gcbench graph cache (no {', '.join(missing)}); "
                    "save graphs with gcbench.graphs.formats.save_cache"
                )
            version = int(npz["format_version"])
            if version != FORMAT_VERSION:
                raise InputError(
                    f"graph file {path} has cache format {version}, this gcbench reads "
                    f"{FORMAT_VERSION}; delete it and build it again"
                )
            recorded = str(npz["spec"])
            if spec is not None and recorded != spec:
                raise InputError(
                    f"graph file {path} caches {recorded!r}, not {spec!r}; build it again"
                )
            indptr, indices = npz["indptr"], npz["indices"]
            stored_name, source = str(npz["name"]), str(npz["source"])
            normalisation = Normalisation(*(npz[key].item() for key in _NORMALISATION))
            stored_bounds = [int(npz[key]) for key in _BOUNDS if key in npz.files]
    except (OSError, EOFError, ValueError, TypeError, zipfile.BadZipFile) as exc:
        # numpy's reasons name its own remedies (allow_pickle) that do not apply here
        raise InputError(
            f"graph file {path} is not a gcbench graph cache (not a readable npz archive of "
            "arrays); delete it and build it again"
        ) from exc
    _check_arrays(path, indptr, indices)
    if name is not None:
        stored_name, source = name, str(path)
    graph = from_trusted_csr(
        indptr, indices, name=stored_name, source=source, normalisation=normalisation
    )
    if len(stored_bounds) == len(_BOUNDS):
        graph.__dict__["bounds"] = Bounds(*stored_bounds)  # Graph.bounds, known already
    return graph


def _require(path: Path, archive: zipfile.ZipFile) -> None:
    """Budget check from the array headers, before the arrays are read: indptr (int64) and
    indices (int32) themselves, and the checks' temporaries (np.diff of indptr, masks)."""
    names = set(archive.namelist())
    if not {"indptr.npy", "indices.npy"} <= names:
        return  # not a gcbench cache: refused below, with the reason
    n = stored_length(archive, "indptr.npy") - 1
    check_vertices(path, n)
    entries = stored_length(archive, "indices.npy")
    memory.require(17 * (n + 1) + 4 * entries + memory.HEADROOM, f"graph file {path}")


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
