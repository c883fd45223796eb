"""What every report figure shares: the look of each configuration (colour, marker, line
style), short one-line labels of graphs and configurations, log-axis ticks, and the canvas
(titles, legend, size) a figure is drawn on. The figures themselves are in
:mod:`gcbench.report.plots` (bars) and :mod:`gcbench.report.plots_panels` (lines, panels).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from gcbench.grammar import DEFAULT_PROBLEM
from gcbench.outputs import replaced
from gcbench.report.defaults import CLIQUE, DELTA_1, DPI, KNOWN, MAX_ROW, PROBLEM_TITLES

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure
    from matplotlib.legend import Legend
    from matplotlib.text import Text

LEGEND_ROWS = 22  # legend entries per column before a second column starts
MAX_WIDTH_IN = 14.0  # no figure is wider (2,800 px at 200 dpi), but for a title that is
ROW_IN, ROW_IN_MANY = 3.6, 2.8  # height of a row of clusters; of each of four rows or more
PANEL_IN = (4.4, 3.6)  # one panel of the block-size and trace plots
PANEL_MIN_IN = 3.3  # panels narrow to this before a row holds fewer than three
CHAR_IN = 0.075  # width of one character of a small-font label, about
GRAPH_CHARS = 18  # the longest graph label
MIN_LABELS = 4  # labelled ticks wanted on every log axis
MAX_LABELS = 12  # more labelled decades than this: label every other one (or fewer)
MAX_GAP = 0.4  # the largest share of a log axis left without a label
MAX_MINOR_DECADES = 8  # wider log axes get no minor ticks (they would be a grey smear)
# Log-axis labels tried in turn: decades, then 1-2-5, then 1-2-3-5-7, then every mantissa.
MANTISSAS = ((1,), (1, 2, 5), (1, 2, 3, 5, 7), (1, 2, 3, 4, 5, 6, 7, 8, 9))
# τ-axis labels of a performance profile: 1, 2, 5, 10, ...; finer only on a short axis.
TAU_MANTISSAS = ((1, 2, 5), (1, 1.5, 2, 3, 5, 7), (1, 1.2, 1.5, 2, 3, 4, 5, 7))
# A configuration's look is set by its place i in the legend order: hue i mod 10 (tab10),
# shade by the round of ten (base, light, dark), marker i mod 8 and line style i mod 4, so
# neighbours always differ in hue and marker and no two of 40 look alike. No "x" marker:
# an x marks a missing run.
HUES = 10
MARKERS = ("o", "s", "^", "D", "v", "P", "<", "h")
LINE_STYLES = ("-", (0, (5, 1.6)), (0, (7, 1.6, 1.6, 1.6)), (0, (1.4, 1.2)))
LINE_WIDTH = 1.6
SUBTITLE_COLOUR = "0.3"
FLAG_COLOUR = "0.1"  # outline and hatching of a flagged group's bar, ring round its point
FLAG_HATCH = "////"
FLAG_LABEL = "flagged: times suspect\n(see the notes)"
EDGE_COLOUR = "0.25"  # outline of markers, so light shades read on white
# A graph's bound as the figures write it, per bound_kind (the colors figure under a graph's
# cluster, the time-colors front over its panel).
BOUND_KINDS = {KNOWN: "χ = {}", CLIQUE: "χ ≥ {}", DELTA_1: "Δ+1 = {}", MAX_ROW: "max row = {}"}
GRAPH_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".mtx", ".el", ".edges", ".txt", ".gr",
                  ".graph", ".metis", ".csr", ".bin", ".npz", ".col", ".col.b")  # fmt: skip
SIZE_KEYS = {"scale": "s", "n": "n", "side": "side", "nodes": "n", "vertices": "n", "k": "k",
             "rows": "r", "a": "a", "leaves": "n"}  # fmt: skip


def _shade(i: int) -> tuple[float, ...]:
    """The colour of the configuration at place ``i``."""
    from matplotlib import colormaps

    hue, shade = i % HUES, (i // HUES) % 3
    if shade == 1:  # tab20's light twin of the tab10 hue
        return tuple(colormaps["tab20"](2 * hue + 1))
    base = np.array(colormaps["tab10"](hue))
    if shade == 2:
        base[:3] *= 0.55
    return tuple(float(v) for v in base)


def palette(configs: Sequence[str]) -> dict[str, tuple[float, ...]]:
    """A colour per configuration, by its place in ``configs``: the tab10 hues, then their
    light shades (tab20), then dark ones. :class:`Style` adds a marker and a line style."""
    return {c: _shade(i) for i, c in enumerate(configs)}


def in_order(configs: Iterable[str]) -> list[str]:
    """Distinct configuration names in legend order: by name, numbers by value
    (``k=2`` before ``k=10``)."""
    return sorted(set(configs), key=lambda c: [(0, int(t), "") if t.isdigit() else (1, 0, t)
                                               for t in re.split(r"(\d+)", c)])  # fmt: skip


@dataclass(frozen=True)
class Style:
    """What every figure of one report shares: a colour per configuration (its place in
    ``colours`` also sets its marker and line style), the subtitle
    (:func:`~gcbench.report.aggregate.provenance`), the timing convention of ``time_ms``,
    the output formats, the PNG resolution, the graphs' labels (:func:`graph_labels` of
    every graph of the report, so each figure names a graph alike) and the problem its
    figures show (d1 unless a distance-2 one, which the subtitle then names)."""

    colours: dict[str, tuple[float, ...]]
    where: str
    timing: str
    formats: tuple[str, ...] = ("png",)
    dpi: int = DPI
    graphs: dict[str, str] = field(default_factory=dict)
    problem: str = DEFAULT_PROBLEM

    def subtitle(self, timed: bool, caption: str = "") -> str:
        """The subtitle: the problem where it is not d1, provenance, plus the timing
        convention on figures of times, and a ``caption`` line under them (what whiskers
        show) where given."""
        parts = (PROBLEM_TITLES.get(self.problem, ""), self.where, self.timing if timed else "")
        line = " · ".join(p for p in parts if p)
        return "\n".join(p for p in (line, caption) if p)

    def place(self, config: str) -> int:
        """The configuration's place in the legend order (one past the known ones for a
        configuration the palette lacks)."""
        return next((i for i, c in enumerate(self.colours) if c == config), len(self.colours))

    def colour(self, config: str) -> tuple[float, ...]:
        return self.colours.get(config) or _shade(self.place(config))

    def marker(self, config: str) -> str:
        return MARKERS[self.place(config) % len(MARKERS)]

    def line(self, config: str) -> dict:
        """Keyword arguments of ``plot`` for the configuration's line: colour, line style,
        marker (outlined)."""
        return dict(color=self.colour(config), linestyle=LINE_STYLES[self.place(config) % 4],
                    linewidth=LINE_WIDTH, marker=self.marker(config),
                    markeredgecolor=EDGE_COLOUR, markeredgewidth=0.5)  # fmt: skip

    @property
    def hues_repeat(self) -> bool:
        """Whether two configurations share a hue (more than ten): then bars carry their
        configuration's marker too."""
        return len(self.colours) > HUES

    def graph_label(self, graph: str) -> str:
        return self.graphs.get(graph) or graph_labels([graph])[graph]

    def naming(self, graphs: Iterable[str]) -> Style:
        """This style, or, where it names no graph (a figure drawn on its own), one that
        names ``graphs`` by their :func:`graph_labels` among themselves."""
        if self.graphs:
            return self
        return replace(self, graphs=graph_labels(list(dict.fromkeys(graphs))))


