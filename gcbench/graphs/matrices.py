"""Generated matrix families for the partial distance-2 problems (docs/graphs.md, "Matrix
families"): sparsity patterns of Jacobians, vectorised numpy, deterministic per seed.

Partial distance-2 coloring colors a matrix's columns so that columns sharing a row differ:
the column grouping of a sparse Jacobian computed by finite differences or forward-mode
automatic differentiation (Curtis, Powell & Reid 1974; Gebremedhin, Manne & Pothen, "What
color is your Jacobian?", SIAM Review 47(4), 2005). ``stencil`` is the Jacobian of a
finite-difference discretisation on a grid, ``skewed`` a random matrix whose row lengths
follow a power law, so that its longest row (the lower bound) is far above the mean, and
``uniform`` a random matrix of short rows, with a few dense ones if asked.

Each family is registered in :data:`MATRIX_FAMILIES` with declared parameters
(:class:`~gcbench.graphs.generators.GenParam`), so ``gen:stencil?...`` specs are parsed,
checked and canonicalised like the graph families (:mod:`gcbench.graphs.sources`);
:func:`generate_pattern` builds one, after checking its estimated peak against the memory
budget.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numba
import numpy as np

from gcbench import memory
from gcbench.errors import SpecError, shown
from gcbench.graphs.generators import SEED, VERTEX_MAX, Family, GenParam, Number
from gcbench.graphs.pattern import Pattern

# The stencils (rows=all: clipped at the boundary): per dimension, the star (the centre and
# its 2·dim axis neighbours) and the box ({-1, 0, 1}^dim).
STENCIL_POINTS = {2: (5, 9), 3: (7, 27)}
_BISECTIONS = 200  # cap on the scale search of skewed (it stops at float resolution first)
_DRAW_ROUNDS = 16  # cap on the redraws of skewed rows short of distinct columns


@dataclass(frozen=True)
class Choice(GenParam):
    """A parameter that takes one of a few words (``rows=all``)."""

    choices: tuple[str, ...] = ()

    def parse(self, value: Any, where: str) -> str:
        text = str(value).strip()
        if text not in self.choices:
            choices = " or ".join(self.choices)
            raise SpecError(f"{where}: {self.name}={shown(text)}: choose {choices}")
        return text


@dataclass(frozen=True)
class MatrixFamily(Family):
    """A generated family of matrices: declared and checked as a graph family is, but its
    builder returns a :class:`Pattern` and its canonical spec prints words as they are."""

    def spec(self, resolved: Mapping[str, Any]) -> str:
        query = "&".join(f"{k}={_text(resolved[k])}" for k in sorted(resolved))
        return f"gen:{self.name}" + (f"?{query}" if query else "")

    def named(self, built: Pattern, spec: str) -> Pattern:  # type: ignore[override]
        """The built pattern, named (and sourced) by its canonical spec: what
        :meth:`Family.generate` returns for a matrix family."""
        return replace(built, name=spec, source=spec)


def _text(value: Number | str) -> str:
    return value if isinstance(value, str) else repr(value)


MATRIX_FAMILIES: dict[str, MatrixFamily] = {}


def matrix_family(
    name: str,
    *params: GenParam,
    peak: Callable[..., int],
    check: Callable[[Mapping[str, Any]], str | None] | None = None,
) -> Callable[[Callable[..., Pattern]], Callable[..., Pattern]]:
    """Register a builder as the matrix family ``name`` (its docstring's first paragraph is
    the description); ``peak(**resolved parameters)`` estimates its peak bytes."""

    def register(build: Callable[..., Pattern]) -> Callable[..., Pattern]:
        description = " ".join((build.__doc__ or "").split("\n\n")[0].split())
        MATRIX_FAMILIES[name] = MatrixFamily(name, build, params, description, peak, check=check)
        return build

    return register


def get_matrix_family(name: str, where: str | None = None) -> MatrixFamily:
    """The matrix family called ``name``, or a SpecError listing the known ones."""
    try:
        return MATRIX_FAMILIES[name]
    except KeyError:
        raise SpecError(
            f"{where or name}: unknown matrix family {name!r}; "
            f"known: {', '.join(sorted(MATRIX_FAMILIES))}"
        ) from None


def generate_pattern(family: str, params: Mapping[str, Any]) -> Pattern:
    """The pattern of the matrix family ``family`` with ``params`` (checked, defaults filled,
    the memory budget asked first), named by its canonical spec."""
    return get_matrix_family(family).generate(params)


# --- stencil ---------------------------------------------------------------------------------


def _stencil_check(p: Mapping[str, Any]) -> str | None:
    dim, points, side = p["dim"], p["points"], p["side"]
    if points not in STENCIL_POINTS[dim]:
        options = " or ".join(map(str, STENCIL_POINTS[dim]))
        return f"a {dim}-dimensional stencil has {options} points, not {points}"
    if side**dim > VERTEX_MAX:
        return f"side^dim = {side**dim} grid points exceed the {VERTEX_MAX} that int32 ids number"
    return None


def _stencil_peak(dim: int, side: int, points: int, rows: str) -> int:
    """rows=all: per grid point and stencil point an int32 column and a mask byte, and the
    kept ids (at most as many); per grid point its id, coordinates and boundary masks.
    rows=interior: the int32 ids, per interior point its id and coordinates."""
    n = side**dim
    if rows == "all":
        return 9 * n * points + (10 * dim + 48) * n + memory.HEADROOM
    m = max(side - 2, 0) ** dim
    return 4 * m * points + (8 * dim + 32) * m + memory.HEADROOM


@matrix_family(
    "stencil",
    GenParam("dim", int, 2, 2, 3, "grid dimensions"),
    GenParam("side", int, None, 1, VERTEX_MAX, "side^dim grid points; int32 ids"),
    GenParam("points", int, None, 5, 27, "5 or 9 (dim 2), 7 or 27 (dim 3)"),
    Choice(
        "rows",
        str,
        "all",
        help="all grid points, or the interior ones",
        choices=("all", "interior"),
    ),
    peak=_stencil_peak,
    check=_stencil_check,
)
def _stencil(dim: int, side: int, points: int, rows: str) -> Pattern:
    """Finite-difference Jacobian on a side^dim grid: column j is grid point j, row i the
    residual at grid point i, nonzero where j is in i's stencil (5 or 9 points in 2-d, 7 or 27
    in 3-d). rows=all: square, every grid point a row, the stencil clipped at the boundary;
    rows=interior: the (side-2)^dim interior points as rows, each with the whole stencil.

    Ids are row-major (lexicographic in the coordinates, the first coordinate slowest), for
    both rows and columns; the diagonal is in every row of rows=all.
    """
    offsets = _offsets(dim, points)
    strides = side ** np.arange(dim - 1, -1, -1, dtype=np.int64)
    if rows == "interior":
        return _interior_stencil(dim, side, offsets, strides)
    n = side**dim
    ids = np.arange(n, dtype=np.int64)
    coords = [ids // stride % side for stride in strides]
    inside = {(axis, -1): coords[axis] > 0 for axis in range(dim)}
    inside |= {(axis, 1): coords[axis] < side - 1 for axis in range(dim)}
    del coords
    # Offsets in lexicographic order keep each row's columns sorted: row-major ids order grid
    # points lexicographically, and i + o < i + o' exactly when o < o'.
    columns = np.zeros((n, offsets.shape[0]), dtype=np.int32)
    present = np.ones((n, offsets.shape[0]), dtype=np.bool_)
    for k, offset in enumerate(offsets):
        for axis, step in enumerate(offset):
            if step:
                present[:, k] &= inside[axis, int(step)]
        columns[:, k] = np.where(present[:, k], ids + int(offset @ strides), 0)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(present.sum(axis=1), out=indptr[1:])
    return Pattern("stencil", n, n, indptr, columns[present], symmetric=True)


def _interior_stencil(dim: int, side: int, offsets: np.ndarray, strides: np.ndarray) -> Pattern:
    """rows=interior: row r is the r-th interior point in row-major order, every stencil
    point a column (all in range, so no clipping)."""
    inner = max(side - 2, 0)
    m = inner**dim
    ids = np.arange(m, dtype=np.int64)
    centre = np.zeros(m, dtype=np.int64)
    for axis, stride in enumerate(strides):
        centre += (ids // inner ** (dim - 1 - axis) % max(inner, 1) + 1) * stride
    deltas = (offsets @ strides).astype(np.int32)  # increasing: lexicographic offsets
    indices = (centre.astype(np.int32)[:, None] + deltas[None, :]).ravel()
    indptr = np.arange(m + 1, dtype=np.int64) * offsets.shape[0]
    return Pattern("stencil", m, side**dim, indptr, indices)


def _offsets(dim: int, points: int) -> np.ndarray:
    """The stencil's offsets in lexicographic order: the box {-1, 0, 1}^dim, or the star
    (offsets with one nonzero coordinate at most)."""
    box = np.array(list(itertools.product((-1, 0, 1), repeat=dim)), dtype=np.int64)
    return box if points == 3**dim else box[np.abs(box).sum(axis=1) <= 1]


# --- skewed ----------------------------------------------------------------------------------


def _skewed_check(p: Mapping[str, Any]) -> str | None:
    if p["mean"] > p["cols"]:
        return f"mean={p['mean']} exceeds cols={p['cols']}: a row holds at most cols entries"
    return None


def _skewed_peak(rows: int, cols: int, mean: float, exponent: float, seed: int) -> int:
    """Per row its draw, length, bookkeeping and the scale search's temporaries (64 bytes);
    per entry its int32 column and at most two int32 draws (12 bytes, the draws being at most
    2 per entry + 4 per row); a byte per column (the marks)."""
    entries = math.ceil(rows * mean) + rows
    return 12 * entries + (64 + 16) * rows + cols + memory.HEADROOM


@matrix_family(
    "skewed",
    GenParam("rows", int, None, 1, VERTEX_MAX, "rows; int32 ids"),
    GenParam("cols", int, None, 1, VERTEX_MAX, "columns; int32 ids"),
    GenParam("mean", float, None, 1.0, None, "mean row length"),
    GenParam("exponent", float, 2.5, 1.1, 10.0, "power-law exponent of the row lengths"),
    SEED,
    peak=_skewed_peak,
    check=_skewed_check,
)
def _skewed(rows: int, cols: int, mean: float, exponent: float, seed: int) -> Pattern:
    """Random rows × cols matrix with power-law row lengths: ℓ_i = min(cols, ⌈λ·x_i⌉) with
    x_i = (1 − u_i)^(−1/(exponent − 1)) Pareto (density ∝ x^−exponent), λ the scale at which
    the lengths sum to mean · rows (rounded); each row's columns uniform without repetition.

    docs/graphs.md, "Matrix families", has the exact definition.
    """
    rng = np.random.default_rng(seed)
    scale = (1.0 - rng.random(rows)) ** (-1.0 / (exponent - 1.0))
    lengths = _scaled_lengths(scale, cols, math.floor(mean * rows + 0.5))
    del scale
    return _random_rows("skewed", lengths, cols, rng)


def _random_rows(name: str, lengths: np.ndarray, cols: int, rng: np.random.Generator) -> Pattern:
    """The pattern ``name`` whose row i holds lengths[i] (int64, at most cols) distinct columns,
    a uniform random set drawn from ``rng``, sorted."""
    rows = lengths.size
    indptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=np.int32)
    # A row of more than half the columns keeps all but a uniform set of the others, so no
    # row draws more than half the columns.
    dense = 2 * lengths > cols
    wanted = np.where(dense, cols - lengths, lengths)
    seen = np.zeros(cols, dtype=np.bool_)
    pending = np.arange(rows, dtype=np.int64)
    # w + ⌈2w²/cols⌉ + 4 draws hold w distinct values but rarely: w uniform draws repeat
    # about w²/(2·cols) times (w ≤ cols/2); a short row draws twice as many next round.
    draws = wanted + -(-2 * wanted**2 // cols) + 4 * (wanted > 0)
    for _ in range(_DRAW_ROUNDS):
        if pending.size == 0:
            break
        starts = np.zeros(pending.size + 1, dtype=np.int64)
        np.cumsum(draws, out=starts[1:])
        stream = rng.integers(0, cols, int(starts[-1]), dtype=np.int32)
        short = _fill_rows(pending, wanted[pending], dense, stream, starts, indptr, indices, seen)
        pending, draws = pending[short], 2 * draws[short]
    if pending.size:
        raise SpecError(
            f"{name}: {pending.size} rows short of distinct columns after {_DRAW_ROUNDS} "
            "rounds; try another seed"
        )
    return Pattern(name, rows, cols, indptr, indices)


# --- uniform ---------------------------------------------------------------------------------


def _uniform_check(p: Mapping[str, Any]) -> str | None:
    for name in ("length", "width"):
        if p[name] > p["cols"]:
            return f"{name}={p[name]} exceeds cols={p['cols']}: a row holds at most cols entries"
    if p["dense"] > p["rows"]:
        return f"dense={p['dense']} exceeds rows={p['rows']}"
    return None


def uniform_entries(rows: int, length: int, dense: int, width: int) -> int:
    """The entries of ``gen:uniform``: exactly its rows' lengths summed (the peak estimate and
    bench/cost.py's nnz rule read it)."""
    return (rows - dense) * length + dense * width


