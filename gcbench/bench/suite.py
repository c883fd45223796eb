"""Benchmark suites: a TOML file (docs/architecture.md, "Suites and cases") and its expansion
into cases.

A case is (graph, algorithm, resolved params, block size); expansion multiplies graphs ×
algorithms × each algorithm's parameter grid × block sizes and checks every name and value
against the registry, so a typo is a SpecError before anything runs.
"""

from __future__ import annotations

import functools
import itertools
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gcbench import algorithms, grammar
from gcbench.algorithms import devices
from gcbench.algorithms.availability import Unusable, skip_reasons, unusable
from gcbench.algorithms.registry import AlgorithmSpec
from gcbench.algorithms.sampling import DEFAULT_CASE_TIME_S, DEFAULT_NOISE, Sampling
from gcbench.errors import SpecError
from gcbench.grammar import SWEEP, BlockSizes, canonical_params
from gcbench.graphs.fetch import is_remote
from gcbench.graphs.sources import canonical_spec
from gcbench.resources import resource_dir

WILDCARD = "*"
DEFAULT_BLOCK_SIZE = 256  # for an algorithm that takes a block size but declares no default

_SUITE_KEYS = {
    "name", "description", "reps", "warmup", "timeout", "block_sizes", "graphs", "algorithms",
    "count_setup", "noise", "case_time", "problems",
}  # fmt: skip
# Keys renamed to match the command line's options (docs/cli.md): old name → new name.
_RENAMED = {"timeout_s": "timeout"}
_ALGORITHM_KEYS = {"name", "params", "block_sizes", "backend", "exclude"}
_GRAPH_KEYS = {"spec", "standin", "no_standin", "problems"}

Usable = Callable[[AlgorithmSpec], Unusable | None]  # why an algorithm cannot run, or None
ON_CPU = "the run is on the CPU"


@dataclass(frozen=True)
class GraphEntry:
    """A graph of a suite: its spec and, optionally, a generated stand-in used when the
    spec cannot be fetched (offline, unreachable), or ``no_standin``: why it has none (an
    offline run that finds it uncached says so and leaves it out). ``problems``, when given,
    replace the suite's for this graph (a matrix family is colored by pd2 only)."""

    spec: str
    standin: str | None = None
    no_standin: str | None = None
    problems: tuple[str, ...] | None = None


@dataclass(frozen=True)
class AlgorithmEntry:
    """One ``[[algorithms]]`` table. ``name = "*"`` means every registered algorithm of
    ``backend`` (default: the run's device) usable here, with default parameters, minus
    ``exclude`` and minus ``auto`` (which runs one of the others)."""

    name: str
    params: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    block_sizes: BlockSizes | None = None
    backend: str | None = None
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class Suite:
    """A parsed suite; ``path`` is where it was read from (None when built in code)."""

    name: str
    description: str = ""
    reps: grammar.Count = grammar.AUTO
    warmup: grammar.Count = grammar.AUTO
    noise: float = DEFAULT_NOISE
    case_time: float = DEFAULT_CASE_TIME_S
    timeout: float = 60.0
    block_sizes: BlockSizes | None = None
    graphs: tuple[GraphEntry, ...] = ()
    algorithms: tuple[AlgorithmEntry, ...] = ()
    count_setup: bool = False
    path: Path | None = None
    problems: tuple[str, ...] = (grammar.DEFAULT_PROBLEM,)

    def with_overrides(self, **changes: Any) -> Suite:
        """A copy with the given fields replaced (``None`` values are ignored); reps, warmup,
        timeout and count_setup are checked as their options are (:mod:`gcbench.grammar`)."""
        given = {k: v for k, v in changes.items() if v is not None}
        checks = {
            "count_setup": lambda v: grammar.boolean(v, "--count-setup"),
            "reps": grammar.reps,
            "warmup": grammar.warmup,
            "noise": lambda v: grammar.share(v, "--noise"),
            "case_time": lambda v: grammar.positive(v, "--case-time"),
            "timeout": grammar.timeout,
            "problems": grammar.problems,
        }
        return replace(self, **{k: checks.get(k, lambda v: v)(v) for k, v in given.items()})

    @property
    def every_problem(self) -> tuple[str, ...]:
        """The suite's problems, then those only some of its graphs ask for."""
        own = (p for g in self.graphs for p in g.problems or ())
        return tuple(dict.fromkeys([*self.problems, *own]))

    @property
    def sampling(self) -> Sampling:
        """How many runs each case gets (docs/statistics.md)."""
        return Sampling.of(self.reps, self.warmup, self.noise, self.case_time)


