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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gcbench.algorithms.gpu import runtime, slots
from gcbench.algorithms.gpu.slots import SYNC, Slots
from gcbench.algorithms.registry import WARP, AlgorithmSpec, Coloring, Param, register

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


class Selection:
    """The launches of one selection pass, gated by and counting into the pass's slot
    (:class:`~gcbench.algorithms.gpu.slots.Slots`, ``passes`` passes a round).

    ``balanced`` sends hub rows to warps and blocks; otherwise every vertex gets one thread,
    as in luby-cf's naive scheme. ``vals`` holds the values for array keys; ``hashed``
    computes them on the fly instead.
    """

    def __init__(
        self,
        dg: runtime.DeviceGraph,
        colors: Any,
        vals: Any,
        *,
        hashed: bool,
        balanced: bool,
        block_size: int,
        passes: int = 1,
    ) -> None:
        defines = {"GCB_KEY_HASH": int(hashed)}
        self.dg, self.colors, self.vals, self.block_size = dg, colors, vals, block_size
        self.thread = runtime.kernel(FAMILY, "is_thread", **defines)
        self.hubs = hubs(dg) if balanced else None
        self.warp = runtime.kernel(FAMILY, "is_warp", **defines) if balanced else None
        self.block = runtime.kernel(FAMILY, "is_block", **defines) if balanced else None
        self.light_limit = np.int32(WARP_DEGREE if balanced else _NO_LIMIT)
        self.slots = Slots((dg.n, 0), passes=passes)

    def launch(
        self, p: int, *, base: int, want: int, offset: int = 0, seed: int = 0, stream: int = 0
    ) -> None:
        """Pass ``p``: max-set color ``base``, min-set ``base + 1`` when ``want`` has MIN."""
        dg, b = self.dg, self.block_size
        n = np.int32(dg.n)
        before, left, mirror = self.slots.args(p)
        key = (
            self.vals,
            np.uint32(offset),
            np.uint32(seed),
            np.uint32(stream),
            np.int32(base),
            np.uint32(want),
        )
        graph = (dg.indptr, dg.indices, self.colors)
        gate = (before, left, mirror)
        self.thread((runtime.grid_for(dg.n, b),), (b,), (n, *graph, *key, self.light_limit, *gate))
        if self.hubs is not None:
            warp, block = self.hubs.warp, self.hubs.block
            if warp.size:
                args = (warp, np.int32(warp.size), n, *graph, *key, *gate)
                self.warp((runtime.grid_for(warp.size * 32, b),), (b,), args)
            if block.size:
                args = (block, np.int32(block.size), n, *graph, *key, *gate)
                self.block((int(block.size),), (b,), args)


