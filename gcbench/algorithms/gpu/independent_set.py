"""The independent-set GPU family (Luby / Jones-Plassmann) over kernels/independent_set.cu.

``jpl`` (jpl-borione §III-C, Alg. 4), ``jpl-minmax`` (§IV, Alg. 6), ``gunrock`` (§III-E,
Alg. 5 with the tie fix), ``cohen`` (§III-D), ``luby`` and ``very-random`` (luby-cf). Each is a
sequence of selection passes: every uncolored vertex whose value beats all neighbours still in
play joins the pass's max-set (and, for the min-max variants, the min-set). The rounds run under
the host protocol ``sync`` (:func:`gcbench.algorithms.gpu.slots.drive`; docs/decisions.md,
"Rounds without the host"); ``iterations`` counts rounds and ``trace["active"]`` the vertices
left uncolored after each. Decisions and the performance notes are in docs/independent-set.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench.algorithms.gpu import loops, runtime, slots
from gcbench.algorithms.gpu.slots import SYNC_GRAPH as SYNC
from gcbench.algorithms.gpu.slots import Slots
from gcbench.algorithms.registry import (
    UNCOLORED,
    WARP,
    AlgorithmSpec,
    Coloring,
    Param,
    register,
    runs,
)
from gcbench.algorithms.rounds import GRAPH

FAMILY = "independent_set"
WARP_DEGREE = 32  # balanced algorithms scan rows at least this long with a warp ...
BLOCK_DEGREE = 2048  # ... and rows at least this long with a whole block
MAX, MIN = 1, 2  # the selection bits of a pass's `want`: local maxima, local minima
COHEN_SEED = 0xC0E4  # the fixed key of cohen's hash functions (deterministic, like csrcolor)
_NO_LIMIT = 2**31 - 1

# What kernels/independent_set.cu shares with this module: passed to every compile as -D defines.
runtime.share(FAMILY, GCB_MAX=MAX, GCB_MIN=MIN)

SEED = Param("seed", 0, int, low=0, high=2**32 - 1, help="seed of the random values")


@dataclass(frozen=True)
class Hubs:
    """Vertices whose rows a warp (``warp``) or a block (``block``) scans, as int32 arrays."""

    warp: Any
    block: Any


def _build_hubs(dg: runtime.DeviceGraph) -> Hubs:
    cp = runtime.cupy()
    degree = cp.diff(dg.indptr)
    warp = cp.flatnonzero((degree >= WARP_DEGREE) & (degree < BLOCK_DEGREE))
    block = cp.flatnonzero(degree >= BLOCK_DEGREE)
    return Hubs(warp.astype(cp.int32), block.astype(cp.int32))


def hubs(dg: runtime.DeviceGraph) -> Hubs:
    """The graph's hub lists, built once per graph (the registry's setup: timed with transfer)."""
    return dg.extra("independent_set.hubs", _build_hubs)


@dataclass(frozen=True)
class Plan:
    """One algorithm of the family as its passes see it: pass ``p`` gives its max-set color
    ``p * base_step`` (min-set ``+ 1`` when ``want`` has MIN), reads the values at an index
    shift of ``(shift * p) mod n`` or hashes them with stream ``p mod stream_mod``; a round is
    ``passes`` passes. ``values`` says where the values come from: ``permutation`` (jpl),
    ``random`` (luby), ``regenerated`` every second round (gunrock), ``hashed`` (none stored)."""

    name: str
    values: str
    balanced: bool = True
    passes: int = 1
    base_step: int = 1
    shift: int = 0
    stream_mod: int = 1
    seed: int = 0
    want: int = MAX
    equal_values: bool = False

    def __post_init__(self) -> None:
        if self.values == "regenerated" and self.passes != 1:  # is_random_float's rounds
            raise ValueError("values regenerated every second round need one pass a round")

    @property
    def hashed(self) -> bool:
        return self.values == "hashed"


class Selection:
    """The launches of one selection pass of ``plan``, given the pass's arguments (``gate``:
    at, p, passes, before, left, mirror; :meth:`Slots.gate` or :meth:`DeviceRounds.gate`).

    ``balanced`` sends hub rows to warps and blocks; otherwise every vertex gets one thread,
    as in luby-cf's naive scheme. ``vals`` holds the values for array keys; hashed keys compute
    them on the fly instead.
    """

    def __init__(
        self, dg: runtime.DeviceGraph, colors: Any, vals: Any, plan: Plan, block_size: int
    ) -> None:
        defines = {"GCB_KEY_HASH": int(plan.hashed)}
        balanced = plan.balanced
        self.dg, self.colors, self.vals, self.block_size = dg, colors, vals, block_size
        self.thread = runtime.kernel(FAMILY, "is_thread", **defines)
        self.hubs = hubs(dg) if balanced else None
        self.warp = runtime.kernel(FAMILY, "is_warp", **defines) if balanced else None
        self.block = runtime.kernel(FAMILY, "is_block", **defines) if balanced else None
        self.light_limit = np.int32(WARP_DEGREE if balanced else _NO_LIMIT)
        self.key = (
            vals,
            np.uint32(plan.seed),
            np.int32(plan.base_step),
            np.uint32(plan.shift),
            np.int32(plan.stream_mod),
            np.uint32(plan.want),
        )

    def launch(self, gate: tuple[Any, ...]) -> None:
        """Enqueue one pass, the one ``gate`` names."""
        dg, b = self.dg, self.block_size
        n = np.int32(dg.n)
        graph = (dg.indptr, dg.indices, self.colors)
        self.thread(
            (runtime.grid_for(dg.n, b),), (b,), (n, *graph, *self.key, self.light_limit, *gate)
        )
        if self.hubs is not None:
            warp, block = self.hubs.warp, self.hubs.block
            if warp.size:
                args = (warp, np.int32(warp.size), n, *graph, *self.key, *gate)
                self.warp((runtime.grid_for(warp.size * 32, b),), (b,), args)
            if block.size:
                args = (block, np.int32(block.size), n, *graph, *self.key, *gate)
                self.block((int(block.size),), (b,), args)


def permutation_values(n: int, seed: int, block_size: int = 256, out: Any = None) -> Any:
    """A seeded permutation of 0..n-1 on the device (a Feistel bijection, cycle-walked), in
    ``out`` when given."""
    vals = runtime.cupy().empty(n, dtype=np.uint32) if out is None else out
    half = max(1, ((max(n, 1) - 1).bit_length() + 1) // 2)  # 4**half >= n
    if n:
        runtime.kernel(FAMILY, "is_permutation")(
            (runtime.grid_for(n, block_size),),
            (block_size,),
            (np.int32(n), vals, np.uint32(seed), np.uint32(half)),
        )
    return vals


class _Values:
    """Where ``plan``'s values live and how a coloring (and, for gunrock, a round) makes them."""

    def __init__(self, dg: runtime.DeviceGraph, plan: Plan, block_size: int) -> None:
        cp = runtime.cupy()
        self.dg, self.plan, self.block_size = dg, plan, block_size
        self.vals = cp.empty(1 if plan.hashed else dg.n, dtype=np.uint32)
        self.grid = (runtime.grid_for(dg.n, block_size),)
        if plan.values == "regenerated":
            self.regenerate = runtime.kernel(FAMILY, "is_random_float")
        if plan.values == "random":
            self.random = runtime.kernel(FAMILY, "is_random")

    def start(self) -> None:
        """Enqueue the values a coloring starts from (jpl's permutation, luby's random ones)."""
        dg, plan = self.dg, self.plan
        if not dg.n:
            return
        if plan.values == "permutation":
            permutation_values(dg.n, plan.seed, self.block_size, out=self.vals)
        elif plan.values == "random":
            args = (np.int32(dg.n), self.vals, np.uint32(plan.seed))
            self.random(self.grid, (self.block_size,), args)

    def each_round(self, colors: Any, gate: tuple[Any, ...]) -> None:
        """Enqueue what a round does before its passes (gunrock: fresh values in even rounds;
        ``gate`` is its first pass's, whose at, p, before and mirror the kernel takes)."""
        if self.plan.values != "regenerated":
            return
        at, p, _, before, _, mirror = gate
        args = (np.int32(self.dg.n), self.vals, colors, np.uint32(self.plan.seed),
                np.int32(self.plan.equal_values), at, p, before, mirror)  # fmt: skip
        self.regenerate(self.grid, (self.block_size,), args)


