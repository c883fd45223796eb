"""Report figures (matplotlib, Agg canvas, no pyplot state), as PNG, SVG and/or PDF.

Bar plots show one bar per configuration (algorithm + params) at its fastest block size on
each graph; the block-size plot shows the rest. A configuration with no valid run on a graph
is marked with an ``x`` at the foot of its slot instead of a bar. Every figure carries a
subtitle saying where and when the rows were measured (and, for times, what ``time_ms``
includes), its legend outside the plot area at the right, and log axes whose ticks are
chosen so that each shows at least four labelled values (:func:`log_ticks`).

This module draws the bars and chooses the figures; :mod:`gcbench.report.plots_style`
holds what they share (each configuration's colour, marker and line style, the one-line
graph labels, the ticks, the canvas), :mod:`gcbench.report.plots_panels` the figures of
lines and panels.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from gcbench import grammar
from gcbench.errors import InputError
from gcbench.grammar import DEFAULT_PROBLEM
from gcbench.report.aggregate import has_block_sizes, problem_parts, suspect
from gcbench.report.defaults import DPI
from gcbench.report.plots_panels import (
    PROFILE_IN,
    block_size_sweep,
    class_balance,
    front_plot,
    profile_plot,
    trace_curves,
)
from gcbench.report.plots_style import (
    BOUND_KINDS,
    CHAR_IN,
    EDGE_COLOUR,
    FLAG_COLOUR,
    FLAG_HATCH,
    FLAG_LABEL,
    GRAPH_CHARS,
    LEGEND_ROWS,
    LINE_STYLES,
    MARKERS,
    MAX_WIDTH_IN,
    MIN_LABELS,
    PANEL_IN,
    ROW_IN,
    ROW_IN_MANY,
    Style,
    add_legend,
    canvas,
    fit,
    graph_labels,
    in_order,
    interval_caption,
    legend_title,
    legend_width_in,
    log_axis,
    log_ticks,
    palette,
    save,
    short_graph,
    tau_ticks,
    tick_text,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

PLOT_FORMATS = ("png", "svg", "pdf")
LABEL_IN = 1.2  # the y label and ticks left of a row of clusters
TITLE_CHARS, LEGEND_CHARS = 100, 50  # where a long title and a legend entry wrap
FOOT_PT = 5.0  # how far under the axis a bar's marker sits (where hues repeat), points
BOUND_CAPTION = (
    "bars: colors ÷ the graph's bound on χ, under its name: χ = the published χ,"
    " χ ≥ the size of a clique found;\n'fewest' where neither is known:"
    " ÷ the fewest colors any configuration used"
)
BOUND_CAPTION_D2 = (
    "bars: colors ÷ the problem's lower bound, under the graph's name: Δ+1 (d2) or the"
    " largest row count (pd2,\npd2-rows); 'fewest' where none is known:"
    " ÷ the fewest colors any configuration used"
)

__all__ = [
    "CHAR_IN", "DPI", "FLAG_COLOUR", "FLAG_HATCH", "FLAG_LABEL", "GRAPH_CHARS", "LINE_STYLES",
    "MARKERS", "MAX_WIDTH_IN", "MIN_LABELS", "PANEL_IN", "PLOT_FORMATS", "PROFILE_IN",
    "Style", "bar_layout", "block_size_sweep", "class_balance", "colors_figure",
    "figures", "front_plot", "graph_bounds", "graph_labels", "grouped_bars", "in_order",
    "interval_caption", "legend_width_in", "log_axis", "log_ticks", "palette", "plot_formats",
    "profile_plot", "save", "short_graph", "tau_ticks", "tick_text", "trace_curves",
    "write_plots",
]  # fmt: skip


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


def bar_layout(
    groups: int, bars: int, labels: Sequence[str]
) -> tuple[int, int, tuple[float, float]]:
    """(groups per row, rows, figure size in inches) for clusters of ``bars`` bars.

    Clusters wrap onto further rows of nearly equal length so no figure is wider than
    ``MAX_WIDTH_IN`` with the legend at the right (saving widens a figure whose titles
    would not fit).
    """
    group_in = _group_in(bars)
    legend_in = legend_width_in(labels)
    room = max(group_in, MAX_WIDTH_IN - LABEL_IN - legend_in)
    rows = math.ceil(groups / max(1, int(room // group_in)))
    per_row = math.ceil(groups / rows)  # rows as even as they can be
    if rows > 1:  # wrapped: the clusters share the whole width
        group_in = max(group_in, min(room / per_row, 1.5 * group_in))
    width = LABEL_IN + per_row * group_in + legend_in
    legend_height = 0.24 * min(len(labels), LEGEND_ROWS) + 1.9
    height = max(4.8, legend_height, 1.2 + (ROW_IN if rows <= 3 else ROW_IN_MANY) * rows)
    return per_row, rows, (round(width, 2), round(height, 2))


def _group_in(bars: int) -> float:
    """Width of one cluster of ``bars`` bars, inches: room for a graph's label at least."""
    return max(CHAR_IN * GRAPH_CHARS + 0.1, 0.105 * bars + 0.35)


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
    below: float = 2.0,
    notes: dict[str, str] | None = None,
) -> Figure:
    """Bars of ``value`` per graph (x) and configuration (colour; with more than ten
    configurations also its marker, under its bar).

    ``err`` names low/high columns drawn as error bars (none where they are NaN);
    ``reference`` draws a dashed horizontal line named in the legend (so no label sits on
    the bars or the line); ``mean_group`` appends a group holding each configuration's
    geometric mean over graphs under that name. ``timed``: the values are times (the
    subtitle says what they include). ``flags``: the bars of groups with ``flags`` are
    hatched and outlined, with a legend entry. ``caption``: a line under the subtitle.
    ``below``: on a log axis, the foot lies this factor under the smallest value.
    ``notes``: a second line under a graph's label (graph → text).
    """
    graphs = list(dict.fromkeys(frame["graph"]))
    configs = in_order(frame["config"])
    style = style.naming(graphs)
    table = frame.pivot_table(index="graph", columns="config", values=value, aggfunc="first")
    table = table.reindex(index=graphs, columns=configs)
    per_row, rows, size = bar_layout(len(graphs) + (mean_group is not None), len(configs), configs)
    tick_labels = [style.graph_label(g) + (f"\n{notes[g]}" if notes and g in notes else "")
                   for g in graphs]  # fmt: skip
    if mean_group is not None:
        table.loc[mean_group] = np.exp(np.log(table).mean(skipna=True))
        tick_labels.append(mean_group)
    board = canvas(size, title, style.subtitle(timed, caption))
    axes = board.body.subplots(rows, 1, sharey=True, squeeze=False)[:, 0]

    def cells(values: pd.Series) -> pd.DataFrame:
        """``values`` (one per row of ``frame``) laid out as ``table``."""
        laid = frame.assign(cell=values).groupby(["graph", "config"])["cell"].first()
        return laid.unstack().reindex(index=table.index, columns=configs)

    lows, highs = (cells(frame[c]) for c in err) if err is not None else (None, None)
    flagged = cells(suspect(frame["flags"]).astype(float)).fillna(0) > 0 if flags else None
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
            bars = ax.bar(pos, heights, width, yerr=yerr, color=style.colour(config),
                          error_kw={"elinewidth": 0.8, "capsize": 1.2})  # fmt: skip
            if flagged is not None:
                for patch, marked in zip(bars.patches, flagged[config].to_numpy()[part],
                                         strict=True):  # fmt: skip
                    if marked:
                        patch.set(hatch=FLAG_HATCH, edgecolor=FLAG_COLOUR, linewidth=0.6)
            if style.hues_repeat:
                _foot_markers(ax, pos, style, config)
            if row == 0:
                handles.append(_bar_handle(bars, style, config))
            missing = np.isnan(heights)
            if missing.any():
                ax.plot(pos[missing], np.full(missing.sum(), 0.03), "x",
                        color=style.colour(config), markersize=6, mew=2,
                        transform=ax.get_xaxis_transform())  # fmt: skip
        if log:
            log_axis(ax, "y", np.concatenate([e.ravel() for e in extent]), below=below, above=1.3)
        if reference is not None:
            line = ax.axhline(reference[0], color="black", linewidth=1, linestyle="--")
            if row == 0:
                handles.append(line)
        ax.set_xticks(x, tick_labels[part], fontsize="small")
        ax.tick_params(axis="x", length=0, pad=2 * FOOT_PT + 1 if style.hues_repeat else 4)
        ax.set_xlim(-0.6, per_row - 0.4)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", which="major", alpha=0.3)
    any_missing = table[configs].isna().to_numpy().any()
    axes[-1].set_xlabel("graph   (x: no valid run)" if any_missing else "graph")
    blocks = has_block_sizes(frame)
    labels = configs + ([reference[1]] if reference is not None else [])
    if flagged is not None and (flagged & table.notna()).to_numpy().any():
        handles.append(_flag_patch())
        labels.append(FLAG_LABEL)
    add_legend(board, handles, labels, legend_title(blocks))
    return fit(board)


