"""gm-gpu: Gebremedhin-Manne speculative coloring over device worklists, after Atos.

Atos (Chen et al., ICPP 2022; jpl-borione §II-B) runs two cooperating kernels: one colors the
uncolored frontier GM style (smallest color no neighbour shows, each neighbour list read once),
the other checks the new colors, retires the vertices without conflict and sends the losers of
each conflict back to the frontier. ``kernels/gm_gpu.cu`` does the same with device-side
queues: a pass is ``gm_color`` then ``gm_check`` over the frontier only. ``sync=graph`` (the
default) runs the passes as one CUDA graph whose WHILE node repeats a pass until nothing is
left; the host protocols (``device``, ``batch``, ``round``) launch them from a tight loop and
read a few counters once every ``batch`` passes. Losers are decided by
the priority (degree, hash32, id) of docs/architecture.md, "Priorities and ties", so the
highest-priority vertex of every frontier retires and at most n passes are ever needed (the
cap, :func:`pass_cap`).

``buckets=degree`` (default) colors degree buckets [4^k, 4^(k+1)) from the highest down, each
bucket to completion, which brings the colors close to greedy largest-degree-first;
``buckets=none`` puts every vertex in one frontier, as Atos does. The layout (bucket lists and
the CSR of same-bucket edges) is per-graph setup. Decisions and the analysis behind them:
docs/gm-gpu.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from gcbench.algorithms.gpu import loops, runtime
from gcbench.algorithms.gpu.slots import SYNC_GRAPH as SYNC
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
from gcbench.errors import RoundCapError

FAMILY = "gm_gpu"
BLOCK = 256
WARP_DEGREE = 32  # rows at least this long are colored and checked by a warp ...
BLOCK_DEGREE = 2048  # ... and at least this long by a thread block
BUCKET_WIDTH = 2  # buckets=degree: bucket k holds degrees [4^k, 4^(k+1)) (log2 width 2)
BUCKETINGS = ("degree", "none")
BATCH = 8
# sync=device|batch: the batch doubles after every GROW_EVERY reads, so a run of P passes makes
# about GROW_EVERY·log2(P / BATCH) + 1 reads (within log2(P) + 2 up to some 500 passes);
# doubling after every read launched up to twice the passes, and an empty pass still costs its
# two launches on the host (docs/gm-gpu.md, "Host loop").
GROW_EVERY = 2
TRACE_PASSES = 1 << 14  # per-pass frontier sizes kept; later passes share the last slot
# status[] offsets: the bucket of each parity's last pass, its losers per class (3 a parity),
# the non-empty passes, the per-pass frontier sizes
S_BUCKET, S_COUNT, S_PASSES, S_TRACE = 0, 2, 8, 16
SMEM_WORDS = 64  # dynamic shared memory per warp, in words: two 1024-color windows

# What kernels/gm_gpu.cu shares with this module: passed to every compile as -D defines.
runtime.share(
    FAMILY,
    GCB_S_BUCKET=S_BUCKET,
    GCB_S_COUNT=S_COUNT,
    GCB_S_PASSES=S_PASSES,
    GCB_S_TRACE=S_TRACE,
    GCB_WARP_DEGREE=WARP_DEGREE,
    GCB_SMEM_WORDS=SMEM_WORDS,
)


@dataclass(frozen=True)
class Layout:
    """Where each pass's frontier comes from, as numpy or CuPy arrays.

    ``order`` lists the vertices bucket by bucket (highest degrees first), each bucket as
    light | warp | block classes (ids ascending); ``buckets[b]`` holds (offset, count) of each
    class in ``order``. ``same_indptr``/``same_indices`` is the CSR of the edges inside a
    bucket. ``classes`` is each class's size over all buckets (the loser queues' segments).
    """

    order: Any
    buckets: Any
    classes: tuple[int, int, int]
    same_indptr: Any
    same_indices: Any

    @property
    def nbuckets(self) -> int:
        return int(self.buckets.shape[0])


def degree_buckets(degrees: Any, width: int | None, xp: ModuleType) -> Any:
    """Bucket of each vertex, 0 = highest degrees: floor(log2 deg / width) ranked downwards
    over the buckets that occur (all 0 when ``width`` is None)."""
    if width is None:
        return xp.zeros(degrees.shape[0], dtype=np.int32)
    # floor(log2 d) from the float's exponent, exact on both numpy and CuPy (a float log2 can
    # land just below an integer on one of them, putting a degree of 4^k in another bucket)
    log2 = xp.frexp(xp.maximum(degrees, 1).astype(np.float64))[1].astype(np.int32) - 1
    level = log2 // width
    present = xp.unique(level)
    return (present.shape[0] - 1 - xp.searchsorted(present, level)).astype(np.int32)


def layout(indptr: Any, indices: Any, width: int | None, xp: ModuleType) -> Layout:
    """The frontier layout of a CSR graph for bucket ``width`` (None: one bucket), with ``xp`` =
    numpy or cupy; int32 arrays out. The same code builds it on the device and in the tests."""
    n = int(indptr.shape[0]) - 1
    degrees = xp.diff(indptr.astype(np.int64))
    bucket = degree_buckets(degrees, width, xp)
    klass = (degrees >= WARP_DEGREE).astype(np.int64) + (degrees >= BLOCK_DEGREE)
    key = bucket.astype(np.int64) * 3 + klass
    order = xp.argsort(key * max(n, 1) + xp.arange(n, dtype=np.int64)).astype(np.int32)
    nbuckets = int(bucket.max()) + 1 if n else 0
    counts = xp.bincount(key, minlength=3 * nbuckets).reshape(nbuckets, 3)
    offsets = xp.cumsum(counts.ravel()).reshape(nbuckets, 3) - counts
    buckets = xp.stack([offsets, counts], axis=2).reshape(nbuckets, 6).astype(np.int32)
    classes = tuple(int(c) for c in counts.sum(axis=0)) if n else (0, 0, 0)
    if nbuckets <= 1:
        same_indptr = indptr.astype(np.int32, copy=False)
        same_indices = indices.astype(np.int32, copy=False)
    else:
        nnz = int(indices.shape[0])
        rows = xp.searchsorted(indptr[1:], xp.arange(nnz, dtype=indptr.dtype), side="right")
        inside = bucket[indices] == bucket[rows]
        per_row = xp.bincount(rows[inside], minlength=n)
        same_indptr = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(per_row)]).astype(np.int32)
        same_indices = indices[inside].astype(np.int32)
    return Layout(order, buckets, classes, same_indptr, same_indices)  # type: ignore[arg-type]


@dataclass
class _Scratch:
    """Per-graph device state: both layouts and the buffers every run reuses."""

    layouts: dict[str, Layout]
    lforbid: Any  # uint32[n]: forbidden colors < 32 of light vertices
    hbits: Any  # uint32[nnz / 32 + n + 1]: forbidden colors 0..deg of heavier vertices
    queues: Any  # int32[2n]: the loser queues of odd and even passes
    status: Any  # int32[S_TRACE + TRACE_PASSES]


def _build(dg: runtime.DeviceGraph) -> _Scratch:
    cp = runtime.cupy()
    layouts = {
        "degree": layout(dg.indptr, dg.indices, BUCKET_WIDTH, cp),
        "none": layout(dg.indptr, dg.indices, None, cp),
    }
    return _Scratch(
        layouts=layouts,
        lforbid=cp.empty(max(dg.n, 1), dtype=cp.uint32),
        hbits=cp.empty(dg.nnz // 32 + dg.n + 1, dtype=cp.uint32),
        queues=cp.empty(max(2 * dg.n, 1), dtype=cp.int32),
        status=cp.empty(S_TRACE + TRACE_PASSES, dtype=cp.int32),
    )


def scratch(dg: runtime.DeviceGraph) -> _Scratch:
    """The graph's layouts and buffers, built once (the spec's setup)."""
    return dg.extra("gm-gpu", _build)


def pass_cap(n: int) -> int:
    """Passes before a run counts as hung: every pass retires its frontier's highest-priority
    vertex (docs/gm-gpu.md), so n passes always suffice."""
    return n + 1


def grid(lay: Layout, block: int) -> int:
    """Blocks of both kernels: enough for the largest class of any frontier (light: a thread
    per vertex, warp: a warp, block: a block), at most what fills the device once."""
    light, warp, whole = lay.classes
    need = max(runtime.grid_for(light, block), runtime.grid_for(warp * 32, block), whole)
    return min(need, runtime.persistent_grid(block))


class _Passes:
    """The two kernels of a pass over ``lay``, their arguments built once. ``at``: a device int
    the kernels take the pass from (a graph's round counter); otherwise :meth:`launch` names it."""

    def __init__(
        self,
        dg: runtime.DeviceGraph,
        s: _Scratch,
        lay: Layout,
        colors: Any,
        block_size: int,
        at: Any = None,
    ) -> None:
        self.color = runtime.kernel(FAMILY, "gm_color")
        self.check = runtime.kernel(FAMILY, "gm_check")
        self.shape = ((grid(lay, block_size),), (block_size,))
        self.shared = block_size // 32 * SMEM_WORDS * 4
        # Both kernels' arguments by name, built once: a pass launches (pass_index, *rest), as
        # pass_index is their first parameter (tests/algorithms/gpu/test_kernel_constants.py).
        both = dict(n=np.int32(dg.n), indptr=dg.indptr, same_indptr=lay.same_indptr,
                    same_indices=lay.same_indices, colors=colors, order=lay.order,
                    buckets=lay.buckets, nbuckets=np.int32(lay.nbuckets), queues=s.queues,
                    seg1=np.int32(lay.classes[0]),
                    seg2=np.int32(lay.classes[0] + lay.classes[1]), status=s.status,
                    pass_index=None, pass_at=np.uint64(0) if at is None else at)  # fmt: skip
        color = dict(indices=dg.indices, lforbid=s.lforbid, hbits=s.hbits,
                     trace_len=np.int32(TRACE_PASSES))  # fmt: skip
        self.color_rest = runtime.kernel_args(FAMILY, "gm_color", **color, **both)[1:]
        self.check_rest = runtime.kernel_args(FAMILY, "gm_check", **both)[1:]

    def launch(self, pass_index: int = 0) -> None:
        """Enqueue pass ``pass_index`` (any value when the pass comes from ``at``)."""
        k = np.int32(pass_index)
        self.color(*self.shape, (k, *self.color_rest), shared_mem=self.shared)
        self.check(*self.shape, (k, *self.check_rest))


def bind(
    dg: runtime.DeviceGraph,
    *,
    block_size: int = BLOCK,
    buckets: str = "degree",
    batch: int = BATCH,
    sync: str = GRAPH,
) -> Callable[[], Coloring]:
    """The timed call coloring ``dg`` (under ``sync=graph`` its captured loop is found or built
    now: :func:`_graph_call`). ``iterations`` = frontier passes (each one gm_color + one gm_check),
    ``trace["frontier"]`` = the frontier size of each pass (read after the timed call). The
    host reads the status after every ``batch`` passes; with ``sync`` device or batch the
    batch doubles after every :data:`GROW_EVERY` reads. Passes after the end return at once.
    ``sync=graph`` (the default) runs the passes in a CUDA graph's WHILE loop instead, one pass
    a round, with no read (``batch`` unused; :func:`_graph_call`).
    Not deterministic: neighbours colored at the same moment race (the colors, not their
    validity, vary between runs)."""
    if sync == GRAPH and dg.n:
        loops.require()
        return _graph_call(dg, buckets, block_size)
    return functools.partial(_host_loop, dg, block_size, buckets, batch, sync)


def _host_loop(
    dg: runtime.DeviceGraph, block_size: int, buckets: str, batch: int, sync: str
) -> Coloring:
    n = dg.n
    if n == 0:
        return Coloring(runtime.uncolored(n), 0, {"frontier": []})
    colors = runtime.uncolored(n)
    s = scratch(dg)
    lay = s.layouts[buckets]
    s.status.fill(0)
    work = _Passes(dg, s, lay, colors, block_size)
    cap, passes = pass_cap(n), 0
    size, reads = batch, 0
    while True:
        for _ in range(min(size, cap - passes)):
            work.launch(passes)
            passes += 1
        head = runtime.read_back(s.status[:S_TRACE])
        parity = (passes - 1) & 1
        losers = int(head[S_COUNT + 3 * parity : S_COUNT + 3 * parity + 3].sum())
        if losers == 0 and head[S_BUCKET + parity] >= lay.nbuckets:
            break
        if passes >= cap:
            raise RoundCapError(_cap_message(dg, losers, passes), colors)
        reads += 1
        if sync != "round" and reads % GROW_EVERY == 0:
            size *= 2
    done = int(head[S_PASSES])

    def resolve(coloring: Coloring) -> None:
        coloring.trace["frontier"] = _frontier(s, done)

    return Coloring(colors, done, {}, resolve=resolve)


def _cap_message(dg: runtime.DeviceGraph, losers: int, passes: int) -> str:
    return (
        f"gm-gpu: {dg.name} still had {losers} vertices to recolor after {passes} passes; "
        "report this graph (every pass should retire at least one)"
    )


def _frontier(s: _Scratch, passes: int) -> list[float]:
    """The frontier size of each of the first ``passes`` passes (after the timed call)."""
    return s.status[S_TRACE : S_TRACE + min(passes, TRACE_PASSES)].get().astype(float).tolist()


def _graph_call(dg: runtime.DeviceGraph, buckets: str, block_size: int) -> Callable[[], Coloring]:
    """sync=graph: the timed call of the whole coloring as one CUDA graph
    (:mod:`gcbench.algorithms.gpu.loops`), captured once per graph, bucketing, block size and
    cap. A round is one pass (the kernels take it from the round counter) and ``gm_left``,
    which writes the host's stopping test into the round's slot: the WHILE node stops after the
    first pass that leaves no losers and no bucket, or at :func:`pass_cap`. Every round is then
    a non-empty pass (buckets are never empty), so the rounds are the passes; the frontier trace
    and the cap are read after the call, the cap raising the host loop's RoundCapError."""
    cap = pass_cap(dg.n)

    def build() -> tuple[Any, loops.DeviceRounds, loops.Loop, _Scratch]:
        s = scratch(dg)  # kept with the loop: the graph holds its buffers' addresses
        lay = s.layouts[buckets]
        colors = runtime.uncolored(dg.n)
        rounds = loops.DeviceRounds(start=(dg.n, 0), cap=cap)
        work = _Passes(dg, s, lay, colors, block_size, at=rounds.at)
        left = runtime.kernel(FAMILY, "gm_left")
        left_args = (rounds.at, rounds.slots, s.status, np.int32(lay.nbuckets))

        def init() -> None:
            colors.fill(UNCOLORED)
            s.status.fill(0)
            rounds.reset()

        def body(handle: int) -> None:
            work.launch()
            left((1,), (1,), left_args)
            rounds.step(handle)

        return colors, rounds, loops.Loop(init, body), s

    colors, rounds, loop, s = loops.cached(dg, (FAMILY, buckets, block_size, cap), build)
    launch = loops.launcher(
        colors,
        rounds,
        loop,
        algorithm="gm-gpu",
        traces=lambda passes, _: {"frontier": _frontier(s, passes)},
    )

    def call() -> Coloring:
        coloring = launch()
        resolve: Any = coloring.resolve

        def resolve_with_losers(final: Coloring) -> None:
            try:
                resolve(final)
            except RoundCapError as err:  # the host loop's message, with the losers (field 1)
                losers = int(rounds.series(final.iterations or 0, 1)[-1])
                message = _cap_message(dg, losers, final.iterations or 0)
                raise RoundCapError(message, err.coloring) from None

        coloring.resolve = resolve_with_losers
        return coloring

    return call


run = runs(bind)


spec = register(
    AlgorithmSpec(
        name="gm-gpu",
        backend="gpu",
        family="Gebremedhin-Manne after Atos (jpl-borione-ieee-access-2023 §II-B)",
        run=run,
        bind=bind,
        params=(
            Param(
                "buckets",
                "degree",
                choices=BUCKETINGS,
                help="degree: buckets of degree colored highest first | none: one frontier",
            ),
            Param(
                "batch",
                BATCH,
                int,
                low=1,
                high=1024,
                help="passes launched before the first counter read (every read with sync=round; "
                "unused with sync=graph)",
            ),
            SYNC,
        ),
        deterministic=False,
        block_size_matters=True,
        default_block_size=BLOCK,
        block_size_step=WARP,
        iterations_meaning="frontier passes (gm_color + gm_check)",
        description="GM speculative coloring over device worklists, LDF conflict priority",
        setup=scratch,
        kernel=FAMILY,
    )
)