@dataclass(frozen=True)
class Case:
    """One benchmarked configuration; every repetition of it is one CSV row."""

    graph: str
    standin: str | None
    algorithm: str
    backend: str
    params: Mapping[str, Any]
    block_size: int | None
    problem: str = grammar.DEFAULT_PROBLEM

    @property
    def params_text(self) -> str:
        return canonical_params(self.params)

    @property
    def block_text(self) -> str:
        return "" if self.block_size is None else str(self.block_size)

    def key(self, rep: int, graph: str | None = None) -> tuple[str, ...]:
        """The resume key of repetition ``rep`` (``graph`` defaults to the case's spec), as
        :data:`gcbench.bench.results.KEY_COLUMNS` orders it."""
        return (*self.case_key(graph), str(rep))

    def case_key(self, graph: str | None = None) -> tuple[str, ...]:
        """The resume key of the whole case: the repetition key without ``rep``."""
        graph = graph or self.graph
        return (graph, self.problem, self.algorithm, self.params_text, self.block_text)


# ---------------------------------------------------------------- parsing


def suite_path(ref: str | Path) -> Path:
    """A suite reference as a file: an existing path, else ``configs/<NAME>.toml``."""
    path = Path(ref)
    if path.is_file():
        return path
    named = resource_dir("configs") / f"{ref}.toml"
    if named.is_file():
        return named
    known = ", ".join(name for name, _ in list_suites()) or "none"
    raise SpecError(f"no suite {str(ref)!r}: not a file and not a known suite ({known})")


def load_suite(ref: str | Path) -> Suite:
    """Read and check a suite given as a path or a name in ``configs/``."""
    path = suite_path(ref)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(f"suite {path}: cannot read it as TOML ({exc})") from None
    return parse_suite(data, default_name=path.stem, path=path)


def list_suites() -> list[tuple[str, str]]:
    """(name, description) of every ``configs/*.toml``; unreadable ones say why."""
    out = []
    for path in sorted(resource_dir("configs").glob("*.toml")):
        try:
            out.append((path.stem, load_suite(path).description))
        except SpecError as exc:
            out.append((path.stem, f"(unreadable: {exc})"))
    return out


def remote_specs(ref: str | Path) -> list[str]:
    """The remote (``ss:``/``snap:``/``dimacs:``) specs of a suite (a path or a name in
    ``configs/``): what ``gcbench fetch --suite`` downloads."""
    return [entry.spec for entry in load_suite(ref).graphs if is_remote(entry.spec)]


def parse_suite(data: Mapping[str, Any], *, default_name: str, path: Path | None = None) -> Suite:
    """Build a Suite from parsed TOML, checking keys and types (not algorithm names)."""
    where = f"suite {path or default_name}"
    renamed = sorted(set(data) & set(_RENAMED))
    if renamed:
        old = renamed[0]
        raise SpecError(f"{where}: key {old} is now {_RENAMED[old]} (named like --{_RENAMED[old]})")
    _check_keys(data, _SUITE_KEYS, where)
    return Suite(
        name=str(data.get("name", default_name)),
        description=str(data.get("description", "")),
        reps=grammar.reps(data.get("reps", Suite.reps), f"{where}: reps"),
        warmup=grammar.warmup(data.get("warmup", Suite.warmup), f"{where}: warmup"),
        noise=grammar.share(data.get("noise", Suite.noise), f"{where}: noise"),
        case_time=grammar.positive(data.get("case_time", Suite.case_time), f"{where}: case_time"),
        timeout=grammar.timeout(data.get("timeout", Suite.timeout), f"{where}: timeout"),
        block_sizes=None
        if "block_sizes" not in data
        else parse_block_sizes(data["block_sizes"], f"{where}: block_sizes"),
        graphs=tuple(_graph_entry(g, where) for g in _list(data.get("graphs", []), where)),
        algorithms=tuple(
            _algorithm_entry(a, where) for a in _list(data.get("algorithms", []), where)
        ),
        count_setup=grammar.boolean(data.get("count_setup", False), f"{where}: count_setup"),
        path=path,
        problems=grammar.problems(data.get("problems", list(Suite.problems)), f"{where}: problems"),
    )


