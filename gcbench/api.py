"""The library calls underneath the CLI: load a graph, describe it, color it, validate a
coloring, and what a coloring does for a triangular solve (``gcbench levels``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gcbench import algorithms, grammar
from gcbench.algorithms import devices
from gcbench.algorithms import levels as levels_
from gcbench.algorithms.execute import measure, prepare
from gcbench.algorithms.registry import AlgorithmSpec
from gcbench.algorithms.sampling import Sampling
from gcbench.algorithms.validation import Validation
from gcbench.errors import GcbenchError, GpuUnavailableError, SpecError
from gcbench.graphs import pattern as patterns
from gcbench.graphs.graph import Graph, Normalisation
from gcbench.graphs.pattern import Pattern
from gcbench.graphs.sources import known_chi, load_graph, load_instance

__all__ = [
    "ColorResult",
    "GraphStats",
    "LevelReport",
    "PatternStats",
    "color",
    "color_instance",
    "info",
    "instance",
    "levels",
    "load_graph",
]


@dataclass(frozen=True)
class GraphStats:
    """What ``gcbench info`` prints: the graph's name and source, its size, its degree
    statistics (``isolated``: vertices of degree 0) and what normalisation changed in the
    input (self loops and duplicates dropped, reverse entries added); ``chi_lower`` (a clique
    found), ``degeneracy`` and the ``chi_known`` of a source that publishes χ (else None;
    always None for a Graph given as it is) bound the colors a coloring needs (docs/graphs.md,
    "Bounds")."""

    name: str
    source: str
    n: int
    m: int
    max_degree: int
    avg_degree: float
    min_degree: int
    isolated: int
    normalisation: Normalisation
    chi_lower: int
    degeneracy: int
    chi_known: int | None


@dataclass(frozen=True)
class PatternStats:
    """What ``gcbench info --problem d2|pd2|pd2-rows`` prints (docs/distance2.md): the matrix
    the problem colors, as given (d2: the pattern of the graph's A + I), its size, its largest
    row and column (entries), and ``lower``, a lower bound on the colors of every valid
    coloring: the largest count of what must all differ (a row's columns for pd2 and d2,
    where it is Δ + 1; a column's rows for pd2-rows)."""

    name: str
    source: str
    problem: str
    rows: int
    columns: int
    entries: int
    max_row: int
    max_col: int
    lower: int


def info(
    graph: Graph | Pattern | str, problem: str = grammar.DEFAULT_PROBLEM
) -> GraphStats | PatternStats:
    """The statistics of ``graph`` (a Graph, or a spec string to load first), with its
    bounds (:mod:`gcbench.graphs.bounds`) and the χ its source publishes, if any; for a
    distance-2 ``problem``, those of the matrix it colors (:class:`PatternStats`, loaded as
    :func:`color` loads it)."""
    problem = grammar.one_value(
        grammar.problems(problem, "problem"), "problem", "info describes one problem"
    )
    if problem != grammar.DEFAULT_PROBLEM:
        return _pattern_stats(graph, problem)
    g = load_graph(graph) if isinstance(graph, str) else graph
    stated = known_chi(g.name) if isinstance(graph, str) else None  # a Graph's name is a label
    return GraphStats(
        g.name, g.source, g.n, g.m, g.max_degree, g.avg_degree, g.min_degree, g.isolated,
        g.normalisation, g.bounds.clique, g.bounds.degeneracy, stated,
    )  # fmt: skip


def _pattern_stats(graph: Graph | Pattern | str, problem: str) -> PatternStats:
    """:func:`info` of a distance-2 problem. pd2-rows colors the transpose of the matrix that
    pd2 colors: the matrix is described as given, and its largest column bounds the colors."""
    p = instance(graph, "pd2" if problem == "pd2-rows" else problem)
    lower = p.max_col if problem == "pd2-rows" else p.max_row
    return PatternStats(
        p.name, p.source, problem, p.n_rows, p.n_cols, p.nnz, p.max_row, p.max_col, lower
    )


@dataclass(frozen=True)
class ColorResult:
    """A validated coloring with its timing: ``time_ms`` is the median of ``times_ms`` (one
    per repetition, after ``warmup`` unrecorded runs; compilation is never in them);
    ``setup_ms`` the algorithm's per-graph setup (inside ``time_ms`` with ``count_setup``);
    ``transfer_ms`` the graph's upload and one copy of the colors back. Every repetition was
    validated; ``colors`` and ``validation`` are the last one's."""

    colors: np.ndarray
    validation: Validation
    iterations: int | None
    time_ms: float
    transfer_ms: float
    trace: dict[str, list[float]]
    times_ms: tuple[float, ...] = ()
    setup_ms: float = 0.0
    warmup: int | str = 1  # as asked: a count or "auto"
    count_setup: bool = False
    params: dict[str, Any] = field(default_factory=dict)  # as a row records them (auto: its pick)


def color(
    graph: Graph | Pattern | str,
    algorithm: str,
    *,
    problem: str = grammar.DEFAULT_PROBLEM,
    block_size: int | None = None,
    warmup: int | str = 1,
    reps: int | str = 1,
    count_setup: bool = False,
    device: str = "auto",
    **params: Any,
) -> ColorResult:
    """Color ``graph`` (a Graph or a spec string) with ``algorithm``: ``warmup`` unrecorded
    runs, then ``reps`` timed ones, each validated (docs/architecture.md, "Timing protocol", as
    ``gcbench run``); either may be ``"auto"`` (docs/statistics.md: until steady, until the
    median is sure).

    ``device`` (gpu|cpu|auto) matters for ``auto``, which exists for both: "auto" means the
    GPU when one is usable. Other algorithms run where they run; asking one for the other
    device is an error.

    ``problem`` (docs/distance2.md): d1 colors a graph's vertices; d2, pd2 and pd2-rows
    color the columns of a Pattern: a spec loads as the problem asks, a Graph given as it is
    becomes the pattern of A + I (d2) or of A (pd2, pd2-rows), a Pattern (pd2 and pd2-rows
    only) is colored as it is (pd2) or transposed (pd2-rows)."""
    problem = grammar.one_value(
        grammar.problems(problem, "problem"), "problem", "color solves one problem"
    )
    spec, resolved = configure(algorithm, device, params, problem)
    return color_instance(
        instance(graph, problem), spec, resolved, block_size=block_size, warmup=warmup,
        reps=reps, count_setup=count_setup,
    )  # fmt: skip


def color_instance(
    graph: Graph | Pattern,
    spec: AlgorithmSpec,
    params: dict[str, Any],
    *,
    block_size: int | None = None,
    warmup: int | str = 1,
    reps: int | str = 1,
    count_setup: bool = False,
) -> ColorResult:
    """:func:`color` on what ``spec`` colors as it is (:func:`instance` made it), with the
    parameters :func:`configure` resolved: ``gcbench color`` loads first, to name the input
    in its output."""
    if isinstance(graph, Pattern) != spec.colors_patterns:
        kind = "a matrix pattern" if isinstance(graph, Pattern) else "a graph"
        raise SpecError(
            f"{spec.name} colors {'patterns' if spec.colors_patterns else 'graphs'}, and "
            f"{graph.name} is {kind}: make it with instance(graph, problem)"
        )
    warmup = grammar.warmup(warmup, "warmup")
    reps = grammar.reps(reps, "reps")
    block_size = one_block_size(block_size, "block_size")
    prepared = prepare(graph, spec.backend)
    sampling = Sampling.of(reps, warmup)
    case = measure(spec, prepared, block_size, params, sampling=sampling, count_setup=count_setup)
    invalid = next((r for r in case.runs if not r.validation.valid), None)
    last = invalid or case.last
    return ColorResult(
        last.colors,
        last.validation,
        last.coloring.iterations,
        case.median_ms,
        case.transfer_ms + last.copy_ms,
        last.coloring.trace,
        tuple(case.times_ms),
        last.setup_ms,
        warmup,
        count_setup,
        last.coloring.params or params,
    )


def instance(graph: Graph | Pattern | str, problem: str) -> Graph | Pattern:
    """What an algorithm of ``problem`` colors, from a spec, a Graph or a Pattern (as
    :func:`color` says); a Pattern for d1 is refused in one line."""
    if isinstance(graph, str):
        return load_instance(graph, problem)
    if isinstance(graph, Pattern):
        if problem in grammar.GRAPH_PROBLEMS:
            raise SpecError(
                f"{graph.name} is a matrix pattern: color its columns with problem pd2 or "
                "its rows with pd2-rows"
            )
        return graph.transposed() if problem == "pd2-rows" else graph
    if problem == "d2":
        return patterns.closed_neighbourhoods(graph)
    return graph if problem == "d1" else patterns.adjacency(graph)


def configure(
    algorithm: str,
    device: str = "auto",
    params: Mapping[str, Any] | None = None,
    problem: str = grammar.DEFAULT_PROBLEM,
) -> tuple[AlgorithmSpec, dict[str, Any]]:
    """The algorithm ``color`` runs for ``problem`` and its parameters, checked (names,
    values, device, a usable GPU for a GPU algorithm) before any graph is loaded: a
    SpecError or GpuUnavailableError for what cannot run as asked."""
    spec = algorithms.get(algorithm, _backend(algorithm, device, problem), problem)
    if device in ("gpu", "cpu") and spec.backend != device:
        raise SpecError(
            f"{algorithm} runs on the {spec.backend.upper()} only; --device {device} applies to "
            "algorithms that exist for both (auto)"
        )
    resolved = spec.resolve_params(params or {})
    unusable = devices.get(spec.backend).problem()
    if unusable is not None:
        raise GpuUnavailableError(_without_gpu(spec.name, unusable, problem))
    return spec, resolved


def one_block_size(value: Any, what: str) -> int | None:
    """The single block size a coloring runs with (:func:`gcbench.grammar.block_sizes`)."""
    sizes = grammar.block_sizes(value, what)
    if sizes is None:
        return None
    why = "color runs one block size (gcbench run sweeps several)"
    return grammar.one_value(grammar.SWEEP if sizes == "sweep" else sizes, what, why)


def _without_gpu(algorithm: str, reason: str, problem: str) -> str:
    """Why ``algorithm`` cannot run here and what can: the CPU side of an algorithm that has
    one, else the CPU algorithms of ``problem`` by name."""
    if "cpu" in algorithms.backends(algorithm, problem):
        return f"{algorithm} on the GPU: {reason}; --device cpu runs it on the CPU"
    cpu = ", ".join(s.name for s in algorithms.all_specs("cpu", problem) if not s.chooser)
    return f"{algorithm} runs on the GPU: {reason}; CPU algorithms: {cpu}"


def _backend(algorithm: str, device: str, problem: str) -> str | None:
    """The backend to ask the registry for: ``device`` if given, else, for a name on both
    backends, the GPU if usable (this process may initialise CUDA; the runner's parent never
    calls this)."""
    if device in ("gpu", "cpu"):
        return device
    if device != "auto":
        raise SpecError(f"device {device!r}: choose gpu, cpu or auto")
    if len(algorithms.backends(algorithm, problem)) == 1:
        return None
    return "gpu" if devices.usable("gpu") else "cpu"


@dataclass(frozen=True)
class LevelReport:
    """``gcbench levels``: the matrix, the coloring that reorders it, and its metrics.
    ``solve_note`` says why the solve was not timed (else "")."""

    graph: Graph
    algorithm: str
    params: dict[str, Any]
    colors: int
    metrics: levels_.LevelMetrics
    solve_reps: int
    solve_warmup: int
    solve_note: str = ""


def levels(
    matrix: Graph | str,
    algorithm: str,
    *,
    block_size: int | None = None,
    device: str = "auto",
    solve: bool | None = None,
    reps: int = levels_.SOLVE_REPS,
    warmup: int = levels_.SOLVE_WARMUP,
    **params: Any,
) -> LevelReport:
    """Color ``matrix`` (a Graph or spec) with ``algorithm`` (as :func:`gcbench.color`, one
    validated run) and measure the levels of the natural and the color-ordered lower triangle;
    the solves are timed when ``solve`` (default: when a GPU is usable), ``reps`` times after
    ``warmup``. An invalid coloring is an error (nothing to reorder by)."""
    graph = load_graph(matrix) if isinstance(matrix, str) else matrix
    result = color(graph, algorithm, block_size=block_size, warmup=0, reps=1, device=device,
                   **params)  # fmt: skip
    note = ""
    if solve is None:
        problem = devices.get("gpu").problem()
        solve = problem is None
        if problem is not None:
            note = f"not timed: {problem.split(';')[0]}"
    elif not solve:
        note = "not timed (--no-solve)"
    v = result.validation
    if not v.valid:
        raise GcbenchError(
            f"{algorithm} gave an invalid coloring of {graph.name} ({v.conflicts} conflicts, "
            f"{v.uncolored} uncolored): nothing to reorder by"
        )
    metrics = levels_.LevelMeter(graph, solve=solve, reps=reps, warmup=warmup).measure(
        result.colors
    )
    return LevelReport(graph, algorithm, result.params, v.colors, metrics, reps, warmup, note)