def permutation_values(n: int, seed: int, block_size: int = 256) -> Any:
    """A seeded permutation of 0..n-1 on the device (a Feistel bijection, cycle-walked)."""
    cp = runtime.cupy()
    vals = cp.empty(n, dtype=np.uint32)
    half = max(1, ((max(n, 1) - 1).bit_length() + 1) // 2)  # 4**half >= n
    if n:
        runtime.kernel(FAMILY, "is_permutation")(
            (runtime.grid_for(n, block_size),),
            (block_size,),
            (np.int32(n), vals, np.uint32(seed), np.uint32(half)),
        )
    return vals


def _rounds(
    algorithm: str, select: Selection, launch: Callable[[int], None], sync: str
) -> Coloring:
    """The bounded round loop. Every pass colors at least the vertex of largest (value, id)
    among those left, so n rounds always suffice; the cap n + 1 only guards against bugs."""
    cap = select.dg.n + 1
    return slots.coloring(
        launch, select.slots, cap=cap, algorithm=algorithm, colors=select.colors, sync=sync
    )


def jpl(
    dg: runtime.DeviceGraph, *, block_size: int = 256, seed: int = 0, sync: str = "device"
) -> Coloring:
    """Jones-Plassmann-Luby (jpl-borione Alg. 4): round i colors its local maxima with color i.
    Values: a seeded permutation of 0..n-1, generated on the device inside the timing."""
    colors = runtime.uncolored(dg.n)
    vals = permutation_values(dg.n, seed, block_size)
    select = Selection(dg, colors, vals, hashed=False, balanced=True, block_size=block_size)

    def launch(rnd: int) -> None:
        select.launch(rnd, base=rnd, want=MAX)

    return _rounds("jpl", select, launch, sync)


def jpl_minmax(
    dg: runtime.DeviceGraph,
    *,
    block_size: int = 256,
    seed: int = 0,
    shift: int = 1,
    sync: str = "device",
) -> Coloring:
    """JPL min-max (jpl-borione §IV, Alg. 6): round i colors local maxima 2i and local minima
    2i+1, reading the value permutation with the index shift rand[(v + shift*i) mod n]."""
    colors = runtime.uncolored(dg.n)
    vals = permutation_values(dg.n, seed, block_size)
    select = Selection(dg, colors, vals, hashed=False, balanced=True, block_size=block_size)

    def launch(rnd: int) -> None:
        select.launch(rnd, base=2 * rnd, want=MAX | MIN, offset=(shift * rnd) % dg.n)

    return _rounds("jpl-minmax", select, launch, sync)


def gunrock(
    dg: runtime.DeviceGraph,
    *,
    block_size: int = 256,
    seed: int = 0,
    equal_values: bool = False,
    sync: str = "device",
) -> Coloring:
    """Gunrock's min-max JPL (jpl-borione §III-E, Alg. 5): float values in [0, n) regenerated
    for the uncolored vertices every second round, ties broken by vertex id (Gunrock #885).
    ``equal_values`` gives every vertex the same value (tests only)."""
    cp = runtime.cupy()
    colors = runtime.uncolored(dg.n)
    vals = cp.empty(dg.n, dtype=np.uint32)
    regenerate = runtime.kernel(FAMILY, "is_random_float")
    select = Selection(dg, colors, vals, hashed=False, balanced=True, block_size=block_size)
    grid = (runtime.grid_for(dg.n, block_size),)
    fixed = (np.int32(dg.n), vals, colors, np.uint32(seed))

    def launch(rnd: int) -> None:
        if rnd % 2 == 0:
            before, _, mirror = select.slots.args(rnd)
            args = (*fixed, np.uint32(rnd // 2), np.int32(equal_values), before, mirror)
            regenerate(grid, (block_size,), args)
        select.launch(rnd, base=2 * rnd, want=MAX | MIN)

    return _rounds("gunrock", select, launch, sync)


def cohen(
    dg: runtime.DeviceGraph, *, block_size: int = 256, hashes: int = 4, sync: str = "device"
) -> Coloring:
    """Cohen-Castonguay (jpl-borione §III-D): no value array; round r runs one min-max pass per
    hash function j (colors 2(rk+j) and 2(rk+j)+1), each seeing only the vertices the earlier
    functions of the round left, so a round colors up to 2k sets."""
    colors = runtime.uncolored(dg.n)
    vals = runtime.cupy().empty(1, dtype=np.uint32)  # hashed keys read no array
    select = Selection(
        dg, colors, vals, hashed=True, balanced=True, block_size=block_size, passes=hashes
    )

    def launch(rnd: int) -> None:
        for j in range(hashes):
            p = rnd * hashes + j
            select.launch(p, base=2 * p, want=MAX | MIN, seed=COHEN_SEED, stream=j)

    return _rounds("cohen", select, launch, sync)


def luby(
    dg: runtime.DeviceGraph, *, block_size: int = 256, seed: int = 0, sync: str = "device"
) -> Coloring:
    """The naive IDS scheme of luby-cf: fixed random values, one thread per vertex re-scanning
    every vertex each round; round i colors its local maxima with color i."""
    cp = runtime.cupy()
    colors = runtime.uncolored(dg.n)
    vals = cp.empty(dg.n, dtype=np.uint32)
    if dg.n:
        runtime.kernel(FAMILY, "is_random")(
            (runtime.grid_for(dg.n, block_size),),
            (block_size,),
            (np.int32(dg.n), vals, np.uint32(seed)),
        )
    select = Selection(dg, colors, vals, hashed=False, balanced=False, block_size=block_size)

    def launch(rnd: int) -> None:
        select.launch(rnd, base=rnd, want=MAX)

    return _rounds("luby", select, launch, sync)


def very_random(
    dg: runtime.DeviceGraph, *, block_size: int = 256, seed: int = 0, sync: str = "device"
) -> Coloring:
    """luby-cf's "very random" scheme: fresh random values every round (hashed from the seed
    and the round); round i colors its local maxima with color i."""
    colors = runtime.uncolored(dg.n)
    vals = runtime.cupy().empty(1, dtype=np.uint32)
    select = Selection(dg, colors, vals, hashed=True, balanced=True, block_size=block_size)

    def launch(rnd: int) -> None:
        select.launch(rnd, base=rnd, want=MAX, seed=seed, stream=rnd)

    return _rounds("very-random", select, launch, sync)


def _register(
    name: str,
    run: Callable[..., Coloring],
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
            run=run,
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
    jpl,
    f"{_BORIONE} §III-C Alg. 4",
    "Jones-Plassmann-Luby: one independent set (local maxima of a seeded value permutation) "
    "per round",
    balanced=True,
)
_register(
    "jpl-minmax",
    jpl_minmax,
    f"{_BORIONE} §IV Alg. 6",
    "JPL with local maxima and minima per round, value permutation read with an index shift",
    (SEED, Param("shift", 1, int, low=0, high=2**31 - 1, help="index shift per round"), SYNC),
    balanced=True,
)
_register(
    "gunrock",
    gunrock,
    f"{_BORIONE} §III-E Alg. 5; Gunrock color.hxx",
    "Gunrock's min-max JPL: float values regenerated every second round, ties broken by id",
    balanced=True,
)
_register(
    "cohen",
    cohen,
    f"{_BORIONE} §III-D; nvidia-blog-csrcolor-ilu",
    "Cohen-Castonguay: k hash functions computed on the fly, up to 2k sets per round",
    (Param("hashes", 4, int, low=1, high=8, help="hash functions per round"), SYNC),
    balanced=True,
    iterations_meaning="rounds (each runs `hashes` min-max passes)",
)
_register(
    "luby",
    luby,
    f"{_LUBY_CF} naive implementation",
    "Naive IDS: fixed random values, one thread per vertex re-scanning all vertices each round",
    balanced=False,
)
_register(
    "very-random",
    very_random,
    f"{_LUBY_CF} very random",
    "IDS with fresh random values every round for the uncolored vertices",
    balanced=True,
)
