"""Running one algorithm on one graph with the timing protocol (docs/architecture.md,
"Timing protocol").

Shared by :func:`gcbench.color`, the benchmark runner's worker and the benchmark scripts, so a
coloring is compiled, set up, timed and validated the same way wherever it is asked for:

- compilation and module loading never land in a timed region: :func:`prime` runs the
  algorithm's setup and coloring once on a small graph that takes every path (hubs, more than
  64 colors, a mesh) before anything is timed, whatever the warm-up count;
- ``setup_ms`` is the algorithm's own per-graph setup, timed on a :meth:`Prepared.fresh` view
  of the graph that holds nothing another algorithm built;
- ``time_ms`` is the call alone (CUDA events on the GPU), or setup plus call with
  ``count_setup``; counters an algorithm reads back for its statistics are read after the end
  event (:attr:`Coloring.resolve`);
- every repetition is validated;
- how many runs a case gets is its :class:`~gcbench.algorithms.sampling.Sampling`'s (a warm-up
  until the device is steady, repetitions until the median is sure, or fixed counts), and a
  :class:`Meter` records what each repetition ran under (clock, load) around its timed call.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from typing import Protocol as Interface

import numpy as np

from gcbench.algorithms import devices
from gcbench.algorithms.devices import Backend
from gcbench.algorithms.registry import AlgorithmSpec, Coloring
from gcbench.algorithms.sampling import Sampling, Visit
from gcbench.algorithms.validation import Validation
from gcbench.errors import GcbenchError
from gcbench.grammar import canonical_params
from gcbench.graphs.graph import Graph, from_edges
from gcbench.graphs.pattern import Pattern, closed_neighbourhoods


@dataclass(frozen=True)
class Prepared:
    """A graph made ready for one backend: the host Graph, or its DeviceGraph on the GPU; for
    the distance-2 problems a Pattern, or its DevicePattern (docs/distance2.md)."""

    graph: Graph | Pattern
    backend: Backend
    handle: Any
    transfer_ms: float

    def fresh(self) -> Prepared:
        """The same graph (no copy of its arrays) with nothing an algorithm cached on it."""
        return replace(self, handle=self.backend.fresh(self.handle))


@dataclass(frozen=True)
class Repetition:
    """One timed, validated run. ``setup_ms`` is the setup this repetition's time rests on
    (measured once per case, or inside this repetition with ``count_setup``);
    ``copy_ms`` is the copy of the colors back to the host; ``conditions`` what it ran under
    (a Meter's columns); ``elapsed_s`` the seconds from the start of its visit's first
    recorded repetition (after the warm-up) to its end."""

    coloring: Coloring
    colors: np.ndarray
    validation: Validation
    time_ms: float
    setup_ms: float
    copy_ms: float
    conditions: Mapping[str, Any] = field(default_factory=dict)
    elapsed_s: float = 0.0


class Meter(Interface):
    """What a repetition ran under, read around its timed call (the runner's worker gives
    one: :class:`gcbench.bench.conditions.Conditions`)."""

    target_mhz: int | None  # the SM clock a steady GPU runs at; None where unknown

    def start(self) -> None:
        """Just before the timed call."""

    def stop(self, device_wait: bool = True) -> dict[str, Any]:
        """Just after it: the repetition's condition columns (``device_wait``: whether the timed
        call waited for the device, :meth:`floor_ms`)."""
        ...

    def clock_mhz(self) -> int | None:
        """The SM clock now (None where unknown)."""
        ...

    def floor_ms(self) -> float:
        """The harness's own resolution for the case's time: what an interval of its median
        narrower than this cannot promise (:meth:`Sampling.at_floor`)."""
        ...


def prepare(graph: Graph | Pattern, backend: str) -> Prepared:
    """Move ``graph`` to where ``backend`` runs; the GPU copy is timed (docs/architecture.md,
    "Timing protocol"). An upload larger than the GPU's free memory is refused first
    (InsufficientMemoryError: ``oom``)."""
    device = devices.get(backend)
    handle, transfer_ms = device.upload(graph)
    return Prepared(graph, device, handle, transfer_ms)


def setup(spec: AlgorithmSpec, prepared: Prepared) -> float:
    """Run ``spec.setup`` on ``prepared`` (give it a :meth:`Prepared.fresh` view); its ms."""
    if spec.setup is None:
        return 0.0
    clock = prepared.backend.clock()
    clock.mark()
    spec.setup(prepared.handle)
    clock.mark()
    return clock.ms(0, 1)


def _kwargs(spec: AlgorithmSpec, block_size: int | None, params: dict[str, Any]) -> dict:
    kwargs = dict(params)
    kwargs.pop("balance", None)  # applied by invoke, never by the algorithm
    if not spec.native_reduce:
        kwargs.pop("reduce", None)
    launched = devices.get(spec.backend).takes_block_size
    if launched or spec.block_size_matters:
        kwargs["block_size"] = block_size or spec.default_block_size or 256
    if launched:
        spec.check_block_size(kwargs["block_size"])
    return kwargs


def bind(
    spec: AlgorithmSpec, handle: Any, block_size: int | None, params: dict[str, Any]
) -> Callable[[], Coloring]:
    """The timed work on ``handle`` (a Graph or DeviceGraph) as a call with no arguments: the
    algorithm, then a ``reduce`` other than "none" for a spec without ``native_reduce``, then
    a ``balance`` other than "none", each on the algorithm's own backend (the GPU ones need no
    host copy). The parameters are checked and resolved now, and so are the algorithm's own
    lookups where its spec has ``bind``, so a timed region around the call holds only what
    runs for each coloring. The call does not resolve: a chooser (``auto``) returns the chosen
    algorithm's Coloring, whose ``resolve`` :func:`run_timed` calls after the timing; the
    ``balance`` applied here is added to the parameters such a Coloring records."""
    mode = "none" if spec.native_reduce else params.get("reduce", "none")
    kwargs = _kwargs(spec, block_size, params)
    if spec.bind is not None:
        algorithm = spec.bind(handle, **kwargs)
    else:
        algorithm = functools.partial(spec.run, handle, **kwargs)
    shuffle = params.get("balance", "none")
    device = devices.get(spec.backend)

    def call() -> Coloring:
        coloring = algorithm()
        if mode != "none":
            coloring = device.reduce(handle, coloring, mode, params.get("sync"))
        if coloring.params is not None and "balance" in params:
            coloring.params = {**coloring.params, "balance": shuffle}
        if shuffle == "none":
            return coloring
        return device.balance(handle, coloring, shuffle)

    return call


def invoke(
    spec: AlgorithmSpec, handle: Any, block_size: int | None, params: dict[str, Any]
) -> Coloring:
    """:func:`bind`'s call, made at once."""
    return bind(spec, handle, block_size, params)()