def short_graph(name: str) -> str:
    """A graph spec without its source: ``ss:G/NAME`` → NAME, ``gen:X`` → X,
    ``snap:NAME`` and ``dimacs:NAME`` → NAME, a path → its file name without graph-file
    suffixes."""
    if name.startswith("ss:"):
        return name.rsplit("/", 1)[-1]
    if name.startswith(("snap:", "gen:", "dimacs:")):
        return name.split(":", 1)[1]
    base = Path(name).name or name
    while (suffix := next((s for s in GRAPH_SUFFIXES if base.lower().endswith(s)), None)) and len(
        base
    ) > len(suffix):
        base = base[: -len(suffix)]
    return base


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _number(value: str) -> str:
    """A size parameter compactly and exactly: 100000 → 100k, 2097152 and 100001 as they are,
    0.5 → 0.5; text as it is."""
    try:
        number = float(value)
    except ValueError:
        return value
    if not number.is_integer():
        return tick_text(number)
    whole = int(number)
    for unit, size in (("M", 10**6), ("k", 10**3)):
        if whole >= size and whole % size == 0:
            return f"{whole // size}{unit}"
    return str(whole)


def _parts(name: str) -> tuple[str, dict[str, str]]:
    """(head, the other parameters) of a spec: ``gen:F?scale=16&seed=0`` → ("F s16",
    {"seed": "0"}); any other spec → (its short name, {})."""
    if not name.startswith("gen:"):
        return short_graph(name), {}
    family, _, query = name[4:].partition("?")
    params = dict(p.split("=", 1) if "=" in p else (p, "") for p in query.split("&") if p)
    size = next((k for k in SIZE_KEYS if k in params), None)
    head = family if size is None else f"{family} {SIZE_KEYS[size]}{_number(params.pop(size))}"
    return head, params


