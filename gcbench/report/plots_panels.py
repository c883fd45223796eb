"""Report figures of lines and panels: the performance profiles, time vs block size, time
against colors and their Pareto front, the per-round traces and the color class sizes
(:mod:`gcbench.report.plots` draws the bars and chooses which figures a report gets)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from gcbench.bench.results import CLASS_SIZE_SERIES
from gcbench.report.aggregate import has_block_sizes, suspect
from gcbench.report.defaults import CLIQUE, DELTA_1, KNOWN, MAX_ROW, PROBLEM_BOUNDS
from gcbench.report.plots_style import (
    BOUND_KINDS,
    CHAR_IN,
    EDGE_COLOUR,
    FLAG_COLOUR,
    FLAG_LABEL,
    MAX_WIDTH_IN,
    PANEL_IN,
    Canvas,
    Style,
    add_legend,
    canvas,
    fit,
    in_order,
    interval_caption,
    legend_title,
    legend_width_in,
    log_axis,
    panel_grid,
    set_log_ticks,
    tau_ticks,
    tick_text,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

PROFILE_IN = (6.4, 4.4)  # the plot area of a performance profile
PROFILE_MARKS = 4  # markers along each profile curve, staggered between configurations
PANEL_MANY_IN = 3.0  # height of each panel from four rows of them on
PANEL_NARROW_IN = 2.6  # the least width of a panel of a column per trace series
BALANCE_PANEL_IN = (3.6, 2.8)  # width of a graph's panel of class sizes, and the least
BALANCE_ROW_IN = 0.15  # height of one configuration's row there
MEAN_COLOUR = "0.1"  # the mean class size's tick on each bar
FRONT_COLOUR = "black"  # the Pareto front's step line and the rings round its points
FRONT_LABEL = "Pareto front (medians)"
FRONT_CAPTION = (
    "ringed and joined: the Pareto front, on medians (no other configuration is no slower"
    " and uses no more colors; intervals not used)"
)
# The horizontal lines of the front figure, per bound kind: the column that holds the value,
# the legend entry, the look (neither solid: a solid black line is the front; χ over the
# lower bound where they coincide).
LOWER_LOOK = {"color": "0.5", "linestyle": "--", "zorder": 1}
FRONT_LINES = {
    KNOWN: ("chi_known", "published χ", {"color": "0.2", "linestyle": "-.", "zorder": 1.5}),
    CLIQUE: ("chi_lower", "lower bound: a clique found", LOWER_LOOK),
    DELTA_1: ("chi_lower", "lower bound: Δ+1", LOWER_LOOK),
    MAX_ROW: ("chi_lower", "lower bound: the largest row", LOWER_LOOK),
}


def _line_handle(style: Style, config: str) -> object:
    """A legend entry showing the configuration's colour, line style and marker."""
    from matplotlib.lines import Line2D

    return Line2D([], [], markersize=5, **style.line(config))


def _panel_figure(
    count: int, labels: Sequence[str], titles: tuple[str, str], grid: tuple[int, int] | None = None
) -> tuple[Canvas, np.ndarray]:
    """A figure of ``count`` panels (or a ``grid`` of rows × columns), at most
    ``MAX_WIDTH_IN`` wide with the legend of ``labels`` at the right."""
    side = legend_width_in(labels)
    if grid is None:
        rows, cols, width = panel_grid(count, side)
    else:  # a column per series: narrower panels rather than a wider figure
        rows, cols = grid
        width = min(PANEL_IN[0], max(PANEL_NARROW_IN, (MAX_WIDTH_IN - side - 0.4) / cols))
    height = PANEL_IN[1] if rows <= 3 else PANEL_MANY_IN
    board = canvas((cols * width + side + 0.4, rows * height + 1.0), *titles)
    return board, board.body.subplots(rows, cols, squeeze=False)


def _risers(ratios: np.ndarray) -> np.ndarray:
    """Where a profile curve's markers go: the τ of its first and last steps (where it
    leaves 0 and where it reaches its top) and, between them, steps spread evenly, at most
    ``PROFILE_MARKS`` in all."""
    steps = np.unique(ratios[np.isfinite(ratios)])
    if steps.size <= PROFILE_MARKS:
        return steps
    return steps[np.unique(np.linspace(0, steps.size - 1, PROFILE_MARKS).round().astype(int))]


