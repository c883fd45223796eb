"""Rounds run by a CUDA graph's WHILE node (``sync=graph``; docs/decisions.md, "Rounds without
the host").

A :class:`Loop` is one coloring's launches, captured once per graph and configuration: the
per-call start (``init``: colors cleared, values drawn, the round counter reset) and then a
conditional WHILE node whose body is one round (``body``: the round's kernels, which find their
pass from the device's round counter, ``gcb_locate`` in kernels/common.cuh, and ``round_step``
of kernels/rounds.cu, which moves the counter on and sets the node's condition). A timed call is
then one graph launch and no read: what each round left stays in :class:`DeviceRounds` and is
read after the timed region, with the rounds, the trace and the cap.

Conditional nodes need a driver of CUDA 12.4 or later and ``cuda.bindings`` (cuda-python's
low-level bindings, in the cuda extras); :func:`unsupported` says why they cannot be used.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.registry import Coloring
from gcbench.errors import GpuUnavailableError, RoundCapError

FAMILY = "rounds"
KEPT = 4  # loops kept per device graph (each holds its colors, values and slots), newest last
CONDITIONAL_DRIVER = 12040  # the first driver with conditional WHILE nodes (CUDA 12.4)


@functools.cache
def unsupported() -> str | None:
    """Why ``sync=graph`` cannot run here, or None when it can."""
    try:
        from cuda.bindings import runtime as _  # noqa: F401
    except ImportError as exc:
        return (
            f"sync=graph needs cuda-bindings ({exc}): install gcbench[cuda12] or "
            "gcbench[cuda13], or pass --param sync=device"
        )
    cp = runtime.cupy()
    driver = cp.cuda.runtime.driverGetVersion()
    if driver < CONDITIONAL_DRIVER:
        return (
            "sync=graph needs a CUDA 12.4 driver or later (conditional graph nodes), this one "
            f"is {driver}: update the driver, or pass --param sync=device"
        )
    return None


def require() -> None:
    """Raise GpuUnavailableError (one line) when ``sync=graph`` cannot run here."""
    reason = unsupported()
    if reason is not None:
        raise GpuUnavailableError(reason)


def _rt() -> Any:
    from cuda.bindings import runtime as rt

    return rt


def _ok(result: Any) -> Any:
    """The value of a cuda.bindings call, which returns (error, value...)."""
    rt = _rt()
    error, *values = result if isinstance(result, tuple) else (result,)
    if error != rt.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA graph call failed: {error}")
    return values[0] if len(values) == 1 else tuple(values) or None


class DeviceRounds:
    """The round counter and the slots of a coloring whose rounds run on the device: slot
    ``r * passes`` holds what round ``r - 1`` left (slot 0: ``start``, one value per field),
    room for ``cap`` rounds, so the loop never stops before the cap."""

    def __init__(self, *, start: Sequence[int], cap: int, passes: int = 1) -> None:
        cp = runtime.cupy()
        rows = cap * passes + 1
        runtime.require_device(rows * runtime.SLOT_WIDTH * 4, "the rounds' counters")
        self.cap, self.passes = cap, passes
        self.at = cp.zeros(1, dtype=np.int32)
        self.slots = cp.zeros((rows, runtime.SLOT_WIDTH), dtype=np.int32)
        self.start = cp.asarray(list(start) + [0] * (runtime.SLOT_WIDTH - len(start)), np.int32)

    def gate(self, j: int) -> tuple[Any, ...]:
        """The pass arguments (at, p, passes, before, left, mirror) of a captured round's pass
        ``j``: the kernels find the pass and its slots from the counter."""
        return (self.at, np.int32(j), np.int32(self.passes), self.slots, np.uint64(0), np.uint64(0))

    def reset(self) -> None:
        """Enqueue the start of a coloring: the counter at 0, slot 0 holding ``start``."""
        runtime.kernel(FAMILY, "round_reset")(
            (1,), (1,), (self.at, self.slots, np.int32(self.passes), self.start)
        )

    def step(self, handle: int) -> None:
        """Enqueue the end of a round: the counter moved on and the WHILE node told."""
        runtime.kernel(FAMILY, "round_step")(
            (1,),
            (1,),
            (np.uint64(handle), self.at, self.slots, np.int32(self.passes), np.int32(self.cap)),
        )

    def read(self) -> tuple[int, list[float]]:
        """After the timed call: (rounds, what each left); the last count is not 0 when the
        cap stopped the coloring."""
        rounds = int(self.at.get()[0])
        return rounds, self.series(rounds, 0)

    def series(self, rounds: int, field: int) -> list[float]:
        """Field ``field`` of what rounds 0 .. ``rounds - 1`` left."""
        end = rounds * self.passes + 1
        return [float(x) for x in self.slots[self.passes : end : self.passes, field].get()]


class Loop:
    """``init``, then ``body`` repeated by a WHILE node while its ``round_step`` says so, then
    ``finish`` (when given), captured once and launched as one graph on the current stream.
    ``body(handle)`` enqueues a round and ends with :meth:`DeviceRounds.step` of ``handle``.
    None of them may allocate, and their launches must not depend on what a round left."""

    def __init__(
        self,
        init: Callable[[], None],
        body: Callable[[int], None],
        finish: Callable[[], None] | None = None,
    ) -> None:
        rt = _rt()
        cp = runtime.cupy()
        runtime.kernel(FAMILY, "round_reset")  # compiled and loaded before any capture
        runtime.kernel(FAMILY, "round_step")
        # the captured launches hold raw pointers: the buffers that init, body and finish
        # reach must live as long as the graph, so the loop keeps them (and what they close over)
        self._keep = (init, body, finish)
        self._stream = cp.cuda.Stream(non_blocking=True)
        self._exec = self._end = None
        self._graph = _ok(rt.cudaGraphCreate(0))
        self._start = _ok(rt.cudaGraphCreate(0))
        self._capture(self._start, init)
        first = _ok(rt.cudaGraphAddChildGraphNode(self._graph, None, 0, self._start))
        flags = rt.cudaGraphConditionalHandleFlags.cudaGraphCondAssignDefault
        handle = _ok(rt.cudaGraphConditionalHandleCreate(self._graph, 1, flags))
        params = rt.cudaGraphNodeParams()
        params.type = rt.cudaGraphNodeType.cudaGraphNodeTypeConditional
        params.conditional.handle = handle
        params.conditional.type = rt.cudaGraphConditionalNodeType.cudaGraphCondTypeWhile
        params.conditional.size = 1
        add_node = getattr(rt, "cudaGraphAddNode_v2", rt.cudaGraphAddNode)  # 12.x: edge data
        loop = _ok(add_node(self._graph, [first], None, 1, params))
        self._capture(params.conditional.phGraph_out[0], lambda: body(int(handle)))
        if finish is not None:
            self._end = _ok(rt.cudaGraphCreate(0))
            self._capture(self._end, finish)
            _ok(rt.cudaGraphAddChildGraphNode(self._graph, [loop], 1, self._end))
        self._exec = _ok(rt.cudaGraphInstantiate(self._graph, 0))

    def _capture(self, graph: Any, enqueue: Callable[[], None]) -> None:
        rt = _rt()
        mode = rt.cudaStreamCaptureMode.cudaStreamCaptureModeRelaxed
        _ok(rt.cudaStreamBeginCaptureToGraph(self._stream.ptr, graph, None, None, 0, mode))
        try:
            with self._stream:
                enqueue()
        except BaseException:
            rt.cudaStreamEndCapture(self._stream.ptr)  # the enqueue's error is the one to see
            raise
        _ok(rt.cudaStreamEndCapture(self._stream.ptr))

    def launch(self) -> None:
        """Enqueue the whole coloring on the current stream (no wait)."""
        stream = runtime.cupy().cuda.get_current_stream()
        _ok(_rt().cudaGraphLaunch(self._exec, stream.ptr))

    def __del__(self) -> None:
        try:
            rt = _rt()
            if getattr(self, "_exec", None) is not None:
                rt.cudaGraphExecDestroy(self._exec)
            for graph in (getattr(self, name, None) for name in ("_graph", "_start", "_end")):
                if graph is not None:
                    rt.cudaGraphDestroy(graph)
        except Exception:  # noqa: S110 -- at interpreter exit the context may be gone; the
            pass  # process's memory goes with it


def cached(handle: Any, key: Hashable, build: Callable[[], Any]) -> Any:
    """The loop workspace ``key`` of a device graph or pattern, built by ``build()`` the first
    time; the :data:`KEPT` most recently used are kept (a sweep over seeds builds one each)."""
    kept: OrderedDict[Hashable, Any] = handle.extra("loops", lambda _: OrderedDict())
    if key in kept:
        kept.move_to_end(key)
        return kept[key]
    while len(kept) >= KEPT:
        kept.popitem(last=False)
    kept[key] = build()
    return kept[key]


def launcher(
    colors: Any,
    rounds: DeviceRounds,
    loop: Loop,
    *,
    algorithm: str,
    traces: Callable[[int, list[float]], dict[str, list[float]]] | None = None,
) -> Callable[[], Coloring]:
    """The timed call of a built loop: its launch, then its :func:`coloring` (a spec's ``bind``
    returns it, so the lookups that found the loop stay outside the timed region)."""

    def call() -> Coloring:
        loop.launch()
        return coloring(colors, rounds, algorithm=algorithm, traces=traces)

    return call


def coloring(
    colors: Any,
    rounds: DeviceRounds,
    *,
    algorithm: str,
    traces: Callable[[int, list[float]], dict[str, list[float]]] | None = None,
) -> Coloring:
    """The Coloring of a launched loop. After the timed call (its ``resolve``) it gets
    ``iterations`` and its traces (``traces(rounds, left-per-round)``; by default
    ``{"active": left}``), and a copy of ``colors``, so the next call, which writes the same
    buffer, cannot change a coloring already returned."""

    def resolve(final: Coloring) -> None:
        if final.colors is colors:
            final.colors = colors.copy()
        run, left = rounds.read()
        final.iterations = run
        final.trace.update(traces(run, left) if traces else {"active": left})
        if run and left[-1] != 0:
            raise RoundCapError(
                f"{algorithm}: still {left[-1]:.0f} active after {run} rounds", final.colors
            )

    return Coloring(colors, None, {}, resolve=resolve)
