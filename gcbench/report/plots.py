"""Report figures (matplotlib, Agg canvas, no pyplot state), as PNG, SVG and/or PDF.

Bar plots show one bar per configuration (algorithm + params) at its fastest block size on
each graph; the block-size plot shows the rest. A configuration with no valid run on a graph
is marked with an ``x`` at the foot of its slot instead of a bar. Every figure carries a
subtitle saying where and when the rows were measured (and, for times, what ``time_ms``
includes), its legend outside the plot area at the right, and log axes whose ticks are
chosen here (:func:`log_ticks`) so that each shows at least four labelled values.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from gcbench import grammar
from gcbench.bench.results import CLASS_SIZE_SERIES
from gcbench.errors import InputError
from gcbench.outputs import replaced
from gcbench.report.defaults import DPI

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure
    from matplotlib.legend import Legend
    from matplotlib.patches import Patch
    from matplotlib.text import Text

PLOT_FORMATS = ("png", "svg", "pdf")
LEGEND_ROWS = 22  # legend entries per column before a second column starts
ROW_WIDTH_IN = 14.0  # plot area of one row of bar clusters
ROW_IN, ROW_IN_MANY = 3.6, 2.8  # height of a row of clusters; of each of four rows or more
PANEL_IN = (4.4, 3.6)  # one panel of the block-size and trace plots
PROFILE_IN = (6.4, 4.4)  # the plot area of a performance profile
CHAR_IN = 0.075  # width of one character of a small-font label, about
MIN_LABELS = 4  # labelled ticks wanted on every log axis
MAX_LABELS = 12  # more labelled decades than this: label every other one (or fewer)
MAX_GAP = 0.4  # the largest share of a log axis left without a label
MAX_MINOR_DECADES = 8  # wider log axes get no minor ticks (they would be a grey smear)
# Log-axis labels tried in turn: decades, then 1-2-5, then 1-2-3-5-7, then every mantissa.
MANTISSAS = ((1,), (1, 2, 5), (1, 2, 3, 5, 7), (1, 2, 3, 4, 5, 6, 7, 8, 9))
LINE_STYLES = ("-", "--", "-.", ":")
SUBTITLE_COLOUR = "0.3"
FLAG_COLOUR = "0.1"  # outline and hatching of a flagged group's bar, ring round its point
FLAG_HATCH = "////"
FLAG_LABEL = "flagged: times suspect\n(see the notes)"


@dataclass(frozen=True)
class Style:
    """What every figure of one report shares: a colour per configuration, the subtitle
    (:func:`~gcbench.report.aggregate.provenance`), the timing convention of ``time_ms``,
    the output formats and the PNG resolution."""

    colours: dict[str, tuple[float, ...]]
    where: str
    timing: str
    formats: tuple[str, ...] = ("png",)
    dpi: int = DPI

    def subtitle(self, timed: bool, caption: str = "") -> str:
        """The subtitle: provenance, plus the timing convention on figures of times, and a
        ``caption`` line under them (what whiskers show) where given."""
        line = " · ".join(p for p in (self.where, self.timing if timed else "") if p)
        return "\n".join(p for p in (line, caption) if p)


def plot_formats(values: Sequence[str]) -> tuple[str, ...]:
    """The formats named in ``values`` (each may be a comma list: ``png,svg``), in order,
    without repeats; an unknown one is an error."""
    named = [v.lower() for v in grammar.items(values, "--plot-format")]
    unknown = [v for v in named if v not in PLOT_FORMATS]
    if unknown or not named:
        raise InputError(
            f"unknown plot format {', '.join(map(repr, unknown)) or 'none'};"
            f" use a comma list of {','.join(PLOT_FORMATS)}"
        )
    return tuple(dict.fromkeys(named))


def short_graph(name: str) -> str:
    """A plot label for a graph spec: ``ss:G/NAME`` → NAME, ``gen:X`` → X, a path → its name."""
    if name.startswith("ss:"):
        return name.rsplit("/", 1)[-1]
    if name.startswith(("snap:", "gen:")):
        return name.split(":", 1)[1]
    return Path(name).name or name


def graph_labels(names: Sequence[str], width: int = 16) -> dict[str, str]:
    """Short, wrapped tick labels (a line per ``?``/``&`` part); full specs where short collide."""
    short = {name: short_graph(name) for name in names}
    if len(set(short.values())) < len(short):
        short = {name: name for name in names}
    wrapped = {}
    for name, text in short.items():
        parts = re.split(r"[?&]", text)
        wrapped[name] = "\n".join(
            line for part in parts for line in textwrap.wrap(part, width, break_on_hyphens=False)
        )
    return wrapped


def in_order(configs: Iterable[str]) -> list[str]:
    """Distinct configuration names in legend order: by name, numbers by value
    (``k=2`` before ``k=10``)."""
    return sorted(set(configs), key=lambda c: [(0, int(t), "") if t.isdigit() else (1, 0, t)
                                               for t in re.split(r"(\d+)", c)])  # fmt: skip


def palette(configs: Sequence[str]) -> dict[str, tuple[float, ...]]:
    """A colour per configuration: tab10, tab20 beyond ten, evenly spaced turbo beyond twenty."""
    from matplotlib import colormaps

    if len(configs) > 20:
        spread = colormaps["turbo"](np.linspace(0.05, 0.95, len(configs)))
        return {c: tuple(colour) for c, colour in zip(configs, spread, strict=True)}
    cmap = colormaps["tab10" if len(configs) <= 10 else "tab20"]
    return {c: cmap(i) for i, c in enumerate(configs)}


def legend_columns(entries: int) -> int:
    """Legend columns needed for ``entries`` entries at ``LEGEND_ROWS`` per column."""
    return max(1, math.ceil(entries / LEGEND_ROWS))


def legend_width_in(labels: Sequence[str]) -> float:
    """Room for an outside legend: about 0.075 in per character of the longest label."""
    longest = max((len(label) for label in labels), default=0)
    return legend_columns(len(labels)) * (0.6 + CHAR_IN * longest)


def bar_layout(
    groups: int, bars: int, labels: Sequence[str]
) -> tuple[int, int, tuple[float, float]]:
    """(groups per row, rows, figure size in inches) for clusters of ``bars`` bars.

    Clusters wrap onto further rows of nearly equal length so no figure is wider than
    ``ROW_WIDTH_IN`` of plot area plus the legend at the right. (Saving widens a figure
    whose titles would not fit.)
    """
    group_in = _group_in(bars)
    rows = math.ceil(groups / max(1, int(ROW_WIDTH_IN // group_in)))
    per_row = math.ceil(groups / rows)  # rows as even as they can be
    width = 1.2 + per_row * group_in + legend_width_in(labels)
    legend_in = 0.24 * min(len(labels), LEGEND_ROWS) + 1.9
    height = max(4.8, legend_in, 1.2 + (ROW_IN if rows <= 3 else ROW_IN_MANY) * rows)
    return per_row, rows, (round(width, 2), round(height, 2))


def _group_in(bars: int) -> float:
    """Width of one cluster of ``bars`` bars, inches."""
    return max(1.3, 0.16 * bars + 0.4)


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


def log_axis(
    ax: Axes, which: str, values: object, *, below: float = 1.15, above: float = 1.15
) -> None:
    """Make ``ax``'s ``which`` ("x" or "y") axis logarithmic over the positive finite
    ``values``, widened by the factors ``below`` and ``above``, with :func:`log_ticks`
    labelled as plain numbers. Bars want a larger ``below`` so the shortest keeps a visible
    height above the axis' foot."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    lo, hi = (float(v.min()), float(v.max())) if v.size else (1.0, 10.0)
    lo, hi = lo / below, hi * above
    labelled, minor = log_ticks(lo, hi)
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    (ax.set_xlim if which == "x" else ax.set_ylim)(lo, hi)
    axis.set_major_locator(FixedLocator(labelled))
    axis.set_major_formatter(FuncFormatter(lambda x, _pos: tick_text(x)))
    axis.set_minor_locator(FixedLocator(minor))
    axis.set_minor_formatter(NullFormatter())