def parse_block_sizes(value: Any, where: str = "--block-size") -> BlockSizes:
    """Block sizes as :func:`gcbench.grammar.block_sizes` reads them: a list of ints in
    [1, MAX_BLOCK_SIZE], one int, ``"32,64"`` or ``"sweep"``; ``[]`` is an error."""
    sizes = grammar.block_sizes(list(value) if isinstance(value, tuple) else value, where)
    if sizes is None:
        raise SpecError(f"{where}: no block sizes given; list some (e.g. 128,256) or 'sweep'")
    return sizes


def parse_axes(params: Mapping[str, Any], where: str) -> dict[str, tuple[Any, ...]]:
    """Parameter axes of an ``[[algorithms]]`` table: a list is an axis, a scalar a one-value
    axis (:func:`gcbench.grammar.param_axes`, as ``--param``)."""
    if not isinstance(params, Mapping):
        raise SpecError(f"{where}: params must be a table of name = value or [values]")
    return grammar.param_axes(params, f"{where}: params")


def _graph_entry(value: Any, where: str) -> GraphEntry:
    if isinstance(value, str):
        return GraphEntry(value)
    if isinstance(value, Mapping) and isinstance(value.get("spec"), str):
        here = f"{where}: graph {value['spec']}"
        _check_keys(value, _GRAPH_KEYS, here)
        standin, reason = value.get("standin"), value.get("no_standin")
        if standin is not None and not isinstance(standin, str):
            raise SpecError(f"{here}: standin must be a spec string")
        if reason is not None and not (isinstance(reason, str) and reason.strip()):
            raise SpecError(f"{here}: no_standin must say why the graph has no stand-in")
        if standin is not None and reason is not None:
            raise SpecError(f"{here}: give a standin or say why there is none, not both")
        problems = value.get("problems")
        if problems is not None:
            problems = grammar.problems(problems, f"{here}: problems")
        return GraphEntry(value["spec"], standin, reason, problems)
    raise SpecError(f"{where}: graph entry {value!r} is neither a spec nor {{spec = ...}}")


def _algorithm_entry(value: Any, where: str) -> AlgorithmEntry:
    if not isinstance(value, Mapping) or not isinstance(value.get("name"), str):
        raise SpecError(f'{where}: every [[algorithms]] table needs name = "..."')
    name = value["name"]
    here = f"{where}: algorithm {name}"
    _check_keys(value, _ALGORITHM_KEYS, here)
    backend = value.get("backend")
    if name != WILDCARD and ("backend" in value or "exclude" in value):
        raise SpecError(f'{here}: backend and exclude only apply to name = "*"')
    if backend not in (None, "gpu", "cpu"):
        raise SpecError(f'{here}: backend must be "gpu" or "cpu", not {backend!r}')
    if name == WILDCARD and "params" in value:
        raise SpecError(f'{here}: name = "*" runs default parameters; list algorithms by name')
    block = value.get("block_sizes")
    return AlgorithmEntry(
        name=name,
        params=parse_axes(value.get("params", {}), here),
        block_sizes=None if block is None else parse_block_sizes(block, f"{here}: block_sizes"),
        backend=backend,
        exclude=tuple(str(x) for x in _list(value.get("exclude", []), here)),
    )


def _check_keys(table: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise SpecError(
            f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}"
        )


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise SpecError(f"{where}: expected a list, got {value!r}")
    return value


# ---------------------------------------------------------------- expansion


