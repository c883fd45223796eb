"""Class balancing after coloring (``balance=shuffle``): the vertex-centric shuffling of Lu et
al., "Balanced coloring for parallel computing applications" (IPDPS 2015), built from its idea.

A color class is one parallel step of a multicolor smoother or a colored ILU solve, so a
coloring whose classes are very unequal starves the device in its small steps. With k
non-empty classes of n colored vertices, a class is **over-full** above the target
t = ceil(n / k) and **under-full** below it. Each round, every vertex of an over-full class
proposes an under-full class that none of its neighbours holds, among a window of the 32 most
under-full classes, picked by a hash of the vertex; of two adjacent vertices proposing the same
class the one of higher priority (a hash of the vertex and the round, ties by id) keeps it;
then at most t − size vertices enter each under-full class and at most size − t leave each
over-full one, highest priority first. So no class crosses t, every move goes from a class of
at least t + 1 vertices to one of at most t − 1 and strictly lowers the sum of squared class
sizes: ``class_cv`` never rises, no class empties and no color is added, and the coloring stays
valid. A round that moves nothing slides the window to the next 32 under-full classes; the
pass ends when none moves, no class is over- or under-full, or after :data:`MAX_ROUNDS` rounds
(the coloring is valid after every round, so the cap only stops improving it).

Deterministic: the proposals, priorities and quota ranks depend only on the coloring and the
round, never on thread timing, and the GPU (:mod:`gcbench.algorithms.gpu.balance`) and the
numba steps here compute the same colors. One shared host loop (:func:`balance_rounds`) and
one quota step (:func:`accept`, numpy or CuPy) serve both; docs/balance-levels.md says how this
differs from the paper.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol

import numba
import numpy as np

from gcbench.algorithms.priority import hash32
from gcbench.algorithms.registry import BALANCE_MODES, Coloring
from gcbench.algorithms.validation import class_sizes
from gcbench.errors import SpecError
from gcbench.graphs.graph import Graph

MAX_ROUNDS = 64  # rounds per pass, those that only slide the window included
WINDOW = 32  # under-full classes a round offers (one bit each in a 32-bit mask)
_ALL32 = np.uint64(0xFFFFFFFF)


@dataclass(frozen=True)
class RoundPlan:
    """What one round may do, as small per-class arrays (length: the largest color + 1).

    ``window``: the under-full classes offered, most under-full first; ``slot[c]``: c's place
    in it (-1 outside); ``give[c]``: how many may leave c (0 unless over-full); ``take[c]``:
    how many may enter c (0 outside the window); ``pick_key``/``priority_key``: the round's
    hash keys."""

    window: np.ndarray
    slot: np.ndarray
    give: np.ndarray
    take: np.ndarray
    pick_key: int
    priority_key: int


class BalanceSteps(Protocol):
    """One backend's view of a coloring being balanced in place."""

    def class_sizes(self) -> np.ndarray | None:
        """Host int64 sizes per color id (0..max color); None if a vertex is uncolored."""

    def shuffle(self, plan: RoundPlan) -> np.ndarray:
        """One round's moves, applied; the change of each class's size (host int64)."""


@dataclass(frozen=True)
class BalanceReport:
    """``class_cv`` before and after, the rounds run and the vertices moved."""

    cv_before: float
    cv_after: float
    rounds: int
    moved: int


@dataclass
class _State:
    sizes: np.ndarray
    target: int
    offset: int = 0
    rounds: int = 0
    moved: int = 0
    used: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.used = self.sizes > 0

    def plan(self) -> RoundPlan | None:
        """The next round's plan, or None when nothing is left to try."""
        over = self.used & (self.sizes > self.target)
        under = np.flatnonzero(self.used & (self.sizes < self.target))
        if not over.any() or self.offset >= under.size:
            return None
        under = under[np.lexsort((under, self.sizes[under]))]  # most under-full first
        window = under[self.offset : self.offset + WINDOW].astype(np.int32)
        slot = np.full(self.sizes.size, -1, np.int32)
        slot[window] = np.arange(window.size, dtype=np.int32)
        give = np.where(over, self.sizes - self.target, 0).astype(np.int32)
        take = np.zeros(self.sizes.size, np.int32)
        take[window] = self.target - self.sizes[window]
        return RoundPlan(window, slot, give, take, 2 * self.rounds + 1, 2 * self.rounds + 2)