@dataclass
class _Canvas:
    """A figure, the subfigure that holds its axes and legend, and what may overflow it."""

    fig: Figure
    body: SubFigure
    titles: tuple[Text, ...]
    legend: Legend | None = None


def _figure(size: tuple[float, float], title: str, subtitle: str) -> _Canvas:
    """A figure with ``title`` over a smaller ``subtitle``, and the body (a subfigure) that
    holds the axes and the legend: nesting keeps the legend below both titles."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    titles = [fig.suptitle(title)]
    head = fig.subfigures(1, 1)
    if subtitle:
        titles.append(head.suptitle(subtitle, fontsize="small", color=SUBTITLE_COLOUR))
    return _Canvas(fig, head.subfigures(1, 1), tuple(titles))


def _legend(canvas: _Canvas, handles: list, labels: list[str], title: str) -> None:
    canvas.legend = canvas.body.legend(
        handles, labels, title=title, loc="outside right upper",
        ncols=legend_columns(len(labels)), fontsize="small", frameon=False,
    )  # fmt: skip


def _fit(canvas: _Canvas) -> Figure:
    """Enlarge the figure where its titles are wider, or its legend taller, than the room
    the layout leaves them (a long title over a single cluster): nothing is clipped."""
    fig = canvas.fig
    renderer = fig.canvas.get_renderer()
    extents = [t.get_window_extent(renderer) for t in canvas.titles]
    width = max(e.width for e in extents) / fig.dpi + 0.4
    height = sum(e.height for e in extents) / fig.dpi + 0.5
    if canvas.legend is not None:
        height += canvas.legend.get_window_extent(renderer).height / fig.dpi
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


def grouped_bars(
    frame: pd.DataFrame,
    value: str,
    style: Style,
    *,
    title: str,
    ylabel: str,
    log: bool,
    timed: bool = False,
    err: tuple[str, str] | None = None,
    reference: tuple[float, str] | None = None,
    mean_group: str | None = None,
    flags: bool = False,
    caption: str = "",
) -> Figure:
    """Bars of ``value`` per graph (x) and configuration (colour).

    ``err`` names low/high columns drawn as error bars (none where they are NaN);
    ``reference`` draws a dashed horizontal line named in the legend (so no label sits on
    the bars or the line); ``mean_group`` appends a group holding each configuration's
    geometric mean over graphs under that name. ``timed``: the values are times (the
    subtitle says what they include). ``flags``: the bars of groups with ``flags`` are
    hatched and outlined, with a legend entry. ``caption``: a line under the subtitle.
    """
    graphs = list(dict.fromkeys(frame["graph"]))
    configs = in_order(frame["config"])
    table = frame.pivot_table(index="graph", columns="config", values=value, aggfunc="first")
    table = table.reindex(index=graphs, columns=configs)
    per_row, rows, size = bar_layout(len(graphs) + (mean_group is not None), len(configs), configs)
    ticks = graph_labels(graphs, width=max(10, int(_group_in(len(configs)) / CHAR_IN)))
    tick_labels = [ticks[g] for g in graphs]
    if mean_group is not None:
        table.loc[mean_group] = np.exp(np.log(table).mean(skipna=True))
        tick_labels.append(mean_group)
    canvas = _figure(size, title, style.subtitle(timed, caption))
    axes = canvas.body.subplots(rows, 1, sharey=True, squeeze=False)[:, 0]

    def cells(values: pd.Series) -> pd.DataFrame:
        """``values`` (one per row of ``frame``) laid out as ``table``."""
        laid = frame.assign(cell=values).groupby(["graph", "config"])["cell"].first()
        return laid.unstack().reindex(index=table.index, columns=configs)

    lows, highs = (cells(frame[c]) for c in err) if err is not None else (None, None)
    flagged = cells((frame["flags"] != "").astype(float)).fillna(0) > 0 if flags else None
    extent = [table.to_numpy(dtype=float)]
    if lows is not None and highs is not None:
        extent += [lows.to_numpy(dtype=float), highs.to_numpy(dtype=float)]
    if reference is not None:
        extent.append(np.array([reference[0]]))
    width = 0.8 / len(configs)
    handles: list = []
    for row, ax in enumerate(axes):
        part = slice(row * per_row, (row + 1) * per_row)
        x = np.arange(len(table.index[part]))
        for i, config in enumerate(configs):
            pos = x - 0.4 + width * (i + 0.5)
            heights = table[config].to_numpy(dtype=float)[part]
            yerr = None
            if lows is not None and highs is not None:
                lo = lows[config].to_numpy(dtype=float)[part]
                hi = highs[config].to_numpy(dtype=float)[part]
                yerr = np.abs(np.vstack([heights - lo, hi - heights]))
            bars = ax.bar(pos, heights, width, yerr=yerr, color=style.colours[config],
                          error_kw={"elinewidth": 0.8, "capsize": 1.5})  # fmt: skip
            if flagged is not None:
                for patch, marked in zip(bars.patches, flagged[config].to_numpy()[part],
                                         strict=True):  # fmt: skip
                    if marked:
                        patch.set(hatch=FLAG_HATCH, edgecolor=FLAG_COLOUR, linewidth=0.6)
            if row == 0:
                handles.append(bars)
            missing = np.isnan(heights)
            if missing.any():
                ax.plot(pos[missing], np.full(missing.sum(), 0.03), "x",
                        color=style.colours[config], markersize=7, mew=2,
                        transform=ax.get_xaxis_transform())  # fmt: skip
        if log:
            log_axis(ax, "y", np.concatenate([e.ravel() for e in extent]), below=2.0, above=1.3)
        if reference is not None:
            line = ax.axhline(reference[0], color="black", linewidth=1, linestyle="--")
            if row == 0:
                handles.append(line)
        ax.set_xticks(x, tick_labels[part], fontsize="small")
        ax.set_xlim(-0.6, per_row - 0.4)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", which="major", alpha=0.3)
    any_missing = table[configs].isna().to_numpy().any()
    axes[-1].set_xlabel("graph   (x: no valid run)" if any_missing else "graph")
    swept = frame["block_size"].notna().any() if "block_size" in frame else False
    labels = configs + ([reference[1]] if reference is not None else [])
    if flagged is not None and (flagged & table.notna()).to_numpy().any():
        handles.append(_flag_patch())
        labels.append(FLAG_LABEL)
    _legend(
        canvas, handles, labels, "configuration" + ("\n(GPU: best block size)" if swept else "")
    )
    return _fit(canvas)


def interval_caption(drawn: bool, mark: str, of: str) -> str:
    """What the ``mark`` ("whiskers", "band") shows, e.g. "whiskers: 95 % confidence
    interval of the median"; where none is ``drawn``, why."""
    if drawn:
        return f"{mark}: 95 % confidence interval of the {of}"
    return f"no {mark}: too few ok repetitions for a 95 % confidence interval"


