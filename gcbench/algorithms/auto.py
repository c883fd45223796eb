"""``auto``: pick an algorithm and its parameters for a graph from cheap features (issue 17).

The rule is a decision list per backend. A graph is **skewed** when its maximum degree is at
least ``skew`` times its mean degree (power-law graphs, hubs), else **large** when it has at
least ``large_nnz`` stored entries, else **small**; for each kind and objective (``fast``:
least time, ``fewest``: fewest colors, possibly with color reduction) the rule names one
configuration. The thresholds and picks between the markers below are written by
``benchmarks/fit_auto.py`` from results CSVs; docs/auto.md says which tables they come from
and how to refit them.

``auto`` has a spec per backend under one name (a registry ``chooser``): on the GPU it picks
among GPU algorithms, on the CPU (``--device cpu``, or no usable GPU) among CPU ones. The
features and the choice are made when the call is bound, before the timer starts (on the GPU
they are known from the upload); its time is the chosen configuration's timed call. Its row
records the choice in ``params`` as
``choice=NAME;choice.K=V;...`` beside its own ``objective`` and ``reduce``. On the GPU,
``objective=fewest`` first checks whether the graph is bipartite, inside the timed call, and
if it is colors it with two colors (``choice=two-colors``); the pick runs only otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from gcbench.algorithms import devices
from gcbench.algorithms.registry import (
    REDUCE_MODES,
    AlgorithmSpec,
    Coloring,
    Param,
    get,
    register,
    runs,
)
from gcbench.grammar import CHOICE, parse_param_string

OBJECTIVES = ("fast", "fewest")
KINDS = ("skewed", "large", "small")


@dataclass(frozen=True)
class Features:
    """What the rule looks at: sizes and the degree extremes of the graph."""

    n: int
    nnz: int
    max_degree: int

    @property
    def mean_degree(self) -> float:
        return self.nnz / self.n if self.n else 0.0

    @property
    def skew(self) -> float:
        """Maximum over mean degree (1 for a graph without edges)."""
        return self.max_degree / self.mean_degree if self.nnz else 1.0


@dataclass(frozen=True)
class Pick:
    """A configuration: algorithm, canonical ``k=v;k=v`` parameters, block size (GPU)."""

    algorithm: str
    params: str = ""
    block_size: int | None = None


@dataclass(frozen=True)
class Rule:
    """One backend's decision list (module docstring)."""

    skew: float
    large_nnz: float
    picks: Mapping[str, Mapping[str, Pick]]  # objective -> kind -> pick

    def kind(self, f: Features) -> str:
        if f.skew >= self.skew:
            return "skewed"
        return "large" if f.nnz >= self.large_nnz else "small"


# --- fitted rule: written by benchmarks/fit_auto.py, do not edit by hand ---
RULES = {
    "cpu": Rule(
        skew=7.16545,
        large_nnz=2.48899e06,
        picks={
            "fast": {
                "skewed": Pick("greedy", "order=ff;reduce=none;seed=0", None),
                "large": Pick("greedy", "order=ff;reduce=none;seed=0", None),
                "small": Pick("greedy", "order=ff;reduce=none;seed=0", None),
            },
            "fewest": {
                "skewed": Pick("greedy", "order=sd;reduce=both;seed=0", None),
                "large": Pick("greedy", "order=ldf;reduce=both;seed=0", None),
                "small": Pick("greedy", "order=sd;reduce=both;seed=0", None),
            },
        },
    ),
    "gpu": Rule(
        skew=48.7746,
        large_nnz=2.08069e06,
        picks={
            "fast": {
                "skewed": Pick("ecl-gc", "balance=none;reduce=none;shortcuts=both", 512),
                "large": Pick("ecl-gc", "balance=none;reduce=none;shortcuts=both", 512),
                "small": Pick("ecl-gc", "balance=none;reduce=none;shortcuts=both", 512),
            },
            "fewest": {
                "skewed": Pick("ecl-gc", "balance=none;reduce=both;shortcuts=both", 512),
                "large": Pick("ecl-gc", "balance=none;reduce=both;shortcuts=both", 512),
                "small": Pick("ecl-gc", "balance=none;reduce=both;shortcuts=both", 512),
            },
        },
    ),
}
# --- end of fitted rule ---


def choose(f: Features, objective: str, backend: str) -> Pick:
    """The configuration the rule picks for a graph with features ``f``."""
    rule = RULES[backend]
    return rule.picks[objective][rule.kind(f)]


@cache
def chosen_spec(
    pick: Pick, backend: str, reduce: str, problem: str = "d1"
) -> tuple[AlgorithmSpec, Mapping[str, Any]]:
    """The picked spec for ``problem`` and its resolved parameters (``reduce`` overrides the
    pick's unless it is "auto"); cached, as the timed call asks for them each time
    (read-only). The distance-2 ``auto`` (:mod:`gcbench.algorithms.auto_d2`) shares it."""
    spec = get(pick.algorithm, backend, problem)
    given = parse_param_string(pick.params)
    if reduce != "auto":
        given["reduce"] = reduce
    return spec, MappingProxyType(spec.resolve_params(given))