def profile_plot(
    ratios: pd.DataFrame, style: Style, *, what: str, graphs: int, blocks: bool = False
) -> Figure:
    """The performance profile of ``ratios`` (graph × configuration, from
    :func:`~gcbench.report.aggregate.performance_ratios`): ρ(τ), the fraction of graphs on
    which a configuration's ``what`` is within a factor τ of the best, as a step line per
    configuration over τ on a log axis (1, 2, 5, 10, ...), in the configuration's colour and
    line style, with its marker at a few places staggered between configurations, so curves
    that run together (every one that reaches 1 ends there) stay told apart. Lines are not
    clipped at the frame, whose top and right sides are left out. A configuration's curve
    tops out at the fraction of graphs it has a valid run on. ``graphs``: how many the
    results hold (those where no configuration has a valid run are not in ``ratios``: the y
    label says so). ``blocks``: some configuration has block sizes (the legend says which
    one counts)."""
    from gcbench.report.aggregate import performance_profile

    values = ratios.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    top = max(float(finite.max()) * 1.15, 2.0)
    taus = np.unique(np.concatenate([[1.0], finite, [top]]))
    rho = performance_profile(ratios, taus)
    configs = in_order(ratios.columns)
    board = canvas(
        (PROFILE_IN[0] + legend_width_in(configs), PROFILE_IN[1] + 0.8),
        f"Performance profile: {what} (Dolan & Moré 2002)",
        style.subtitle(timed=what == "time"),
    )
    ax = board.body.subplots()
    handles = []
    for config in configs:
        look = style.line(config)
        marker = look.pop("marker")
        ax.step(taus, rho[config], where="post", clip_on=False, zorder=3, **look)
        spots = _risers(ratios[config].to_numpy(dtype=float))
        at = performance_profile(ratios[[config]], spots)[config]
        ax.plot(spots, at, linestyle="none", marker=marker, markersize=5, clip_on=False,
                zorder=4, color=look["color"], markeredgecolor=EDGE_COLOUR,
                markeredgewidth=0.5)  # fmt: skip
        handles.append(_line_handle(style, config))
    ax.set_xscale("log")
    ax.set_xlim(1.0, top)
    set_log_ticks(ax, "x", *tau_ticks(top))
    ax.set_ylim(-0.03, 1.05)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_xlabel(f"τ: {what} within a factor τ of the best configuration's on the graph")
    left_out = graphs - len(ratios)
    ax.set_ylabel(f"fraction of graphs ({len(ratios)} in all"
                  + (f"; {left_out} with no valid run left out)" if left_out else ")"))  # fmt: skip
    ax.grid(alpha=0.3)
    add_legend(board, handles, configs, legend_title(blocks))
    return fit(board)