def _flag_patch() -> Patch:
    """The legend entry of flagged bars: a white swatch, hatched and outlined as they are."""
    from matplotlib.patches import Patch

    return Patch(facecolor="white", edgecolor=FLAG_COLOUR, hatch=FLAG_HATCH, linewidth=0.6)


def _wrapped(count: int) -> tuple[int, int]:
    """(rows, columns) for ``count`` panels, three to a row."""
    cols = min(3, count)
    return math.ceil(count / cols), cols


def _panel_figure(
    rows: int,
    cols: int,
    labels: Sequence[str],
    titles: tuple[str, str],
) -> tuple[_Canvas, np.ndarray]:
    """A figure with a ``rows`` × ``cols`` grid of axes and room for a legend at the right."""
    size = (cols * PANEL_IN[0] + legend_width_in(labels) + 0.4, rows * PANEL_IN[1] + 1.0)
    canvas = _figure((round(size[0], 2), round(size[1], 2)), *titles)
    return canvas, canvas.body.subplots(rows, cols, squeeze=False)


def block_size_sweep(summary: pd.DataFrame, style: Style) -> Figure | None:
    """Median time vs block size, a line per configuration, a panel per graph.

    Written only when some configuration ran at several block sizes on a graph.
    """
    from matplotlib.ticker import NullLocator

    gpu = summary.dropna(subset=["block_size", "time_ms"])
    if gpu.empty or gpu.groupby(["graph", "config"])["block_size"].nunique().max() < 2:
        return None
    graphs = list(dict.fromkeys(gpu["graph"]))
    configs = in_order(gpu["config"])
    titles = graph_labels(graphs, width=40)
    band = interval_caption(bool(gpu["time_ci_low_ms"].notna().any()), "band", "median")
    canvas, axes = _panel_figure(
        *_wrapped(len(graphs)), configs,
        ("Time vs block size", style.subtitle(timed=True, caption=band)),
    )  # fmt: skip
    handles: dict[str, object] = {}
    sizes = sorted(gpu["block_size"].unique())
    for ax, graph in zip(axes.flat, graphs, strict=False):
        part = gpu[gpu["graph"] == graph].sort_values("block_size")
        for config, line in part.groupby("config"):
            (handles[config],) = ax.plot(line["block_size"].astype(float), line["time_ms"], "o-",
                                         color=style.colours[config], markersize=4)  # fmt: skip
            ax.fill_between(line["block_size"].astype(float), line["time_ci_low_ms"],
                            line["time_ci_high_ms"], color=style.colours[config],
                            alpha=0.15)  # fmt: skip
        marked = part[part["flags"] != ""]
        if not marked.empty:
            (handles[FLAG_LABEL],) = ax.plot(marked["block_size"].astype(float),
                                             marked["time_ms"], "o", markersize=8, mfc="none",
                                             mec=FLAG_COLOUR, mew=1.2)  # fmt: skip
        ax.set_xscale("log", base=2)
        log_axis(ax, "y", part[["time_ms", "time_ci_low_ms", "time_ci_high_ms"]].to_numpy())
        ax.set_xticks([float(s) for s in sizes], [str(s) for s in sizes], fontsize="small")
        ax.xaxis.set_minor_locator(NullLocator())
        ax.margins(x=0.08)
        ax.set_title(titles[graph].replace("\n", " "), fontsize="medium")
        ax.set_xlabel("block size (threads)")
        ax.set_ylabel("median time (ms)")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(graphs) :]:
        ax.set_visible(False)
    names = [c for c in [*configs, FLAG_LABEL] if c in handles]
    _legend(canvas, [handles[c] for c in names], names, "configuration")
    return _fit(canvas)


