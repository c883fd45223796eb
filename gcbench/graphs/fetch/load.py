"""``load_remote``: one ``ss:``/``snap:``/``dimacs:`` graph from the cache, or downloaded."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

from gcbench.errors import FetchError, GraphTooLargeError, InputError, InsufficientMemoryError
from gcbench.graphs.fetch import extract, http
from gcbench.graphs.fetch.remote import Remote, resolve
from gcbench.graphs.graph import Graph


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
    from gcbench.graphs.formats import npz

    remote = resolve(spec, Path(data_dir))
    if not refresh:
        graph = npz.load_cache(remote.cache, spec=spec)
        if graph is not None:
            return graph
    if offline:
        raise FetchError(
            f"{spec} is not in the cache ({remote.cache}) and offline mode forbids downloading "
            f"it; run gcbench fetch {spec} where {http.host_of(remote.url)} is reachable, "
            "or use a local path or a gen: spec"
        )
    _check_readable(remote)
    try:
        return _download(remote, Path(data_dir), progress)
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
    from gcbench.graphs.formats import SUPPORTED_SUFFIXES

    inner = remote.member or remote.download_name
    if not inner.lower().endswith(SUPPORTED_SUFFIXES):
        raise FetchError(
            f"{remote.spec} is published as {inner} ({remote.url}), a format gcbench cannot "
            "read yet; convert it to a whitespace edge list and give its path"
        )


def _download(remote: Remote, data_dir: Path, progress: bool | None) -> Graph:
    """Download, check, extract, read and cache ``remote``; nothing is left behind on failure."""
    from gcbench.graphs.formats import npz, read_graph

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
                graph = read_graph(path, name=remote.spec)
            except (InputError, GraphTooLargeError) as exc:
                raise FetchError(f"downloaded {remote.url} but cannot read it: {exc}") from None
            graph = graph.with_name(remote.spec, source=remote.url)
            remote.cache.parent.mkdir(parents=True, exist_ok=True)
            npz.save_cache(graph, remote.cache, spec=remote.spec)
    finally:
        with contextlib.suppress(OSError):
            scratch.rmdir()
    return graph
