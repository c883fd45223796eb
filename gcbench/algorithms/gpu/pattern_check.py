"""Checking a coloring of a DevicePattern's columns on the device (docs/distance2.md): the
device twin of :mod:`gcbench.algorithms.pattern_validation`, with the same semantics, so that
only a few counts come back to the host.

:func:`validate_pattern_device` counts the conflicting nonzeros in O(nnz) whatever the rows'
lengths (hub rows of 10⁵ columns exist): one int64 key (row, color) per nonzero
(``pattern_keys`` of kernels/distance2.cu), a sort, and a count of keys equal to their
predecessor; the uncolored columns, colors and balance come from the distance-1 pass
(:func:`runtime.validate_device`) on the columns without edges. :func:`recovers_device` is the
recovery check, a real sparse product on the device (cuSPARSE SpGEMM through cupyx).

Both estimate their memory first (:func:`runtime.require_device`, as the distance-2
launchers do): the validation refuses what cannot fit (``oom``), the recovery check answers None.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.pattern_validation import nonzero_values
from gcbench.algorithms.validation import Validation
from gcbench.errors import InputError, InsufficientMemoryError

FAMILY = "distance2"  # pattern_keys lives beside the distance-2 kernels
# Peak device bytes, measured from what each step allocates (docstrings below).
KEY_BYTES_PER_NONZERO = 32  # the int64 key, the sort's buffer and scratch, the equality mask
KEY_BYTES_PER_COLUMN = 8  # validate_device's class sizes and the zero offsets of _Edgeless
RECOVERY_BYTES_PER_NONZERO = 192  # J's values and temporaries, B, SpGEMM, B's sorted keys
RECOVERY_BYTES_PER_COLUMN = 48  # the unique colors and their inverse, S
RECOVERY_BYTES_PER_ROW = 8  # B's offsets


@dataclass(frozen=True)
class _Edgeless:
    """The columns as a graph without edges: what :func:`runtime.validate_device` reads of a
    graph (``n``, ``indptr``, ``indices``), so that its one pass counts the uncolored columns
    and the classes and finds no conflicting edge (a Pattern's conflicts are counted apart)."""

    n: int
    indptr: Any  # int32[n + 1] of zeros: no column has an edge
    indices: Any  # never read


def _colors(dpattern: runtime.DevicePattern, dcolors: Any) -> Any:
    colors = runtime.cupy().asarray(dcolors, dtype=np.int32)
    if colors.shape != (dpattern.n,):
        raise InputError(f"{dpattern.name}: {colors.size} colors given for {dpattern.n} columns")
    return colors


def validate_pattern_device(
    dpattern: runtime.DevicePattern, dcolors: Any, *, block_size: int = 256
) -> Validation:
    """The Validation of the device coloring ``dcolors`` of ``dpattern``'s columns, equal to
    :func:`~gcbench.algorithms.pattern_validation.validate_pattern`'s: ``conflicts`` counts
    the nonzeros (r, c) of a colored column c whose color a smaller column of row r has too
    (each row with t columns of one color counts t − 1); uncolored columns, distinct colors,
    the largest color and the class balance as for a graph; ``recovered`` None. Sorting the
    keys costs about 32 bytes per nonzero, checked first (``block_size``: a multiple of 32)."""
    cp = runtime.cupy()
    colors = _colors(dpattern, dcolors)
    n, nnz = dpattern.n, dpattern.nnz
    runtime.require_device(
        KEY_BYTES_PER_NONZERO * nnz + KEY_BYTES_PER_COLUMN * n,
        f"validating a coloring of {dpattern.name}",
    )
    conflicts = 0
    if nnz:
        keys = cp.empty(nnz, dtype=np.int64)
        runtime.kernel(FAMILY, "pattern_keys")(
            (runtime.grid_for(dpattern.n_rows, block_size),),
            (block_size,),
            (np.int32(dpattern.n_rows), dpattern.row_ptr, dpattern.row_cols, colors, keys),
        )
        keys.sort()
        conflicts = int(cp.count_nonzero(keys[1:] == keys[:-1]))
        del keys  # back to the pool before the class pass
    columns = _Edgeless(n, cp.zeros(n + 1, dtype=np.int32), dpattern.row_cols)
    counted = runtime.validate_device(columns, colors, block_size=block_size)  # type: ignore[arg-type]
    return dataclasses.replace(counted, conflicts=conflicts)


def recovers_device(dpattern: runtime.DevicePattern, dcolors: Any) -> bool | None:
    """Whether the compressed product recovers J, on the device: the same check as
    :func:`~gcbench.algorithms.pattern_validation.recovers` (J holding
    :func:`~gcbench.algorithms.pattern_validation.nonzero_values`, S the n_cols × k seed
    matrix of the coloring's dense color ids, B = J·S by cuSPARSE SpGEMM through
    ``cupyx.scipy.sparse``, then J[r, c] == B[r, colors[c]] exactly for every nonzero); False
    when a column is uncolored. None when its estimate (about 192 bytes per nonzero: J's
    values and their temporaries, B, SpGEMM's buffers, B's sorted int64 keys and the look-up)
    does not fit the free memory: the check is a diagnostic beside the validation, which has
    already counted the conflicts that decide validity, so it is skipped rather than failing
    the repetition (``oom``)."""
    from cupyx.scipy import sparse

    cp = runtime.cupy()
    colors = _colors(dpattern, dcolors)
    n, nnz = dpattern.n, dpattern.nnz
    if n and bool((colors < 0).any()):
        return False
    if not nnz:
        return True  # nothing to recover
    needed = (
        RECOVERY_BYTES_PER_NONZERO * nnz
        + RECOVERY_BYTES_PER_COLUMN * n
        + RECOVERY_BYTES_PER_ROW * dpattern.n_rows
    )
    try:
        runtime.require_device(needed, f"the recovery check of {dpattern.name}")
    except InsufficientMemoryError:
        return None
    # Dense color ids 0..k-1, as on the host: S and B have k columns however large the ids.
    distinct, dense = cp.unique(colors, return_inverse=True)
    k = int(distinct.size)
    rows = cp.searchsorted(dpattern.row_ptr[1:], cp.arange(nnz, dtype=np.int32), side="right")
    values = nonzero_values(rows, dpattern.row_cols, xp=cp)
    jacobian = sparse.csr_matrix(
        (values, dpattern.row_cols, dpattern.row_ptr), shape=(dpattern.n_rows, n)
    )
    jacobian.has_canonical_format = True  # the Pattern invariant: sorted rows, no duplicates
    seed = sparse.csr_matrix(
        (cp.ones(n), dense.astype(np.int32), cp.arange(n + 1, dtype=np.int32)), shape=(n, k)
    )
    seed.has_canonical_format = True  # one entry per row
    compressed = jacobian @ seed
    b_rows = cp.searchsorted(
        compressed.indptr[1:], cp.arange(compressed.nnz, dtype=np.int32), side="right"
    )
    b_keys = b_rows.astype(np.int64) * k + compressed.indices
    order = cp.argsort(b_keys)  # B's (row, column) keys sorted, whatever order SpGEMM left
    b_keys, b_values = b_keys[order], compressed.data[order]
    j_keys = rows.astype(np.int64) * k + dense[dpattern.row_cols]
    at = cp.minimum(cp.searchsorted(b_keys, j_keys), max(compressed.nnz - 1, 0))
    if not bool(cp.array_equal(b_keys[at], j_keys)):
        return False  # unreachable with positive values; kept as the definition's check
    return bool(cp.array_equal(b_values[at], values))
