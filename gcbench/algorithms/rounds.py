"""The bounded loops of round-based colorings (every loop is bounded: docs/architecture.md,
"Algorithm contract").

:func:`run_rounds` is the plain host loop (the CPU's jpl-cpu, and cf's host-driven tile passes
on the GPU). :func:`drive`
runs a GPU algorithm's rounds under one of three host protocols (the ``sync`` parameter;
docs/decisions.md, "Rounds without the host"):

- ``round``: launch a round, read what it left, decide: one blocking read per round, the papers'
  protocol (Gunrock, Kokkos and the seeds' codes sync every round);
- ``batch``: launch rounds in batches of 1, 2, 4, ... and read a whole batch's counts at once:
  ⌈log₂(rounds + 1)⌉ blocking reads;
- ``device`` (the default): launch ahead of the device and learn what each round left from the
  copy the next round's kernels write to host memory, without waiting; the host blocks only when
  it is more than ``lead`` rounds ahead, and the lead doubles each time, so a coloring makes
  about log₂(rounds) blocking reads and the device never waits for the host's read.

Rounds launched after the one that left nothing do nothing on the device (its kernels return at
once: ``gcb_open`` in kernels/common.cuh), so running past the end changes no color.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from gcbench.errors import RoundCapError

SYNCS = ("device", "batch", "round")  # the ``sync`` parameter of every round-based GPU spec
GRAPH = "graph"  # and of the families whose rounds a CUDA graph can repeat (gpu/loops.py)
FIRST_LEAD = 4  # ``device``: rounds the host may run ahead before it first waits


def run_rounds(
    step: Callable[[int], int], *, cap: int, algorithm: str, colors: Any = None
) -> tuple[int, list[float]]:
    """Call ``step(round)`` until it reports nothing left; the plain bounded loop.

    ``step`` runs one round and returns what is still active afterwards. Returns (rounds,
    active-per-round). Reaching ``cap`` raises RoundCapError.
    """
    trace: list[float] = []
    for rnd in range(cap):
        left = int(step(rnd))
        trace.append(float(left))
        if left == 0:
            return rnd + 1, trace
    raise RoundCapError(f"{algorithm}: still {trace[-1]:.0f} active after {cap} rounds", colors)


class Rounds(Protocol):
    """A round-based algorithm's rounds, as :func:`drive` runs them. Round ``r`` is launched
    only after round ``r - 1``; what a round left (the count that is 0 when the coloring is
    done) is learned without waiting (:meth:`landed`) or by waiting (:meth:`wait`,
    :meth:`read`), and only these two wait."""

    def launch(self, rnd: int) -> None:
        """Enqueue round ``rnd`` (it must not need to know what earlier rounds left)."""

    def landed(self, rnd: int) -> int | None:
        """What round ``rnd`` left if the host already has it, else None; never waits."""
        ...

    def wait(self, rnd: int) -> None:
        """Wait until what round ``rnd`` left has landed, and with it every earlier round's
        (one blocking read); round ``rnd + 1`` has been launched."""

    def read(self, first: int, last: int) -> Sequence[int]:
        """What rounds ``first`` .. ``last - 1`` left, waiting for all of them (one blocking
        read)."""
        ...


class _Trace:
    """The counts learned so far, in round order, and where the first 0 was."""

    def __init__(self) -> None:
        self.left: list[float] = []
        self.done = False

    def take(self, counts: Sequence[int]) -> None:
        for count in counts:
            if self.done:
                return
            self.left.append(float(count))
            self.done = count == 0

    @property
    def known(self) -> int:
        return len(self.left)


def drive(
    rounds: Rounds, *, cap: int, algorithm: str, colors: Any = None, sync: str = "device"
) -> tuple[int, list[float]]:
    """Run ``rounds`` until one leaves nothing, at most ``cap`` of them, under the host
    protocol ``sync`` (:data:`SYNCS`). Returns (rounds, left-per-round), the rounds counted up
    to the first that left nothing (not the ones launched after it). Reaching ``cap`` raises
    RoundCapError with ``colors``."""
    if sync not in SYNCS:
        raise ValueError(f"sync={sync} is not one of {'|'.join(SYNCS)}")
    trace = _Trace()
    if sync == "device":
        _ahead(rounds, cap, trace)
    else:
        _batches(rounds, cap, trace, grow=sync == "batch")
    if not trace.done:
        left = trace.left[-1] if trace.left else float("nan")
        raise RoundCapError(f"{algorithm}: still {left:.0f} active after {cap} rounds", colors)
    return trace.known, trace.left


def _batches(rounds: Rounds, cap: int, trace: _Trace, *, grow: bool) -> None:
    """``round`` (batches of one) and ``batch`` (batches of 1, 2, 4, ...): launch a batch, read
    its counts, stop at the first 0."""
    size, launched = 1, 0
    while launched < cap and not trace.done:
        end = min(cap, launched + size)
        for rnd in range(launched, end):
            rounds.launch(rnd)
        trace.take(rounds.read(launched, end))
        launched = end
        size *= 2 if grow else 1


def _ahead(rounds: Rounds, cap: int, trace: _Trace) -> None:
    """``device``: keep launching while fewer than ``lead`` rounds are unknown, taking in the
    counts that have landed after every launch; when ``lead`` rounds are unknown, wait for the
    middle one (the device still has the later ones to run) and double ``lead``; once the cap
    is launched, read what is still unknown in one go."""
    launched, lead = 0, FIRST_LEAD

    def absorb() -> None:
        # round launched - 1's count lands only once round launched runs
        while not trace.done and trace.known < launched - 1:
            count = rounds.landed(trace.known)
            if count is None:
                return
            trace.take((count,))

    while not trace.done:
        absorb()
        if trace.done:
            return
        unknown = launched - trace.known
        if launched < cap and unknown < lead:
            rounds.launch(launched)
            launched += 1
        elif launched < cap:
            # round middle + 1 was launched; once middle has landed, so have the rounds before it
            rounds.wait(trace.known + (unknown - 2) // 2)
            lead *= 2
        else:  # every round up to the cap is launched: what the unknown ones left, at once
            trace.take(rounds.read(trace.known, launched))
            return