def _uniform_peak(rows: int, cols: int, length: int, dense: int, width: int, seed: int) -> int:
    """As skewed's: 12 bytes an entry, 80 a row, a byte a column."""
    entries = uniform_entries(rows, length, dense, width)
    return 12 * entries + 80 * rows + cols + memory.HEADROOM


@matrix_family(
    "uniform",
    GenParam("rows", int, None, 1, VERTEX_MAX, "rows; int32 ids"),
    GenParam("cols", int, None, 1, VERTEX_MAX, "columns; int32 ids"),
    GenParam("length", int, 8, 0, VERTEX_MAX, "entries of every row but the dense ones"),
    GenParam("dense", int, 0, 0, VERTEX_MAX, "how many rows, the first ones, are dense"),
    GenParam("width", int, 0, 0, VERTEX_MAX, "entries of each dense row"),
    SEED,
    peak=_uniform_peak,
    check=_uniform_check,
)
def _uniform(rows: int, cols: int, length: int, dense: int, width: int, seed: int) -> Pattern:
    """Random rows × cols matrix whose rows hold `length` uniform columns each but the first
    `dense`, which hold `width`: short rows, or short rows beside a few dense ones (a sum
    constraint, a parameter every residual depends on).

    docs/graphs.md, "Matrix families", has the exact definition.
    """
    lengths = np.full(rows, length, dtype=np.int64)
    lengths[:dense] = width
    return _random_rows("uniform", lengths, cols, np.random.default_rng(seed))