def _cap(dg: runtime.DeviceGraph) -> int:
    """Every pass colors at least the vertex of largest (value, id) among those left, so n
    rounds always suffice; the cap n + 1 only guards against bugs."""
    return dg.n + 1


def _bound(
    dg: runtime.DeviceGraph, plan: Plan, block_size: int, sync: str
) -> Callable[[], Coloring]:
    """The timed call of ``plan`` on ``dg`` under the host protocol ``sync``, with what can be
    found or built before it done now: for ``graph``, the CUDA graph's WHILE loop, captured once
    per graph and configuration (:mod:`gcbench.algorithms.gpu.loops`), so the call is its launch;
    otherwise the host's loop (:func:`gcbench.algorithms.gpu.slots.coloring`)."""
    if sync != GRAPH or not dg.n:
        return functools.partial(_host_loop, dg, plan, block_size, sync)
    loops.require()

    def build() -> tuple[Any, loops.DeviceRounds, loops.Loop]:
        colors = runtime.uncolored(dg.n)
        values = _Values(dg, plan, block_size)
        select = Selection(dg, colors, values.vals, plan, block_size)
        rounds = loops.DeviceRounds(start=(dg.n,), cap=_cap(dg), passes=plan.passes)

        def init() -> None:
            colors.fill(UNCOLORED)
            values.start()
            rounds.reset()

        def body(handle: int) -> None:
            values.each_round(colors, rounds.gate(0))
            for j in range(plan.passes):
                select.launch(rounds.gate(j))
            rounds.step(handle)

        return colors, rounds, loops.Loop(init, body)

    colors, rounds, loop = loops.cached(dg, (FAMILY, plan, block_size), build)
    return loops.launcher(colors, rounds, loop, algorithm=plan.name)


