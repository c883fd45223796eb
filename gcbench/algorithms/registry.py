"""The algorithm registry: every algorithm is one :class:`AlgorithmSpec` (docs/architecture.md,
"Algorithm contract").

Algorithm modules call :func:`register` at import time; ``gcbench.algorithms`` imports them
all. GPU modules must not import CuPy at module level, so the registry loads without a GPU.
A name has one spec, except a ``chooser`` (``auto``), which has one per backend: whoever
knows the backend (suite expansion, the worker, ``gcbench.color``) asks for that one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from gcbench.errors import SpecError
from gcbench.grammar import PROBLEMS

Backend = Literal["gpu", "cpu"]


@dataclass
class Coloring:
    """An algorithm's output: ``colors`` (int32, -1 = uncolored), its round count, a trace.

    ``colors`` is a host numpy array for CPU algorithms and a device (CuPy) array for GPU ones.
    ``trace`` maps a series name (e.g. "active") to one value per round. ``resolve``, when
    set, is called once with the final Coloring after the timed region ends: it reads back
    what the coloring does not depend on (counters for ``iterations`` and ``trace``) and may
    raise RoundCapError, so statistics never cost time inside ``time_ms`` (docs/architecture.md,
    "Timing protocol").
    ``params``, when set, is what the CSV records instead of the requested parameters
    (``auto``: its choice).
    ``host_syncs`` and ``device_ms`` are set by the timing protocol, not the algorithm: the
    blocking reads the host made during the timed call and the time the device spent on the
    call's work (docs/decisions.md, "Rounds without the host"); None where not measured (CPU).
    """

    colors: Any
    iterations: int | None
    trace: dict[str, list[float]] = field(default_factory=dict)
    resolve: Callable[[Coloring], None] | None = None
    params: dict[str, Any] | None = None
    host_syncs: int | None = None
    device_ms: float | None = None

    def after_pass(self, colors: Any, series: dict[str, float]) -> Coloring:
        """This coloring with the ``colors`` of a pass run on it (reduction, balance) and the
        pass's one-value trace ``series`` added."""
        trace = {**self.trace, **{name: [float(value)] for name, value in series.items()}}
        return replace(self, colors=colors, trace=trace)


@dataclass(frozen=True)
class Param:
    """A declared algorithm parameter: its type, default and (optionally) allowed values."""

    name: str
    default: Any
    kind: type = str
    choices: tuple[Any, ...] | None = None
    low: float | None = None
    high: float | None = None
    help: str = ""

    def parse(self, value: Any, algorithm: str) -> Any:
        """Convert ``value`` (possibly a CLI string) to this parameter's type and check it."""
        try:
            if self.kind is bool and isinstance(value, str):
                if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(value)
                out: Any = value.lower() in ("true", "1", "yes")
            else:
                out = self.kind(value)
        except (TypeError, ValueError):
            raise SpecError(
                f"{algorithm}: parameter {self.name}={value!r} is not a {self.kind.__name__}"
            ) from None
        if self.choices is not None and out not in self.choices:
            allowed = "|".join(str(c) for c in self.choices)
            raise SpecError(f"{algorithm}: {self.name}={value} is not one of {allowed}")
        if (self.low is not None and out < self.low) or (self.high is not None and out > self.high):
            raise SpecError(
                f"{algorithm}: {self.name}={value} is outside [{self.low}, {self.high}]"
            )
        return out


RunFn = Callable[..., Coloring]

REDUCE_MODES: tuple[str, ...] = ("none", "h1", "h2", "both", "ig")
REDUCE_PARAM = Param(
    "reduce",
    "none",
    choices=REDUCE_MODES,
    help="color reduction after coloring: ecl-gc §4's heuristic 1, 2, or both; ig = iterated "
    "greedy passes (Culberson & Luo 1996)",
)
BALANCE_MODES: tuple[str, ...] = ("none", "shuffle")
BALANCE_PARAM = Param(
    "balance",
    "none",
    choices=BALANCE_MODES,
    help="class balancing after coloring and reduce (Lu et al. 2015): vertex-centric shuffle",
)
POST_PARAMS = (REDUCE_PARAM, BALANCE_PARAM)  # every spec has them (register appends them)
# The distance-2 algorithms' post-pass: iterated greedy over the columns (ecl-gc's heuristics
# and class balancing are distance-1 moves). register appends it to every pattern spec.
PATTERN_REDUCE_PARAM = Param(
    "reduce",
    "none",
    choices=("none", "ig"),
    help="color reduction after coloring: ig = iterated greedy passes over the columns "
    "(Culberson & Luo 1996)",
)


