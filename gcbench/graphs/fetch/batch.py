"""``gcbench fetch``: many specs (or a suite's) into the cache, each success or failure reported.

SuiteSparse names are checked against the catalogue before anything is downloaded, so a typo
is an error naming the closest entries rather than a bare HTTP 404. When no catalogue can be
had (a mirror without ``files/ssstats.csv``, say) the download itself decides. DIMACS names
are checked against gcbench's own catalogue of the instance page when the spec is resolved
(:mod:`gcbench.graphs.fetch.dimacs_instances`), also before any request. Once a host
cannot be reached at all, the batch's other graphs on that host fail with the same cause
without asking it again (no network: one wait, not one per graph).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from gcbench.errors import FetchError, GcbenchError
from gcbench.graphs.fetch import catalogue, http
from gcbench.graphs.fetch.load import load_remote
from gcbench.graphs.fetch.remote import resolve, split_ss
from gcbench.resources import data_dir as default_data_dir


@dataclass(frozen=True)
class Fetched:
    """The outcome for one spec: ``status`` is ``downloaded``, ``cached`` or ``failed``;
    ``error`` names the spec, ``cause`` is the same without it (equal for one cause)."""

    spec: str
    status: str
    cache: Path | None = None
    url: str = ""
    n: int | None = None
    m: int | None = None
    error: str = ""
    cause: str = ""


def fetch_all(
    specs: Iterable[str],
    *,
    data_dir: Path | None = None,
    force: bool = False,
    progress: bool | None = None,
    on_result: Callable[[Fetched], None] | None = None,
) -> list[Fetched]:
    """Fetch every spec (duplicates once), carrying on past failures; ``force`` re-downloads.

    ``on_result`` is called as each spec finishes (the CLI prints there).
    """
    if data_dir is None:
        data_dir = default_data_dir()
    results = []
    unreachable: dict[str, FetchError] = {}
    for spec in dict.fromkeys(specs):
        result = _fetch_one(spec, Path(data_dir), force, progress, unreachable)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def _fetch_one(
    spec: str,
    data_dir: Path,
    force: bool,
    progress: bool | None,
    unreachable: dict[str, FetchError],
) -> Fetched:
    """Fetch ``spec``; a host that could not be reached is added to ``unreachable``."""
    from gcbench.graphs.formats import npz

    try:
        remote = resolve(spec, data_dir)
        cached = None if force else npz.load_cache(remote.cache, spec=spec)
        if cached is not None:
            return Fetched(spec, "cached", remote.cache, cached.source, cached.n, cached.m)
        down = unreachable.get(http.host_of(remote.url))
        if down is not None:
            raise down.for_graph(spec)
        if spec.startswith("ss:"):
            _check_catalogue(spec, data_dir, force)
        graph = load_remote(spec, data_dir=data_dir, offline=False, refresh=True, progress=progress)
    except FetchError as exc:
        if exc.host is not None:
            unreachable[exc.host] = FetchError(exc.cause, host=exc.host)
        return Fetched(spec, "failed", error=str(exc.for_graph(spec)), cause=exc.cause)
    except GcbenchError as exc:
        return Fetched(spec, "failed", error=str(exc), cause=str(exc))
    return Fetched(spec, "downloaded", remote.cache, remote.url, graph.n, graph.m)


def failure_lines(results: Iterable[Fetched]) -> list[str]:
    """One line per cause of failure: the whole error when it hit one graph, else the cause
    and the graphs it hit (a batch without network says so once, not once per graph)."""
    by_cause: dict[str, list[Fetched]] = {}
    for r in results:
        if r.status == "failed":
            by_cause.setdefault(r.cause, []).append(r)
    return [
        hit[0].error
        if len(hit) == 1
        else f"{cause} ({len(hit)} graphs: {', '.join(r.spec for r in hit)})"
        for cause, hit in by_cause.items()
    ]


def _check_catalogue(spec: str, data_dir: Path, refresh: bool) -> None:
    """Raise a FetchError naming close entries when ``spec`` is not in the catalogue."""
    group, name = split_ss(spec)
    try:
        exact, similar = catalogue.lookup(group, name, data_dir=data_dir, refresh=refresh)
    except FetchError:
        return
    if exact is None:
        hint = (
            "did you mean " + ", ".join(m.spec for m in similar[:5]) + "?"
            if similar
            else "search the collection at https://sparse.tamu.edu"
        )
        raise FetchError(f"{spec} is not in the SuiteSparse catalogue; {hint}")
