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
# Past the masks, a row of at least LONG_ROW columns keeps its colors from the masks' top on as
# bits too (its log would be rescanned by every column of it: quadratic in a hub row), the
# longest rows first within LONG_BUDGET_BYTES.
LONG_ROW = 128
LONG_BUDGET_BYTES = 64 << 20


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
    words = max(0, -(-(bound + 1 - 64 - HIGH_BLOCK * blocks) // 64))  # colors past the masks
    slot = long_rows(pattern.row_counts, words)
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
        slot,
        words,
    )
    return colors


def long_rows(row_counts: np.ndarray, words: int) -> np.ndarray:
    """Each row's slot among the long rows (int32, −1 for the others): rows of at least
    :data:`LONG_ROW` columns, the longest first, as many bitmaps of ``words`` 64-bit words
    (the colors past the masks) as :data:`LONG_BUDGET_BYTES` holds; none when ``words`` is 0."""
    slot = np.full(row_counts.size, -1, dtype=np.int32)
    if not words:
        return slot
    room = LONG_BUDGET_BYTES // (8 * words + 8)
    long = np.flatnonzero(row_counts >= LONG_ROW)
    if long.size > room:
        long = np.sort(long[np.argsort(-row_counts[long], kind="stable")[:room]])
    slot[long] = np.arange(long.size, dtype=np.int32)
    return slot


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
def _color_columns(  # type: ignore[no-untyped-def]
    indptr, indices, col_ptr, col_rows, visit, colors, low, high, blocks, bound, slot, words
):
    """Serial first fit over ``visit``, through the rows' masks of the colors they hold.

    Column c must take the smallest color that no colored column sharing a row with it
    holds: the smallest color outside the union of its rows' color sets. Each row r keeps
    that set as bits: ``low[r]`` the colors 0-63, and the block b of ``high`` (a row's 8
    words at ``(b · n_rows + r) · 8``) the colors 64 + 512·b + 0..511. So c ORs its rows'
    words, window by window, and the first window not full holds its color: O(c's rows) per
    window instead of O(Σ over c's rows of their lengths), the same color as scanning every
    distance-2 neighbour. c then sets its bit in each of its rows.

    A color past the masks (only when ``high`` has fewer blocks than ``bound`` needs) is
    found by the stamping scan (:func:`_stamped`), with the long rows (``slot``) read as
    bitmaps of ``words`` words from the masks' top on. The loop here is the common case alone
    (a color below 64); the rest is in functions of their own, so it stays tight."""
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    top = 64 + 512 * blocks  # the colors below it are in the masks
    log = np.empty(0, dtype=np.int32)
    fill = np.empty(0, dtype=np.int64)
    forbidden = np.empty(0, dtype=np.int32)
    bits = np.empty(0, dtype=np.uint64)
    whole = np.empty(0, dtype=np.int64)
    mine = np.empty(0, dtype=np.int64)
    logging = False
    for i in range(visit.shape[0]):
        c = visit[i]
        first = col_ptr[c]
        last = col_ptr[c + 1]
        word = np.uint64(0)
        for e in range(first, last):
            word |= low[col_rows[e]]
        if word != full:
            color = _lowest_free(word)
            bit = np.uint64(1) << np.uint64(color)
            for e in range(first, last):
                low[col_rows[e]] |= bit
        else:
            color = _in_blocks(col_rows, first, last, high, blocks, low.shape[0])
            if color < 0:
                if not logging:
                    log, fill = _logs(indptr, indices, colors)
                    forbidden = np.full(bound + 1, -1, dtype=np.int32)
                    longs = max(slot.max(), -1) + 1 if slot.size else 0
                    bits = np.zeros(longs * words, dtype=np.uint64)
                    whole = np.zeros(longs, dtype=np.int64)
                    mine = np.empty(np.diff(col_ptr).max(), dtype=np.int64)
                    logging = True
                color = _stamped(
                    indptr, col_rows, first, last, c, log, fill, forbidden, top, slot, bits,
                    whole, words, mine,
                )  # fmt: skip
        colors[c] = color
        if logging:
            _record(col_rows, first, last, color, indptr, log, fill, top, slot, bits, whole, words)


@numba.njit(cache=True)
def _in_blocks(col_rows, first, last, high, blocks, n_rows):  # type: ignore[no-untyped-def]
    """The smallest color of the high blocks free in the rows ``col_rows[first:last]``, set
    in them; −1 when every block is full there."""
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    acc = np.zeros(8, dtype=np.uint64)
    for b in range(blocks):
        acc[:] = 0
        base = b * n_rows
        for e in range(first, last):
            at = (base + col_rows[e]) * 8
            for j in range(8):
                acc[j] |= high[at + j]
        for j in range(8):
            if acc[j] != full:
                free = _lowest_free(acc[j])
                bit = np.uint64(1) << np.uint64(free)
                for e in range(first, last):
                    high[(base + col_rows[e]) * 8 + j] |= bit
                return 64 + 512 * b + 64 * j + free
    return -1


@numba.njit(cache=True)
def _logs(indptr, indices, colors):  # type: ignore[no-untyped-def]
    """Each row's log of the colors its colored columns hold, in its own CSR slots
    (``indptr[r]`` on, ``fill[r]`` of them): what the stamping scan reads."""
    log = np.empty(indices.shape[0], dtype=np.int32)
    fill = np.zeros(indptr.shape[0] - 1, dtype=np.int64)
    for r in range(indptr.shape[0] - 1):
        k = indptr[r]
        for e in range(indptr[r], indptr[r + 1]):
            held = colors[indices[e]]
            if held >= 0:
                log[k] = held
                k += 1
        fill[r] = k - indptr[r]
    return log, fill


@numba.njit(cache=True)
def _stamped(  # type: ignore[no-untyped-def]
    indptr, col_rows, first, last, c, log, fill, forbidden, top, slot, bits, whole, words, mine
):
    """The smallest color from ``top`` up that no row ``col_rows[first:last]`` holds: the
    colors in the short rows' logs stamped with c in ``forbidden`` (never cleared, as c is
    stamped once), then the first unstamped color that no long row's bitmap holds either,
    from the largest count of full words any of them has from its start (``whole``, which
    only grows: every color below it is held; ``mine``: room for a column's rows)."""
    start = -1  # the first word to read, -1 without a long row
    longs = 0  # c's long rows' bitmaps start at mine[:longs]
    for e in range(first, last):
        r = col_rows[e]
        s = slot[r]
        if s >= 0:
            start = max(start, whole[s])
            mine[longs] = s * words
            longs += 1
            continue
        for k in range(indptr[r], indptr[r] + fill[r]):
            forbidden[log[k]] = c
    if start < 0:
        color = top
        while forbidden[color] == c:
            color += 1
        return color
    for w in range(start, words):
        held = np.uint64(0)
        for i in range(longs):
            held |= bits[mine[i] + w]
        free = ~held
        while free != np.uint64(0):  # the first free bit is at most bound: stamped or found
            color = top + 64 * w + _lowest_free(~free)
            if forbidden[color] != c:
                return color
            free &= free - np.uint64(1)
    return -1  # unreachable: first fit's color is at most bound, below top + 64 · words


@numba.njit(cache=True)
def _record(  # type: ignore[no-untyped-def]
    col_rows, first, last, color, indptr, log, fill, top, slot, bits, whole, words
):
    """``color`` into the logs of the rows ``col_rows[first:last]``, and, from ``top`` on,
    into the bitmaps of the long ones, moving their full words on."""
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    for e in range(first, last):
        r = col_rows[e]
        log[indptr[r] + fill[r]] = color
        fill[r] += 1
        s = slot[r]
        if s >= 0 and color >= top:
            offset = color - top
            bits[s * words + offset // 64] |= np.uint64(1) << np.uint64(offset % 64)
            while whole[s] < words and bits[s * words + whole[s]] == full:
                whole[s] += 1


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
