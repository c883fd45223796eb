"""The bounded host loop of round-based colorings, shared by the GPU launchers and the CPU
algorithms that run in rounds (every loop is bounded: docs/architecture.md, "Algorithm
contract")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gcbench.errors import RoundCapError


def run_rounds(
    step: Callable[[int], int], *, cap: int, algorithm: str, colors: Any = None
) -> tuple[int, list[float]]:
    """Call ``step(round)`` until it reports nothing left; the shared bounded host loop.

    ``step`` runs one round and returns what is still active afterwards (one counter read
    per round on the GPU). Returns (rounds, active-per-round). Reaching ``cap`` raises
    RoundCapError.
    """
    trace: list[float] = []
    for rnd in range(cap):
        left = int(step(rnd))
        trace.append(float(left))
        if left == 0:
            return rnd + 1, trace
    raise RoundCapError(f"{algorithm}: still {trace[-1]:.0f} active after {cap} rounds", colors)