def _host_loop(dg: runtime.DeviceGraph, plan: Plan, block_size: int, sync: str) -> Coloring:
    colors = runtime.uncolored(dg.n)
    values = _Values(dg, plan, block_size)
    values.start()
    select = Selection(dg, colors, values.vals, plan, block_size)
    host = Slots((dg.n, 0), passes=plan.passes)

    def launch(rnd: int) -> None:
        first = rnd * plan.passes
        if rnd % 2 == 0:
            values.each_round(colors, host.gate(first))
        for j in range(plan.passes):
            select.launch(host.gate(first + j))

    return slots.coloring(launch, host, cap=_cap(dg), algorithm=plan.name, colors=colors, sync=sync)


def _algorithm(
    plan_of: Callable[..., Plan],
) -> tuple[Callable[..., Coloring], Callable[..., Callable[[], Coloring]]]:
    """(run, bind) of the algorithm whose passes ``plan_of(**params)`` describes: ``bind``
    returns the timed call (:func:`_bound`), ``run`` makes it at once."""

    def bind(
        dg: runtime.DeviceGraph, *, block_size: int = 256, sync: str = GRAPH, **params: Any
    ) -> Callable[[], Coloring]:
        return _bound(dg, plan_of(**params), block_size, sync)

    bind.__doc__, bind.__name__ = plan_of.__doc__, f"bind{plan_of.__name__}"
    return runs(bind), bind


def _jpl(*, seed: int = 0) -> Plan:
    """Jones-Plassmann-Luby (jpl-borione Alg. 4): round i colors its local maxima with color i.
    Values: a seeded permutation of 0..n-1, generated on the device inside the timing."""
    return Plan("jpl", "permutation", seed=seed)


def _jpl_minmax(*, seed: int = 0, shift: int = 1) -> Plan:
    """JPL min-max (jpl-borione §IV, Alg. 6): round i colors local maxima 2i and local minima
    2i+1, reading the value permutation with the index shift rand[(v + shift*i) mod n]."""
    return Plan("jpl-minmax", "permutation", base_step=2, shift=shift, seed=seed, want=MAX | MIN)


def _gunrock(*, seed: int = 0, equal_values: bool = False) -> Plan:
    """Gunrock's min-max JPL (jpl-borione §III-E, Alg. 5): float values in [0, n) regenerated
    for the uncolored vertices every second round, ties broken by vertex id (Gunrock #885).
    ``equal_values`` gives every vertex the same value (tests only)."""
    return Plan("gunrock", "regenerated", base_step=2, seed=seed, want=MAX | MIN,
                equal_values=equal_values)  # fmt: skip


