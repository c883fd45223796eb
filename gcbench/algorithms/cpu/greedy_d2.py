"""Serial greedy coloring of a Pattern's columns: the reference of the distance-2 problems
(docs/distance2.md).

Each column in the visit order takes the smallest color that no other column of any of its
rows holds: the greedy partial distance-2 coloring of Gebremedhin, Manne & Pothen ("What color
is your Jacobian?", SIAM Review 47(4), 2005, Algorithm 3.2; ColPack's
GreedyPartialDistance2Coloring). Its rows are the nets: a column's distance-2 neighbours are
reached through them, so the squared graph is never built, and ``d2`` is this on the pattern
of A + I. ``order=natural`` is the coloring a parallel algorithm reproducing the serial one in
that order must equal column for column. Serial, so ``iterations`` is None.
"""

from __future__ import annotations

import numba
import numpy as np

from gcbench.algorithms.priority import PATTERN_ORDERS, pattern_order
from gcbench.algorithms.registry import AlgorithmSpec, Coloring, Param, empty_coloring, register
from gcbench.graphs.pattern import Pattern


def greedy_d2_colors(pattern: Pattern, order: str = "natural") -> np.ndarray:
    """First-fit colors (int32) of ``pattern``'s columns visited in ``order``
    (:data:`~gcbench.algorithms.priority.PATTERN_ORDERS`)."""
    colors = empty_coloring(pattern.n_cols)
    col_ptr, col_rows = pattern.columns
    # A column has at most max_col · (max_row − 1) distance-2 neighbours, and never more than
    # n_cols − 1, so first fit picks at most that color: the marker array's last index.
    bound = min(pattern.max_col * max(pattern.max_row - 1, 0), max(pattern.n_cols - 1, 0))
    forbidden = np.full(bound + 1, -1, dtype=np.int32)
    _color_columns(
        pattern.indptr,
        pattern.indices,
        col_ptr,
        col_rows,
        pattern_order(pattern, order),
        colors,
        forbidden,
    )
    return colors


@numba.njit(cache=True)
def _color_columns(indptr, indices, col_ptr, col_rows, visit, colors, forbidden):  # type: ignore[no-untyped-def]
    """Serial first fit over ``visit``: the colors of every column sharing a row with column
    c are stamped with c in ``forbidden`` (so it is never cleared: O(Σ over c's rows of their
    counts) per column), then c takes the smallest color not stamped. c itself is still
    uncolored while its rows are scanned, so it forbids nothing."""
    for i in range(visit.shape[0]):
        c = visit[i]
        for e in range(col_ptr[c], col_ptr[c + 1]):
            r = col_rows[e]
            for k in range(indptr[r], indptr[r + 1]):
                color = colors[indices[k]]
                if color >= 0:
                    forbidden[color] = c
        color = 0
        while forbidden[color] == c:
            color += 1
        colors[c] = color


def run(pattern: Pattern, *, order: str = "natural") -> Coloring:
    return Coloring(greedy_d2_colors(pattern, order), iterations=None)


register(
    AlgorithmSpec(
        name="greedy",
        backend="cpu",
        family="serial greedy partial distance-2 (Gebremedhin, Manne & Pothen 2005, Alg. 3.2)",
        run=run,
        params=(
            Param(
                "order",
                "natural",
                str,
                choices=PATTERN_ORDERS,
                help="column visit order: natural=column id, largest-first=most distinct "
                "distance-2 neighbours first, smallest-last and incidence-degree=ColPack's "
                "dynamic distance-2 orders, random=by hash32 (docs/distance2.md, Orders)",
            ),
        ),
        deterministic=True,
        iterations_meaning="none (serial)",
        description="serial first-fit greedy of a matrix's columns (no two sharing a row "
        "alike): the distance-2 reference",
        problems=("d2", "pd2", "pd2-rows"),
    )
)
