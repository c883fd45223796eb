"""Where an ``ss:`` or ``snap:`` spec is downloaded from and cached (docs/architecture.md,
"Downloads").

SuiteSparse: ``<base>/MM/<GROUP>/<NAME>.tar.gz`` holding ``<NAME>/<NAME>.mtx``; base from
``GCBENCH_SUITESPARSE_URL``. SNAP: ``<base>/<NAME>.txt.gz``; base from ``GCBENCH_SNAP_URL``,
except the graphs in :data:`SNAP_FILES`, which SNAP publishes under other paths. Cached as
``<data>/ss/<GROUP>/<NAME>.npz`` and ``<data>/snap/<NAME>.npz``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from gcbench.errors import SpecError

SUITESPARSE_URL = "https://sparse.tamu.edu"
SNAP_URL = "https://snap.stanford.edu/data"


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
    """The file to read inside an archive; None when the download itself is the edge list."""

    @property
    def collection(self) -> str:
        return "SuiteSparse" if self.spec.startswith("ss:") else "SNAP"


def base_url(collection: str) -> str:
    """The base URL of ``"ss"`` or ``"snap"`` from the environment, without a trailing slash."""
    if collection == "ss":
        value = os.environ.get("GCBENCH_SUITESPARSE_URL") or SUITESPARSE_URL
    else:
        value = os.environ.get("GCBENCH_SNAP_URL") or SNAP_URL
    return value.rstrip("/")


def is_remote(spec: str) -> bool:
    return spec.startswith(("ss:", "snap:"))


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
    """The download and cache locations of an ``ss:`` or ``snap:`` spec."""
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
    raise SpecError(f"{spec!r} is not an ss: or snap: spec; only those are downloaded")
