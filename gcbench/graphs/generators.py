"""Synthetic graph families (docs/architecture.md, "The graph"), vectorised numpy/scipy,
deterministic per seed.

Every public generator is registered in :data:`FAMILIES` with its declared parameters, so
``gen:`` specs can be validated, canonicalised and listed (:mod:`gcbench.graphs.sources`). Called
directly (``generators.rgg(16)``) a generator checks its parameters the same way and returns
a :class:`~gcbench.graphs.graph.Graph` named by its canonical spec. Builders return either an edge
list (normalised by :func:`gcbench.graphs.graph.from_edges`, the one normaliser) or CSR arrays that
are normalised by construction (wrapped by :func:`gcbench.graphs.graph.from_trusted_csr`).
Definitions and decisions: docs/graphs.md.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench import memory
from gcbench.errors import SpecError, excerpt, shown
from gcbench.graphs.graph import INT32_LIMIT, Graph, from_edges, from_trusted_csr

Number = int | float

# Vertex ids are int32 (docs/architecture.md, "The graph"): the only fixed bound on a family's
# size. Everything else is bounded by the memory budget, against each family's estimated peak
# (docs/graphs.md).
VERTEX_MAX = INT32_LIMIT
SCALE_MAX = VERTEX_MAX.bit_length() - 1  # 2^30 vertices; 2^31 do not fit
SEED_MAX = 2**63 - 1
GRAPH500_INITIATOR = (0.57, 0.19, 0.19)  # A, B, C; D = 1 - A - B - C = 0.05
RGG_RADIUS = 0.55  # DIMACS10 rgg_n_2_k_s0: r = 0.55 * sqrt(ln n / n)
_CHUNK = 1 << 16  # edges drawn per chunk: temporaries stay in cache (measured fastest)
_SWITCH_ROUNDS = 1000  # cap on the random-regular repair loop
DELAUNAY_BYTES_PER_VERTEX = 1024  # Qhull's facets and ridges dominate (measured)
ROAD_BYTES_PER_EDGE = 96  # road's spanning-tree step per triangulation edge (measured about 65)
GRID_BYTES_PER_VERTEX = 112  # four int64 neighbour candidates, masks, kept int64 and int32


@dataclass(frozen=True)
class Edges:
    """A builder's edge list: (rows[i], cols[i]) on n vertices, any order or multiplicity."""

    n: int
    rows: np.ndarray
    cols: np.ndarray


@dataclass(frozen=True)
class Csr:
    """A builder's CSR arrays that already satisfy the Graph invariant."""

    indptr: np.ndarray
    indices: np.ndarray


@dataclass(frozen=True)
class GenParam:
    """A declared generator parameter: ``kind`` int or float, ``default`` None = must be given."""

    name: str
    kind: type
    default: Number | None = None
    low: Number | None = None
    high: Number | None = None
    help: str = ""

    def parse(self, value: Any, where: str) -> Number:
        """``value`` (a spec string or a Python number) as this parameter's type, range-checked."""
        try:
            if isinstance(value, bool):
                raise ValueError(value)
            if self.kind is int:
                out: Number = _as_int(value)
            else:
                out = float(value)
                if not math.isfinite(out):
                    raise ValueError(value)
        except (TypeError, ValueError):
            what = "an integer" if self.kind is int else "a finite number"
            raise SpecError(
                f"{where}: {self.name}={shown(str(value))} is not {what}; "
                f"give {self.name} as {what}"
            ) from None
        if (self.low is not None and out < self.low) or (self.high is not None and out > self.high):
            why = f" ({self.help})" if self.help else ""
            raise SpecError(
                f"{where}: {self.name}={value} is outside [{self.low}, {self.high}]{why}; "
                f"give a value in that range"
            )
        return out


def _as_int(value: Any) -> int:
    if isinstance(value, str):
        return int(value.strip())
    if isinstance(value, int | np.integer):
        return int(value)
    as_float = float(value)
    if not as_float.is_integer():
        raise ValueError(value)
    return int(as_float)


Builder = Callable[..., Edges | Csr]
Check = Callable[[Mapping[str, Number]], str | None]
Peak = Callable[..., int]