def expand(
    suite: Suite,
    *,
    backend: str,
    block_sizes: BlockSizes | None = None,
    param_axes: Mapping[str, Sequence[Any]] | None = None,
    usable: Usable | None = None,
) -> list[Case]:
    """Every case of ``suite``, graphs outermost, duplicates dropped.

    ``backend`` is what ``name = "*"`` entries mean. ``usable`` says why an algorithm cannot
    run here (default: its packages are missing, or it needs a GPU and ``backend`` is "cpu");
    such algorithms are left out (:func:`skipped` lists them). Block sizes: ``block_sizes`` if
    given, else the algorithm entry's, else the suite's, else each algorithm's own default;
    "sweep" is 1..1024 for algorithms whose block size matters (the others keep their sizes),
    less the sizes an algorithm refuses (not multiples of its ``block_size_step``: 32..1024).
    ``param_axes`` (from ``--param``) replace or add axes for every algorithm that declares
    that parameter.
    """
    if not suite.graphs:
        raise SpecError(f"suite {suite.name}: no graphs; add graphs = [...] or pass --graph")
    if not suite.algorithms:
        raise SpecError(f"suite {suite.name}: no algorithms; add [[algorithms]] or pass --algo")
    check = usable or default_usable(backend)
    extra = grammar.param_axes(dict(param_axes or {}))
    _check_problems(suite, backend, suite.every_problem)
    configs = [
        (problem, *config)
        for entry in suite.algorithms
        for problem, spec, grid in _entry_grids(entry, backend, suite.every_problem, extra)
        if check(spec) is None
        for config in _configs(spec, entry, suite, grid, block_sizes)
    ]
    configs.sort(key=lambda config: suite.every_problem.index(config[0]))  # problems outermost
    unused = sorted(k for k in extra if not any(k in _declared(s) for _, s, _, _ in configs))
    if unused:
        raise SpecError(f"--param {', '.join(unused)}: no selected algorithm has that parameter")
    if not configs:
        why = skip_reasons(skipped(suite, backend, check)) or (
            f"none of its algorithms runs on the {backend.upper()}"
        )
        raise SpecError(f"suite {suite.name}: no algorithm can run here: {why}")
    cases: dict[tuple[Any, ...], Case] = {}
    for entry in suite.graphs:
        graph = canonical_spec(entry.spec)
        standin = None if entry.standin is None else canonical_spec(entry.standin)
        wanted = entry.problems or suite.problems
        for problem, spec, params, block in configs:
            if problem not in wanted:
                continue
            case = Case(graph, standin, spec.name, spec.backend, params, block, problem)
            cases.setdefault(case.case_key(), case)
    return list(cases.values())


def default_usable(backend: str) -> Usable:
    """Why an algorithm cannot run in a run on ``backend`` of this machine: its packages are
    missing, or it needs a GPU and the run is on the CPU."""
    return functools.partial(unusable, gpu_problem=None if backend == "gpu" else ON_CPU)


def offline(suite: Suite, cached: Callable[[str, Sequence[str]], bool]) -> tuple[Suite, list[str]]:
    """``suite`` as an offline run can run it (``cached(spec, problems)``: the cache holds what
    those problems load of it), and notes saying so up front: a remote graph
    that is not ``cached`` runs as its stand-in, or without one is left out with its
    ``no_standin`` reason. A suite left with no graph is a SpecError carrying those notes."""
    kept, standins, left_out = [], [], []
    for entry in suite.graphs:
        if not is_remote(entry.spec) or cached(entry.spec, entry.problems or suite.problems):
            kept.append(entry)
        elif entry.standin is not None:
            kept.append(entry)
            standins.append(f"{entry.spec} -> {entry.standin}")
        else:
            left_out.append(f"{entry.spec} ({entry.no_standin or 'no stand-in given'})")
    notes = []
    if standins:
        notes.append("offline, not in the cache, run as stand-ins: " + ", ".join(standins))
    if left_out:
        notes.append(
            "offline, not in the cache and without a stand-in, skipped (gcbench fetch caches "
            "them): " + "; ".join(left_out)
        )
    if not kept:
        raise SpecError(f"suite {suite.name}: no graph can run offline; " + "; ".join(notes))
    return replace(suite, graphs=tuple(kept)), notes


def skipped(suite: Suite, backend: str, usable: Usable | None = None) -> list[Unusable]:
    """The algorithms of ``suite`` that :func:`expand` leaves out, with why: those named that
    cannot run here, and those of a ``"*"`` entry whose packages are missing (a ``"*"`` entry
    means the run's backend, so GPU algorithms of a CPU run are not listed)."""
    check = usable or default_usable(backend)
    out: dict[str, Unusable] = {}
    for entry, problem in itertools.product(suite.algorithms, suite.every_problem):
        for spec in _entry_specs(entry, backend, problem):
            why = check(spec)
            if why is not None and (entry.name != WILDCARD or why.missing):
                out.setdefault(spec.name, why)
    return list(out.values())