def _scaled_lengths(x: np.ndarray, cap: int, total: int) -> np.ndarray:
    """min(cap, ⌈λ·x⌉) for the smallest λ (found by bisection to float resolution) at which
    they sum to at least ``total`` (at most cap · x.size)."""

    def lengths(scale: float) -> np.ndarray:
        out = np.ceil(x * scale)
        np.minimum(out, cap, out=out)
        return out

    low, high = 0.0, float(cap)  # sum 0 < total; every length capped: sum = cap · x.size
    for _ in range(_BISECTIONS):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if lengths(middle).sum() >= total:
            high = middle
        else:
            low = middle
    return lengths(high).astype(np.int64)


@numba.njit(cache=True, nogil=True)
def _fill_rows(rows, wanted, dense, stream, starts, indptr, indices, seen):
    """Fill each row of ``rows`` from its part of ``stream`` (uniform draws from the columns):
    the first wanted[t] distinct values, a uniform random set since the draws are
    exchangeable; a dense row then holds every column but those. Each row's columns are
    written sorted into its slice of ``indices``, which serves as scratch (a dense row wants
    fewer than it holds); ``seen`` is all False between rows. Returns the rows whose draws
    held too few distinct values (their slices to be filled again)."""
    short = np.zeros(rows.size, dtype=np.bool_)
    cols = seen.size
    for t in range(rows.size):
        i = rows[t]
        lo = indptr[i]
        got = 0
        for d in range(starts[t], starts[t + 1]):
            if got == wanted[t]:
                break
            value = stream[d]
            if not seen[value]:
                seen[value] = True
                indices[lo + got] = value
                got += 1
        if got < wanted[t] or not dense[i]:
            for k in range(lo, lo + got):
                seen[indices[k]] = False
            short[t] = got < wanted[t]
            indices[lo : lo + got].sort()
            continue
        k = lo
        for value in range(cols):  # every column but the drawn ones, which are unmarked
            if seen[value]:
                seen[value] = False
            else:
                indices[k] = value
                k += 1
    return short