def block_size_sweep(summary: pd.DataFrame, style: Style) -> Figure | None:
    """Median time vs block size, a line per configuration run at several block sizes on
    the graph (those run at one are in the bar plots), a panel per graph that has one.

    Written only when some configuration ran at several block sizes on a graph.
    """
    from matplotlib.ticker import NullLocator

    gpu = summary.dropna(subset=["block_size", "time_ms"])
    if gpu.empty or gpu.groupby(["graph", "config"])["block_size"].nunique().max() < 2:
        return None
    sizes = sorted(gpu["block_size"].unique())
    gpu = gpu[gpu.groupby(["graph", "config"])["block_size"].transform("nunique") > 1]
    graphs = list(dict.fromkeys(gpu["graph"]))
    configs = in_order(gpu["config"])
    style = style.naming(graphs)
    band = interval_caption(bool(gpu["time_ci_low_ms"].notna().any()), "band", "median")
    board, axes = _panel_figure(
        len(graphs), configs, ("Time vs block size", style.subtitle(timed=True, caption=band))
    )
    handles: dict[str, object] = {}
    for ax, graph in zip(axes.flat, graphs, strict=False):
        part = gpu[gpu["graph"] == graph].sort_values("block_size")
        for config, line in part.groupby("config"):
            ax.plot(line["block_size"].astype(float), line["time_ms"], markersize=4,
                    **style.line(config))  # fmt: skip
            ax.fill_between(line["block_size"].astype(float), line["time_ci_low_ms"],
                            line["time_ci_high_ms"], color=style.colour(config),
                            alpha=0.15)  # fmt: skip
            handles[config] = _line_handle(style, config)
        marked = part[suspect(part["flags"])]
        if not marked.empty:
            (handles[FLAG_LABEL],) = ax.plot(marked["block_size"].astype(float),
                                             marked["time_ms"], "o", markersize=8, mfc="none",
                                             mec=FLAG_COLOUR, mew=1.2)  # fmt: skip
        ax.set_xscale("log", base=2)
        log_axis(ax, "y", part[["time_ms", "time_ci_low_ms", "time_ci_high_ms"]].to_numpy())
        ax.set_xticks([float(s) for s in sizes], [str(s) for s in sizes], fontsize="small")
        ax.xaxis.set_minor_locator(NullLocator())
        ax.margins(x=0.08)
        ax.set_title(style.graph_label(graph), fontsize="medium")
        ax.set_xlabel("block size (threads)")
        ax.set_ylabel("median time (ms)")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(graphs) :]:
        ax.set_visible(False)
    names = [c for c in [*configs, FLAG_LABEL] if c in handles]
    add_legend(board, [handles[c] for c in names], names, "configuration")
    return fit(board)