def block_size_applies(spec: AlgorithmSpec) -> bool:
    """Whether a case of ``spec`` has a block size: CPU algorithms only when it matters; GPU
    ones unless they take none at all (no default and not a parameter, e.g. a vendor call)."""
    if spec.block_size_matters:
        return True
    return devices.get(spec.backend).takes_block_size and spec.default_block_size is not None


def _check_problems(suite: Suite, backend: str, problems: tuple[str, ...]) -> None:
    """Refuse an algorithm that the suite names but that solves none of its ``problems`` (one
    that solves some of them runs for those only)."""
    for entry in suite.algorithms:
        if entry.name == WILDCARD:
            for name in entry.exclude:
                algorithms.solves(name, problems[0])  # a typo in exclude is an error too
        else:
            algorithms.get(entry.name, backend, problem=_solved(entry.name, problems))


def _solved(name: str, problems: tuple[str, ...]) -> str:
    """The first of ``problems`` that ``name`` solves, else the first (whose lookup raises the
    SpecError listing what solves it)."""
    for problem in problems:
        if algorithms.solves(name, problem):
            return problem
    return problems[0]


def _entry_specs(entry: AlgorithmEntry, backend: str, problem: str) -> list[AlgorithmSpec]:
    """The algorithms ``entry`` names for ``problem`` in a run on ``backend``, usable here or
    not (none when a named algorithm does not solve ``problem``)."""
    if entry.name != WILDCARD:
        if not algorithms.solves(entry.name, problem):
            return []
        return [algorithms.get(entry.name, backend, problem)]
    wanted = entry.backend or backend
    if wanted == "gpu" and backend == "cpu":
        return []
    specs = algorithms.all_specs(wanted, problem)
    return [s for s in specs if s.name not in entry.exclude and not s.chooser and s.wildcard]


def _declared(spec: AlgorithmSpec) -> set[str]:
    return {p.name for p in spec.params}


def _entry_grids(
    entry: AlgorithmEntry,
    backend: str,
    problems: tuple[str, ...],
    extra: Mapping[str, tuple[Any, ...]],
) -> list[tuple[str, AlgorithmSpec, list[dict[str, Any]]]]:
    """(problem, spec, its parameter grid resolved) for each problem the entry's algorithms
    solve. A named entry's ``params`` apply to the problems whose spec takes them (greedy's
    ``order = "ldf"`` is a d1 order, not a d2 one): a problem whose spec refuses them is left
    out, and when every problem's spec refuses them the first refusal is the error."""
    out, refused = [], []
    for problem in problems:
        for spec in _entry_specs(entry, backend, problem):
            axes = dict(entry.params)
            axes.update({k: v for k, v in extra.items() if k in _declared(spec)})
            values = itertools.product(*axes.values())
            try:
                grid = [spec.resolve_params(dict(zip(axes, v, strict=True))) for v in values]
            except SpecError as exc:
                if entry.name == WILDCARD or len(problems) == 1:
                    raise
                refused.append(exc)
                continue
            out.append((problem, spec, grid))
    if refused and not out:
        raise refused[0]
    return out


def _configs(
    spec: AlgorithmSpec,
    entry: AlgorithmEntry,
    suite: Suite,
    grid: list[dict[str, Any]],
    block_sizes: BlockSizes | None,
) -> Iterable[tuple[AlgorithmSpec, dict[str, Any], int | None]]:
    blocks = _block_sizes(spec, entry, suite, block_sizes)
    return ((spec, params, block) for params in grid for block in blocks)


def _block_sizes(
    spec: AlgorithmSpec, entry: AlgorithmEntry, suite: Suite, override: BlockSizes | None
) -> tuple[int | None, ...]:
    if not block_size_applies(spec):
        return (None,)
    chosen = entry.block_sizes or suite.block_sizes
    if override is not None and (override != "sweep" or spec.block_size_matters):
        chosen = override
    if chosen == "sweep" and spec.block_size_matters:
        return tuple(size for size in SWEEP if size % spec.block_size_step == 0)
    if chosen is None or chosen == "sweep":
        return (spec.default_block_size or DEFAULT_BLOCK_SIZE,)
    return tuple(chosen)
