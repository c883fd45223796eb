"""Serial greedy coloring of a Pattern's columns: the reference of the distance-2 problems
(docs/distance2.md).

Each column in the visit order takes the smallest color that no other column of any of its
rows holds: the greedy partial distance-2 coloring of Gebremedhin, Manne & Pothen ("What color
is your Jacobian?", SIAM Review 47(4), 2005, Algorithm 3.2; ColPack's
GreedyPartialDistance2Coloring). Its rows are the nets: a column's distance-2 neighbours are
reached through them, so the squared graph is never built, and ``d2`` is this on the pattern
of A + I. ``order=natural`` is the coloring a parallel algorithm reproducing the serial one in
that order must equal column for column. Serial, so ``iterations`` is None.

The smallest color free around a column is found through its rows: each row keeps the colors
its columns hold as bits (64 in one word, then blocks of 512), so a column ORs one word per row
instead of reading the colors of every column of its rows, and only colors past what the masks
hold go through the stamping scan (:func:`_color_columns`; docs/distance2.md, "The serial
references"). The colors are those of the plain first fit, whichever path finds them.
"""

from __future__ import annotations

import numba
import numpy as np

from gcbench.algorithms.priority import PATTERN_ORDERS, pattern_order
from gcbench.algorithms.registry import AlgorithmSpec, Coloring, Param, empty_coloring, register
from gcbench.graphs.pattern import Pattern

# Colors 64 and up are kept in blocks of 512 (8 words, one 64-byte cache line a row) for as
# many blocks as fit the larger of these budgets; only the blocks a coloring reaches are
# written, so only their pages are ever touched (np.zeros maps zero pages lazily).
HIGH_BLOCK = 512
HIGH_BUDGET_BYTES = 64 << 20
HIGH_BUDGET_PER_ENTRY = 8


def greedy_d2_colors(pattern: Pattern, order: str = "natural") -> np.ndarray:
    """First-fit colors (int32) of ``pattern``'s columns visited in ``order``
    (:data:`~gcbench.algorithms.priority.PATTERN_ORDERS`)."""
    colors = empty_coloring(pattern.n_cols)
    col_ptr, col_rows = pattern.columns
    # A column has at most max_col · (max_row − 1) distance-2 neighbours, and never more than
    # n_cols − 1, so first fit picks at most that color.
    bound = min(pattern.max_col * max(pattern.max_row - 1, 0), max(pattern.n_cols - 1, 0))
    low = np.zeros(pattern.n_rows, dtype=np.uint64)
    blocks = high_blocks(pattern.n_rows, pattern.nnz, bound)
    high = np.zeros(blocks * pattern.n_rows * 8, dtype=np.uint64)
    _color_columns(
        pattern.indptr,
        pattern.indices,
        col_ptr,
        col_rows,
        pattern_order(pattern, order),
        colors,
        low,
        high,
        blocks,
        bound,
    )
    return colors


def high_blocks(n_rows: int, nnz: int, bound: int) -> int:
    """The blocks of 512 colors above the first 64 that the row masks keep: enough for
    ``bound``, the largest color first fit can pick, within the budget."""
    needed = max(0, -(-(bound + 1 - 64) // HIGH_BLOCK))
    budget = max(HIGH_BUDGET_BYTES, HIGH_BUDGET_PER_ENTRY * nnz)
    return min(needed, budget // max(64 * n_rows, 1))


@numba.njit(cache=True, inline="always")
def _lowest_free(word):  # type: ignore[no-untyped-def]
    """The lowest clear bit of ``word`` (not all ones)."""
    free = ~word
    k = 0
    while (free >> np.uint64(k)) & np.uint64(1) == 0:
        k += 1
    return k


@numba.njit(cache=True)
def _color_columns(indptr, indices, col_ptr, col_rows, visit, colors, low, high, blocks, bound):  # type: ignore[no-untyped-def]
    """Serial first fit over ``visit``, through the rows' masks of the colors they hold.

    Column c must take the smallest color that no colored column sharing a row with it
    holds: the smallest color outside the union of its rows' color sets. Each row r keeps
    that set as bits: ``low[r]`` the colors 0-63, and the block b of ``high`` (a row's 8
    words at ``(b · n_rows + r) · 8``) the colors 64 + 512·b + 0..511. So c ORs its rows'
    words, window by window, and the first window not full holds its color: O(c's rows) per
    window instead of O(Σ over c's rows of their lengths), the same color as scanning every
    distance-2 neighbour. c then sets its bit in each of its rows.

    A color past the masks (only when ``high`` has fewer blocks than ``bound`` needs) is
    found by the stamping scan: from the first such column on, every row keeps a log of the
    colors its colored columns hold (built once from ``colors``, then appended to), the
    colors in c's rows' logs are stamped with c in ``forbidden`` (never cleared), and c takes
    the smallest unstamped color from the masks' top up."""
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    one = np.uint64(1)
    n_rows = low.shape[0]
    top = 64 + 512 * blocks  # the colors below it are in the masks
    acc = np.zeros(8, dtype=np.uint64)
    log = np.empty(0, dtype=np.int32)
    fill = np.empty(0, dtype=np.int64)
    forbidden = np.empty(0, dtype=np.int32)
    logging = False
    for i in range(visit.shape[0]):
        c = visit[i]
        first = col_ptr[c]
        last = col_ptr[c + 1]
        word = np.uint64(0)
        for e in range(first, last):
            word |= low[col_rows[e]]
        color = -1
        if word != full:
            color = _lowest_free(word)
        else:
            for b in range(blocks):
                acc[:] = 0
                base = b * n_rows
                for e in range(first, last):
                    at = (base + col_rows[e]) * 8
                    for j in range(8):
                        acc[j] |= high[at + j]
                for j in range(8):
                    if acc[j] != full:
                        color = 64 + 512 * b + 64 * j + _lowest_free(acc[j])
                        break
                if color >= 0:
                    break
        if color < 0:
            if not logging:
                log = np.empty(indices.shape[0], dtype=np.int32)
                fill = np.zeros(n_rows, dtype=np.int64)
                forbidden = np.full(bound + 1, -1, dtype=np.int32)
                for r in range(n_rows):
                    k = indptr[r]
                    for e in range(indptr[r], indptr[r + 1]):
                        held = colors[indices[e]]
                        if held >= 0:
                            log[k] = held
                            k += 1
                    fill[r] = k - indptr[r]
                logging = True
            for e in range(first, last):
                r = col_rows[e]
                for k in range(indptr[r], indptr[r] + fill[r]):
                    forbidden[log[k]] = c
            color = top
            while forbidden[color] == c:
                color += 1
        colors[c] = color
        if color < 64:
            bit = one << np.uint64(color)
            for e in range(first, last):
                low[col_rows[e]] |= bit
        elif color < top:
            g = color - 64
            bit = one << np.uint64(g & 63)
            offset = (g >> 9) * n_rows * 8 + ((g >> 6) & 7)
            for e in range(first, last):
                high[offset + col_rows[e] * 8] |= bit
        if logging:
            for e in range(first, last):
                r = col_rows[e]
                log[indptr[r] + fill[r]] = color
                fill[r] += 1


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
                help="column visit order: natural=column id, largest-first=by distance-2 "
                "degree counted with multiplicity, random=by hash32",
            ),
        ),
        deterministic=True,
        iterations_meaning="none (serial)",
        description="serial first-fit greedy of a matrix's columns (no two sharing a row "
        "alike): the distance-2 reference",
        problems=("d2", "pd2", "pd2-rows"),
    )
)