@dataclass(frozen=True)
class Family:
    """One generated family: its builder, declared parameters and cross-parameter check.

    ``alternatives`` lists groups of parameters of which exactly one group must be given
    (``grid2d``: side, or rows and cols); ``check`` returns what is wrong, or None; ``peak``
    estimates the peak bytes of building the graph from the resolved parameters (generation
    and normalisation; measured by benchmarks/build_memory.py), checked against the budget;
    ``chi`` gives the chromatic number of the resolved parameters where the family's
    construction fixes it (None elsewhere; no ``chi``: never known).
    """

    name: str
    build: Builder
    params: tuple[GenParam, ...]
    description: str
    peak: Peak
    alternatives: tuple[tuple[str, ...], ...] = ()
    check: Check | None = None
    chi: Callable[..., int | None] | None = None

    def known_chi(self, resolved: Mapping[str, Number]) -> int | None:
        """The chromatic number of the graph of ``resolved`` parameters, if known by
        construction (the source "states" it: it is carried as ``chi_known``)."""
        return None if self.chi is None else self.chi(**resolved)

    def resolve(self, given: Mapping[str, Any], where: str | None = None) -> dict[str, Number]:
        """Parse and check ``given``; defaults filled in; SpecError naming ``where`` if wrong."""
        where = where or f"gen:{self.name}"
        declared = {p.name: p for p in self.params}
        unknown = sorted(set(given) - set(declared))
        if unknown:
            raise SpecError(
                f"{where}: unknown parameter {excerpt(unknown[0])} for {self.name}; "
                f"known: {self.signature()}"
            )
        out = {k: declared[k].parse(v, where) for k, v in given.items()}
        chosen = [group for group in self.alternatives if any(k in out for k in group)]
        optional = {k for group in self.alternatives for k in group}
        if self.alternatives and (len(chosen) != 1 or not all(k in out for k in chosen[0])):
            options = " | ".join(" & ".join(group) for group in self.alternatives)
            raise SpecError(f"{where}: {self.name} needs exactly one of: {options}")
        for p in self.params:
            if p.name in out or p.name in optional:
                continue
            if p.default is None:
                raise SpecError(
                    f"{where}: {self.name} needs parameter {p.name!r} "
                    f"(parameters: {self.signature()})"
                )
            out[p.name] = p.default
        problem = self.check(out) if self.check else None
        if problem:
            raise SpecError(f"{where}: {problem}")
        return out

    def spec(self, resolved: Mapping[str, Number]) -> str:
        """The canonical spec of resolved parameters: ``gen:FAMILY?k=v&...`` sorted by key."""
        query = "&".join(f"{k}={resolved[k]!r}" for k in sorted(resolved))
        return f"gen:{self.name}" + (f"?{query}" if query else "")

    def generate(self, given: Mapping[str, Any], where: str | None = None) -> Graph:
        """Build the graph of ``given`` parameters, named (and sourced) by its canonical spec."""
        resolved = self.resolve(given, where)
        spec = self.spec(resolved)
        memory.require(self.estimate(resolved), where or spec)
        with memory.guard(f"generating {where or spec}"):
            return self.named(self.build(**resolved), spec)

    def named(self, built: Any, spec: str) -> Graph:
        """What the builder returned, as a Graph named (and sourced) by its canonical spec."""
        if isinstance(built, Csr):
            return from_trusted_csr(built.indptr, built.indices, name=spec, source=spec)
        return from_edges(
            built.n, built.rows, built.cols, name=spec, source=spec, directed_input=False
        )

    def estimate(self, resolved: Mapping[str, Number]) -> int:
        """Estimated peak bytes of :meth:`generate` with ``resolved`` parameters."""
        return self.peak(**resolved)

    def signature(self) -> str:
        """The declared parameters, e.g. ``scale:int seed:int=0``, for listings and errors."""
        return " ".join(
            f"{p.name}:{p.kind.__name__}" + ("" if p.default is None else f"={p.default}")
            for p in self.params
        )


FAMILIES: dict[str, Family] = {}


def family(
    *params: GenParam,
    peak: Peak,
    alternatives: tuple[tuple[str, ...], ...] = (),
    check: Check | None = None,
    chi: Callable[..., int | None] | None = None,
) -> Callable[[Builder], Callable[..., Graph]]:
    """Register a builder as a family named after it; the public function returns a Graph.

    ``peak(**resolved parameters)`` estimates the bytes that building it needs at its peak;
    ``chi(**resolved parameters)`` its chromatic number where the construction fixes it.
    """

    def register(build: Builder) -> Callable[..., Graph]:
        fam = Family(
            build.__name__,
            build,
            params,
            " ".join((build.__doc__ or "").split("\n\n")[0].split()),
            peak,
            alternatives,
            check,
            chi,
        )
        FAMILIES[fam.name] = fam
        signature = inspect.signature(build)

        @functools.wraps(build)
        def generate(*args: Any, **kwargs: Any) -> Graph:
            bound = signature.bind(*args, **kwargs).arguments
            return fam.generate({k: v for k, v in bound.items() if v is not None})

        return generate

    return register