def _foot_markers(ax: Axes, pos: np.ndarray, style: Style, config: str) -> None:
    """The configuration's marker under each of its slots, below the axis: where hues
    repeat, it tells bars of one hue apart."""
    from matplotlib.transforms import ScaledTranslation

    below = ax.get_xaxis_transform() + ScaledTranslation(
        0, -FOOT_PT / 72, ax.figure.dpi_scale_trans
    )
    ax.plot(pos, np.zeros(pos.size), linestyle="none", marker=style.marker(config),
            markersize=3.6, color=style.colour(config), markeredgecolor=EDGE_COLOUR,
            markeredgewidth=0.4, transform=below, clip_on=False)  # fmt: skip


def _bar_handle(bars: object, style: Style, config: str) -> object:
    """A bar's legend entry: its colour, with its marker on it where hues repeat."""
    if not style.hues_repeat:
        return bars
    from matplotlib.lines import Line2D

    mark = Line2D([], [], linestyle="none", marker=style.marker(config), markersize=4.5,
                  color=style.colour(config), markeredgecolor=EDGE_COLOUR,
                  markeredgewidth=0.5)  # fmt: skip
    return (bars, mark)


def _flag_patch() -> Patch:
    """The legend entry of flagged bars: a white swatch, hatched and outlined as they are."""
    from matplotlib.patches import Patch

    return Patch(facecolor="white", edgecolor=FLAG_COLOUR, hatch=FLAG_HATCH, linewidth=0.6)