def graph_labels(names: Sequence[str], width: int = GRAPH_CHARS) -> dict[str, str]:
    """A short one-line label per graph spec (full name → label), unique among ``names``
    and at most ``width`` characters: ``ss:DIMACS10/rgg_n_2_20_s0`` → ``rgg_n_2_20_s0``,
    ``gen:kron?scale=16&seed=0`` → ``kron s16``. Generated graphs that share a family and
    size add the parameters that tell them apart (``kron s16 seed=1``) where that fits,
    else are numbered in input order (``rmat s16 #1``, ``rmat s16 #2``); other specs that
    share a short name add their source (``A/web``) or are numbered. Failing all, ``G1``,
    ``G2``, ... in input order."""
    names = list(dict.fromkeys(names))
    parts = {name: _parts(name) for name in names}
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(_clip(parts[name][0], width), []).append(name)
    labels: dict[str, str] = {}
    for head, group in groups.items():
        if len(group) == 1:
            labels[group[0]] = head
            continue
        keys = dict.fromkeys(k for g in group for k in parts[g][1])
        varying = [k for k in keys if len({parts[g][1].get(k) for g in group}) > 1]
        told = {g: " ".join([parts[g][0], *(f"{k}={parts[g][1][k]}" for k in varying
                                            if k in parts[g][1])]) for g in group}  # fmt: skip
        if not varying:  # not generated: the spec less its source prefix
            told = {g: g.split(":", 1)[-1] for g in group}
        if len(set(told.values())) == len(group) and max(map(len, told.values())) <= width:
            labels.update(told)
        else:
            suffix = len(f" #{len(group)}")
            labels.update({g: f"{_clip(head, width - suffix)} #{i}"
                           for i, g in enumerate(group, 1)})  # fmt: skip
    if len(set(labels.values())) < len(names):
        return {name: f"G{i}" for i, name in enumerate(names, 1)}
    return labels


def legend_columns(entries: int) -> int:
    """Legend columns needed for ``entries`` entries at ``LEGEND_ROWS`` per column."""
    return max(1, math.ceil(entries / LEGEND_ROWS))


def legend_width_in(labels: Sequence[str]) -> float:
    """Room for an outside legend: about 0.075 in per character of the longest label."""
    longest = max((len(line) for label in labels for line in label.split("\n")), default=0)
    return legend_columns(len(labels)) * (0.6 + CHAR_IN * longest)


