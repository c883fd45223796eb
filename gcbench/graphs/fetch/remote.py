"""Where an ``ss:``, ``snap:`` or ``dimacs:`` spec is downloaded from and cached
(docs/architecture.md, "Downloads").

SuiteSparse: ``<base>/MM/<GROUP>/<NAME>.tar.gz`` holding ``<NAME>/<NAME>.mtx``; base from
``GCBENCH_SUITESPARSE_URL``. SNAP: ``<base>/<NAME>.txt.gz``; base from ``GCBENCH_SNAP_URL``,
except the graphs in :data:`SNAP_FILES`, which SNAP publishes under other paths. DIMACS
coloring instances: ``<base>/<file>``, the file its catalogue entry names (a plain ``.col`` or
binary ``.col.b``, :mod:`gcbench.graphs.fetch.dimacs_instances`); base from
``GCBENCH_DIMACS_URL``. Cached as ``<data>/ss/<GROUP>/<NAME>.npz``, ``<data>/snap/<NAME>.npz``
and ``<data>/dimacs/<NAME>.npz``; the pattern of an ``ss:`` matrix (what the partial
distance-2 problems color) as ``<data>/ss/<GROUP>/<NAME>.pattern.npz``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from gcbench.errors import SpecError
from gcbench.graphs.fetch.dimacs_instances import instance

SUITESPARSE_URL = "https://sparse.tamu.edu"
SNAP_URL = "https://snap.stanford.edu/data"
DIMACS_URL = "https://mat.tepper.cmu.edu/COLOR/instances"

# Spec prefix → (collection, environment variable of its base URL, default base URL).
COLLECTIONS: dict[str, tuple[str, str, str]] = {
    "ss": ("SuiteSparse", "GCBENCH_SUITESPARSE_URL", SUITESPARSE_URL),
    "snap": ("SNAP", "GCBENCH_SNAP_URL", SNAP_URL),
    "dimacs": ("DIMACS", "GCBENCH_DIMACS_URL", DIMACS_URL),
}


@dataclass(frozen=True)
class SnapFile:
    """A SNAP graph published under a path other than ``<NAME>.txt.gz``.

    ``member`` names the edge list inside an archive (zip or tar.gz), None for a plain
    gzipped edge list.
    """

    path: str
    member: str | None = None


# The SNAP site's own file names (snap.stanford.edu/data/<page>.html links to these).
SNAP_FILES: dict[str, SnapFile] = {
    "com-Amazon": SnapFile("bigdata/communities/com-amazon.ungraph.txt.gz"),
    "com-DBLP": SnapFile("bigdata/communities/com-dblp.ungraph.txt.gz"),
    "com-Friendster": SnapFile("bigdata/communities/com-friendster.ungraph.txt.gz"),
    "com-LiveJournal": SnapFile("bigdata/communities/com-lj.ungraph.txt.gz"),
    "com-Orkut": SnapFile("bigdata/communities/com-orkut.ungraph.txt.gz"),
    "com-Youtube": SnapFile("bigdata/communities/com-youtube.ungraph.txt.gz"),
    "ego-Facebook": SnapFile("facebook_combined.txt.gz"),
    "gemsec-Facebook-artist": SnapFile("gemsec_facebook_dataset.tar.gz", "artist_edges.csv"),
    "twitch_gamers": SnapFile("twitch_gamers.zip", "large_twitch_edges.csv"),
}

# Names become cache paths: one path component of ordinary characters, never "." or "..".
_NAME = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]*")


@dataclass(frozen=True)
class Remote:
    """One downloadable graph: its spec, URL, cache file and what to read from the download."""

    spec: str
    url: str
    cache: Path
    download_name: str
    member: str | None
    """The file to read inside an archive; None when the download itself is the graph file."""
    compression: str | None = "gzip"
    """What a download read as it is must be (``"gzip"``), None for a plain file."""

    @property
    def collection(self) -> str:
        return COLLECTIONS[self.spec.partition(":")[0]][0]

    @property
    def pattern_cache(self) -> Path:
        """Where the matrix pattern of an ``ss:`` spec is cached (for the partial distance-2
        problems), beside the graph: ``<data>/ss/<GROUP>/<NAME>.pattern.npz``."""
        return self.cache.with_suffix(".pattern.npz")


def base_url(collection: str) -> str:
    """The base URL of ``"ss"``, ``"snap"`` or ``"dimacs"`` from the environment, without a
    trailing slash."""
    _, variable, default = COLLECTIONS[collection]
    return (os.environ.get(variable) or default).rstrip("/")


def is_remote(spec: str) -> bool:
    return spec.startswith(tuple(f"{prefix}:" for prefix in COLLECTIONS))


def split_ss(spec: str) -> tuple[str, str]:
    """``ss:GROUP/NAME`` → (GROUP, NAME), checked so that neither can escape the cache."""
    group, sep, name = spec.removeprefix("ss:").partition("/")
    if not (sep and _NAME.fullmatch(group) and _NAME.fullmatch(name)):
        raise SpecError(
            f"{spec!r} is not a SuiteSparse spec; write ss:GROUP/NAME, "
            "e.g. ss:DIMACS10/rgg_n_2_20_s0"
        )
    return group, name


def resolve(spec: str, data_dir: Path) -> Remote:
    """The download and cache locations of an ``ss:``, ``snap:`` or ``dimacs:`` spec; a
    ``dimacs:`` name must be in the catalogue (a SpecError naming the closest otherwise)."""
    if spec.startswith("ss:"):
        group, name = split_ss(spec)
        return Remote(
            spec,
            f"{base_url('ss')}/MM/{group}/{name}.tar.gz",
            Path(data_dir) / "ss" / group / f"{name}.npz",
            f"{name}.tar.gz",
            f"{name}/{name}.mtx",
        )
    if spec.startswith("snap:"):
        name = spec.removeprefix("snap:")
        if not _NAME.fullmatch(name):
            raise SpecError(
                f"{spec!r} is not a SNAP spec; write snap:NAME, e.g. snap:com-LiveJournal"
            )
        file = SNAP_FILES.get(name, SnapFile(f"{name}.txt.gz"))
        download_name = file.path.rsplit("/", 1)[-1]
        return Remote(
            spec,
            f"{base_url('snap')}/{file.path}",
            Path(data_dir) / "snap" / f"{name}.npz",
            download_name,
            file.member,
        )
    if spec.startswith("dimacs:"):
        entry = instance(spec.removeprefix("dimacs:"))
        return Remote(
            spec,
            f"{base_url('dimacs')}/{entry.file}",
            Path(data_dir) / "dimacs" / f"{entry.name}.npz",
            entry.file,
            member=None,
            compression=None,
        )
    raise SpecError(f"{spec!r} is not an ss:, snap: or dimacs: spec; only those are downloaded")