def graph_bounds(frame: pd.DataFrame) -> pd.DataFrame | None:
    """Per graph (index), ``bound`` (> 0) and ``kind`` (:data:`BOUND_KINDS`' keys: the
    summary's ``bound_kind``, :func:`gcbench.report.aggregate.graph_bounds`) for the graphs
    that have one; None when no graph has one (results older than the columns)."""
    bounds = frame[["graph", "bound", "bound_kind"]].rename(columns={"bound_kind": "kind"})
    bounds = bounds[bounds["bound"] > 0]
    if bounds.empty:
        return None
    return bounds.groupby("graph", sort=False).first()


def colors_figure(best: pd.DataFrame, style: Style) -> Figure:
    """Median colors per graph and configuration on a log axis, so a graph of 2 to 5 colors
    reads beside one of 150 to 171. Where some graph has a bound on χ
    (:func:`graph_bounds`), the bars are colors ÷ the bound, a dashed line at 1 marks the
    bound and each graph's label says which it is (``χ = 2`` published, ``χ ≥ 150`` by a
    clique found, ``Δ+1 = 9`` or ``max row = 12`` for a distance-2 problem (the style's);
    ``fewest 12`` where the graph has neither: ÷ the fewest colors of any configuration)."""
    bounds = graph_bounds(best)
    if bounds is None:
        return grouped_bars(best, "colors", style, log=True, title="Colors used per graph",
                            ylabel="colors (median, log scale)", below=1.6)  # fmt: skip
    fewest = best.groupby("graph", sort=False)["colors"].min()
    over = bounds["bound"].reindex(fewest.index).fillna(fewest)
    notes = {
        g: (BOUND_KINDS[bounds.loc[g, "kind"]] if g in bounds.index else "fewest {}").format(
            tick_text(float(over[g])) if pd.notna(over[g]) else "—"
        )
        for g in fewest.index
    }
    frame = best.assign(colors_over=best["colors"] / best["graph"].map(over))
    d1 = style.problem == DEFAULT_PROBLEM
    return grouped_bars(
        frame, "colors_over", style, log=True, below=1.3, notes=notes,
        caption=BOUND_CAPTION if d1 else BOUND_CAPTION_D2,
        reference=(1.0, "colors = the bound"),
        title="Colors used per graph, over the " + ("graph's bound on χ" if d1 else "lower bound"),
        ylabel="colors ÷ bound (median, log scale)",
    )  # fmt: skip


def _failures(summary: pd.DataFrame) -> str:
    """How the rows failed, for a figure left out: "24 error, 6 timeout"."""
    from gcbench.report.aggregate import FAILURES

    counts = [(int(summary[s].sum()), s) for s in FAILURES if summary[s].sum()]
    return ", ".join(f"{n} {s}" for n, s in counts) or "no ok row"


