"""A numba scanner for line-oriented integer pair files (SNAP edge lists, DIMACS ``e`` lines).

The file is read in blocks cut at line boundaries, so memory is the id arrays plus one block,
and every failure is reported with its 1-based line number. After each block the caller's
``check`` sees how many pairs and bytes were read so far, to stop before the arrays outgrow
the memory budget.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO

import numba
import numpy as np

from gcbench.errors import InputError, excerpt
from gcbench.graphs.formats._io import read_errors

BLOCK = 1 << 24  # bytes per block
# What one block costs at most: the block, the carried partial line, their concatenation, and
# two int64 arrays sized for the most pairs it can hold (a pair line takes >= 4 bytes).
BLOCK_BYTES = 3 * BLOCK + 2 * 8 * (BLOCK // 4 + 2)
# Bytes per pair while scanning: the per-block id arrays, then their concatenation.
SCAN_BYTES_PER_PAIR = 32

_OK, _NOT_INTEGER, _MISSING, _OVERFLOW, _UNEXPECTED = range(5)
_PROBLEMS = {
    _NOT_INTEGER: "vertex id is not an integer",
    _MISSING: "expected two vertex ids",
    _OVERFLOW: "vertex id does not fit a 64-bit integer",
}
_TENTH = np.iinfo(np.int64).max // 10  # value * 10 + d overflows past this
_LAST_DIGIT = np.iinfo(np.int64).max % 10


@numba.njit(cache=True, nogil=True)
def _blank(c: int) -> bool:
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@numba.njit(cache=True, nogil=True)
def _scan_block(buf, tag, comments, first, second):
    """Parse ``[tag] a b [ignored...]`` lines of ``buf``; returns (pairs, bad line, problem).

    Blank lines and lines whose first character is in ``comments`` are skipped; ``tag`` < 0
    means the lines carry no leading tag. ``bad line`` is 0-based within ``buf``, -1 if none.
    """
    size = buf.size
    i = 0
    line = 0
    count = 0
    while i < size:
        while i < size and _blank(buf[i]):
            i += 1
        if i == size:
            break
        c = buf[i]
        if c == 10:
            line += 1
            i += 1
            continue
        skip = False
        for k in range(comments.size):
            if c == comments[k]:
                skip = True
        if not skip:
            if tag >= 0:
                i += 1
                if c != tag or (i < size and not (_blank(buf[i]) or buf[i] == 10)):
                    return count, line, _UNEXPECTED
            for column in range(2):
                while i < size and _blank(buf[i]):
                    i += 1
                if i == size or buf[i] == 10:
                    return count, line, _MISSING
                negative = buf[i] == 45
                if negative or buf[i] == 43:
                    i += 1
                value = 0
                digits = 0
                while i < size and 48 <= buf[i] <= 57:
                    d = buf[i] - 48
                    if value > _TENTH or (value == _TENTH and d > _LAST_DIGIT):
                        return count, line, _OVERFLOW
                    value = value * 10 + d
                    digits += 1
                    i += 1
                if digits == 0 or (i < size and not (_blank(buf[i]) or buf[i] == 10)):
                    return count, line, _NOT_INTEGER
                if negative:
                    value = -value
                if column == 0:
                    first[count] = value
                else:
                    second[count] = value
            count += 1
        while i < size and buf[i] != 10:
            i += 1
    return count, -1, _OK


def scan_pairs(
    handle: IO[bytes],
    path: Path,
    *,
    comments: bytes,
    tag: str | None = None,
    lines_before: int = 0,
    unexpected: str = "unexpected line",
    check: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Read every pair from ``handle`` to its end: one int64 array of the first ids of all
    pairs, then the second ids, in file order.

    ``lines_before`` is how many lines of the file were consumed already (for line numbers);
    ``unexpected`` describes a line that does not start with ``tag``; ``check(pairs, bytes)``
    is called after each block with the pairs and (decompressed) bytes read so far.
    """
    tag_byte = ord(tag) if tag else -1
    comment_bytes = np.frombuffer(comments, dtype=np.uint8)
    firsts: list[np.ndarray] = []
    seconds: list[np.ndarray] = []
    carry = b""
    done = False
    pairs = consumed = 0
    while not done:
        with read_errors(path):
            block = handle.read(BLOCK)
        if block:
            data = carry + block
            cut = data.rfind(b"\n") + 1
            data, carry = data[:cut], data[cut:]
        else:
            data, done = carry, True
        buf = np.frombuffer(data, dtype=np.uint8)
        newlines = int(np.count_nonzero(buf == 10))
        most = min(newlines + 1, buf.size // 4 + 2)
        first = np.empty(most, dtype=np.int64)
        second = np.empty(most, dtype=np.int64)
        count, bad, problem = _scan_block(buf, tag_byte, comment_bytes, first, second)
        if bad >= 0:
            what = unexpected if problem == _UNEXPECTED else _PROBLEMS[problem]
            raise InputError(
                f"graph file {path} line {lines_before + bad + 1}: {what} in "
                f"{excerpt(_line_bytes(buf, bad))}; fix the file or convert it to a supported "
                "format"
            )
        firsts.append(first[:count].copy() if 2 * count < most else first[:count])
        seconds.append(second[:count].copy() if 2 * count < most else second[:count])
        lines_before += newlines
        pairs += count
        consumed += len(data)
        if check is not None:
            check(pairs, consumed)
    return np.concatenate(firsts + seconds)


def _line_bytes(buf: np.ndarray, line: int) -> bytes:
    """The ``line``-th (0-based) line of ``buf``."""
    ends = np.flatnonzero(buf == 10)
    start = int(ends[line - 1]) + 1 if line else 0
    end = int(ends[line]) if line < ends.size else buf.size
    return buf[start:end].tobytes()