def get_family(name: str, where: str | None = None) -> Family:
    """The family called ``name``, or a SpecError listing the known ones."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise SpecError(
            f"{where or name}: unknown graph family {name!r}; known: {', '.join(sorted(FAMILIES))}"
        ) from None


def _scale(low: int = 0) -> GenParam:
    return GenParam("scale", int, None, low, SCALE_MAX, "n = 2^scale vertices; int32 ids")


def _count(name: str, low: int = 0, high: int = VERTEX_MAX, help: str = "") -> GenParam:
    return GenParam(name, int, None, low, high, help)


SEED = GenParam("seed", int, 0, 0, SEED_MAX, "random seed (np.random.default_rng)")
EDGEFACTOR = GenParam("edgefactor", int, 16, 1, None, "edges drawn = edgefactor * n")


# --- peak memory estimates (bytes; coefficients measured by benchmarks/build_memory.py) ----


def _edges_peak(n: int, entries: int, generation: float, id_bytes: int = 8) -> int:
    """An edge-list family's peak: its own generation peak, or its two id arrays of
    ``entries`` held while :func:`from_edges` builds the CSR, whichever is larger."""
    held = 2 * id_bytes * entries + memory.build_bytes(n, entries)
    return max(int(generation) + memory.HEADROOM, held)


def _csr_peak(generation: float) -> int:
    """A family built directly as CSR: its generation peak."""
    return int(generation) + memory.HEADROOM


# --- shared building blocks --------------------------------------------------------------


def _pair_from_index(k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Invert k = j(j-1)/2 + i for pairs i < j (the column-major upper-triangle numbering)."""
    k = k.astype(np.int64, copy=False)
    j = ((1.0 + np.sqrt(1.0 + 8.0 * k.astype(np.float64))) / 2.0).astype(np.int64)
    for _ in range(2):  # float rounding is off by at most one for k < 2^62
        j -= j * (j - 1) // 2 > k
        j += (j + 1) * j // 2 <= k
    return k - j * (j - 1) // 2, j