def _resolved(coloring: Coloring) -> Coloring:
    """Read back what the algorithm left for after the timed region (counters, trace)."""
    if coloring.resolve is not None:
        resolve, coloring.resolve = coloring.resolve, None
        resolve(coloring)
    return coloring


def _watched(coloring: Coloring, watch: Any, elapsed_ms: float) -> Coloring:
    """``coloring`` with the host's share of its timed region (``watch``: the backend's, None
    on the CPU): ``host_syncs``, and ``device_ms`` = the region's time less the device's idle
    time in the host's blocking reads (docs/decisions.md, "Rounds without the host"); both
    stay None where they were not measured (the CPU, a pass whose waits are not counted)."""
    idle = None if watch is None else watch.idle_ms()
    if idle is not None:
        coloring.host_syncs = watch.syncs
        coloring.device_ms = max(0.0, elapsed_ms - idle)
    return coloring


def run_timed(
    spec: AlgorithmSpec, prepared: Prepared, block_size: int | None, params: dict[str, Any]
) -> tuple[Coloring, float]:
    """Run ``spec`` once on ``prepared`` (already set up and primed); the Coloring and the
    time of the call alone in ms, bound (:func:`bind`) before the start event. The device is
    held (the backend's ``hold``) until the call is queued or first waits for the device, so
    the timed region starts with the call's work, not the host's launch of it; host round
    trips the algorithm makes are inside it, and counted (``host_syncs``, ``device_ms``)."""
    call = bind(spec, prepared.handle, block_size, params)
    clock = prepared.backend.clock()
    with prepared.backend.hold() as hold:
        clock.mark()
        with prepared.backend.watch() as watch:
            coloring = call()
        clock.mark()
    elapsed = clock.ms(0, 1)
    coloring = _watched(coloring, watch, elapsed)
    if hold is not None and hold.timed_out():  # the call waited without saying so
        coloring.host_syncs = coloring.device_ms = None
    return _resolved(coloring), elapsed


def run_with_setup(
    spec: AlgorithmSpec, prepared: Prepared, block_size: int | None, params: dict[str, Any]
) -> tuple[Coloring, float, float]:
    """Setup from nothing cached plus the call, in one timed region (``count_setup``): the
    Coloring, setup ms and setup + call ms. ``host_syncs`` and ``device_ms`` stay unmeasured:
    setups and binds read sizes back (CuPy's masks, an upload from host memory) uncounted."""
    fresh = prepared.fresh()
    clock = prepared.backend.clock()
    clock.mark()
    if spec.setup is not None:
        spec.setup(fresh.handle)
    clock.mark()
    coloring = invoke(spec, fresh.handle, block_size, params)
    clock.mark()
    total = clock.ms(0, 2)
    return _resolved(coloring), clock.ms(0, 1), total