def trace_curves(traces: pd.DataFrame, best: pd.DataFrame, style: Style) -> Figure | None:
    """Per-round trace values (e.g. vertices still active), one line per configuration
    (:func:`~gcbench.report.aggregate.trace_lines`): a row of panels per graph and a column
    per series, or, with a single series, the graphs' panels three to a row. Nothing when no
    trace has two rounds or more."""
    from gcbench.report.aggregate import trace_lines

    t = trace_lines(traces, best)
    t = t[t["series"] != CLASS_SIZE_SERIES]  # one value per class, not per round: balance plot
    if t.empty:
        return None
    graphs = list(dict.fromkeys(t["graph"]))
    series = sorted(t["series"].unique())
    if len(series) == 1:
        rows, cols = _wrapped(len(graphs))
        where = {(g, series[0]): divmod(i, cols) for i, g in enumerate(graphs)}
    else:
        rows, cols = len(graphs), len(series)
        where = {(g, s): (i, j) for i, g in enumerate(graphs) for j, s in enumerate(series)}
    configs = in_order(t["config"])
    titles = graph_labels(graphs, width=40)
    canvas, axes = _panel_figure(
        rows, cols, configs, ("Per-round trace (first repetition)", style.subtitle(timed=False))
    )
    for ax in axes.flat:
        ax.set_visible(False)
    handles: dict[str, object] = {}
    for (graph, name), part in t.groupby(["graph", "series"], sort=False):
        ax = axes[where[graph, name]]
        ax.set_visible(True)
        for config, line in part.groupby("config"):
            (handles[config],) = ax.plot(line["round"], line["active"], ".-",
                                         color=style.colours.get(config), markersize=3)  # fmt: skip
        if (part["active"] > 0).any():
            log_axis(ax, "y", part["active"].to_numpy(), below=1.3, above=1.3)
        ax.set_title(f"{titles[graph].replace(chr(10), ' ')}: {name}", fontsize="medium")
        ax.set_xlabel("round")
        ax.set_ylabel(f"{name} (count)")
        ax.grid(alpha=0.3)
    names = [c for c in configs if c in handles]
    swept = t["block_size"].notna().any()
    title = "configuration" + ("\n(GPU: best block size)" if swept else "")
    _legend(canvas, [handles[c] for c in names], names, title)
    return _fit(canvas)