def tick_text(x: float) -> str:
    """A tick value as plain text: 0.3, 40, 2k, 10M."""
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:g}{suffix}"
    return f"{x:g}"


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[float]]:
    """(labelled, unlabelled) tick values for a log axis from ``lo`` to ``hi`` (both > 0).

    Labelled: the first of powers of ten, 1-2-5, 1-2-3-5-7 and every mantissa that puts at
    least ``MIN_LABELS`` labels on the axis with no stretch of more than ``MAX_GAP`` of it
    unlabelled; failing all (a range of a factor of three or so), evenly spaced round values
    (0.75, 1, 1.25, ...). Many decades are thinned to at most ``MAX_LABELS`` labels.
    Unlabelled: the other mantissas (with mantissa labels, on axes of few enough decades).
    """
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    span = math.log10(hi / lo)

    def within(mantissas: Sequence[int]) -> list[float]:
        values = (float(f"{m}e{d}") for d in range(first, last + 1) for m in mantissas)
        return [v for v in values if lo <= v <= hi]

    def readable(ticks: list[float]) -> bool:
        edges = np.log10([lo, *ticks, hi])
        return len(ticks) >= MIN_LABELS and float(np.diff(edges).max()) <= MAX_GAP * span

    labelled = next((t for t in map(within, MANTISSAS) if readable(t)), None)
    if labelled is None:  # no minor ticks either: they would bunch up at one end
        return _round_ticks(lo, hi), []
    if len(labelled) > MAX_LABELS:  # only decades come this many: keep every step-th
        step = math.ceil(len(labelled) / MAX_LABELS)
        labelled = [v for v in labelled if round(math.log10(v)) % step == 0]
    minor = [] if last - first > MAX_MINOR_DECADES else within(MANTISSAS[-1])
    return labelled, [v for v in minor if v not in labelled]


def tau_ticks(hi: float) -> tuple[list[float], list[float]]:
    """(labelled, unlabelled) ticks of a performance profile's τ axis from 1 to ``hi``:
    1, 2, 5, 10, 20, 50, ... (decades alone past ``MAX_LABELS`` labels); an axis too short
    for ``MIN_LABELS`` of them gets 1, 1.5, 2, 3, 5, 7, or 1, 1.2, 1.5, 2."""
    last = math.ceil(math.log10(hi))

    def within(mantissas: Sequence[float]) -> list[float]:
        values = (float(f"{m}e{d}") for d in range(last + 1) for m in mantissas)
        return sorted(v for v in values if 1 <= v <= hi * (1 + 1e-9))

    labelled = next((t for t in map(within, TAU_MANTISSAS) if len(t) >= MIN_LABELS), None)
    labelled = labelled or within(TAU_MANTISSAS[-1])
    if len(labelled) > MAX_LABELS:
        labelled = within((1,))
        step = math.ceil(len(labelled) / MAX_LABELS)
        labelled = [v for v in labelled if round(math.log10(v)) % step == 0]
    minor = [] if last > MAX_MINOR_DECADES else within(MANTISSAS[-1])
    return labelled, [v for v in minor if v not in labelled]