def finish(
    spec: AlgorithmSpec, prepared: Prepared, coloring: Coloring
) -> tuple[np.ndarray, Validation, float]:
    """Validate ``coloring`` and bring its colors to the host; returns (colors, validation,
    copy-back ms). The GPU validates on the device before the copy (no host pass over n)."""
    return prepared.backend.finish(prepared.graph, prepared.handle, coloring)


PRIMER_GRID = 64  # side of the primer's grid: more vertices than any tile of cf (2048)


@functools.cache
def primer_graph() -> Graph:
    """A small graph on which every algorithm takes every path it has: a 70-clique (degrees
    of 32 and more, more than 64 colors), a star of 40 leaves, a 64×64 grid (more vertices
    than one of cf's tiles, so its conflict passes run) and a path of 25 vertices."""
    clique = np.array([(u, v) for u in range(70) for v in range(u + 1, 70)]).T
    star = np.array([(70, 71 + i) for i in range(40)]).T
    side, base = PRIMER_GRID, 111
    ids = base + np.arange(side * side).reshape(side, side)
    grid = np.concatenate(
        [np.stack([ids[:, :-1].ravel(), ids[:, 1:].ravel()]),
         np.stack([ids[:-1, :].ravel(), ids[1:, :].ravel()])], axis=1
    )  # fmt: skip
    start = base + side * side
    path = np.array([(start + i, start + i + 1) for i in range(24)]).T
    rows, cols = np.concatenate([clique, star, grid, path], axis=1)
    return from_edges(start + 25, rows, cols, name="gcbench-primer", directed_input=False)


@functools.cache
def primer_pattern() -> Pattern:
    """What a distance-2 algorithm is primed on: the pattern of A + I of :func:`primer_graph`
    (its clique's rows need 70 colors, its star's hub row is long)."""
    return closed_neighbourhoods(primer_graph()).renamed("gcbench-primer-pattern")


_PRIMED: set[tuple[str, str, int | None, str, bool]] = set()
_PRIMER: dict[tuple[str, str], Prepared] = {}


@functools.cache
def peer_primer_graph() -> Graph:
    """A 25-vertex path: what a peer (networkx, igraph) is primed on. A peer compiles
    nothing, so priming only loads its library; networkx's DSATUR takes seconds on the
    primer graph."""
    ids = np.arange(24)
    return from_edges(25, ids, ids + 1, name="gcbench-peer-primer", directed_input=False)


def _prime_key(
    spec: AlgorithmSpec, block_size: int | None, params: dict[str, Any]
) -> tuple[str, str, int | None, str, bool]:
    """One configuration: a name may be a distance-1 and a distance-2 algorithm (greedy)."""
    return (spec.name, spec.backend, block_size, canonical_params(params), spec.colors_patterns)


def primed(spec: AlgorithmSpec, block_size: int | None, params: dict[str, Any]) -> bool:
    """Whether :func:`prime` has run for this configuration in this process (so it will not
    compile anything)."""
    return _prime_key(spec, block_size, params) in _PRIMED


def prime(spec: AlgorithmSpec, block_size: int | None, params: dict[str, Any]) -> None:
    """Compile and load everything ``spec`` runs with these parameters (kernels, library
    handles, numba functions) by running its setup and coloring once on :func:`primer_graph`
    (a peer: :func:`peer_primer_graph`; a distance-2 algorithm: :func:`primer_pattern`),
    untimed; once per process and configuration. A failure there surfaces as the case's."""
    key = _prime_key(spec, block_size, params)
    if key in _PRIMED:
        return
    try:
        kind = "pattern" if spec.colors_patterns else "peer" if spec.peer else "graph"
        where = (spec.backend, kind)
        if where not in _PRIMER:
            primers = {"pattern": primer_pattern, "peer": peer_primer_graph, "graph": primer_graph}
            _PRIMER[where] = prepare(primers[kind](), spec.backend)
        primed = _PRIMER[where].fresh()
        setup(spec, primed)
        coloring, _ = run_timed(spec, primed, block_size, params)
        finish(spec, primed, coloring)
    except (GcbenchError, MemoryError):
        raise  # the algorithm's own verdict (unsupported, round cap, out of memory)
    except Exception as exc:
        raise GcbenchError(
            f"{spec.name} failed on gcbench's primer graph, before timing ({exc})"
        ) from exc
    _PRIMED.add(key)