def _main_figures(
    best: pd.DataFrame, baseline: str | None, style: Style, missing: list[str]
) -> dict[str, Figure]:
    """Time, colors, the time-colors front, speedup and the performance profiles; appends to
    ``missing`` why a profile is left out. The speedup figure names the baseline in full
    (:func:`baseline_label`), wrapped where it is long."""
    from gcbench.report.aggregate import baseline_label, performance_ratios

    made = {
        "time": grouped_bars(best, "time_ms", style, log=True, timed=True, flags=True,
                             err=("time_ci_low_ms", "time_ci_high_ms"),
                             caption=interval_caption(
                                 bool(best["time_ci_low_ms"].notna().any()), "whiskers",
                                 "median"),
                             title="Median time per graph",
                             ylabel="median time (ms, log scale)"),
        "colors": colors_figure(best, style),
        "front": front_plot(best, style),
    }  # fmt: skip
    label = baseline_label(best, baseline)
    if label is not None and best["speedup"].notna().any():
        made["speedup"] = grouped_bars(
            best, "speedup", style, log=True, timed=True,
            reference=(1.0, f"{_wrapped(f'baseline: {label}', LEGEND_CHARS)}\n(speedup 1)"),
            mean_group="geo. mean", err=("speedup_ci_low", "speedup_ci_high"), flags=True,
            caption=interval_caption(  # the baseline's own 1–1 is no whisker
                bool((best["speedup_ci_low"] < best["speedup_ci_high"]).any()), "whiskers",
                "speedup"),
            title=_wrapped(f"Speedup over {label} (higher is better)", TITLE_CHARS),
            ylabel="speedup (×, log scale)",
        )  # fmt: skip
    blocks = has_block_sizes(best)
    for value, what in (("time_ms", "time"), ("colors", "colors")):
        ratios = performance_ratios(best, value)
        if len(ratios) < 2:
            missing.append(f"no {what} profile: it compares configurations across graphs,"
                           " and only one graph has a valid run")  # fmt: skip
        elif np.isfinite(ratios.to_numpy()).any(axis=0).sum() < 2:
            missing.append(f"no {what} profile: fewer than two configurations have a valid run")
        else:
            made[f"profile_{what}"] = profile_plot(
                ratios, style, what=what, graphs=best["graph"].nunique(), blocks=blocks
            )
    return made


def _wrapped(text: str, width: int) -> str:
    """``text`` broken at spaces into lines of about ``width`` characters; a configuration
    label, which has none, is never cut."""
    return textwrap.fill(text, width, break_long_words=False, break_on_hyphens=False)


def figures(
    summary: pd.DataFrame,
    best: pd.DataFrame,
    traces: pd.DataFrame | None,
    baseline: str | None,
    style: Style,
) -> tuple[dict[str, Figure], list[str]]:
    """Every figure the data supports, by file stem (``time``, ``profile_colors``, ...),
    and a line for each main figure left out, saying why: no figure is empty.

    ``best`` is each configuration at its fastest block size per graph. Every figure names
    a graph by its :func:`graph_labels` among all the summary's graphs. Each problem gets
    its own figures, so that no figure compares the times or colors of different problems:
    d1's by the stems above, a distance-2 problem's with its name after them (``time_d2``,
    ``profile_time_pd2-rows``), its subtitle naming it.
    """
    if not style.graphs:
        style = replace(style, graphs=graph_labels(list(dict.fromkeys(summary["graph"]))))
    problems = problem_parts(summary)
    if problems == [DEFAULT_PROBLEM]:
        return _problem_figures(summary, best, traces, baseline, style)
    made: dict[str, Figure] = {}
    missing: list[str] = []
    for problem in problems:
        part = summary[summary["problem"] == problem]
        figs, left_out = _problem_figures(
            part, best[best["problem"] == problem], _traces_of(traces, part, problem),
            baseline, replace(style, problem=problem),
        )  # fmt: skip
        suffix = "" if problem == DEFAULT_PROBLEM else f"_{problem}"
        made.update({f"{name}{suffix}": fig for name, fig in figs.items()})
        missing += [f"{problem}: {line}" for line in left_out]
    return made, missing


def _traces_of(
    traces: pd.DataFrame | None, part: pd.DataFrame, problem: str
) -> pd.DataFrame | None:
    """The trace rows of ``problem``: those that name it, and those that name none (a trace
    file without the column) whose algorithm and params ran it (``part``'s groups)."""
    if traces is None:
        return None
    ran = pd.MultiIndex.from_frame(part[["algorithm", "params"]])
    traced = pd.MultiIndex.from_frame(traces[["algorithm", "params"]])
    named = traces["problem"] == problem
    unnamed = (traces["problem"] == "") & traced.isin(ran)
    found = traces[named | unnamed]
    return None if found.empty else found


def _problem_figures(
    summary: pd.DataFrame,
    best: pd.DataFrame,
    traces: pd.DataFrame | None,
    baseline: str | None,
    style: Style,
) -> tuple[dict[str, Figure], list[str]]:
    """:func:`figures` of one problem's groups."""
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