def _round_ticks(lo: float, hi: float) -> list[float]:
    """``MIN_LABELS`` or more evenly spaced round values (steps of 1, 2, 2.5 or 5 times a
    power of ten) from ``lo`` to ``hi``."""
    from matplotlib.ticker import MaxNLocator

    ticks: list[float] = []
    for bins in range(MIN_LABELS, 3 * MIN_LABELS):
        steps = MaxNLocator(nbins=bins, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
        ticks = [float(f"{v:.6g}") for v in steps if lo <= v <= hi]
        if len(ticks) >= MIN_LABELS:
            break
    return ticks


def set_log_ticks(ax: Axes, which: str, labelled: list[float], minor: list[float]) -> None:
    """Label ``labelled`` on ``ax``'s ``which`` axis as plain numbers, ``minor`` unlabelled."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    axis = ax.xaxis if which == "x" else ax.yaxis
    axis.set_major_locator(FixedLocator(labelled))
    axis.set_major_formatter(FuncFormatter(lambda x, _pos: tick_text(x)))
    axis.set_minor_locator(FixedLocator(minor))
    axis.set_minor_formatter(NullFormatter())


def log_axis(
    ax: Axes, which: str, values: object, *, below: float = 1.15, above: float = 1.15
) -> tuple[float, float]:
    """Make ``ax``'s ``which`` ("x" or "y") axis logarithmic over the positive finite
    ``values``, widened by the factors ``below`` and ``above``, with :func:`log_ticks`
    labelled as plain numbers; return its limits. Bars want a larger ``below`` so the
    shortest keeps a visible height above the axis' foot."""
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    lo, hi = (float(v.min()), float(v.max())) if v.size else (1.0, 10.0)
    lo, hi = lo / below, hi * above
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    (ax.set_xlim if which == "x" else ax.set_ylim)(lo, hi)
    set_log_ticks(ax, which, *log_ticks(lo, hi))
    return lo, hi


@dataclass
class Canvas:
    """A figure, the subfigure that holds its axes and legend, and what may overflow it."""

    fig: Figure
    body: SubFigure
    titles: tuple[Text, ...]
    legend: Legend | None = None


def canvas(size: tuple[float, float], title: str, subtitle: str) -> Canvas:
    """A figure with ``title`` over a smaller ``subtitle``, and the body (a subfigure) that
    holds the axes and the legend: nesting keeps the legend below both titles."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(round(size[0], 2), round(size[1], 2)), layout="constrained")
    FigureCanvasAgg(fig)
    titles = [fig.suptitle(title)]
    head = fig.subfigures(1, 1)
    if subtitle:
        titles.append(head.suptitle(subtitle, fontsize="small", color=SUBTITLE_COLOUR))
    return Canvas(fig, head.subfigures(1, 1), tuple(titles))


def add_legend(board: Canvas, handles: list, labels: list[str], title: str) -> None:
    """The legend at the right of the body, outside its axes, a column per
    ``LEGEND_ROWS`` entries."""
    board.legend = board.body.legend(
        handles, labels, title=title, loc="outside right upper",
        ncols=legend_columns(len(labels)), fontsize="small", frameon=False,
    )  # fmt: skip


def interval_caption(drawn: bool, mark: str, of: str) -> str:
    """What the ``mark`` ("whiskers", "band") shows, e.g. "whiskers: 95 % confidence
    interval of the median"; where none is ``drawn``, why."""
    if drawn:
        return f"{mark}: 95 % confidence interval of the {of}"
    return f"no {mark}: too few ok repetitions for a 95 % confidence interval"


def legend_title(blocks: bool) -> str:
    """The legend's title; GPU wording only where some configuration has a block size."""
    return "configuration" + ("\n(GPU: at its best block size)" if blocks else "")


def fit(board: Canvas) -> Figure:
    """Enlarge the figure where its titles are wider, or its legend taller, than the room
    the layout leaves them (a long title over a single cluster): nothing is clipped."""
    fig = board.fig
    renderer = fig.canvas.get_renderer()
    extents = [t.get_window_extent(renderer) for t in board.titles]
    width = max(e.width for e in extents) / fig.dpi + 0.4
    height = sum(e.height for e in extents) / fig.dpi + 0.5
    if board.legend is not None:
        height += board.legend.get_window_extent(renderer).height / fig.dpi
    now = fig.get_size_inches()
    fig.set_size_inches(max(now[0], width), max(now[1], height))
    return fig


def save(fig: Figure, stem: Path, style: Style) -> list[Path]:
    """``fig`` written as ``stem.<format>`` for each of the style's formats."""
    paths = []
    for fmt in style.formats:
        path = stem.with_suffix(f".{fmt}")
        with replaced(path) as partial:  # an interrupt leaves no half-written figure
            fig.savefig(partial, format=fmt, dpi=style.dpi, facecolor="white")
        paths.append(path)
    return paths


def panel_grid(
    count: int,
    side_in: float,
    panel_in: float = PANEL_IN[0],
    least_in: float = PANEL_MIN_IN,
    most: int = 3,
) -> tuple[int, int, float]:
    """(rows, columns, panel width) for ``count`` panels, at most ``most`` to a row,
    beside ``side_in`` of legend or labels, no wider than ``MAX_WIDTH_IN``: panels of
    ``panel_in`` narrow to ``least_in`` before a row holds fewer."""
    room = MAX_WIDTH_IN - side_in - 0.4
    cols = max(1, min(most, count))
    while cols > 1 and room / cols < least_in:
        cols -= 1
    return math.ceil(count / cols), cols, max(least_in, min(panel_in, room / cols))
