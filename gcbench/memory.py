"""Memory budgets: refuse work that cannot fit before allocating it, in one line.

The host budget is the kernel's estimate of memory available without swapping
(``MemAvailable`` in /proc/meminfo), or ``GCBENCH_MAX_MEMORY`` when set (bytes, or a number
with a K/M/G/T suffix, powers of 1024). Readers and generators estimate their peak from
what they know before allocating (a file's header, a generator's parameters) and call
:func:`require`; the GPU runtime calls :func:`check_device` with the device's free memory
before uploading a graph. Both raise :class:`~gcbench.errors.InsufficientMemoryError`, a
GcbenchError (one ``error:`` line from the CLI) and a MemoryError (``status=oom`` in the
runner). :func:`guard` turns a MemoryError that slips past an estimate into the same error.
The per-entry figures are measured (benchmarks/build_memory.py); docs/decisions.md, "Memory
budget", records them and the decisions.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from gcbench.errors import InputError, InsufficientMemoryError, excerpt

ENV = "GCBENCH_MAX_MEMORY"
GPU_ENV = "GCBENCH_MAX_GPU_MEMORY"
MEMINFO = Path("/proc/meminfo")
_UNITS = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4}
_SIZE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)(?:I?B)?", re.IGNORECASE)

# Peak bytes of gcbench.graphs.graph.from_edges beyond its input
# (gcbench/graphs/_normalise.py): a uint32 key per direction of each entry, two int64 arrays
# of n + 1 (row starts, indptr), and per numba thread at most one radix scratch of RADIX_MAX
# keys.
BUILD_BYTES_PER_ENTRY = 8
BUILD_BYTES_PER_VERTEX = 16
BUILD_SCRATCH_PER_THREAD = 4 << 22
# Fixed headroom on every estimate: numba/numpy temporaries, allocator slack, reader buffers.
HEADROOM = 64 << 20


@dataclass(frozen=True)
class Budget:
    """Bytes that may be allocated, and where that figure comes from (for messages)."""

    bytes: int | None
    """None when the platform says nothing about available memory: nothing is refused."""
    source: str
    available: bool = False
    """True for memory available now (MemAvailable), which excludes what is held already."""


def parse_size(text: str, variable: str = ENV) -> int:
    """``"20G"``, ``"512M"``, ``"1.5T"``, ``"4096"`` → bytes (K/M/G/T = 1024^1..4, an optional
    trailing ``B``/``iB``, any case); anything else is an InputError that says what to write."""
    match = _SIZE.fullmatch(text.strip())
    if not match:
        raise InputError(
            f"{variable}={excerpt(text)} is not a size; give bytes or a number with K, M, G or T "
            "(powers of 1024), e.g. 20G"
        )
    number, unit = match.groups()
    value = float(number) * 1024 ** _UNITS[unit.upper()]
    if value < 1 or not math.isfinite(value):
        raise InputError(f"{variable}={excerpt(text)} must be at least one byte, e.g. 20G")
    return int(value)


def budget() -> Budget:
    """The host memory budget now: ``GCBENCH_MAX_MEMORY`` if set, else ``MemAvailable``."""
    given = os.environ.get(ENV, "").strip()
    if given:
        return Budget(parse_size(given), f"{ENV}={given}")
    available = _mem_available()
    if available is not None:
        return Budget(available, f"MemAvailable; set {ENV} to change it", available=True)
    return Budget(None, f"unknown; set {ENV} to set one")


def _mem_available() -> int | None:
    try:
        text = MEMINFO.read_text()
    except OSError:
        return None
    found = re.search(r"^MemAvailable:\s+(\d+)\s*kB", text, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else None


def require(needed: int, what: str, *, held: int = 0) -> None:
    """Raise InsufficientMemoryError if the work ``what`` (a spec, a file) cannot have
    ``needed`` bytes at its peak, ``held`` of which it has allocated already.

    Against ``MemAvailable`` (which no longer counts what is held) the rest must be available;
    against ``GCBENCH_MAX_MEMORY`` the whole peak must fit. The message reads e.g.
    ``gen:rgg?scale=30: needs about 96.0 GiB of memory, budget 20.1 GiB (MemAvailable; set
    GCBENCH_MAX_MEMORY to change it)``.
    """
    limit = budget()
    if limit.bytes is None:
        return
    allowed = limit.bytes + (held if limit.available else 0)
    if needed > allowed:
        raise InsufficientMemoryError(
            f"{what}: needs about {format_bytes(needed)} of memory, "
            f"budget {format_bytes(allowed)} ({limit.source})"
        )


def check_device(needed_bytes: int, free_bytes: int, what: str) -> None:
    """Raise InsufficientMemoryError if an upload of ``needed_bytes`` exceeds the GPU's free
    memory (the caller reads it, e.g. ``cupy.cuda.runtime.memGetInfo()[0]``), or the
    budget ``GCBENCH_MAX_GPU_MEMORY`` sets below it."""
    limit = os.environ.get(GPU_ENV)
    budget = free_bytes if not limit else min(free_bytes, parse_size(limit, GPU_ENV))
    if needed_bytes > budget:
        where = "free" if budget == free_bytes else f"allowed ({GPU_ENV}={limit})"
        raise InsufficientMemoryError(
            f"{what}: needs about {format_bytes(needed_bytes)} of GPU memory, "
            f"{format_bytes(budget)} {where}"
        )


def estimate_upload_bytes(n: int, nnz: int) -> int:
    """Bytes of the int32 CSR the GPU runtime uploads for ``n`` vertices and ``nnz`` stored
    entries: offsets (n + 1), indices (nnz), colors (n). Algorithms' own scratch comes on
    top; see each algorithm's page."""
    return 4 * (n + 1) + 4 * nnz + 4 * n