def balance_rounds(steps: BalanceSteps) -> BalanceReport | None:
    """Shuffle rounds until none moves a vertex from any window, or :data:`MAX_ROUNDS`; None
    when the coloring is incomplete (left as it is)."""
    sizes = steps.class_sizes()
    if sizes is None:
        return None
    before = class_sizes(sizes)
    if before.classes < 2:
        return BalanceReport(before.cv, before.cv, 0, 0)
    state = _State(sizes.astype(np.int64), math.ceil(before.total / before.classes))
    while state.rounds < MAX_ROUNDS and (plan := state.plan()) is not None:
        delta = steps.shuffle(plan)
        state.rounds += 1
        moved = int(delta[delta > 0].sum())
        if moved == 0:
            state.offset += WINDOW  # nobody fits these classes: offer the next ones
            continue
        state.sizes += delta
        state.moved += moved
        state.offset = 0
    return BalanceReport(before.cv, class_sizes(state.sizes).cv, state.rounds, state.moved)


def accept(
    xp: ModuleType, target: Any, priority: Any, colors: Any, plan: RoundPlan
) -> tuple[Any, Any, Any]:
    """The moves of a round that keep within the quotas: of the vertices with a ``target``
    (>= 0), at most ``take[c]`` enter each class c and then at most ``give[c]`` leave it,
    highest ``priority`` first. ``xp`` is numpy or CuPy (the arrays' module). Returns the
    moving vertices, their old and their new classes."""
    movers = xp.flatnonzero(target >= 0)
    source, dest, prio = colors[movers], target[movers], priority[movers]
    if movers.size == 0:
        return movers, source, dest
    keep = _within(xp, dest, prio, xp.asarray(plan.take))
    movers, source, dest, prio = movers[keep], source[keep], dest[keep], prio[keep]
    keep = _within(xp, source, prio, xp.asarray(plan.give))
    return movers[keep], source[keep], dest[keep]


def _within(xp: ModuleType, group: Any, priority: Any, quota: Any) -> Any:
    """Whether each item ranks below its group's quota, ranked by priority (highest first;
    priorities are distinct, so the order is total and the result deterministic)."""
    descending = priority.astype(xp.uint64) ^ _ALL32  # 2**32 - 1 - priority
    key = (group.astype(xp.uint64) << np.uint64(32)) | descending
    order = xp.argsort(key)
    ordered = group[order]
    rank = xp.arange(ordered.size) - xp.searchsorted(ordered, ordered, side="left")
    keep = xp.empty(ordered.size, dtype=bool)
    keep[order] = rank < quota[ordered]
    return keep


def size_change(xp: ModuleType, source: Any, dest: Any, classes: int) -> Any:
    """Per class: vertices that entered it minus those that left it."""
    if source.size == 0:  # CuPy's bincount cannot take an empty array
        return xp.zeros(classes, dtype=xp.int64)
    entered = xp.bincount(dest, minlength=classes).astype(xp.int64)
    return entered - xp.bincount(source, minlength=classes).astype(xp.int64)


def with_report(
    coloring: Coloring, colors: Any, report: BalanceReport | None, ms: float
) -> Coloring:
    """``coloring`` with the balanced ``colors`` and the pass's trace series."""
    series = {"balance_ms": ms}
    if report is not None:
        series.update(
            class_cv_before=report.cv_before,
            class_cv_after=report.cv_after,
            balance_rounds=report.rounds,
            balance_moved=report.moved,
        )
    return coloring.after_pass(colors, series)


def check_mode(mode: str) -> None:
    if mode not in BALANCE_MODES:
        raise SpecError(f"balance={mode} is not one of {'|'.join(BALANCE_MODES)}")