def _cohen(*, hashes: int = 4) -> Plan:
    """Cohen-Castonguay (jpl-borione §III-D): no value array; round r runs one min-max pass per
    hash function j (colors 2(rk+j) and 2(rk+j)+1), each seeing only the vertices the earlier
    functions of the round left, so a round colors up to 2k sets."""
    return Plan("cohen", "hashed", passes=hashes, base_step=2, stream_mod=hashes,
                seed=COHEN_SEED, want=MAX | MIN)  # fmt: skip


def _luby(*, seed: int = 0) -> Plan:
    """The naive IDS scheme of luby-cf: fixed random values, one thread per vertex re-scanning
    every vertex each round; round i colors its local maxima with color i."""
    return Plan("luby", "random", balanced=False, seed=seed)


def _very_random(*, seed: int = 0) -> Plan:
    """luby-cf's "very random" scheme: fresh random values every round (hashed from the seed
    and the round); round i colors its local maxima with color i."""
    return Plan("very-random", "hashed", stream_mod=_NO_LIMIT, seed=seed)


jpl, _bind_jpl = _algorithm(_jpl)
jpl_minmax, _bind_jpl_minmax = _algorithm(_jpl_minmax)
gunrock, _bind_gunrock = _algorithm(_gunrock)
cohen, _bind_cohen = _algorithm(_cohen)
luby, _bind_luby = _algorithm(_luby)
very_random, _bind_very_random = _algorithm(_very_random)


def _register(
    name: str,
    run_bind: tuple[Callable[..., Coloring], Callable[..., Callable[[], Coloring]]],
    family: str,
    description: str,
    params: tuple[Param, ...] = (SEED, SYNC),
    *,
    balanced: bool,
    iterations_meaning: str = "rounds",
) -> None:
    register(
        AlgorithmSpec(
            name=name,
            backend="gpu",
            family=family,
            run=run_bind[0],
            bind=run_bind[1],
            params=params,
            deterministic=True,
            block_size_matters=True,
            default_block_size=256,
            block_size_step=WARP,
            iterations_meaning=iterations_meaning,
            description=description,
            setup=hubs if balanced else None,
            kernel=FAMILY,
        )
    )


_BORIONE = "independent set (jpl-borione-ieee-access-2023)"
_LUBY_CF = "independent set (luby-cf-eec289q-report)"
_register(
    "jpl",
    (jpl, _bind_jpl),
    f"{_BORIONE} §III-C Alg. 4",
    "Jones-Plassmann-Luby: one independent set (local maxima of a seeded value permutation) "
    "per round",
    balanced=True,
)
_register(
    "jpl-minmax",
    (jpl_minmax, _bind_jpl_minmax),
    f"{_BORIONE} §IV Alg. 6",
    "JPL with local maxima and minima per round, value permutation read with an index shift",
    (SEED, Param("shift", 1, int, low=0, high=2**31 - 1, help="index shift per round"), SYNC),
    balanced=True,
)
_register(
    "gunrock",
    (gunrock, _bind_gunrock),
    f"{_BORIONE} §III-E Alg. 5; Gunrock color.hxx",
    "Gunrock's min-max JPL: float values regenerated every second round, ties broken by id",
    balanced=True,
)
_register(
    "cohen",
    (cohen, _bind_cohen),
    f"{_BORIONE} §III-D; nvidia-blog-csrcolor-ilu",
    "Cohen-Castonguay: k hash functions computed on the fly, up to 2k sets per round",
    (Param("hashes", 4, int, low=1, high=8, help="hash functions per round"), SYNC),
    balanced=True,
    iterations_meaning="rounds (each runs `hashes` min-max passes)",
)
_register(
    "luby",
    (luby, _bind_luby),
    f"{_LUBY_CF} naive implementation",
    "Naive IDS: fixed random values, one thread per vertex re-scanning all vertices each round",
    balanced=False,
)
_register(
    "very-random",
    (very_random, _bind_very_random),
    f"{_LUBY_CF} very random",
    "IDS with fresh random values every round for the uncolored vertices",
    balanced=True,
)