def estimate_pattern_upload_bytes(n_rows: int, n_cols: int, nnz: int, symmetric: bool) -> int:
    """Bytes of a Pattern on the GPU (docs/distance2.md): the rows' int32 CSR, the columns'
    (none for a symmetric pattern, which shares the rows'), and the colors (n_cols)."""
    rows = 4 * (n_rows + 1) + 4 * nnz
    columns = 0 if symmetric else 4 * (n_cols + 1) + 4 * nnz
    return rows + columns + 4 * n_cols


def build_bytes(n: int, entries: int) -> int:
    """Peak bytes of :func:`gcbench.graphs.graph.from_edges` on ``entries`` pairs and ``n``
    vertices, beyond the input arrays themselves, plus :data:`HEADROOM`."""
    import numba

    return (
        BUILD_BYTES_PER_ENTRY * entries
        + BUILD_BYTES_PER_VERTEX * (n + 1)
        + BUILD_SCRATCH_PER_THREAD * numba.get_num_threads()
        + HEADROOM
    )


@contextmanager
def guard(what: str) -> Iterator[None]:
    """Turn a MemoryError raised inside into an InsufficientMemoryError naming ``what``."""
    try:
        yield
    except InsufficientMemoryError:
        raise
    except MemoryError as exc:
        raise InsufficientMemoryError(out_of_memory(what, exc)) from None


def out_of_memory(what: str, exc: MemoryError) -> str:
    """The one line for a MemoryError raised while doing ``what`` (here and in the CLI)."""
    detail = " ".join(str(exc).split())
    return (
        f"out of memory while {what}"
        + (f" ({detail})" if detail else "")
        + "; free some memory or use a smaller graph"
    )


def format_bytes(count: int) -> str:
    """Bytes in binary units for people: 512 B, 3.4 MiB, 96.0 GiB."""
    exponent = min(4, max(0, (int(count).bit_length() - 1) // 10))
    if exponent == 0:
        return f"{count} B"
    return f"{count / 1024**exponent:.1f} {('KiB', 'MiB', 'GiB', 'TiB')[exponent - 1]}"
