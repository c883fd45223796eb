"""``auto`` for the distance-2 problems (``d2``, ``pd2``, ``pd2-rows``; issue 44, item 6): the
serial greedy or one of the GPU algorithms, picked from the shape of the pattern it colors.

What decides a distance-2 algorithm's time is the **nets** (the rows whose columns must all
differ: a closed neighbourhood for d2, a row of the matrix for pd2, a column for pd2-rows):

- many long nets (a power-law graph's d2, whose heavy nets hold most entries): **nb-bit**,
  net by net;
- a few nets much longer than the rest (a dense row, a hub, the heavy rows of a power-law
  matrix) take vb-bit and nb-bit thousands of rounds of 64-color windows, where jp-d2 gives a
  long net's columns a block each (docs/distance2.md): **jp-d2** while its rounds, at least
  one a column of the longest net (about 9 µs each on an H200), cost less than the serial
  greedy's pass over the entries (20–100 ns an entry: its rows' color masks make a long net
  cheap), so while the longest net is under ``nnz / HUB_ENTRIES``; else the **serial greedy**;
- columns in many nets (a matrix with dense columns, colored by columns): **nb-bit**;
- the pattern of a graph (symmetric: A or A + I of a mesh): **vb-bit**;
- other matrices (stencils, random Jacobians): **nb-bit**;
- tiny patterns, where a GPU call's fixed cost is more than the whole serial coloring: the
  **serial greedy** (natural order), on the host even when the device is the GPU.

The thresholds come from the measured tables of docs/performance.md (H200) and are checked on
inputs they were not chosen on by ``benchmarks/auto_d2.py``; docs/auto.md, "Distance-2".
On the CPU the rule is the serial greedy in natural order (faster than the peer
``scipy-group-columns`` on every measured input: docs/performance.md). Features and choice are
made when the call is bound, before the timer, as for the distance-1 ``auto``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gcbench.algorithms.auto import Pick, chosen_spec, recorded
from gcbench.algorithms.registry import AlgorithmSpec, Coloring, register, runs
from gcbench.graphs.pattern import Pattern

PROBLEMS = ("d2", "pd2", "pd2-rows")
HEAVY = 32  # a net of at least this many columns is heavy (a warp's width)
SKEW = 100.0  # the longest net over the mean: above it a few long nets decide the time
MANY = 0.5  # heavy nets holding at least this share of the entries: many long nets
HUB_ENTRIES = 200  # jp-d2 while its longest net is under nnz / HUB_ENTRIES, else the host
TINY = 20_000  # stored entries up to which the serial greedy is faster than any GPU call

SERIAL = Pick("greedy", "order=natural")
JP = Pick("jp-d2", "order=random")
NB = Pick("nb-bit")
VB = Pick("vb-bit")


@dataclass(frozen=True)
class NetFeatures:
    """The pattern's shape: its nets (rows) and columns, entries, the longest net and column,
    the entries in heavy nets, and whether it is a graph's (symmetric)."""

    nets: int
    columns: int
    nnz: int
    max_net: int
    max_column: int
    heavy_entries: int
    symmetric: bool

    @property
    def net_skew(self) -> float:
        """The longest net over the mean net (1 without entries)."""
        return self.max_net * self.nets / self.nnz if self.nnz else 1.0

    @property
    def column_skew(self) -> float:
        """The longest column over the mean column (1 without entries)."""
        return self.max_column * self.columns / self.nnz if self.nnz else 1.0

    @property
    def heavy_share(self) -> float:
        return self.heavy_entries / self.nnz if self.nnz else 0.0


def net_features(pattern: Pattern) -> NetFeatures:
    """The features of ``pattern`` (one pass over its row offsets on the host)."""
    counts = pattern.row_counts
    return NetFeatures(
        pattern.n_rows,
        pattern.n_cols,
        pattern.nnz,
        pattern.max_row,
        pattern.max_col,
        int(counts[counts >= HEAVY].sum()),
        pattern.symmetric,
    )