def front_plot(best: pd.DataFrame, style: Style) -> Figure:
    """Median time (x, log scale; whiskers: its 95 % interval where there is one) against
    median colors (y), a point per configuration in its look (``best``: at its fastest
    block size), a panel per graph with a valid run. The graph's published χ and its lower
    bound (a clique found; a distance-2 problem's own) are horizontal lines, their values
    in the panel's title; the Pareto front of the medians
    (:func:`~gcbench.report.aggregate.pareto_mask`) is ringed and joined by a step line,
    which reads as the fewest colors any configuration reached within a time."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    from gcbench.report.aggregate import pareto_mask

    data = best.dropna(subset=["time_ms", "colors"])
    data = data.assign(front=pareto_mask(data))
    graphs = list(dict.fromkeys(data["graph"]))
    style = style.naming(graphs)
    configs = in_order(data["config"])
    kinds = (KNOWN, PROBLEM_BOUNDS.get(style.problem, CLIQUE))
    names = [FRONT_LABEL, *(FRONT_LINES[k][1] for k in kinds)]
    drawn = bool(data["time_ci_low_ms"].notna().any())
    caption = interval_caption(drawn, "whiskers", "median") + "\n" + FRONT_CAPTION
    titles = ("Time against colors: the Pareto front", style.subtitle(True, caption))
    board, axes = _panel_figure(len(graphs), [*configs, *names], titles)
    handles: dict[str, object] = {FRONT_LABEL: Line2D(
        [], [], color=FRONT_COLOUR, linewidth=1, marker="o", markersize=9, mfc="none",
        mec=FRONT_COLOUR)}  # fmt: skip
    for ax, graph in zip(axes.flat, graphs, strict=False):
        part = data[data["graph"] == graph]
        t, colors = part["time_ms"].to_numpy(float), part["colors"].to_numpy(float)
        low = part["time_ci_low_ms"].to_numpy(float)
        high = part["time_ci_high_ms"].to_numpy(float)
        for config, x, y, lo, hi in zip(part["config"], t, colors, low, high, strict=True):
            look = {**style.line(config), "linestyle": "none"}
            if not np.isnan(lo):
                ax.errorbar([x], [y], xerr=[[x - lo], [hi - x]], fmt="none", zorder=2,
                            ecolor=look["color"], elinewidth=0.8, capsize=2)  # fmt: skip
            (handles[config],) = ax.plot([x], [y], markersize=6, zorder=3, **look)
        front = part[part["front"]].sort_values(["time_ms", "colors"])
        ax.step(front["time_ms"], front["colors"], where="post", color=FRONT_COLOUR,
                linewidth=1, zorder=2)  # fmt: skip
        ax.plot(front["time_ms"], front["colors"], "o", markersize=11, mfc="none",
                mec=FRONT_COLOUR, mew=1, zorder=4)  # fmt: skip
        levels, heads = [colors], [style.graph_label(graph)]
        for kind in kinds:
            column, name, look = FRONT_LINES[kind]
            value = part[column].max()
            if pd.notna(value):
                handles[name] = ax.axhline(value, linewidth=1.2, **look)
                levels.append(np.array([value]))
                heads.append(BOUND_KINDS[kind].format(tick_text(float(value))))
        log_axis(ax, "x", np.concatenate([t, low, high]), below=1.5, above=1.5)
        span = np.concatenate(levels)
        pad = max(0.6, 0.08 * float(span.max() - span.min()))
        ax.set_ylim(float(span.min()) - pad, float(span.max()) + pad)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(heads[0] + ("\n" + " · ".join(heads[1:]) if heads[1:] else ""),
                     fontsize="medium")  # fmt: skip
        ax.set_xlabel("median time (ms, log scale)")
        ax.set_ylabel("colors (median)")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(graphs) :]:
        ax.set_visible(False)
    shown = [c for c in [*configs, *names] if c in handles]
    add_legend(board, [handles[c] for c in shown], shown, legend_title(has_block_sizes(data)))
    return fit(board)


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
    style = style.naming(graphs)
    configs = in_order(t["config"])
    titles = ("Per-round trace (first repetition)", style.subtitle(timed=False))
    if len(series) == 1:
        board, axes = _panel_figure(len(graphs), configs, titles)
        cols = axes.shape[1]
        where = {(g, series[0]): divmod(i, cols) for i, g in enumerate(graphs)}
    else:
        board, axes = _panel_figure(0, configs, titles, grid=(len(graphs), len(series)))
        where = {(g, s): (i, j) for i, g in enumerate(graphs) for j, s in enumerate(series)}
    for ax in axes.flat:
        ax.set_visible(False)
    handles: dict[str, object] = {}
    for (graph, name), part in t.groupby(["graph", "series"], sort=False):
        ax = axes[where[graph, name]]
        ax.set_visible(True)
        for config, line in part.groupby("config"):
            look = style.line(config)
            ax.plot(line["round"], line["active"], markersize=4,
                    markevery=max(1, len(line) // 12), **look)  # fmt: skip
            handles[config] = _line_handle(style, config)
        if (part["active"] > 0).any():
            log_axis(ax, "y", part["active"].to_numpy(), below=1.3, above=1.3)
        ax.set_title(f"{style.graph_label(graph)}: {name}", fontsize="medium")
        ax.set_xlabel("round")
        ax.set_ylabel(f"{name} ({series_unit(name)})")
        ax.grid(alpha=0.3)
    names = [c for c in configs if c in handles]
    blocks = has_block_sizes(t)
    add_legend(board, [handles[c] for c in names], names, legend_title(blocks))
    return fit(board)


def series_unit(name: str) -> str:
    """The unit of a trace series by its name: ``*_ms`` are times (``reduce_ms``, ``tabu_ms``),
    the rest counts (``active``, ``edges``, ``tabu_colors``)."""
    return "ms" if name.endswith("_ms") else "count"


def _class_dots(traces: pd.DataFrame | None, best: pd.DataFrame) -> dict:
    """(graph, configuration) → every class's size, largest first, where a trace holds them
    (``--trace``)."""
    from gcbench.report.aggregate import trace_lines

    if traces is None:
        return {}
    t = trace_lines(traces, best)
    t = t[t["series"] == CLASS_SIZE_SERIES]
    return {key: part["active"].to_numpy(float) for key, part in t.groupby(["graph", "config"])}


def class_balance(best: pd.DataFrame, traces: pd.DataFrame | None, style: Style) -> Figure | None:
    """Color class sizes, a panel per graph (log x), a row per configuration named in full
    at the left (its label as the tables write it, never cut): a bar from the smallest to
    the largest class (medians over the ok repetitions), a tick at the mean size n / colors,
    and, where the trace holds them (``--trace``), every class's size as a dot, largest at
    the top of the row. The class sizes' coefficient of variation (``class_cv``) is written
    at the right of each row. Panels wrap so the figure is at most ``MAX_WIDTH_IN`` wide
    where the labels leave room for one panel. None when no row has class sizes (results
    older than the columns)."""
    from matplotlib.transforms import blended_transform_factory

    from gcbench.report.tables import ratio

    data = best.dropna(subset=["min_class", "max_class", "colors", "n"])
    data = data[data["colors"] > 0]
    if data.empty:
        return None
    dots = _class_dots(traces, best)
    graphs = list(dict.fromkeys(data["graph"]))
    style = style.naming(graphs)
    configs = in_order(data["config"])
    side = CHAR_IN * max(len(c) for c in configs) + 0.3
    rows, cols, width = panel_grid(len(graphs), side, *BALANCE_PANEL_IN, most=4)
    drawn = any(key in dots for key in zip(data["graph"], data["config"], strict=True))
    parts = ["bar: smallest to largest class", "tick: mean n / colors",
             *(["dots: every class"] if drawn else []), "right: CV of the class sizes"]  # fmt: skip
    blocks = has_block_sizes(data)
    caption = " · ".join(parts) + (" · GPU: at its best block size" if blocks else "")
    height = rows * (0.7 + BALANCE_ROW_IN * len(configs)) + 1.0
    board = canvas((side + cols * width + 0.4, height), "Color class sizes",
                   style.subtitle(timed=False, caption=caption))  # fmt: skip
    axes = board.body.subplots(rows, cols, sharey=True, squeeze=False)
    for ax, graph in zip(axes.flat, graphs, strict=False):
        _balance_panel(ax, data[data["graph"] == graph].set_index("config"), configs,
                       dots, graph, style)  # fmt: skip
        right = blended_transform_factory(ax.transAxes, ax.transData)
        part = data[data["graph"] == graph].set_index("config")
        for y, config in enumerate(configs):
            if config in part.index:
                ax.text(1.02, y, ratio(part.loc[config, "class_cv"]), transform=right,
                        ha="left", va="center", fontsize="x-small", clip_on=False)  # fmt: skip
        ax.text(1.02, 1.0, "CV", transform=ax.transAxes, ha="left", va="bottom",
                fontsize="x-small", color="0.3")  # fmt: skip
    axes[0, 0].set_yticks(range(len(configs)), configs)
    axes[0, 0].set_ylim(len(configs) - 0.5, -0.5)
    for ax in axes.flat:
        ax.tick_params(axis="y", labelsize="small", length=0)
    for ax in axes.flat[len(graphs) :]:
        ax.set_visible(False)
    board.body.supxlabel("class size (vertices, log scale)", fontsize="medium")
    return fit(board)


def _balance_panel(
    ax: Axes, part: pd.DataFrame, configs: list[str], dots: dict, graph: str, style: Style
) -> None:
    """One graph's class sizes: a row per configuration of ``configs`` it has."""
    values = [part["min_class"].to_numpy(float), part["max_class"].to_numpy(float)]
    for y, config in enumerate(configs):
        if config not in part.index:
            continue
        row, colour = part.loc[config], style.colour(config)
        ax.hlines(y, row["min_class"], row["max_class"], color=colour, linewidth=6, alpha=0.7)
        ax.plot([row["n"] / row["colors"]], [y], "|", color=MEAN_COLOUR, markersize=10, mew=2)
        sizes = dots.get((graph, config))
        if sizes is not None:  # the trace keeps series of two values or more
            ax.plot(sizes, y + np.linspace(-0.3, 0.3, sizes.size), ".", color=colour,
                    markersize=3)  # fmt: skip
            values.append(sizes)
    log_axis(ax, "x", np.concatenate(values), below=1.5, above=1.5)
    ax.set_title(style.graph_label(graph), fontsize="medium")
    ax.grid(axis="x", alpha=0.3)
    ax.tick_params(axis="x", labelsize="small")