def runs(
    spec: AlgorithmSpec,
    prepared: Prepared,
    block_size: int | None,
    params: dict[str, Any],
    *,
    count_setup: bool = False,
    setup_ms: float | None = None,
    meter: Meter | None = None,
) -> Iterator[Repetition]:
    """Validated, timed runs of one case for as long as the caller takes them (the caller's
    sampling bounds them). ``prepared`` must be a view already set up with ``setup_ms`` (from
    :func:`setup`), unless ``count_setup``, where every run sets up a fresh view inside its
    timed region. ``meter`` reads the conditions around each timed call."""
    if not count_setup and setup_ms is None:
        raise ValueError("runs: set up the view first and pass its setup_ms")
    while True:
        if meter is not None:
            meter.start()
        if count_setup:
            coloring, this_setup, time_ms = run_with_setup(spec, prepared, block_size, params)
        else:
            coloring, time_ms = run_timed(spec, prepared, block_size, params)
            this_setup = setup_ms or 0.0
        device_wait = count_setup or coloring.host_syncs != 0  # None: waits it did not count
        conditions = meter.stop(device_wait) if meter is not None else {}
        colors, validation, copy_ms = finish(spec, prepared, coloring)
        yield Repetition(coloring, colors, validation, time_ms, this_setup, copy_ms, conditions)


def repetitions(
    spec: AlgorithmSpec,
    prepared: Prepared,
    block_size: int | None,
    params: dict[str, Any],
    *,
    sampling: Sampling | Visit,
    count_setup: bool = False,
    setup_ms: float | None = None,
    meter: Meter | None = None,
    after_warmup: Callable[[], None] | None = None,
) -> Iterator[Repetition]:
    """The protocol for one visit of a case: prime, then the warm-up runs, then the recorded
    ones, as many as ``sampling`` asks for (a Sampling: its first visit; :func:`runs` says
    what ``prepared`` must be)."""
    visit = sampling.visit() if isinstance(sampling, Sampling) else sampling
    prime(spec, block_size, params)
    stream = runs(spec, prepared, block_size, params, count_setup=count_setup,
                  setup_ms=setup_ms, meter=meter)  # fmt: skip
    target = meter.target_mhz if meter is not None else None
    warm: list[float] = []
    start = time.perf_counter()
    clock = None
    while visit.sampling.warming(warm, time.perf_counter() - start, clock, target):
        warm.append(next(stream).time_ms)
        clock = meter.clock_mhz() if meter is not None else None
        if after_warmup is not None:
            after_warmup()
    times: list[float] = []
    start = time.perf_counter()
    floor = meter.floor_ms if meter is not None else lambda: 0.0
    while visit.more(times, time.perf_counter() - start, floor()):
        run = next(stream)
        times.append(run.time_ms)
        yield replace(run, elapsed_s=time.perf_counter() - start)


@dataclass(frozen=True)
class CaseResult:
    """All repetitions of one case, as :func:`measure` returns them."""

    runs: list[Repetition]
    transfer_ms: float

    @property
    def last(self) -> Repetition:
        return self.runs[-1]

    @property
    def times_ms(self) -> list[float]:
        return [r.time_ms for r in self.runs]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def valid(self) -> bool:
        return all(r.validation.valid for r in self.runs)


def measure(
    spec: AlgorithmSpec,
    prepared: Prepared,
    block_size: int | None,
    params: dict[str, Any],
    *,
    sampling: Sampling | None = None,
    count_setup: bool = False,
) -> CaseResult:
    """One case from a prepared graph: a fresh view, its setup, the repetitions (each
    validated) as ``sampling`` asks in one visit (default: one warm-up, one repetition).
    ``transfer_ms`` is the graph's upload (once per graph, not per case)."""
    view = prepared.fresh()
    prime(spec, block_size, params)  # before setup, so no compilation lands in setup_ms
    setup_ms = None if count_setup else setup(spec, view)
    done = list(
        repetitions(spec, view, block_size, params, sampling=sampling or Sampling(1, 1),
                    count_setup=count_setup, setup_ms=setup_ms)
    )  # fmt: skip
    return CaseResult(done, prepared.transfer_ms)


def execute(
    spec: AlgorithmSpec, prepared: Prepared, block_size: int | None, params: dict[str, Any]
) -> Repetition:
    """One validated run of one case, no warm-up (compilation is still primed away): for tests
    and one-off calls."""
    return measure(spec, prepared, block_size, params, sampling=Sampling(1, 0)).last
