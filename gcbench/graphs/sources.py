"""Graph specs (docs/architecture.md, "The graph") → Graph, and the data cache directory.

A spec is ``gen:FAMILY?k=v&k=v`` (generated, see :mod:`gcbench.graphs.generators`),
``ss:GROUP/NAME`` (SuiteSparse), ``snap:NAME`` (SNAP), ``dimacs:NAME`` (a DIMACS coloring
instance) or a file path. Its canonical form names the graph everywhere (the CSV ``graph``
column, the cache key). Grammar and decisions: docs/graphs.md.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from gcbench.errors import SpecError, excerpt, shown
from gcbench.graphs.generators import Number, get_family
from gcbench.graphs.graph import Graph
from gcbench.resources import data_dir

SpecKind = Literal["gen", "ss", "snap", "dimacs", "path"]

KINDS = ("gen", "ss", "snap", "dimacs")
_NAME = r"[A-Za-z0-9_.+-]+"
_REMOTE = {
    "ss": re.compile(rf"{_NAME}/{_NAME}"),
    "snap": re.compile(_NAME),
    "dimacs": re.compile(_NAME),
}
_REMOTE_FORM = {"ss": "ss:GROUP/NAME", "snap": "snap:NAME", "dimacs": "dimacs:NAME"}
_FORMS = "gen:FAMILY?k=v, ss:GROUP/NAME, snap:NAME, dimacs:NAME"
_FAMILY = re.compile(r"[a-z0-9_]+")


def _root(given: Path | str | None) -> Path:
    return Path(given).expanduser() if given is not None else data_dir()


@dataclass(frozen=True)
class GraphSpec:
    """A parsed spec. ``name`` is the gen family, the SuiteSparse ``GROUP/NAME``, the SNAP or
    DIMACS ``NAME`` or the path; ``params`` holds a gen spec's resolved parameters (defaults
    filled)."""

    kind: SpecKind
    name: str
    params: dict[str, Number] = field(default_factory=dict)

    @property
    def canonical(self) -> str:
        if self.kind == "gen":
            return get_family(self.name).spec(self.params)
        if self.kind == "path":
            return self.name
        return f"{self.kind}:{self.name}"


def parse_spec(spec: str | os.PathLike[str]) -> GraphSpec:
    """Parse and check ``spec``; unknown kinds, families, parameters or bad values → SpecError."""
    text = str(spec).strip()
    kind, sep, rest = text.partition(":")
    if not text:
        raise SpecError(f"empty graph spec; give {_FORMS} or a path")
    if not sep or (kind not in KINDS and Path(text).exists()):
        return GraphSpec("path", os.path.normpath(os.path.expanduser(text)))
    if kind == "gen":
        return _parse_gen(text, rest)
    if kind in _REMOTE:
        if not _REMOTE[kind].fullmatch(rest):
            raise SpecError(f"{shown(text)}: malformed spec; expected {_REMOTE_FORM[kind]}")
        if kind == "dimacs":  # a name the catalogue lacks fails here, before any download
            from gcbench.graphs.fetch.dimacs_instances import instance

            instance(rest)
        return GraphSpec(kind, rest)
    raise SpecError(
        f"{shown(text)}: unknown spec kind {excerpt(kind)}; use {_FORMS} "
        "or the path of an existing file"
    )


def _parse_gen(text: str, rest: str) -> GraphSpec:
    text = shown(text)  # what the messages below echo
    name, _, query = rest.partition("?")
    if not _FAMILY.fullmatch(name):
        raise SpecError(f"{text}: malformed spec; expected gen:FAMILY?k=v&k=v")
    fam = get_family(name, where=text)
    given: dict[str, str] = {}
    for part in filter(None, query.split("&")):
        key, sep, value = (s.strip() for s in part.partition("="))
        if not sep or not key or not value:
            raise SpecError(f"{text}: malformed parameter {excerpt(part)}; expected k=v")
        if key in given:
            raise SpecError(f"{text}: parameter {excerpt(key)} given twice")
        given[key] = value
    return GraphSpec("gen", name, fam.resolve(given, where=text))


def canonical_spec(spec: str) -> str:
    """The canonical form of ``spec`` (gen: parameters typed, defaults filled, sorted)."""
    return parse_spec(spec).canonical


def known_chi(spec: str) -> int | None:
    """The chromatic number the source of the canonical ``spec`` states: a ``dimacs:`` instance
    whose catalogue entry publishes χ (docs/graphs.md, "DIMACS coloring instances"), a ``gen:``
    graph whose family's construction fixes it (``Family.known_chi``); None for ``ss:``,
    ``snap:`` and paths, and where the source gives none. Reads no graph."""
    kind, _, name = spec.strip().partition(":")
    if kind == "dimacs":
        from gcbench.graphs.fetch.dimacs_instances import INSTANCES

        entry = INSTANCES.get(name)
        return None if entry is None else entry.chi
    parsed = parse_spec(spec)
    if parsed.kind != "gen":
        return None
    return get_family(parsed.name).known_chi(parsed.params)


def cache_path(spec: GraphSpec, root: Path) -> Path:
    """Where a generated graph is cached: ``<root>/generated/<family>_<k=v>_....npz``."""
    safe = re.sub(r"[^A-Za-z0-9_.=+-]", "_", spec.canonical.removeprefix("gen:"))
    return root / "generated" / f"{safe}.npz"


def load_action(spec: str, *, data_dir: Path | str | None = None) -> str:
    """What :func:`load_graph` will do first for ``spec``, in a word for a progress display:
    "loading" a cached graph, "generating" a gen: graph, "fetching" a remote one, "reading" a
    file. Cheap: it looks at the cache, it reads no graph."""
    parsed = parse_spec(spec)
    root = _root(data_dir)
    if parsed.kind == "path":
        return "reading"
    if parsed.kind in _REMOTE:
        from gcbench.graphs.fetch import is_cached

        return "loading" if is_cached(parsed.canonical, root) else "fetching"
    return "loading" if cache_path(parsed, root).is_file() else "generating"


def load_graph(
    spec: str,
    *,
    data_dir: Path | str | None = None,
    offline: bool = False,
    refresh: bool = False,
) -> Graph:
    """The graph ``spec`` names, built, read or fetched; generated and remote graphs are cached
    under ``data_dir`` (default :func:`data_dir`); ``refresh`` rebuilds or re-downloads."""
    parsed = parse_spec(spec)
    canonical = parsed.canonical
    root = _root(data_dir)
    if parsed.kind == "path":
        from gcbench.graphs.formats import read_graph

        return read_graph(parsed.name, name=canonical)
    if parsed.kind in _REMOTE:
        from gcbench.graphs.fetch import load_remote

        return load_remote(canonical, data_dir=root, offline=offline, refresh=refresh)
    return _load_generated(parsed, canonical, cache_path(parsed, root), refresh)


def _load_generated(parsed: GraphSpec, canonical: str, path: Path, refresh: bool) -> Graph:
    from gcbench.graphs.formats.npz import load_cache, save_cache

    if not refresh and path.exists():
        cached = load_cache(path, spec=canonical)
        if cached is not None:
            return cached
    graph = get_family(parsed.name).generate(parsed.params, where=canonical)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        save_cache(graph, path, spec=canonical)
    except OSError as exc:  # the cache is an optimisation: the graph itself is fine
        warnings.warn(f"{canonical}: not cached at {path} ({exc})", stacklevel=2)
    return graph
