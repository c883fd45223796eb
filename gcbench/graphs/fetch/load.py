"""``load_remote``: one ``ss:``/``snap:``/``dimacs:`` graph from the cache, or downloaded;
``load_remote_pattern``: the same for the matrix pattern of an ``ss:`` matrix.

Both go one way (:func:`_load`), told by a :class:`Stored` what the downloaded file is read
as and how it is cached: the graph as the ``.npz`` of
:mod:`gcbench.graphs.formats.npz`, the pattern as its ``.pattern.npz``.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Generic, TypeVar

from gcbench import memory
from gcbench.errors import FetchError, GraphTooLargeError, InputError, InsufficientMemoryError
from gcbench.graphs.fetch import extract, http
from gcbench.graphs.fetch.remote import Remote, resolve
from gcbench.graphs.formats import SUPPORTED_SUFFIXES, check_path, npz, read_graph
from gcbench.graphs.formats.mtx import read_mtx_pattern
from gcbench.graphs.graph import Graph
from gcbench.graphs.pattern import Pattern

_T = TypeVar("_T", Graph, Pattern)


@dataclass(frozen=True)
class Stored(Generic[_T]):
    """What a remote spec's download is read as, and how that is cached.

    ``cache``: where (from the :class:`Remote`); ``load``: the cached object for a spec, None
    when it must be built again; ``read``: the downloaded (extracted) file as the object,
    named by the spec and sourced by the URL; ``save``: write it to the cache as a spec.
    ``what`` and ``remedy`` word the offline refusal: "not in the cache{what}", then what to
    do instead (``{spec}`` and ``{host}`` filled in).
    """

    cache: Callable[[Remote], Path]
    load: Callable[[Path, str], _T | None]
    read: Callable[[Path, Remote], _T]
    save: Callable[[_T, Path, str], None]
    what: str
    remedy: str


def read_matrix(path: Path, *, name: str) -> Pattern:
    """The Matrix Market file at ``path`` as the pattern of the matrix it holds
    (:func:`read_mtx_pattern`), refused in one line when there is none, and a MemoryError that
    slips past its estimate turned into one line too: what :func:`read_graph` is for a
    graph, for a local ``.mtx`` path as for a download."""
    check_path(path)
    with memory.guard(f"reading matrix file {path}"):
        return read_mtx_pattern(path, name=name)


GRAPH: Stored[Graph] = Stored(
    cache=lambda remote: remote.cache,
    load=lambda path, spec: npz.load_cache(path, spec=spec),
    read=lambda path, remote: read_graph(path, name=remote.spec).with_name(
        remote.spec, source=remote.url
    ),
    save=lambda graph, path, spec: npz.save_cache(graph, path, spec=spec),
    what="",
    remedy="run gcbench fetch {spec} where {host} is reachable, or use a local path or a gen: spec",
)
PATTERN: Stored[Pattern] = Stored(
    cache=lambda remote: remote.pattern_cache,
    load=lambda path, spec: npz.load_pattern_cache(path, spec=spec),
    read=lambda path, remote: replace(read_matrix(path, name=remote.spec), source=remote.url),
    save=lambda pattern, path, spec: npz.save_pattern_cache(pattern, path, spec=spec),
    what=" as a matrix",
    remedy="load it once where {host} is reachable, or give the path of its .mtx file",
)


def load_remote(
    spec: str,
    *,
    data_dir: Path,
    offline: bool,
    refresh: bool = False,
    progress: bool | None = None,
) -> Graph:
    """The graph of an ``ss:GROUP/NAME``, ``snap:NAME`` or ``dimacs:NAME`` spec, from the cache
    or downloaded.

    ``refresh`` downloads again even when cached (the old cache file stays until the new one
    is complete). ``offline`` never touches the network: an uncached spec is a
    :class:`FetchError`. ``progress``: a download bar on stderr (None: when it is a terminal).
    The graph's name is ``spec`` and its source the URL it came from. Every FetchError names
    ``spec``; a cache that cannot be written is one too.
    """
    return _load(spec, GRAPH, Path(data_dir), offline, refresh, progress)


def load_remote_pattern(
    spec: str,
    *,
    data_dir: Path,
    offline: bool,
    refresh: bool = False,
    progress: bool | None = None,
) -> Pattern:
    """The pattern of the ``ss:GROUP/NAME`` matrix (read by :func:`read_matrix`: rectangular
    and unsymmetric kept, the diagonal kept), from its cache (:attr:`Remote.pattern_cache`) or
    downloaded, by the rules of :func:`load_remote`."""
    return _load(spec, PATTERN, Path(data_dir), offline, refresh, progress)


def _load(
    spec: str,
    stored: Stored[_T],
    data_dir: Path,
    offline: bool,
    refresh: bool,
    progress: bool | None,
) -> _T:
    """``spec`` as ``stored`` reads and caches it: from the cache, or downloaded."""
    remote = resolve(spec, data_dir)
    cache = stored.cache(remote)
    if not refresh:
        found = stored.load(cache, spec)
        if found is not None:
            return found
    if offline:
        remedy = stored.remedy.format(spec=spec, host=http.host_of(remote.url))
        raise FetchError(
            f"{spec} is not in the cache{stored.what} ({cache}) and offline mode forbids "
            f"downloading it; {remedy}"
        )
    _check_readable(remote)
    try:
        return _download(remote, stored, data_dir, progress)
    except FetchError as exc:
        raise exc.for_graph(spec) from None
    except InsufficientMemoryError as exc:
        raise InsufficientMemoryError(f"{spec}: {exc}") from None
    except OSError as exc:  # the cache directory, not the network (http turns those into errors)
        raise FetchError(
            f"{spec}: cannot write to the data cache {data_dir} "
            f"({exc.strerror or exc}); free some space or set GCBENCH_DATA to another directory"
        ) from None


def _check_readable(remote: Remote) -> None:
    """Refuse before downloading a file that gcbench.graphs.formats has no reader for."""
    inner = remote.member or remote.download_name
    if not inner.lower().endswith(SUPPORTED_SUFFIXES):
        raise FetchError(
            f"{remote.spec} is published as {inner} ({remote.url}), a format gcbench cannot "
            "read yet; convert it to a whitespace edge list and give its path"
        )


def _download(remote: Remote, stored: Stored[_T], data_dir: Path, progress: bool | None) -> _T:
    """Download, check, extract, read and cache ``remote`` as ``stored`` says; nothing is left
    behind on failure."""
    scratch = data_dir / ".tmp"
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(dir=scratch, prefix="fetch-") as work:
            download = http.download(
                remote.url, Path(work) / remote.download_name, progress=progress
            )
            if remote.member is None:
                if remote.compression is None:
                    extract.require_plain(download, remote.url)
                else:
                    extract.require(download, remote.compression, remote.url)
                path = download
            else:
                path = extract.extract_member(download, remote.member, Path(work), url=remote.url)
                download.unlink()
            try:
                found = stored.read(path, remote)
            except (InputError, GraphTooLargeError) as exc:
                raise FetchError(f"downloaded {remote.url} but cannot read it: {exc}") from None
            cache = stored.cache(remote)
            cache.parent.mkdir(parents=True, exist_ok=True)
            stored.save(found, cache, remote.spec)
    finally:
        with contextlib.suppress(OSError):
            scratch.rmdir()
    return found