def _pairs_within_groups(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (u, v), u before v, of positions whose ``keys`` are equal (one clique each)."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    sizes = np.diff(np.r_[starts, keys.size])
    end = np.repeat(starts + sizes, sizes)  # one past each position's group
    later = end - np.arange(keys.size) - 1  # partners after each position
    first = np.repeat(np.arange(keys.size), later)
    offset = np.arange(first.size) - np.repeat(np.cumsum(later) - later, later)
    return order[first], order[first + 1 + offset]


def _cell_order(points: np.ndarray, cells: int) -> np.ndarray:
    """Vertex numbering by grid cell (rows of ``cells`` x ``cells`` cells), for locality.

    Ties keep the draw order: the point's index sits in the low bits of a unique sort key,
    which is faster than a stable argsort and the same on every machine.
    """
    n = points.shape[0]
    bits = max(n - 1, 1).bit_length()
    cell = np.minimum((points * cells).astype(np.int64), cells - 1)
    keys = (cell[:, 1] * cells + cell[:, 0]) << bits | np.arange(n, dtype=np.int64)
    return np.sort(keys) & ((1 << bits) - 1)


def _uniform_points(scale: int, seed: int, cells: Callable[[int], int]) -> np.ndarray:
    """2^scale uniform points in the unit square, numbered by grid cell (docs/graphs.md)."""
    n = 1 << scale
    points = np.random.default_rng(seed).random((n, 2))
    return points[_cell_order(points, max(1, cells(n)))]


def _recursive_matrix(
    scale: int, edges: int, a: float, b: float, c: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """R-MAT / Kronecker edges: per level one 32-bit uniform picks the quadrant (a, b, c, d).

    All edges descend together, one bit per level, most significant first (Chakrabarti et al.
    2004; Graph500's kronecker_generator draws the row bit, then the column bit conditioned on
    it, which gives the same quadrant probabilities).
    """
    dtype = np.int32 if scale < 31 else np.int64
    rows = np.zeros(edges, dtype=dtype)
    cols = np.zeros(edges, dtype=dtype)
    t_a, t_ab, t_abc = (round(p * 2**32) for p in (a, a + b, a + b + c))
    for lo in range(0, edges, _CHUNK):
        r, q = rows[lo : lo + _CHUNK], cols[lo : lo + _CHUNK]
        for _ in range(scale):
            u = rng.bit_generator.random_raw((r.size + 1) // 2).view(np.uint32)[: r.size]
            below_ab = u >= t_ab  # row bit: quadrant c or d
            r += r
            r += below_ab
            q += q
            q += (u >= t_a) ^ below_ab ^ (u >= t_abc)  # column bit: quadrant b or d
    return rows, cols


# --- random families ------------------------------------------------------------------------


def _rgg_peak(scale: int, seed: int = 0) -> int:
    """Points, cell keys and the k-d tree per vertex; query_pairs' pair vector (which grows
    by doubling) and its ndarray copy per edge."""
    n = 1 << scale
    area = math.pi * RGG_RADIUS**2 * math.log(n) / n if n > 1 else 0.0
    m = int(n * (n - 1) // 2 * min(1.0, area))
    return _edges_peak(n, m, 48 * m + 80 * n)


@family(_scale(), SEED, peak=_rgg_peak)
def rgg(scale: int, seed: int = 0) -> Edges:
    """Random geometric graph, DIMACS10 rgg_n_2_k_s0: 2^scale uniform points in the unit square,
    an edge between points closer than 0.55 * sqrt(ln n / n)."""
    from scipy.spatial import cKDTree

    n = 1 << scale
    radius = RGG_RADIUS * math.sqrt(math.log(n) / n) if n > 1 else 0.0
    points = _uniform_points(scale, seed, lambda n: int(1.0 / radius) if radius else 1)
    pairs = cKDTree(points).query_pairs(radius, output_type="ndarray")
    return Edges(n, pairs[:, 0], pairs[:, 1])


def _kron_peak(scale: int, edgefactor: int = 16, seed: int = 0) -> int:
    """int32 edge arrays, the permutation (int64, then int32); labels applied in place."""
    n = 1 << scale
    return _edges_peak(n, edgefactor * n, 8 * edgefactor * n + 12 * n, id_bytes=4)


@family(_scale(), EDGEFACTOR, SEED, peak=_kron_peak)
def kron(scale: int, edgefactor: int = 16, seed: int = 0) -> Edges:
    """Graph500 Kronecker graph: edgefactor * 2^scale edges from initiator 0.57/0.19/0.19/0.05,
    vertex labels randomly permuted; self loops and duplicates dropped."""
    rng = np.random.default_rng(seed)
    n = 1 << scale
    rows, cols = _recursive_matrix(scale, edgefactor * n, *GRAPH500_INITIATOR, rng)
    perm = rng.permutation(n).astype(rows.dtype)
    np.take(perm, rows, out=rows, mode="clip")  # in place: ids are in range, no copy
    np.take(perm, cols, out=cols, mode="clip")
    return Edges(n, rows, cols)


def _rmat_check(p: Mapping[str, Number]) -> str | None:
    d = 1.0 - p["a"] - p["b"] - p["c"]
    return None if d >= -1e-12 else f"a+b+c = {1.0 - d:g} exceeds 1 (d = 1-a-b-c must be >= 0)"


@family(
    _scale(),
    EDGEFACTOR,
    GenParam("a", float, GRAPH500_INITIATOR[0], 0.0, 1.0, "top-left quadrant probability"),
    GenParam("b", float, GRAPH500_INITIATOR[1], 0.0, 1.0, "top-right quadrant probability"),
    GenParam("c", float, GRAPH500_INITIATOR[2], 0.0, 1.0, "bottom-left; d = 1-a-b-c"),
    SEED,
    peak=lambda scale, edgefactor=16, **_: _edges_peak(
        1 << scale, edgefactor << scale, 8 * (edgefactor << scale), id_bytes=4
    ),
    check=_rmat_check,
)
def rmat(
    scale: int,
    edgefactor: int = 16,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
    seed: int = 0,
) -> Edges:
    """R-MAT graph (Chakrabarti, Zhan, Faloutsos 2004): edgefactor * 2^scale edges with quadrant
    probabilities a, b, c, d = 1-a-b-c; labels not permuted."""
    rows, cols = _recursive_matrix(scale, edgefactor << scale, a, b, c, np.random.default_rng(seed))
    return Edges(1 << scale, rows, cols)


def _delaunay_pattern(scale: int, seed: int) -> Any:
    """The delaunay family's graph as a scipy CSR pattern (bool, rows sorted, both directions)."""
    import scipy.sparse as sp
    from scipy.spatial import Delaunay

    points = _uniform_points(scale, seed, lambda n: int(math.sqrt(n / 4)))
    # scipy's default options less Qbb and Qc: unit-square points need no rescaling and no
    # coplanar bookkeeping; same triangulation, faster (docs/graphs.md, "Decisions").
    indptr, indices = Delaunay(points, qhull_options="Qz Q12").vertex_neighbor_vertices
    pattern = sp.csr_matrix(
        (np.ones(indices.size, dtype=np.bool_), indices, indptr), shape=(points.shape[0],) * 2
    )
    pattern.sort_indices()
    return pattern


@family(_scale(low=2), SEED, peak=lambda scale, **_: _csr_peak(DELAUNAY_BYTES_PER_VERTEX << scale))
def delaunay(scale: int, seed: int = 0) -> Csr:
    """Delaunay triangulation of 2^scale uniform points in the unit square (DIMACS10
    delaunay_nX); average degree just under 6."""
    pattern = _delaunay_pattern(scale, seed)
    return Csr(pattern.indptr, pattern.indices)


def _road_peak(scale: int, extra: float = 0.1, seed: int = 0) -> int:
    """The delaunay peak, plus per triangulation edge (fewer than 3n) the weighted upper
    triangle, the spanning tree's copy and sort, keys and masks; at most every edge kept."""
    n = 1 << scale
    return _edges_peak(n, 3 * n, (DELAUNAY_BYTES_PER_VERTEX + ROAD_BYTES_PER_EDGE * 3) * n)


@family(
    _scale(low=2),
    GenParam("extra", float, 0.1, 0.0, 1.0, "probability of keeping each non-tree edge"),
    SEED,
    peak=_road_peak,
)
def road(scale: int, extra: float = 0.1, seed: int = 0) -> Edges:
    """Road-network-like planar graph: a random spanning tree of the delaunay graph (same scale
    and seed) plus each other triangulation edge with probability extra; connected, mean degree
    about 2 + 4 * extra (2.4 by default).

    Why: road networks (DIMACS9 USA-road) and power grids have mean degree 2-3 and are nearly
    planar, and color in tens of microseconds; issue 35 wants such graphs (docs/graphs.md).
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import minimum_spanning_tree

    n = 1 << scale
    upper = sp.triu(_delaunay_pattern(scale, seed), k=1, format="csr")
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(upper.indptr))
    cols = upper.indices.astype(np.int64)
    rng = np.random.default_rng(seed)
    rng.bit_generator.advance(2 * n)  # past the points' 2n doubles: weights are fresh draws
    weights = 1.0 + rng.random(rows.size)  # in [1, 2): never 0, which scipy reads as no edge
    tree = minimum_spanning_tree(sp.csr_matrix((weights, upper.indices, upper.indptr), (n, n)))
    tree = tree.tocoo()
    tree_keys = np.sort(
        np.minimum(tree.row, tree.col).astype(np.int64) * n + np.maximum(tree.row, tree.col)
    )
    keep = _contains(tree_keys, rows * n + cols)
    keep |= rng.random(rows.size) < extra  # extra = 0: none; extra = 1: all (random() < 1)
    return Edges(n, rows[keep], cols[keep])


def _regular_check(p: Mapping[str, Number]) -> str | None:
    n, d = p["n"], p["d"]
    if n and d >= n:
        return f"a simple {d}-regular graph needs n > d (n={n})"
    if n * d % 2:
        return f"n*d = {n * d} is odd; no {d}-regular graph on {n} vertices exists"
    return None


def _regular_peak(n: int, d: int, seed: int = 0) -> int:
    """The stub pairing and its repair rounds per stub; the dense route (d > (n-1)/2) adds a
    presence table over all n(n-1)/2 pairs and the pair-index inversion per edge."""
    edges = n * d // 2
    sparse = min(d, max(n - 1 - d, 0))
    generation = 40 * n * sparse
    if 2 * d > n - 1:
        generation += n * (n - 1) + 48 * edges
    return _edges_peak(n, edges, generation)


@family(_count("n"), _count("d"), SEED, peak=_regular_peak, check=_regular_check)
def regular(n: int, d: int, seed: int = 0) -> Edges:
    """Random d-regular simple graph: configuration model, then random double-edge switches
    that remove every self loop and multi-edge (degrees never change)."""
    rng = np.random.default_rng(seed)
    if d == 0 or n == 0:
        return Edges(n, np.empty(0, np.int64), np.empty(0, np.int64))
    if 2 * d > n - 1:  # dense: the complement of a sparse regular graph converges at once
        u, v = _configuration_switched(n, n - 1 - d, rng)
        present = np.zeros(n * (n - 1) // 2, dtype=np.bool_)
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        present[hi * (hi - 1) // 2 + lo] = True
        u, v = _pair_from_index(np.flatnonzero(~present))
        return Edges(n, u, v)
    u, v = _configuration_switched(n, d, rng)
    return Edges(n, u, v)


def _configuration_switched(
    n: int, d: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """A random stub pairing, repaired by parallel double-edge switches into a simple graph.

    Each round every defect (self loop, or extra copy of an edge) proposes a switch
    {a,b},{c,e} -> {a,c},{b,e} with a random clean edge; proposals whose new edges are loops,
    already present, or proposed twice are dropped. Expected defects are O(d^2), so few rounds.
    """
    stubs = np.repeat(np.arange(n, dtype=np.int64), d)
    rng.shuffle(stubs)
    u, v = stubs[0::2].copy(), stubs[1::2].copy()
    for _ in range(_SWITCH_ROUNDS):
        keys = np.minimum(u, v) * n + np.maximum(u, v)
        sorted_keys = np.sort(keys)
        repeated = sorted_keys[1:][sorted_keys[1:] == sorted_keys[:-1]]
        bad = np.flatnonzero(u == v)
        if repeated.size:  # every copy of a repeated edge but its first is a defect
            copies = np.flatnonzero(np.isin(keys, repeated))
            first = np.unique(keys[copies], return_index=True)[1]
            bad = np.union1d(bad, np.delete(copies, first))
        if bad.size == 0:
            return u, v
        clean = np.ones(u.size, dtype=np.bool_)
        clean[bad] = False
        partner = rng.integers(0, u.size, bad.size)
        _, first = np.unique(partner, return_index=True)
        keep = np.zeros(bad.size, dtype=np.bool_)
        keep[first] = True
        keep &= clean[partner]
        bad, partner = bad[keep], partner[keep]
        flip = rng.random(bad.size) < 0.5
        a, b = u[bad], v[bad]
        c = np.where(flip, v[partner], u[partner])
        e = np.where(flip, u[partner], v[partner])
        new1 = np.minimum(a, c) * n + np.maximum(a, c)
        new2 = np.minimum(b, e) * n + np.maximum(b, e)
        ok = (a != c) & (b != e) & ~_contains(sorted_keys, new1) & ~_contains(sorted_keys, new2)
        proposed = np.concatenate([new1[ok], new2[ok]])
        values, counts = np.unique(proposed, return_counts=True)
        clash = values[counts > 1]
        ok[ok] = ~(np.isin(new1[ok], clash) | np.isin(new2[ok], clash))
        u[bad[ok]], v[bad[ok]] = a[ok], c[ok]
        u[partner[ok]], v[partner[ok]] = b[ok], e[ok]
    raise SpecError(
        f"gen:regular?d={d}&n={n}: no simple graph after {_SWITCH_ROUNDS} switch rounds; "
        "try another seed"
    )


def _contains(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    at = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return sorted_keys[at] == keys


def _er_peak(n: int, p: float | None, avg_degree: float | None) -> int:
    """Geometric gaps, their sums and the kept indices per drawn pair, then the pair-index
    inversion's float and integer temporaries."""
    if p is None:
        p = avg_degree / (n - 1) if n > 1 else 0.0
    expected = p * (n * (n - 1) // 2)
    drawn = int(expected + 6 * math.sqrt(expected) + 16)
    return _edges_peak(n, drawn, 56 * drawn)


def _er_check(p: Mapping[str, Number]) -> str | None:
    if "avg_degree" in p and p["avg_degree"] > max(p["n"] - 1, 0):
        return f"avg_degree={p['avg_degree']} exceeds n-1 = {p['n'] - 1}"
    return None


@family(
    _count("n"),
    GenParam("p", float, None, 0.0, 1.0, "edge probability"),
    GenParam("avg_degree", float, None, 0.0, None, "expected degree; p = avg_degree/(n-1)"),
    SEED,
    peak=lambda n, p=None, avg_degree=None, **_: _er_peak(n, p, avg_degree),
    alternatives=(("p",), ("avg_degree",)),
    check=_er_check,
)
def er(n: int, p: float | None = None, avg_degree: float | None = None, seed: int = 0) -> Edges:
    """Erdős–Rényi G(n, p): each of the n(n-1)/2 pairs independently with probability p
    (geometric skipping, Batagelj & Brandes 2005); p may be given as avg_degree/(n-1)."""
    if p is None:
        p = avg_degree / (n - 1) if n > 1 else 0.0
    pairs = n * (n - 1) // 2
    if p == 0.0 or pairs == 0:
        return Edges(n, np.empty(0, np.int64), np.empty(0, np.int64))
    rng = np.random.default_rng(seed)
    expected = p * pairs
    batch = int(expected + 6 * math.sqrt(expected) + 16)
    chosen = []
    last = -1
    while last < pairs:
        steps = np.cumsum(rng.geometric(p, batch)) + last
        chosen.append(steps[steps < pairs])
        last = int(steps[-1])
    u, v = _pair_from_index(np.concatenate(chosen))
    return Edges(n, u, v)


# --- exact families (known n, m and chromatic number; for tests) ------------------------------


def _vertices_check(n: int) -> str | None:
    """The int32 vertex-id bound on families whose vertex count is derived."""
    if n <= VERTEX_MAX:
        return None
    return f"{n} vertices exceed the {VERTEX_MAX} that int32 vertex ids can number"


def _grid_check(p: Mapping[str, Number]) -> str | None:
    rows, cols = (p["side"], p["side"]) if "side" in p else (p["rows"], p["cols"])
    return _vertices_check(rows * cols)


@family(
    _count("side", 1, help="a side x side grid"),
    _count("rows", 1),
    _count("cols", 1),
    peak=lambda side=None, rows=None, cols=None: _csr_peak(
        GRID_BYTES_PER_VERTEX * (side * side if side is not None else rows * cols)
    ),
    alternatives=(("side",), ("rows", "cols")),
    check=_grid_check,
    chi=lambda side=None, rows=None, cols=None: (
        1 if (side or 0) == 1 or (rows, cols) == (1, 1) else 2
    ),
)
def grid2d(side: int | None = None, rows: int | None = None, cols: int | None = None) -> Csr:
    """rows x cols 4-neighbour grid (vertex r*cols + c); m = rows(cols-1) + cols(rows-1)."""
    if side is not None:
        rows = cols = side
    n = rows * cols
    v = np.arange(n, dtype=np.int64)
    c = v % cols
    neighbours = np.stack([v - cols, v - 1, v + 1, v + cols], axis=1)  # sorted per row
    exists = np.stack([v >= cols, c > 0, c < cols - 1, v < n - cols], axis=1)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(exists.sum(axis=1), out=indptr[1:])
    return Csr(indptr, neighbours[exists])


@family(_count("n"), peak=lambda n: _csr_peak(14 * n * n), chi=lambda n: n)
def complete(n: int) -> Csr:
    """Complete graph K_n: m = n(n-1)/2, chromatic number n."""
    offdiagonal = ~np.eye(n, dtype=np.bool_)
    indices = np.broadcast_to(np.arange(n, dtype=np.int64), (n, n))[offdiagonal]
    return Csr(np.arange(n + 1, dtype=np.int64) * max(n - 1, 0), indices)


@family(_count("n", 3), peak=lambda n: _edges_peak(n, n, 16 * n), chi=lambda n: 2 + n % 2)
def cycle(n: int) -> Edges:
    """Cycle C_n (n >= 3): m = n, chromatic number 2 (n even) or 3 (n odd)."""
    v = np.arange(n, dtype=np.int64)
    return Edges(n, v, (v + 1) % n)


@family(
    _count("a"),
    _count("b"),
    peak=lambda a, b: _edges_peak(a + b, a * b, 24 * a * b),
    check=lambda p: _vertices_check(p["a"] + p["b"]),
    chi=lambda a, b: 2 if a and b else min(a + b, 1),
)
def bipartite(a: int, b: int) -> Edges:
    """Complete bipartite K_{a,b}: sides 0..a-1 and a..a+b-1, m = ab, chromatic number 2."""
    left = np.repeat(np.arange(a, dtype=np.int64), b)
    right = a + np.tile(np.arange(b, dtype=np.int64), a)
    return Edges(a + b, left, right)


@family(
    _count("n", high=VERTEX_MAX // 2, help="2n vertices; int32 ids"),
    peak=lambda n: _edges_peak(2 * n, n * (n - 1), 49 * n * n),
    chi=lambda n: 2 if n >= 2 else n,
)
def crown(n: int) -> Edges:
    """Crown graph S_n^0: K_{n,n} minus a perfect matching, u_i = 2i ~ v_j = 2j+1 for i != j.

    m = n(n-1), chromatic number 2 (n >= 2); interleaved labels make first-fit greedy in
    vertex order use n colors, the classic worst case."""
    i = np.repeat(np.arange(n, dtype=np.int64), n)
    j = np.tile(np.arange(n, dtype=np.int64), n)
    off = i != j
    return Edges(2 * n, 2 * i[off], 2 * j[off] + 1)


def _mycielski_size(k: int) -> tuple[int, int]:
    """(n_k, m_k) of the Mycielski graph M_k."""
    n, m = (1, 0) if k == 1 else (2, 1)
    for _ in range(k - 2):
        n, m = 2 * n + 1, 3 * m + n
    return n, m


MYCIELSKI_MAX = 31  # n_31 = 3 * 2^29 - 1 vertices; n_32 does not fit int32


@family(
    _count("k", 1, MYCIELSKI_MAX, help="3*2^(k-2)-1 vertices; int32 ids"),
    peak=lambda k: _edges_peak(*_mycielski_size(k), 32 * _mycielski_size(k)[1]),
    chi=lambda k: k,
)
def mycielski(k: int) -> Edges:
    """Mycielski graph M_k (M_1 = K_1, M_2 = K_2, M_3 = C_5, M_4 = Grötzsch): triangle-free,
    chromatic number k; n_k = 3 * 2^(k-2) - 1 and m_{k+1} = 3 m_k + n_k."""
    if k == 1:
        return Edges(1, np.empty(0, np.int64), np.empty(0, np.int64))
    n, u, v = 2, np.array([0], np.int64), np.array([1], np.int64)
    for _ in range(k - 2):
        # vertices v_i = i, their shadows u_i = n + i, apex w = 2n: v_i v_j -> u_i v_j, v_i u_j
        shadows = np.arange(n, 2 * n, dtype=np.int64)
        u, v = (
            np.concatenate([u, u + n, u, shadows]),
            np.concatenate([v, v, v + n, np.full(n, 2 * n, np.int64)]),
        )
        n = 2 * n + 1
    return Edges(n, u, v)


SIDE_MAX = math.isqrt(VERTEX_MAX)  # n x n cells as int32 vertex ids


@family(
    _count("n", 1, SIDE_MAX, help="n*n vertices; int32 ids"),
    peak=lambda n: _edges_peak(n * n, n * (n - 1) * (5 * n - 1) // 3, 48 * n**3),
    chi=lambda n: n if n % 6 in (1, 5) else None,
)
def queen(n: int) -> Edges:
    """n x n queen graph: cells attack along rows, columns and diagonals;
    m = n(n-1)(5n-1)/3, chromatic number n when n mod 6 is 1 or 5."""
    r, c = np.divmod(np.arange(n * n, dtype=np.int64), n)
    lines = [_pairs_within_groups(key) for key in (r, c, r - c, r + c)]
    return Edges(
        n * n, np.concatenate([p[0] for p in lines]), np.concatenate([p[1] for p in lines])
    )


@family(
    _count("n", 1, SIDE_MAX, help="n*n vertices; int32 ids"),
    peak=lambda n: _edges_peak(n * n, n**3, 48 * n**3),
    chi=lambda n: n,
)
def rook(n: int) -> Edges:
    """n x n rook's graph K_n □ K_n: cells attack along rows and columns; m = n²(n-1),
    chromatic number n (a Latin square colors it). rook?n=100 is COLOR02's qg.order100."""
    r, c = np.divmod(np.arange(n * n, dtype=np.int64), n)
    lines = [_pairs_within_groups(key) for key in (r, c)]
    return Edges(
        n * n, np.concatenate([p[0] for p in lines]), np.concatenate([p[1] for p in lines])
    )


@family(
    _count("leaves", high=VERTEX_MAX - 1),
    peak=lambda leaves: _edges_peak(leaves + 1, leaves, 16 * leaves),
    chi=lambda leaves: min(leaves + 1, 2),
)
def star(leaves: int) -> Edges:
    """Star K_{1,leaves}: centre 0, leaves 1..leaves; m = leaves."""
    return Edges(leaves + 1, np.zeros(leaves, np.int64), np.arange(1, leaves + 1, dtype=np.int64))


@family(_count("n"), peak=lambda n: _csr_peak(8 * (n + 1)), chi=lambda n: min(n, 1))
def empty(n: int) -> Csr:
    """n isolated vertices (n = 0 allowed)."""
    return Csr(np.zeros(n + 1, dtype=np.int64), np.empty(0, dtype=np.int32))
