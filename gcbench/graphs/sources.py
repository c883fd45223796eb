"""Graph specs (docs/architecture.md, "The graph") → Graph, and the data cache directory.

A spec is ``gen:FAMILY?k=v&k=v`` (generated, see :mod:`gcbench.graphs.generators`, or a
matrix family of :mod:`gcbench.graphs.matrices`), ``ss:GROUP/NAME`` (SuiteSparse),
``snap:NAME`` (SNAP), ``dimacs:NAME`` (a DIMACS coloring instance) or a file path. Its
canonical form names the graph everywhere (the CSV ``graph`` column, the cache key).
:func:`load_graph` gives the graph a spec names, :func:`load_pattern` the matrix pattern the
partial distance-2 problems color, :func:`load_instance` what a problem colors,
:func:`offline_ready` whether that is in the cache for an offline run. Grammar and decisions:
docs/graphs.md.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from gcbench.errors import (
    MatrixInputError,
    SpecError,
    excerpt,
    shown,
)
from gcbench.grammar import DEFAULT_PROBLEM, MATRIX_PROBLEMS, PROBLEMS
from gcbench.graphs.generators import Family, Number, get_family
from gcbench.graphs.graph import Graph
from gcbench.graphs.matrices import MATRIX_FAMILIES
from gcbench.graphs.pattern import Pattern, adjacency, closed_neighbourhoods
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
MATRIX_SUFFIXES = (".mtx", ".mtx.gz")  # paths load_pattern reads as a matrix, not a graph


def _root(given: Path | str | None) -> Path:
    return Path(given).expanduser() if given is not None else data_dir()


@dataclass(frozen=True)
class GraphSpec:
    """A parsed spec. ``name`` is the gen family, the SuiteSparse ``GROUP/NAME``, the SNAP or
    DIMACS ``NAME`` or the path; ``params`` holds a gen spec's resolved parameters (defaults
    filled)."""

    kind: SpecKind
    name: str
    params: dict[str, Number | str] = field(default_factory=dict)

    @property
    def is_matrix(self) -> bool:
        """A generated matrix family (``gen:stencil``, ``gen:skewed``, ``gen:uniform``): a pattern,
        no graph."""
        return self.kind == "gen" and self.name in MATRIX_FAMILIES

    @property
    def canonical(self) -> str:
        if self.kind == "gen":
            return _family(self.name).spec(self.params)
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
    fam = _family(name, where=text)
    given: dict[str, str] = {}
    for part in filter(None, query.split("&")):
        key, sep, value = (s.strip() for s in part.partition("="))
        if not sep or not key or not value:
            raise SpecError(f"{text}: malformed parameter {excerpt(part)}; expected k=v")
        if key in given:
            raise SpecError(f"{text}: parameter {excerpt(key)} given twice")
        given[key] = value
    return GraphSpec("gen", name, fam.resolve(given, where=text))


def _family(name: str, where: str | None = None) -> Family:
    """The graph or matrix family called ``name``, or a SpecError listing both kinds."""
    if name in MATRIX_FAMILIES:
        return MATRIX_FAMILIES[name]
    try:
        return get_family(name, where)
    except SpecError as exc:
        matrices = ", ".join(sorted(MATRIX_FAMILIES))
        raise SpecError(f"{exc}; matrix families: {matrices}") from None


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
    return _family(parsed.name).known_chi(parsed.params)


def cache_path(spec: GraphSpec, root: Path) -> Path:
    """Where a generated graph is cached: ``<root>/generated/<family>_<k=v>_....npz``."""
    safe = re.sub(r"[^A-Za-z0-9_.=+-]", "_", spec.canonical.removeprefix("gen:"))
    return root / "generated" / f"{safe}.npz"


def load_action(
    spec: str, *, data_dir: Path | str | None = None, problem: str = DEFAULT_PROBLEM
) -> str:
    """What :func:`load_instance` will do first for ``spec`` and ``problem``, in a word for a
    progress display: "loading" a cached graph or pattern, "generating" a gen: graph or
    matrix, "fetching" a remote one, "reading" a file. Cheap: it looks at the cache, it reads
    no graph."""
    parsed = parse_spec(spec)
    root = _root(data_dir)
    if parsed.kind == "path":
        return "reading"
    if parsed.is_matrix:
        return "generating"
    if parsed.kind in _REMOTE:
        ready = offline_ready(parsed.canonical, (problem,), data_dir=root)
        return "loading" if ready else "fetching"
    return "loading" if cache_path(parsed, root).is_file() else "generating"


def offline_ready(
    spec: str, problems: Iterable[str] = (DEFAULT_PROBLEM,), *, data_dir: Path | str | None = None
) -> bool:
    """Whether :func:`load_instance` finds what each of ``problems`` colors on the remote
    ``spec`` in the cache, so that an offline run can load it: the matrix pattern of an
    ``ss:`` spec for the problems that color it (:data:`MATRIX_PROBLEMS`), else its graph.
    True for the other specs, which need no network."""
    parsed = parse_spec(spec)
    if parsed.kind not in _REMOTE:
        return True
    from gcbench.graphs.fetch import is_cached

    root = _root(data_dir)
    patterns = {parsed.kind == "ss" and problem in MATRIX_PROBLEMS for problem in problems}
    return all(is_cached(parsed.canonical, root, pattern=pattern) for pattern in patterns)


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
    if parsed.is_matrix:
        raise MatrixInputError(f"gen:{parsed.name} is a matrix family")
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


def load_pattern(
    spec: str,
    *,
    data_dir: Path | str | None = None,
    offline: bool = False,
    refresh: bool = False,
) -> Pattern:
    """The matrix pattern ``spec`` names, for the partial distance-2 problems, named by the
    canonical spec (docs/graphs.md, "Matrix patterns"): a ``.mtx``/``.mtx.gz`` path or an
    ``ss:`` matrix as the matrix it holds (rectangular and unsymmetric allowed, diagonal
    kept), a matrix family generated (not cached), any other spec as the adjacency matrix of
    its graph (:func:`load_graph`; symmetric, no diagonal). ``ss:`` patterns are cached as
    ``<data_dir>/ss/GROUP/NAME.pattern.npz``, beside the graph's cache."""
    parsed = parse_spec(spec)
    canonical = parsed.canonical
    if parsed.is_matrix:
        return MATRIX_FAMILIES[parsed.name].generate(parsed.params, where=canonical)
    if parsed.kind == "path" and parsed.name.lower().endswith(MATRIX_SUFFIXES):
        from gcbench.graphs.fetch.load import read_matrix

        return read_matrix(Path(parsed.name), name=canonical)
    if parsed.kind == "ss":
        from gcbench.graphs.fetch import load_remote_pattern

        root = _root(data_dir)
        return load_remote_pattern(canonical, data_dir=root, offline=offline, refresh=refresh)
    graph = load_graph(spec, data_dir=data_dir, offline=offline, refresh=refresh)
    return adjacency(graph)


def load_instance(
    spec: str,
    problem: str,
    *,
    data_dir: Path | str | None = None,
    offline: bool = False,
    refresh: bool = False,
) -> Graph | Pattern:
    """What ``problem`` colors (docs/distance2.md), named by the canonical spec: for ``d1``
    the graph; for ``d2`` the pattern of its A + I (closed neighbourhoods); for ``pd2`` the
    matrix pattern (:func:`load_pattern`), for ``pd2-rows`` its transpose."""
    if problem not in PROBLEMS:
        raise SpecError(f"problem {shown(problem)}: choose from {', '.join(PROBLEMS)}")
    where = {"data_dir": data_dir, "offline": offline, "refresh": refresh}
    if problem == DEFAULT_PROBLEM:
        return load_graph(spec, **where)
    if problem not in MATRIX_PROBLEMS:
        return closed_neighbourhoods(load_graph(spec, **where))
    pattern = load_pattern(spec, **where)
    return pattern.transposed() if problem == "pd2-rows" else pattern