def balance_host(graph: Graph, coloring: Coloring, mode: str) -> Coloring:
    """``coloring`` (host colors) balanced with ``mode`` by the numba steps; "none" returns
    it unchanged. The GPU twin is :func:`gcbench.algorithms.gpu.balance.balance_device`."""
    check_mode(mode)
    if mode == "none":
        return coloring
    start = time.perf_counter()
    colors, report = balance_colors(graph, np.asarray(coloring.colors))
    return with_report(coloring, colors, report, (time.perf_counter() - start) * 1e3)


def balance_colors(graph: Graph, colors: np.ndarray) -> tuple[np.ndarray, BalanceReport | None]:
    """A balanced copy of the host coloring ``colors`` of ``graph`` (numba)."""
    steps = _HostSteps(graph, np.array(colors, dtype=np.int32, copy=True))
    report = balance_rounds(steps)
    return steps.colors, report


class _HostSteps:
    def __init__(self, graph: Graph, colors: np.ndarray) -> None:
        self.indptr, self.indices, self.colors = graph.indptr, graph.indices, colors

    def class_sizes(self) -> np.ndarray | None:
        if self.colors.size and self.colors.min() < 0:
            return None
        return np.bincount(self.colors).astype(np.int64)

    def shuffle(self, plan: RoundPlan) -> np.ndarray:
        n = self.colors.size
        proposal = np.full(n, -1, np.int32)
        _propose(self.indptr, self.indices, self.colors, plan.give, plan.slot, plan.window,
                 np.uint32(plan.pick_key), proposal)  # fmt: skip
        target = np.full(n, -1, np.int32)
        priority = np.zeros(n, np.uint32)
        _resolve(self.indptr, self.indices, proposal, np.uint32(plan.priority_key), target,
                 priority)  # fmt: skip
        movers, source, dest = accept(np, target, priority, self.colors, plan)
        self.colors[movers] = dest
        return size_change(np, source, dest, plan.slot.size)


@numba.njit(cache=True)
def mix32(x, key):  # type: ignore[no-untyped-def]
    """``gcb_mix`` of kernels/common.cuh: hash32(hash32(x ^ key) + key) on 32 bits."""
    inner = np.uint64(hash32(np.uint64(x) ^ np.uint64(key)))
    return hash32((inner + np.uint64(key)) & np.uint64(0xFFFFFFFF))


@numba.njit(cache=True)
def _propose(indptr, indices, colors, give, slot, window, pick_key, proposal):  # type: ignore[no-untyped-def]
    """kernels/balance.cu ``propose``, one vertex after another."""
    width = window.size
    every = np.uint32(0xFFFFFFFF) if width >= 32 else np.uint32((1 << width) - 1)
    for v in range(colors.size):
        if give[colors[v]] <= 0:
            continue
        held = np.uint32(0)
        for e in range(indptr[v], indptr[v + 1]):
            s = slot[colors[indices[e]]]
            if s >= 0:
                held |= np.uint32(1) << np.uint32(s)
        free = every & ~held
        if free == 0:
            continue
        count = 0
        bits = free
        while bits:
            bits &= bits - np.uint32(1)
            count += 1
        k = mix32(v, pick_key) % np.uint32(count)
        for _ in range(k):
            free &= free - np.uint32(1)
        bit = 0
        while not (free >> np.uint32(bit)) & np.uint32(1):
            bit += 1
        proposal[v] = window[bit]


@numba.njit(cache=True)
def _resolve(indptr, indices, proposal, priority_key, target, priority):  # type: ignore[no-untyped-def]
    """kernels/balance.cu ``resolve``, one vertex after another."""
    for v in range(proposal.size):
        c = proposal[v]
        if c < 0:
            continue
        mine = mix32(v, priority_key)
        priority[v] = mine
        beaten = False
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if proposal[u] == c:
                theirs = mix32(u, priority_key)
                if theirs > mine or (theirs == mine and u > v):
                    beaten = True
                    break
        if not beaten:
            target[v] = c
