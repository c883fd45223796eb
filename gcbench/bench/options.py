"""The options of one ``gcbench run``: one object that the command line builds and the library
takes (issue 15), so a Python caller passes exactly what the CLI would.

Values are kept as given (``"0,1"`` or ``[0, 1]``, ``"2/3"`` or ``(2, 3)``);
:meth:`RunOptions.checked` reads them with :mod:`gcbench.grammar` (the parsers ``gcbench
color`` and suite files use too) before anything runs, raising one-line SpecErrors.
:meth:`RunOptions.applied_to` gives the suite the options change, and :class:`Settings` is
what of both every case is measured with: the one object that travels from the runner to
each worker with every case (docs/architecture.md, "Data path").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gcbench import grammar
from gcbench.bench.results import RETRYABLE
from gcbench.errors import SpecError

if TYPE_CHECKING:
    from gcbench.algorithms.sampling import Sampling
    from gcbench.bench.suite import Suite


@dataclass(frozen=True)
class RunOptions:
    """What to run, how, and where the rows go (docs/runner.md, docs/cluster.md).

    ``graphs``/``algorithms`` replace the suite's ("all" = every algorithm of the device;
    items may be comma lists, "greedy,gm-async"); ``params`` maps a parameter to its values (a
    list, or "v1,v2"), or is a list of ``--param`` items ("k=v1,v2"); ``block_sizes`` is a list
    or "32,64" or "sweep"; ``reps``, ``warmup`` (a count or "auto"), ``noise`` (a share, 0.01
    or "1%"), ``case_time`` (s), ``timeout`` (s) override the suite's (docs/statistics.md).
    ``gpus`` runs one worker per listed GPU ("0,1", a list, or "all"); ``cluster`` runs the
    graphs as tasks of a Dask cluster (a scheduler address, or "local"); ``shard`` ("K/N" or
    (K, N)) keeps the K-th of N cost-balanced shares of the graphs. ``count_setup`` (default:
    the suite's, else false) folds each algorithm's setup into ``time_ms``; ``command`` is
    recorded in every row (default: this process's command line). ``metrics`` ("levels", a
    comma list or a list) adds the named metrics' columns to every valid row
    (:data:`METRICS`). ``retry`` (with ``resume``) names statuses whose cases run again,
    their old rows removed first (docs/runner.md, "Resume"). ``problems`` ("d2", "d1,pd2" or a
    list) replace the suite's problems (docs/distance2.md).
    """

    suite: str | Path | None = None
    graphs: Sequence[str] = ()
    algorithms: Sequence[str] = ()
    params: Mapping[str, Sequence[Any] | str] | Sequence[str] = field(default_factory=dict)
    block_sizes: str | Sequence[int] | None = None
    reps: int | str | None = None
    warmup: int | str | None = None
    noise: float | str | None = None
    case_time: float | None = None
    timeout: float | None = None
    device: str = "auto"
    out: str | Path | None = None
    resume: str | Path | None = None
    trace: bool = False
    offline: bool = False
    progress: bool = True
    gpus: str | Sequence[int | str] | None = None
    cluster: str | None = None
    shard: str | tuple[int, int] | None = None
    count_setup: bool | None = None
    command: str | None = None
    metrics: str | Sequence[str] = ()
    retry: str | Sequence[str] = ()
    problems: str | Sequence[str] = ()

    def checked(self) -> RunOptions:
        """These options with every value read and checked (:mod:`gcbench.grammar`): names
        and specs split into tuples, ``params`` as axes, ``block_sizes`` as a tuple or
        "sweep", numbers typed. Idempotent: the plan keeps the checked object, so a run does
        not check its options again."""
        if self.device not in grammar.DEVICES:
            raise SpecError(f"--device {self.device!r}: choose gpu, cpu or auto")
        retry = grammar.names(self.retry, "--retry") if self.retry else ()
        wrong = [status for status in retry if status not in RETRYABLE]
        if wrong:
            raise SpecError(
                f"--retry {','.join(wrong)}: not a failing status; choose from "
                f"{', '.join(RETRYABLE)}"
            )
        if retry and self.resume is None:
            raise SpecError("--retry re-runs cases of a file: use it with --resume FILE")
        return replace(
            self,
            graphs=grammar.graph_specs(self.graphs),
            algorithms=grammar.names(self.algorithms, "--algo"),
            params=grammar.param_axes(self.params),
            block_sizes=grammar.block_sizes(self.block_sizes),
            reps=grammar.reps(self.reps),
            warmup=grammar.warmup(self.warmup),
            noise=grammar.share(self.noise, "--noise"),
            case_time=grammar.timeout(self.case_time, "--case-time"),
            timeout=grammar.timeout(self.timeout),
            metrics=parse_metrics(self.metrics),
            retry=retry,
            problems=grammar.problems(self.problems) if self.problems else (),
        )

    def applied_to(self, base: Suite) -> Suite:
        """``base`` with these (checked) options' changes: ``graphs`` and ``algorithms`` replace its
        lists ("all" = every algorithm of the device's backend that is usable here), and a run
        that replaces either without naming a suite is called "custom" and keeps the protocol's
        default case time rather than the default suite's first-look one; the counts, noise
        target, times, ``count_setup`` and ``problems`` given replace the suite's (``problems``
        its graphs' own too)."""
        from gcbench.bench.suite import WILDCARD, AlgorithmEntry, GraphEntry  # loads algorithms

        names = [WILDCARD if a == "all" else a for a in self.algorithms]
        replaces = self.suite is not None or not (self.graphs or self.algorithms)
        graphs = tuple(GraphEntry(g) for g in self.graphs)
        if self.problems and not graphs:  # --problem replaces a graph's own problems too
            graphs = tuple(replace(g, problems=None) for g in base.graphs)
        return base.with_overrides(
            name=base.name if replaces else "custom",
            reps=self.reps,
            warmup=self.warmup,
            noise=self.noise,
            case_time=self.case_time
            if replaces or self.case_time is not None
            else (_sampling().case_time_s),
            timeout=self.timeout,
            count_setup=self.count_setup,
            graphs=graphs or None,
            algorithms=tuple(AlgorithmEntry(n) for n in dict.fromkeys(names)) or None,
            problems=tuple(self.problems) or None,
        )

    @property
    def remote_cluster(self) -> bool:
        """Whether the cases run on a cluster's machines rather than this one's GPUs."""
        return self.cluster is not None and self.cluster != "local"


METRICS: tuple[str, ...] = ("levels",)  # docs/balance-levels.md


def _sampling() -> Sampling:
    """The protocol's default sampling; imported when first asked for, as importing anything
    of ``gcbench.algorithms`` registers every algorithm (RunOptions stays light to import)."""
    from gcbench.algorithms.sampling import Sampling

    return Sampling()


@dataclass(frozen=True, kw_only=True)
class Settings:
    """What every case of a run is measured with, shared by all its workers: how many runs a
    case gets (``sampling``), the wall-clock limit of one run, traces, setup inside the timed
    region, the extra metrics. Built once per run by :meth:`of`."""

    sampling: Sampling = field(default_factory=_sampling)
    timeout_s: float = 60.0
    trace: bool = False
    count_setup: bool = False
    metrics: tuple[str, ...] = ()

    @classmethod
    def of(cls, suite: Suite, options: RunOptions) -> Settings:
        """The settings of a run of ``suite`` (the options already applied to it) with the
        checked ``options`` (:meth:`RunOptions.checked`)."""
        return cls(
            sampling=suite.sampling,
            timeout_s=suite.timeout,
            trace=options.trace,
            count_setup=suite.count_setup,
            metrics=tuple(options.metrics),
        )


def parse_metrics(value: str | Sequence[str]) -> tuple[str, ...]:
    """``"levels"``, ``"a,b"`` or a list of names → the metrics, checked and without repeats."""
    items = value.split(",") if isinstance(value, str) else list(value)
    names = tuple(dict.fromkeys(str(item).strip() for item in items if str(item).strip()))
    unknown = [name for name in names if name not in METRICS]
    if unknown:
        raise SpecError(
            f"--metrics {','.join(unknown)}: unknown metric; known: {', '.join(METRICS)}"
        )
    return names
