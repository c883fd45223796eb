"""Estimated cost of a graph's cases, without loading the graph: what ``--gpus`` and
``--cluster`` order their queue by (largest first) and ``--shard`` balances.

cost = estimated nnz (stored entries of the symmetric CSR, 2m; of a matrix, its nonzeros) ×
number of cases. The nnz comes from, in order (docs/cluster.md):

1. a ``gen:`` spec's parameters, by the family's definition (:data:`_GENERATED`: exact for
   the exact families and ``stencil``, the expected count for random ones, before duplicate
   removal for kron/rmat, the requested total for ``skewed``, the exact one for ``uniform``);
2. the ``.npz`` header of the cached graph (remote specs, ``.npz`` paths), else of the cached
   pattern of an ``ss:`` matrix, only when ``use_cache`` — shards must not use it, since two
   machines can hold different caches and must still agree on the split;
3. the stand-in's estimate, for a remote graph that has one;
4. a file's size (one entry per 8 bytes) for other paths;
5. :data:`UNKNOWN_NNZ` otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from gcbench.bench.graphrun import GraphWork
from gcbench.graphs.generators import RGG_RADIUS, Number
from gcbench.graphs.matrices import STENCIL_POINTS, uniform_entries

UNKNOWN_NNZ = float(1 << 24)  # a remote graph of unknown size: count it as a large one
BYTES_PER_ENTRY = 8


def _rgg(p: Mapping[str, Number]) -> float:
    n = 2.0 ** p["scale"]
    return n * math.pi * RGG_RADIUS**2 * math.log(n) if n > 1 else 0.0


def _er(p: Mapping[str, Number]) -> float:
    n = p["n"]
    if p.get("avg_degree") is not None:
        return n * p["avg_degree"]
    return p["p"] * n * (n - 1)


def _grid(p: Mapping[str, Number]) -> float:
    rows = p.get("rows") or p["side"]
    cols = p.get("cols") or p["side"]
    return 2.0 * (rows * (cols - 1) + cols * (rows - 1))


def _mycielski(p: Mapping[str, Number]) -> float:
    if p["k"] < 2:
        return 0.0  # M_1 = K_1
    n, m = 2, 1  # M_2 = K_2; M_{k+1} has 2n+1 vertices and 3m+n edges
    for _ in range(int(p["k"]) - 2):
        n, m = 2 * n + 1, 3 * m + n
    return 2.0 * m


def _stencil(p: Mapping[str, Number | str]) -> float:
    """Nonzeros of ``gen:stencil`` (:mod:`gcbench.graphs.matrices`). rows=interior: the whole
    stencil in each of the (side − 2)^dim rows. rows=all, clipped at the boundary: an offset
    is kept by the grid points it stays inside from, Π over the axes of (side − |step|); summed
    over the box {-1, 0, 1}^dim that is (3·side − 2)^dim, over the star side^dim for the centre
    plus 2·dim·(side − 1)·side^(dim − 1)."""
    dim, side, points = int(p["dim"]), int(p["side"]), int(p["points"])
    if p["rows"] == "interior":
        return float(max(side - 2, 0) ** dim * points)
    if points == STENCIL_POINTS[dim][1]:
        return float((3 * side - 2) ** dim)
    return float(side**dim + 2 * dim * (side - 1) * side ** (dim - 1))


_GENERATED: dict[str, Callable[[Mapping[str, Number]], float]] = {
    "rgg": _rgg,
    "kron": lambda p: 2.0 * p["edgefactor"] * 2 ** p["scale"],
    "rmat": lambda p: 2.0 * p["edgefactor"] * 2 ** p["scale"],
    "delaunay": lambda p: 6.0 * 2 ** p["scale"],
    "regular": lambda p: float(p["n"] * p["d"]),
    "er": _er,
    "grid2d": _grid,
    "complete": lambda p: float(p["n"] * (p["n"] - 1)),
    "cycle": lambda p: 2.0 * p["n"],
    "bipartite": lambda p: 2.0 * p["a"] * p["b"],
    "crown": lambda p: 2.0 * p["n"] * (p["n"] - 1),
    "mycielski": _mycielski,
    "queen": lambda p: 2.0 * p["n"] * (p["n"] - 1) * (5 * p["n"] - 1) / 3,
    "rook": lambda p: 2.0 * p["n"] ** 2 * (p["n"] - 1),
    "star": lambda p: 2.0 * p["leaves"],
    "empty": lambda p: 0.0,
    "stencil": _stencil,
    # the row lengths sum to mean · rows rounded (at least: each is a ceiling, capped at cols)
    "skewed": lambda p: float(math.floor(p["mean"] * p["rows"] + 0.5)),
    "uniform": lambda p: float(uniform_entries(p["rows"], p["length"], p["dense"], p["width"])),
}


def estimate_nnz(spec: str, standin: str | None = None, *, use_cache: bool = True) -> float:
    """The estimated nnz of ``spec`` (canonical), by the rules of the module docstring."""
    from gcbench.graphs.fetch import is_remote, resolve
    from gcbench.graphs.sources import data_dir, parse_spec

    parsed = parse_spec(spec)
    if parsed.kind == "gen":
        return _GENERATED.get(parsed.name, lambda p: UNKNOWN_NNZ)(parsed.params)
    if parsed.kind == "path":
        path = Path(parsed.name)
        cached = _cached_nnz(path) if path.suffix == ".npz" else None
        if cached is not None:
            return cached
        return path.stat().st_size / BYTES_PER_ENTRY if path.is_file() else UNKNOWN_NNZ
    if use_cache and is_remote(spec):
        remote = resolve(spec, data_dir())
        cached = _cached_nnz(remote.cache, remote.pattern_cache)
    else:
        cached = None
    if cached is not None:
        return cached
    return estimate_nnz(standin, use_cache=use_cache) if standin else UNKNOWN_NNZ


def _cached_nnz(*paths: Path) -> float | None:
    """The nnz in the header of the first of ``paths`` that is a graph or pattern cache."""
    from gcbench.graphs.fetch.listing import describe

    for path in paths:
        entry = describe(path) if path.is_file() else None
        if entry is not None:
            return float(entry.nnz)
    return None


def largest_first(works: Sequence[GraphWork]) -> list[GraphWork]:
    """``works`` by estimated cost (nnz × cases left), largest first; ties keep their order."""
    cost = [estimate_nnz(w.load.spec, w.load.standin) * len(w.todo) for w in works]
    return [works[i] for i in sorted(range(len(works)), key=lambda i: -cost[i])]
