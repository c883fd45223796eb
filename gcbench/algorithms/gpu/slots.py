"""The per-pass counters of device-driven rounds (docs/decisions.md, "Rounds without the host").

A round-based GPU algorithm's pass ``p`` reads slot ``p`` of its :class:`Slots` (what pass
``p - 1`` left: its gate, ``gcb_open`` in kernels/common.cuh, which makes every kernel of the pass
return at once when it holds 0) and counts what it leaves into slot ``p + 1`` (zeroed when
allocated). Thread 0 of each kernel of pass ``p`` also copies slot ``p`` into a mirror in pinned
host memory, which the device writes directly (unified addressing), so the host learns what pass
``p - 1`` left by reading its own memory: no copy, no wait. A slot holds
:data:`~gcbench.algorithms.gpu.runtime.SLOT_WIDTH` ints: the count that ends the coloring at 0,
and one more an algorithm may keep (the edges an eb-er round keeps, say).

A round is ``passes`` passes (cohen runs one per hash function); what round ``r`` left is slot
``(r + 1) * passes``. :func:`drive` runs a launcher's rounds under
:func:`gcbench.algorithms.rounds.drive`.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gcbench.algorithms import rounds
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.registry import Coloring, Param

FIRST_CHUNK = 64  # slots of the first chunk; each later chunk doubles
NOT_LANDED = -1  # a mirror slot the device has not written yet (counts are never negative)
CHECK_EVERY = 4096  # spins of a wait between two looks at whether the device is still busy

SYNC_HELP = (
    "host protocol: device=launch ahead, learn each round's count from host memory the "
    "device writes | batch=read growing batches | round=read after every round (the papers')"
)
# every round-based family's passes find their round on the device (kernels/rounds.cu), so
# each takes graph too, its default (docs/decisions.md, "Rounds without the host")
SYNC_GRAPH = Param(
    "sync",
    "graph",
    choices=(*rounds.SYNCS, rounds.GRAPH),
    help=SYNC_HELP + " | graph=a CUDA graph's WHILE node repeats the round, no read",
)


class Slots:
    """The slots of one coloring's passes, allocated in chunks as passes are launched, on the
    device and mirrored in pinned host memory. Slot 0 holds ``start`` (what there is before the
    first pass)."""

    def __init__(self, start: Sequence[int], *, passes: int = 1) -> None:
        self.passes = passes
        self._first: list[int] = []  # the first slot of each chunk
        self._device: list[Any] = []  # chunk i: int32 (size_i, SLOT_WIDTH) on the device
        self._host: list[np.ndarray] = []  # its mirror, pinned
        self._smallest: int | None = None  # the smallest count the host has learned
        self._grow()
        head = self._device[0][0]
        for field, value in enumerate(start):
            head[field : field + 1].fill(int(value))

    def _grow(self) -> None:
        cp = runtime.cupy()
        size = FIRST_CHUNK << len(self._device)
        self._first.append(self._first[-1] + len(self._host[-1]) if self._host else 0)
        self._device.append(cp.zeros((size, runtime.SLOT_WIDTH), dtype=np.int32))
        self._host.append(_mirror(size))

    def __del__(self) -> None:
        try:
            for mirror in getattr(self, "_host", ()):
                _give_back(mirror)
        except Exception:  # noqa: S110 -- at interpreter exit the context may be gone; the
            pass  # process's memory goes with it

    def _at(self, slot: int) -> tuple[int, int]:
        """(chunk, row) of ``slot``, growing the chunks to hold it."""
        while slot >= self._first[-1] + len(self._host[-1]):
            self._grow()
        chunk = bisect.bisect_right(self._first, slot) - 1
        return chunk, slot - self._first[chunk]

    def args(self, p: int) -> tuple[np.uint64, np.uint64, np.uint64]:
        """The gate arguments of pass ``p``'s kernels: (before, left, mirror) as pointers
        (slot p, slot p + 1, slot p's mirror), in the order the kernels take them."""
        row_bytes = runtime.SLOT_WIDTH * 4
        chunk, row = self._at(p)
        after_chunk, after_row = self._at(p + 1)
        before = self._device[chunk].data.ptr + row * row_bytes
        left = self._device[after_chunk].data.ptr + after_row * row_bytes
        mirror = self._host[chunk].ctypes.data + row * row_bytes
        return np.uint64(before), np.uint64(left), np.uint64(mirror)

    def gate(self, p: int) -> tuple[Any, ...]:
        """The pass arguments (at, p, passes, before, left, mirror) of pass ``p`` launched by
        the host: no round counter (``gcb_locate`` in kernels/common.cuh)."""
        return (np.uint64(0), np.int32(p), np.int32(1), *self.args(p))

    def after(self, rnd: int) -> int:
        """The slot that holds what round ``rnd`` left."""
        return (rnd + 1) * self.passes

    def landed(self, rnd: int) -> int | None:
        """What round ``rnd`` left, if the next round's kernels have mirrored it (no wait)."""
        chunk, row = self._at(self.after(rnd))
        count = int(self._host[chunk][row, 0])
        if count == NOT_LANDED:
            return None
        self._learned((count,))
        return count

    def _learned(self, counts: Sequence[int]) -> None:
        if counts:
            low = min(counts)
            self._smallest = low if self._smallest is None else min(self._smallest, low)

    def smallest(self, default: int) -> int:
        """The smallest count the host has learned so far (``default`` before any): a bound on
        every later count of an algorithm whose counts never grow (a shrinking worklist)."""
        return default if self._smallest is None else self._smallest

    def wait(self, rnd: int) -> None:
        """Spin on the mirror until what round ``rnd`` left has landed (round ``rnd + 1`` is
        launched; later rounds keep the device busy, so it never waits for the host)."""
        runtime.count_wait()
        stream = runtime.cupy().cuda.get_current_stream()
        spins = 0
        while self.landed(rnd) is None:
            spins += 1
            if spins % CHECK_EVERY == 0 and stream.done and self.landed(rnd) is None:
                raise RuntimeError(
                    f"round {rnd}'s count never reached host memory; the device finished "
                    "everything launched (is the pinned mirror mapped for the device?)"
                )

    def read(self, first: int, last: int, field: int = 0) -> list[int]:
        """Field ``field`` of what rounds ``first`` .. ``last - 1`` left, read from the device
        (one blocking read)."""
        cp = runtime.cupy()
        parts = []
        for rnd in range(first, last):
            chunk, row = self._at(self.after(rnd))
            if parts and parts[-1][0] == chunk and parts[-1][2] + self.passes == row:
                parts[-1][2] = row
            else:
                parts.append([chunk, row, row])
        pieces = [self._device[c][a : b + 1 : self.passes, field] for c, a, b in parts]
        if not pieces:
            return []
        gathered = pieces[0] if len(pieces) == 1 else cp.concatenate(pieces)
        counts = [int(x) for x in runtime.read_back(gathered)]
        if field == 0:
            self._learned(counts)
        return counts

    def series(self, rounds_run: int, field: int) -> list[float]:
        """Field ``field`` of every slot after round 0 .. ``rounds_run - 1`` (after the timed
        call: for a Coloring's ``resolve``)."""
        return [float(x) for x in self.read(0, rounds_run, field)]


# Pinned mirrors are kept for the process, never handed back to CuPy's pinned pool: rounds
# launched past the end may still write to a mirror after its Slots is dropped, so a mirror is
# taken again only once an event recorded when it was given back has passed (and no pinned
# allocation, which is slow, falls inside a timed call once the warm-ups have made them).
_SPARE: dict[int, list[tuple[np.ndarray, Any]]] = {}


def _mirror(size: int) -> np.ndarray:
    """A pinned (size, SLOT_WIDTH) int32 mirror, every slot NOT_LANDED."""
    spare = _SPARE.setdefault(size, [])
    ready = next((i for i, (_, given_back) in enumerate(spare) if given_back.done), None)
    if ready is not None:
        mirror = spare.pop(ready)[0]
    else:
        import cupyx

        mirror = cupyx.empty_pinned((size, runtime.SLOT_WIDTH), dtype=np.int32)
    mirror.fill(NOT_LANDED)
    return mirror


def _give_back(mirror: np.ndarray) -> None:
    event = runtime.cupy().cuda.Event(disable_timing=True)
    event.record()
    _SPARE.setdefault(len(mirror), []).append((mirror, event))


class _Driven:
    """A launcher's rounds as :class:`gcbench.algorithms.rounds.Rounds`."""

    def __init__(self, launch: Callable[[int], None], slots: Slots) -> None:
        self.launch, self.slots = launch, slots

    def landed(self, rnd: int) -> int | None:
        return self.slots.landed(rnd)

    def wait(self, rnd: int) -> None:
        self.slots.wait(rnd)

    def read(self, first: int, last: int) -> list[int]:
        return self.slots.read(first, last)


def drive(
    launch: Callable[[int], None],
    slots: Slots,
    *,
    cap: int,
    algorithm: str,
    colors: Any,
    sync: str,
) -> tuple[int, list[float]]:
    """Run the rounds ``launch(rnd)`` enqueues (its kernels gated by ``slots``) until one leaves
    nothing: (rounds, what each left), RoundCapError at ``cap``."""
    return rounds.drive(
        _Driven(launch, slots), cap=cap, algorithm=algorithm, colors=colors, sync=sync
    )


def coloring(
    launch: Callable[[int], None],
    slots: Slots,
    *,
    cap: int,
    algorithm: str,
    colors: Any,
    sync: str,
) -> Coloring:
    """:func:`drive` as the Coloring of ``colors``: ``iterations`` the rounds, ``trace["active"]``
    what each left; no round for no vertices."""
    if colors.size == 0:
        return Coloring(colors, 0, {"active": []})
    rounds, active = drive(launch, slots, cap=cap, algorithm=algorithm, colors=colors, sync=sync)
    return Coloring(colors, rounds, {"active": active})