def recorded(objective: str | None, reduce: str, pick: Pick, params: Mapping[str, Any]) -> dict:
    """The params an auto row records: its own (``objective`` only where it has one: the
    distance-2 ``auto`` has not), then the choice under ``choice.*`` (without ``balance``:
    auto's own, applied after the choice, which the runner adds)."""
    own = {"reduce": reduce} if objective is None else {"objective": objective, "reduce": reduce}
    out: dict[str, Any] = {**own, CHOICE: pick.algorithm}
    out.update({f"{CHOICE}.{k}": v for k, v in params.items() if k != "balance"})
    if pick.block_size is not None:
        out[f"{CHOICE}.block_size"] = pick.block_size
    return out


def features(handle: Any, backend: str) -> Features:
    """The features, from the backend (on the GPU known from the upload, no device work; on
    the CPU a pass over the offsets); made at bind time (docs/auto.md, "The rule")."""
    return Features(*devices.get(backend).degrees(handle))


def _binder(backend: str):  # type: ignore[no-untyped-def]
    def bind(
        handle: Any, *, objective: str = "fast", reduce: str = "auto", block_size: int = 0
    ) -> Callable[[], Coloring]:
        """Features and choice now, and the chosen algorithm bound exactly as the runner would
        bind it (``block_size`` is the choice's; the one passed in is ignored): the timed call
        is the chosen configuration's, plus recording the choice (docs/auto.md, "The rule")."""
        from gcbench.algorithms.execute import bind as bind_chosen

        pick = choose(features(handle, backend), objective, backend)
        spec, params = chosen_spec(pick, backend, reduce)
        chosen = bind_chosen(spec, handle, pick.block_size, dict(params))
        record = recorded(objective, reduce, pick, params)
        two = _two_colors(backend, objective)

        def call() -> Coloring:
            if two is not None:
                colors = two(handle)
                if colors is not None:
                    return Coloring(colors, None, params={"objective": objective,
                                    "reduce": reduce, CHOICE: TWO_COLORS})  # fmt: skip
            coloring = chosen()
            coloring.params = dict(record)
            return coloring

        return call

    return bind


TWO_COLORS = "two-colors"  # the choice an auto row records when the bipartite check colored it


def _two_colors(backend: str, objective: str) -> Callable[[Any], Any] | None:
    """On the GPU with ``objective=fewest``, the bipartite check that runs before the pick
    (:func:`gcbench.algorithms.gpu.bipartite.two_colors`: its device colors, or None when the
    graph is not bipartite); else None. docs/auto.md, "Two colors first"."""
    if backend != "gpu" or objective != "fewest":
        return None
    from gcbench.algorithms.gpu.bipartite import two_colors

    return two_colors


def _setup(backend: str):  # type: ignore[no-untyped-def]
    def setup(handle: Any) -> None:
        """The per-graph setup of every algorithm the rule may pick for this graph, after
        compiling every configuration it may pick on any graph (cached: once per process,
        and :func:`gcbench.algorithms.execute.prime` of ``auto`` runs this first)."""
        from gcbench.algorithms.execute import prime

        for picks in RULES[backend].picks.values():
            for pick in picks.values():
                spec, params = chosen_spec(pick, backend, "auto")
                prime(spec, pick.block_size, dict(params))
        if backend == "gpu":  # compile the bipartite check's kernels (objective=fewest)
            from gcbench.algorithms.gpu.bipartite import KERNELS
            from gcbench.algorithms.gpu.runtime import kernel

            for name in KERNELS:
                kernel("bipartite", name)
        f = features(handle, backend)
        for objective in OBJECTIVES:
            spec = get(choose(f, objective, backend).algorithm, backend)
            if spec.setup is not None:
                spec.setup(handle)

    return setup


for _backend in ("gpu", "cpu"):
    register(
        AlgorithmSpec(
            name="auto",
            backend=_backend,  # type: ignore[arg-type]
            family="gcbench's own rule from its measured tables (docs/auto.md)",
            run=runs(_binder(_backend)),
            params=(
                Param("objective", "fast", choices=OBJECTIVES, help="fast | fewest colors"),
                Param(
                    "reduce",
                    "auto",
                    choices=("auto", *REDUCE_MODES),
                    help="auto: as the rule picks; else this reduction after the choice",
                ),
            ),
            deterministic=False,
            iterations_meaning="the chosen algorithm's",
            description=f"picks a {_backend.upper()} algorithm and parameters from the "
            "graph's size and degree skew",
            setup=_setup(_backend),
            native_reduce=True,
            chooser=True,
            bind=_binder(_backend),
        )
    )