def class_balance(best: pd.DataFrame, traces: pd.DataFrame | None, style: Style) -> Figure | None:
    """Color class sizes per configuration, a panel per graph (log scale): a bar from the
    smallest to the largest class (medians over the ok repetitions) with a tick at the mean
    size n / colors, and, where the trace holds them (``--trace``), every class's size as a
    dot, largest first from left to right within the slot. Each slot is labelled with its
    ``class_cv``. None when no row has class sizes (results older than the columns)."""
    from matplotlib.lines import Line2D

    from gcbench.report.aggregate import trace_lines
    from gcbench.report.tables import ratio

    data = best.dropna(subset=["min_class", "max_class", "colors", "n"])
    data = data[data["colors"] > 0]
    if data.empty:
        return None
    dots: dict[tuple[str, str], np.ndarray] = {}  # (graph, config) -> sizes, largest first
    if traces is not None:
        t = trace_lines(traces, best)
        t = t[t["series"] == CLASS_SIZE_SERIES]
        dots = {key: part["active"].to_numpy(float) for key, part in t.groupby(["graph", "config"])}
    graphs = list(dict.fromkeys(data["graph"]))
    configs = in_order(data["config"])
    titles = graph_labels(graphs, width=40)
    canvas, axes = _panel_figure(
        *_wrapped(len(graphs)), configs,
        ("Color class sizes (bar: smallest to largest class; tick: mean; dots: every class)",
         style.subtitle(timed=False)),
    )  # fmt: skip
    for ax, graph in zip(axes.flat, graphs, strict=False):
        part = data[data["graph"] == graph].set_index("config")
        here = [c for c in configs if c in part.index]
        values = [part["min_class"].to_numpy(float), part["max_class"].to_numpy(float)]
        for x, config in enumerate(here):
            row, colour = part.loc[config], style.colours[config]
            ax.vlines(x, row["min_class"], row["max_class"], color=colour, linewidth=7,
                      alpha=0.35)  # fmt: skip
            ax.plot([x], [row["n"] / row["colors"]], "_", color=colour, markersize=18, mew=2)
            sizes = dots.get((graph, config))
            if sizes is not None:  # the trace keeps series of two values or more
                ax.plot(x + np.linspace(-0.3, 0.3, sizes.size), sizes, ".", color=colour,
                        markersize=3)  # fmt: skip
                values.append(sizes)
        log_axis(ax, "y", np.concatenate(values), below=1.5, above=1.5)
        ax.set_xticks(range(len(here)), [f"cv {ratio(part.loc[c, 'class_cv'])}" for c in here],
                      fontsize="small", rotation=90 if len(here) > 6 else 0)  # fmt: skip
        ax.set_xlim(-0.6, len(here) - 0.4)
        ax.set_title(titles[graph].replace("\n", " "), fontsize="medium")
        ax.set_ylabel("class size (vertices)")
        ax.grid(axis="y", alpha=0.3)
    for ax in axes.flat[len(graphs) :]:
        ax.set_visible(False)
    handles = [Line2D([], [], color=style.colours[c], linewidth=7, alpha=0.5) for c in configs]
    swept = data["block_size"].notna().any()
    title = "configuration" + ("\n(GPU: best block size)" if swept else "")
    _legend(canvas, handles, configs, title)
    return _fit(canvas)