def choose(f: NetFeatures, backend: str) -> Pick:
    """The configuration the rule picks for a pattern with features ``f`` (module docstring)."""
    if backend == "cpu" or f.nnz <= TINY:
        return SERIAL
    if f.heavy_share >= MANY:
        return NB
    if f.net_skew >= SKEW:
        return JP if f.max_net * HUB_ENTRIES < f.nnz else SERIAL
    if f.column_skew >= SKEW:
        return NB
    return VB if f.symmetric else NB


def _host_pattern(handle: Any) -> Pattern:
    """The Pattern of a CPU handle, or of a GPU one (a DevicePattern keeps its host copy)."""
    return handle if isinstance(handle, Pattern) else handle.host


def _spec_for(pick: Pick, backend: str, reduce: str) -> tuple[str, AlgorithmSpec, Any]:
    """Where ``pick`` runs in a ``backend`` run (the serial greedy always on the host), its spec
    and resolved parameters. The distance-2 algorithms are one spec for all three problems,
    so pd2's stands for each."""
    on = "cpu" if pick is SERIAL else backend
    spec, params = chosen_spec(pick, on, reduce, problem="pd2")
    return on, spec, params


def _binder(backend: str) -> Callable[..., Callable[[], Coloring]]:
    def bind(handle: Any, *, reduce: str = "none", block_size: int = 0) -> Callable[[], Coloring]:
        """Features and choice now, the chosen algorithm bound as the runner binds it (on its
        own backend: the serial greedy gets the host pattern); the timed call is its call. A
        host pick inside a GPU run first lets go of the device (its time is the host's)."""
        from gcbench.algorithms.execute import bind as bind_chosen

        pattern = _host_pattern(handle)
        pick = choose(net_features(pattern), backend)
        on, spec, params = _spec_for(pick, backend, reduce)
        chosen = bind_chosen(spec, pattern if on == "cpu" else handle, None, dict(params))
        record = recorded(None, reduce, pick, params)
        release = _release() if on != backend else None

        def call() -> Coloring:
            if release is not None:
                release()
            coloring = chosen()
            coloring.params = dict(record)
            return coloring

        return call

    return bind


def _release() -> Callable[[], None]:
    """What a GPU run's host pick calls first: ``runtime.uncounted`` (the hold on the stream
    let go; the call's waits are not counted, so its host columns stay empty)."""
    from gcbench.algorithms.gpu.runtime import uncounted

    return uncounted


def _setup(backend: str) -> Callable[[Any], None]:
    def setup(handle: Any) -> None:
        """Every configuration the rule may pick compiled (once per process), then the
        per-pattern setup of the one it picks for this pattern."""
        from gcbench.algorithms.execute import prime

        for pick in {SERIAL, JP, NB, VB} if backend == "gpu" else {SERIAL}:
            _, spec, params = _spec_for(pick, backend, "none")
            prime(spec, None, dict(params))
        pick = choose(net_features(_host_pattern(handle)), backend)
        _, spec, _ = _spec_for(pick, backend, "none")
        if spec.setup is not None and pick is not SERIAL:
            spec.setup(handle)

    return setup


for _backend in ("gpu", "cpu"):
    register(
        AlgorithmSpec(
            name="auto",
            backend=_backend,  # type: ignore[arg-type]
            family="gcbench's own rule from its measured tables (docs/auto.md, Distance-2)",
            run=runs(_binder(_backend)),
            deterministic=False,
            iterations_meaning="the chosen algorithm's",
            description="picks the serial greedy or a distance-2 "
            + ("GPU algorithm" if _backend == "gpu" else "CPU algorithm")
            + " from the pattern's net lengths",
            setup=_setup(_backend),
            native_reduce=True,
            chooser=True,
            bind=_binder(_backend),
            problems=PROBLEMS,
        )
    )