WARP = 32  # the block-size step of a GPU algorithm whose kernels work in whole warps
MAX_BLOCK_SIZE = 1024  # threads per block on every CUDA device


@dataclass(frozen=True)
class AlgorithmSpec:
    """One registry entry.

    ``run(graph, *, block_size, **params)`` receives a host :class:`~gcbench.graphs.graph.Graph` for
    CPU algorithms and a :class:`~gcbench.algorithms.gpu.runtime.DeviceGraph` for GPU ones;
    ``block_size`` is passed only when ``block_size_matters`` or the backend is GPU; a GPU
    algorithm takes the multiples of ``block_size_step`` up to 1024 (:data:`WARP` for kernels
    that work in whole warps), :meth:`check_block_size` refuses the rest before ``run`` is
    called, and ``--block-size sweep`` gives it only sizes it takes.
    ``setup(graph_or_device_graph)``, when given, builds per-graph structures once (e.g. an
    edge list in ``DeviceGraph.extras``); it is timed on its own as ``setup_ms``, from a view
    of the graph that holds nothing cached, and only ``--count-setup`` adds it to ``time_ms``.
    Every spec has the ``reduce`` parameter (:data:`REDUCE_PARAM`); unless ``native_reduce``,
    ``run`` never sees it and the runner applies :mod:`gcbench.algorithms.reduction` itself.
    Every spec has the ``balance`` parameter (:data:`BALANCE_PARAM`) too, which ``run`` never
    sees: the runner applies :mod:`gcbench.algorithms.balance` after the coloring.
    A ``chooser`` runs another algorithm it picks per graph; it has a spec per backend under
    one name and is left out of ``name = "*"`` suites. So is a spec with ``wildcard`` False
    (a time-budgeted search, whose time is its budget): it runs where a suite names it.
    ``requires`` names the optional Python packages ``run`` imports (installed by the
    ``extra`` of gcbench); :mod:`gcbench.algorithms.availability` checks them without
    importing them. ``kernel`` names the CUDA source ``kernels/<kernel>.cu`` of a GPU
    algorithm (None for a library call).
    ``problems`` are the problems it solves (:data:`gcbench.grammar.PROBLEMS`): ``("d1",)``,
    or some of the distance-2 ones, whose ``run`` gets a
    :class:`~gcbench.graphs.pattern.Pattern` (a ``DevicePattern`` on the GPU) and colors its
    columns (docs/distance2.md); those get :data:`PATTERN_REDUCE_PARAM` (``reduce=none|ig``)
    instead, and no ``balance`` (a distance-1 pass).
    ``bind(graph_or_device_graph, *, block_size, **params)``, when given, returns ``run``'s
    work as a call with no arguments, its lookups made at bind time (nothing that colors:
    at most what ``setup`` would build): :func:`gcbench.algorithms.execute.run_timed` binds
    before its start event, so the timed region holds only what runs for each coloring.
    """

    name: str
    backend: Backend
    family: str
    run: RunFn
    params: tuple[Param, ...] = ()
    deterministic: bool = True
    block_size_matters: bool = False
    default_block_size: int | None = None
    block_size_step: int = 1
    peer: bool = False
    iterations_meaning: str = "rounds"
    description: str = ""
    setup: Callable[[Any], None] | None = None
    native_reduce: bool = False
    chooser: bool = False
    wildcard: bool = True
    requires: tuple[str, ...] = ()
    extra: str = ""
    kernel: str | None = None
    bind: Callable[..., Callable[[], Coloring]] | None = None
    problems: tuple[str, ...] = ("d1",)

    @property
    def colors_patterns(self) -> bool:
        """Whether it solves the distance-2 problems: ``run`` gets a Pattern (docs/distance2.md)
        and colors its columns, instead of a Graph's vertices."""
        return self.problems != ("d1",)

    def check_block_size(self, block_size: int) -> None:
        """Refuse a launch block size this GPU algorithm's kernels cannot use: one check for
        every GPU algorithm, made by :mod:`gcbench.algorithms.execute` before ``run``."""
        step = self.block_size_step
        if block_size % step or not step <= block_size <= MAX_BLOCK_SIZE:
            sizes = f"a multiple of {step} in {step}..{MAX_BLOCK_SIZE}" if step > 1 else None
            raise SpecError(
                f"{self.name}: block size {block_size} is "
                + (f"not {sizes}" if sizes else f"outside 1..{MAX_BLOCK_SIZE}")
                + "; use e.g. 128 or 256"
            )

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise SpecError(f"{self.name}: unknown parameter {name!r} (known: {known})")

    def resolve_params(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with ``given`` (parsed and checked); unknown names are errors."""
        out = {p.name: p.default for p in self.params}
        for key, value in given.items():
            out[key] = self.param(key).parse(value, self.name)
        return out


def runs(bind: Callable[..., Callable[[], Coloring]]) -> RunFn:
    """The ``run`` of a spec whose ``bind`` returns its timed call: the call, made at once."""

    def run(handle: Any, **kwargs: Any) -> Coloring:
        return bind(handle, **kwargs)()

    run.__doc__, run.__name__ = bind.__doc__, bind.__name__.removeprefix("bind_")
    return run


_REGISTRY: dict[str, dict[str, dict[str, AlgorithmSpec]]] = {}  # name -> problem -> backend


def register(spec: AlgorithmSpec) -> AlgorithmSpec:
    """Add ``spec`` to the registry under each of its problems (replacing one of the same name
    and problem, e.g. in tests, or for a chooser one of the same name and backend), with the
    ``reduce`` and ``balance`` parameters appended to a distance-1 spec unless it declares
    them (a distance-2 one gets its own ``reduce``); returns the registered spec."""
    wrong = [p for p in spec.problems if p not in PROBLEMS]
    if wrong or not spec.problems or (spec.colors_patterns and "d1" in spec.problems):
        raise ValueError(f"{spec.name}: problems {spec.problems} are not d1 or d2/pd2 ones")
    declared = {p.name for p in spec.params}
    post = (PATTERN_REDUCE_PARAM,) if spec.colors_patterns else POST_PARAMS
    missing = tuple(p for p in post if p.name not in declared)
    if missing:
        spec = replace(spec, params=(*spec.params, *missing))
    by_problem = _REGISTRY.setdefault(spec.name, {})
    for problem in spec.problems:
        kept = by_problem.get(problem, {}) if spec.chooser else {}
        by_problem[problem] = {**{b: s for b, s in kept.items() if s.chooser}, spec.backend: spec}
    return spec


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def get(name: str, backend: str | None = None, problem: str = "d1") -> AlgorithmSpec:
    """The spec called ``name`` that solves ``problem``, or a SpecError listing the known
    ones. For a name with a spec per backend, the one of ``backend`` (the GPU one when None);
    otherwise ``backend`` does not matter."""
    try:
        by_problem = _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise SpecError(f"unknown algorithm {name!r}; known: {known}") from None
    specs = by_problem.get(problem)
    if not specs:
        solving = ", ".join(s.name for s in all_specs(problem=problem)) or "none"
        raise SpecError(
            f"{name} does not solve --problem {problem} (it solves "
            f"{', '.join(sorted(by_problem))}); algorithms that do: {solving}"
        )
    return specs.get(backend or "gpu") or next(iter(specs.values()))


def solves(name: str, problem: str) -> bool:
    """Whether the algorithm called ``name`` solves ``problem`` (a SpecError for an unknown
    name)."""
    if name not in _REGISTRY:
        get(name)
    return problem in _REGISTRY[name]


def backends(name: str, problem: str = "d1") -> tuple[str, ...]:
    """The backends ``name`` can run on for ``problem`` (two for a chooser)."""
    get(name, problem=problem)
    return tuple(sorted(_REGISTRY[name][problem]))


def all_specs(backend: Backend | None = None, problem: str | None = "d1") -> list[AlgorithmSpec]:
    """Every registered spec for ``problem`` (every problem, each spec once, with None),
    optionally of one backend, sorted by name, then backend (then problems)."""
    out: dict[tuple[str, str, tuple[str, ...]], AlgorithmSpec] = {}
    for name, by_problem in sorted(_REGISTRY.items()):
        for solved, specs in by_problem.items():
            if problem in (None, solved):
                for b, spec in specs.items():
                    if backend in (None, spec.backend):
                        out.setdefault((name, b, spec.problems), spec)
    return [out[key] for key in sorted(out)]


UNCOLORED = -1  # a vertex without a color; GCB_UNCOLORED of kernels/common.cuh


def empty_coloring(n: int) -> np.ndarray:
    """An all-uncolored int32 array of length n (the device twin: runtime.uncolored)."""
    return np.full(n, UNCOLORED, dtype=np.int32)