def profile_plot(ratios: pd.DataFrame, style: Style, *, what: str, graphs: int) -> Figure:
    """The performance profile of ``ratios`` (graph × configuration, from
    :func:`~gcbench.report.aggregate.performance_ratios`): ρ(τ), the fraction of graphs on
    which a configuration's ``what`` is within a factor τ of the best, as a step line per
    configuration over τ on a log axis. A configuration's curve tops out at the fraction of
    graphs it has a valid run on. ``graphs``: how many the results hold (those where no
    configuration has a valid run are not in ``ratios``: the y label says so)."""
    from gcbench.report.aggregate import performance_profile

    values = ratios.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    top = max(float(finite.max()) * 1.15, 1.1)
    taus = np.unique(np.concatenate([[1.0], finite, [top]]))
    rho = performance_profile(ratios, taus)
    configs = in_order(ratios.columns)
    size = (PROFILE_IN[0] + legend_width_in(configs), PROFILE_IN[1] + 0.8)
    canvas = _figure(
        (round(size[0], 2), round(size[1], 2)),
        f"Performance profile: {what} (Dolan & Moré 2002)",
        style.subtitle(timed=what == "time"),
    )
    ax = canvas.body.subplots()
    handles = []
    for i, config in enumerate(configs):
        (line,) = ax.step(taus, rho[config], where="post", color=style.colours[config],
                          linestyle=LINE_STYLES[i % len(LINE_STYLES)], linewidth=1.6)  # fmt: skip
        handles.append(line)
    log_axis(ax, "x", [1.0, top], below=1.0, above=1.0)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel(f"τ: {what} within a factor τ of the best configuration's on the graph")
    left_out = graphs - len(ratios)
    ax.set_ylabel(f"fraction of graphs ({len(ratios)} in all"
                  + (f"; {left_out} with no valid run left out)" if left_out else ")"))  # fmt: skip
    ax.grid(alpha=0.3)
    _legend(canvas, handles, configs, "configuration\n(at its best block size)")
    return _fit(canvas)


