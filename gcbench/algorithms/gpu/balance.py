"""Class balancing on the device for every GPU algorithm's ``balance`` parameter: the rounds of
:func:`gcbench.algorithms.balance.balance_rounds` as launches of ``kernels/balance.cu`` plus
CuPy's sort for the quotas, on the algorithm's device colors (no host copy of them)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gcbench.algorithms import balance
from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.registry import Coloring

BLOCK = 256

# What kernels/balance.cu shares with the host rounds: passed to every compile as a -D define.
runtime.share("balance", GCB_BALANCE_WINDOW=balance.WINDOW)


def balance_device(dgraph: runtime.DeviceGraph, coloring: Coloring, mode: str) -> Coloring:
    """``coloring`` (device colors) balanced with ``mode``; "none" returns it unchanged. The
    trace gains the pass's series (:func:`gcbench.algorithms.balance.with_report`), its own
    time as ``balance_ms`` (CUDA events)."""
    balance.check_mode(mode)
    if mode == "none":
        return coloring
    cp = runtime.cupy()
    runtime.uncounted()  # the host plans each round from sizes CuPy reads back
    with runtime.timed() as clock:
        steps = _DeviceSteps(dgraph, cp.array(coloring.colors, dtype=cp.int32, copy=True))
        report = balance.balance_rounds(steps)
    return balance.with_report(coloring, steps.colors, report, clock.ms())


class _DeviceSteps:
    """The rounds as launches of the kernels in ``kernels/balance.cu``."""

    def __init__(self, dgraph: runtime.DeviceGraph, colors: Any) -> None:
        self.g, self.colors = dgraph, colors
        self.cp = runtime.cupy()

    def _launch(self, name: str, *args: Any) -> None:
        grid = min(runtime.grid_for(self.g.n, BLOCK), runtime.persistent_grid(BLOCK))
        runtime.kernel("balance", name)((grid,), (BLOCK,), args)

    def class_sizes(self) -> np.ndarray | None:
        cp, c = self.cp, self.colors
        if c.size == 0:
            return np.zeros(0, np.int64)
        if int(c.min()) < 0:
            return None
        return cp.bincount(c).get().astype(np.int64)

    def shuffle(self, plan: balance.RoundPlan) -> np.ndarray:
        cp, g, c = self.cp, self.g, self.colors
        n = np.int32(g.n)
        give, slot, window = (cp.asarray(a) for a in (plan.give, plan.slot, plan.window))
        proposal = cp.full(g.n, -1, dtype=cp.int32)
        self._launch("propose", n, g.indptr, g.indices, c, give, slot, window,
                     np.int32(window.size), np.uint32(plan.pick_key), proposal)  # fmt: skip
        target = cp.full(g.n, -1, dtype=cp.int32)
        priority = cp.empty(g.n, dtype=cp.uint32)
        self._launch("resolve", n, g.indptr, g.indices, proposal, np.uint32(plan.priority_key),
                     target, priority)  # fmt: skip
        movers, source, dest = balance.accept(cp, target, priority, c, plan)
        c[movers] = dest
        return balance.size_change(cp, source, dest, plan.slot.size).get()
