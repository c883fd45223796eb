"""ColPack's partial distance-2 column orderings of a Pattern (docs/distance2.md, "Orders").

A column's distance-2 neighbours are the other columns sharing a row with it (on the pattern
of A + I, the vertices at distance 1 or 2). Its *distance-2 degree* is how many distinct ones
it has: what ColPack's ``BipartiteGraphPartialOrdering`` (Column LargestFirst, SmallestLast,
IncidenceDegree) counts, after Gebremedhin, Manne & Pothen ("What color is your Jacobian?",
SIAM Review 47(4), 2005, §3-4). Every kernel reaches the neighbours through the rows with a
marker array (one int32 per column: a neighbour met again through another row is skipped),
so the squared graph is never built; a pass over every column's neighbourhood costs
O(Σ row²) (``Pattern.pairs``), as long as a greedy coloring.

- :func:`distinct_degrees`: each column's distance-2 degree, one pass;
- :func:`smallest_last`: repeatedly remove a remaining column of smallest degree among the
  remaining columns (its remaining distance-2 neighbours lose one each); the order is the
  reverse of the removals. Two passes (the degrees, then the removals);
- :func:`incidence_degree`: repeatedly take the column with the most already-ordered
  distance-2 neighbours. One pass.

The two dynamic orders keep the columns in stacks by their current count (ColPack's buckets,
here doubly linked lists, so a column moves in O(1)): O(Σ row² + D) for D = Σ distinct
degrees / 2 moves, beside the pass of :func:`distinct_degrees` smallest-last starts from.
**Ties** (deterministic, as ColPack's, which also takes the last column of a bucket): the
column on top of the stack, that is the one that reached its count last. The neighbours of
the column just taken move in the order they are met, each at its first meeting: its rows
ascending and each row's columns ascending for smallest-last, both descending for
incidence-degree; at the start smallest-last's stacks hold the columns with the highest id
on top and incidence-degree's with the lowest. So when the counts tie throughout (one full
row; columns in no row) both give the natural order, and ties lean to lower ids first.
Memory: 24 bytes per column (the levels, the stacks' heads and two links, the marker, the
order) and smallest-last's int64 degrees; nothing per neighbour.
"""

from __future__ import annotations

import numba
import numpy as np

from gcbench.graphs.pattern import Pattern


def distinct_degrees(pattern: Pattern) -> np.ndarray:
    """Each column's number of distinct distance-2 neighbours (other columns sharing a row
    with it), int64: ColPack's partial distance-2 degree. O(Σ row²), one int32 marker per
    column."""
    col_ptr, col_rows = pattern.columns
    degrees = np.zeros(pattern.n_cols, dtype=np.int64)
    _distinct_degrees(pattern.indptr, pattern.indices, col_ptr, col_rows, degrees)
    return degrees


@numba.njit(cache=True)
def _distinct_degrees(indptr, indices, col_ptr, col_rows, degrees):  # type: ignore[no-untyped-def]
    """``degrees[c]`` = distinct other columns of c's rows: c stamps each one it meets in
    ``mark``, so one met again through another row is not counted twice."""
    n = degrees.shape[0]
    mark = np.full(n, -1, dtype=np.int32)
    for c in range(n):
        mark[c] = c  # never counts itself
        count = 0
        for e in range(col_ptr[c], col_ptr[c + 1]):
            r = col_rows[e]
            for k in range(indptr[r], indptr[r + 1]):
                u = indices[k]
                if mark[u] != c:
                    mark[u] = c
                    count += 1
        degrees[c] = count


def smallest_last(pattern: Pattern) -> np.ndarray:
    """ColPack's partial distance-2 smallest-last order, int32: the column removed last comes
    first. Each step removes a remaining column of smallest current distance-2 degree
    (distinct remaining neighbours), and every remaining distance-2 neighbour of it loses
    one. Ties: the column that reached its degree last (module docstring); at the start the
    highest id, so that equal degrees throughout give the natural order."""
    degrees = distinct_degrees(pattern).astype(np.int32)
    return _buckets(pattern, degrees, smallest_last=True)


def incidence_degree(pattern: Pattern) -> np.ndarray:
    """ColPack's partial distance-2 incidence-degree order, int32: each step takes, among the
    columns not yet ordered, one with the most distinct distance-2 neighbours already
    ordered. Ties: the column that reached its count last (module docstring); at the start
    the lowest id, so column 0 comes first and columns with no neighbours in natural order."""
    return _buckets(pattern, np.zeros(pattern.n_cols, dtype=np.int32), smallest_last=False)


def _buckets(pattern: Pattern, levels: np.ndarray, *, smallest_last: bool) -> np.ndarray:
    """The columns taken one by one from the lowest (``smallest_last``: each lowering its
    remaining neighbours' levels by one; the order reversed) or the highest level (raising
    them), as int32."""
    col_ptr, col_rows = pattern.columns
    order = np.empty(pattern.n_cols, dtype=np.int32)
    _take(pattern.indptr, pattern.indices, col_ptr, col_rows, levels, order, smallest_last)
    return order


@numba.njit(cache=True)
def _take(indptr, indices, col_ptr, col_rows, level, order, smallest_last):  # type: ignore[no-untyped-def]
    """The bucket loop of :func:`_buckets`. ``head[d]`` is the top of the stack of columns at
    level d, a doubly linked list through ``below``/``above`` (−1 at the ends), so a column
    moves between stacks in O(1); ``level[c]`` becomes −1 once c is taken; ``mark[u] == s``
    says u was already moved for the column s just taken. A level never exceeds n − 1."""
    n = level.shape[0]
    head = np.full(n + 1, -1, dtype=np.int32)
    below = np.full(n, -1, dtype=np.int32)
    above = np.full(n, -1, dtype=np.int32)
    mark = np.full(n, -1, dtype=np.int32)
    for i in range(n):
        c = i if smallest_last else n - 1 - i
        _push(head, below, above, level[c], c)
    current = 0
    for i in range(n):
        if smallest_last:
            while head[current] < 0:
                current += 1
        else:
            while head[current] < 0:
                current -= 1
        s = head[current]
        _pop(head, below, above, current, s)
        level[s] = -1
        order[n - 1 - i if smallest_last else i] = s
        mark[s] = s
        first, last = col_ptr[s], col_ptr[s + 1] - 1
        for e in range(first, last + 1):
            r = col_rows[e if smallest_last else first + last - e]  # descending for incidence
            lo, hi = indptr[r], indptr[r + 1] - 1
            for k in range(lo, hi + 1):
                u = indices[k if smallest_last else lo + hi - k]
                if mark[u] != s and level[u] >= 0:
                    mark[u] = s
                    d = level[u]
                    _pop(head, below, above, d, u)
                    d = d - 1 if smallest_last else d + 1
                    level[u] = d
                    _push(head, below, above, d, u)
                    if (d < current) if smallest_last else (d > current):
                        current = d


@numba.njit(cache=True)
def _push(head, below, above, d, c):  # type: ignore[no-untyped-def]
    """c on top of stack d."""
    top = head[d]
    below[c] = top
    above[c] = -1
    if top >= 0:
        above[top] = c
    head[d] = c


@numba.njit(cache=True)
def _pop(head, below, above, d, c):  # type: ignore[no-untyped-def]
    """c out of stack d, wherever it is."""
    down, up = below[c], above[c]
    if up >= 0:
        below[up] = down
    else:
        head[d] = down
    if down >= 0:
        above[down] = up