def _failures(summary: pd.DataFrame) -> str:
    """How the rows failed, for a figure left out: "24 error, 6 timeout"."""
    from gcbench.report.aggregate import FAILURES

    counts = [(int(summary[s].sum()), s) for s in FAILURES if summary[s].sum()]
    return ", ".join(f"{n} {s}" for n, s in counts) or "no ok row"


def _main_figures(
    best: pd.DataFrame, baseline: str | None, style: Style, missing: list[str]
) -> dict[str, Figure]:
    """Time, colors, speedup and the performance profiles; appends to ``missing`` why a
    profile is left out."""
    from gcbench.report.aggregate import performance_ratios

    made = {
        "time": grouped_bars(best, "time_ms", style, log=True, timed=True, flags=True,
                             err=("time_ci_low_ms", "time_ci_high_ms"),
                             caption=interval_caption(
                                 bool(best["time_ci_low_ms"].notna().any()), "whiskers",
                                 "median"),
                             title="Median time per graph",
                             ylabel="median time (ms, log scale)"),
        "colors": grouped_bars(best, "colors", style, log=False, title="Colors used per graph",
                               ylabel="colors (median)"),
    }  # fmt: skip
    if baseline is not None and best["speedup"].notna().any():
        made["speedup"] = grouped_bars(
            best, "speedup", style, log=True, timed=True,
            reference=(1.0, f"baseline: {baseline}\n(speedup 1)"), mean_group="geo. mean",
            err=("speedup_ci_low", "speedup_ci_high"), flags=True,
            caption=interval_caption(  # the baseline's own 1–1 is no whisker
                bool((best["speedup_ci_low"] < best["speedup_ci_high"]).any()), "whiskers",
                "speedup"),
            title=f"Speedup over {baseline} (higher is better)",
            ylabel="speedup (×, log scale)",
        )  # fmt: skip
    for value, what in (("time_ms", "time"), ("colors", "colors")):
        ratios = performance_ratios(best, value)
        if len(ratios) < 2:
            missing.append(f"no {what} profile: it compares configurations across graphs,"
                           " and only one graph has a valid run")  # fmt: skip
        elif np.isfinite(ratios.to_numpy()).any(axis=0).sum() < 2:
            missing.append(f"no {what} profile: fewer than two configurations have a valid run")
        else:
            made[f"profile_{what}"] = profile_plot(
                ratios, style, what=what, graphs=best["graph"].nunique()
            )
    return made


def figures(
    summary: pd.DataFrame,
    best: pd.DataFrame,
    traces: pd.DataFrame | None,
    baseline: str | None,
    style: Style,
) -> tuple[dict[str, Figure], list[str]]:
    """Every figure the data supports, by file stem (``time``, ``profile_colors``, ...),
    and a line for each main figure left out, saying why: no figure is empty.

    ``best`` is each configuration at its fastest block size per graph.
    """
    missing: list[str] = []
    made: dict[str, Figure | None] = {}
    if best["time_ms"].isna().all():
        missing.append(
            "no figures of time, colors or performance profiles: no row has status ok"
            f" ({_failures(summary)})"
        )
    else:
        made.update(_main_figures(best, baseline, style, missing))
    made["block_sizes"] = block_size_sweep(summary, style)
    rounds = best[best.groupby("config")["iterations"].transform("count") > 0]
    if not rounds.empty:
        log = bool(rounds["iterations"].max() / max(rounds["iterations"].min(), 1) > 30)
        made["rounds"] = grouped_bars(
            rounds, "iterations", style, log=log,
            title="Rounds per algorithm (iterations column)",
            ylabel="rounds (median)" + (", log scale" if log else ""),
        )  # fmt: skip
    if traces is not None:
        made["trace"] = trace_curves(traces, best, style)
    made["balance"] = class_balance(best, traces, style)
    return {name: fig for name, fig in made.items() if fig is not None}, missing


def write_plots(
    summary: pd.DataFrame,
    best: pd.DataFrame,
    traces: pd.DataFrame | None,
    baseline: str | None,
    out: Path,
    style: Style,
) -> tuple[list[Path], list[str]]:
    """:func:`figures` written into ``out`` in the style's formats: the files written, and
    why a main figure was left out."""
    made, missing = figures(summary, best, traces, baseline, style)
    return [path for name, fig in made.items() for path in save(fig, out / name, style)], missing
