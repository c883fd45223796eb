"""PNG plots of a report (matplotlib, Agg canvas, no pyplot state).

Bar plots show one bar per configuration (algorithm + params) at its fastest block size on
each graph; the block-size plot shows the rest. A configuration with no valid run on a graph
is marked with an ``x`` at the foot of its slot instead of a bar.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

DPI = 100
LEGEND_ROWS = 22  # legend entries per column before a second column starts
ROW_WIDTH_IN = 14.0  # plot area of one row of bar clusters
PANEL_IN = (4.4, 3.6)  # one panel of the block-size and trace plots


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
    return legend_columns(len(labels)) * (0.6 + 0.075 * longest)


def bar_layout(
    groups: int, bars: int, labels: Sequence[str]
) -> tuple[int, int, tuple[float, float]]:
    """(groups per row, rows, figure size in inches) for clusters of ``bars`` bars.

    Clusters wrap onto further rows so no figure is wider than ``ROW_WIDTH_IN`` of plot area
    plus the legend at the right.
    """
    group_in = max(1.3, 0.22 * bars + 0.35)
    per_row = max(1, min(groups, int(ROW_WIDTH_IN // group_in)))
    rows = math.ceil(groups / per_row)
    width = 1.2 + per_row * group_in + legend_width_in(labels)
    legend_in = 0.24 * min(len(labels), LEGEND_ROWS) + 1.6
    height = max(4.8, legend_in, 0.9 + 3.6 * rows)
    return per_row, rows, (round(width, 2), round(height, 2))


def _figure(size: tuple[float, float]) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=size, dpi=DPI, layout="constrained")


def _legend(fig: Figure, handles: list, labels: list[str], title: str) -> None:
    fig.legend(handles, labels, title=title, loc="outside right upper",
               ncols=legend_columns(len(labels)), fontsize="small", frameon=False)  # fmt: skip


def tick_text(x: float) -> str:
    """A tick value as plain text: 0.3, 40, 2k, 10M."""
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:g}{suffix}"
    return f"{x:g}"


def _log_y(ax: Axes) -> None:
    """Log y axis with plain numbers (40, 0.3) rather than 4×10¹ on its tick labels.

    matplotlib's LogFormatter still decides which ticks get a label.
    """
    from matplotlib.ticker import LogFormatter

    class Plain(LogFormatter):
        def __call__(self, x: float, pos: int | None = None) -> str:
            return tick_text(x) if super().__call__(x, pos) else ""

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(Plain(labelOnlyBase=False))
    ax.yaxis.set_minor_formatter(Plain(labelOnlyBase=False, minor_thresholds=(1, 0.4)))


def _save(fig: Figure, path: Path) -> Path:
    fig.savefig(path, dpi=DPI, facecolor="white")
    return path


def grouped_bars(
    frame: pd.DataFrame,
    value: str,
    path: Path,
    *,
    colours: dict[str, tuple[float, ...]],
    title: str,
    ylabel: str,
    log: bool,
    err: tuple[str, str] | None = None,
    reference: tuple[float, str] | None = None,
    mean_group: str | None = None,
) -> Path:
    """Bars of ``value`` per graph (x) and configuration (colour), saved to ``path``.

    ``err`` names low/high columns drawn as error bars; ``reference`` draws a labelled
    horizontal line; ``mean_group`` appends a group holding each configuration's geometric
    mean over graphs under that name.
    """
    graphs = list(dict.fromkeys(frame["graph"]))
    configs = sorted(frame["config"].unique())
    table = frame.pivot_table(index="graph", columns="config", values=value, aggfunc="first")
    table = table.reindex(index=graphs, columns=configs)
    ticks = graph_labels(graphs)
    tick_labels = [ticks[g] for g in graphs]
    if mean_group is not None:
        table.loc[mean_group] = np.exp(np.log(table).mean(skipna=True))
        tick_labels.append(mean_group)
    per_row, rows, size = bar_layout(len(table), len(configs), configs)
    fig = _figure(size)
    axes = fig.subplots(rows, 1, sharey=True, squeeze=False)[:, 0]
    lows, highs = (
        [frame.pivot_table(index="graph", columns="config", values=c, aggfunc="first")
         .reindex(index=table.index, columns=configs) for c in err]
        if err is not None else (None, None)
    )  # fmt: skip
    width = 0.8 / len(configs)
    handles = []
    for row, ax in enumerate(axes):
        part = slice(row * per_row, (row + 1) * per_row)
        x = np.arange(len(table.index[part]))
        for i, config in enumerate(configs):
            pos = x - 0.4 + width * (i + 0.5)
            heights = table[config].to_numpy(dtype=float)[part]
            yerr = None
            if lows is not None:
                lo = lows[config].to_numpy(dtype=float)[part]
                hi = highs[config].to_numpy(dtype=float)[part]
                yerr = np.abs(np.vstack([heights - lo, hi - heights]))
            bars = ax.bar(pos, heights, width, yerr=yerr, color=colours[config],
                          error_kw={"elinewidth": 0.8, "capsize": 1.5})  # fmt: skip
            if row == 0:
                handles.append(bars)
            missing = np.isnan(heights)
            if missing.any():
                ax.plot(pos[missing], np.full(missing.sum(), 0.03), "x", color=colours[config],
                        markersize=7, mew=2, transform=ax.get_xaxis_transform())  # fmt: skip
        if log:
            _log_y(ax)
        if reference is not None:
            ax.axhline(reference[0], color="black", linewidth=1, linestyle="--")
            ax.annotate(reference[1], (0.0, reference[0]), xycoords=("axes fraction", "data"),
                        xytext=(4, 3), textcoords="offset points", fontsize="small")  # fmt: skip
        ax.set_xticks(x, tick_labels[part], fontsize="small")
        ax.set_xlim(-0.6, per_row - 0.4)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", which="major", alpha=0.3)
    fig.suptitle(title)
    any_missing = table[configs].isna().to_numpy().any()
    axes[-1].set_xlabel("graph   (x: no valid run)" if any_missing else "graph")
    swept = frame["block_size"].notna().any() if "block_size" in frame else False
    _legend(fig, handles, configs, "configuration" + ("\n(GPU: best block size)" if swept else ""))
    return _save(fig, path)


def _wrapped(count: int) -> tuple[int, int]:
    """(rows, columns) for ``count`` panels, three to a row."""
    cols = min(3, count)
    return math.ceil(count / cols), cols


def _panel_figure(
    rows: int, cols: int, labels: Sequence[str], panel_in: tuple[float, float]
) -> tuple[Figure, np.ndarray]:
    """A figure with a ``rows`` × ``cols`` grid of axes and room for a legend at the right."""
    size = (cols * panel_in[0] + legend_width_in(labels) + 0.4, rows * panel_in[1] + 0.6)
    fig = _figure((round(size[0], 2), round(size[1], 2)))
    return fig, fig.subplots(rows, cols, squeeze=False)


def block_size_sweep(
    summary: pd.DataFrame, path: Path, colours: dict[str, tuple[float, ...]]
) -> Path | None:
    """Median time vs block size, a line per configuration, a panel per graph.

    Written only when some configuration ran at several block sizes on a graph.
    """
    from matplotlib.ticker import NullLocator

    gpu = summary.dropna(subset=["block_size", "time_ms"])
    if gpu.empty or gpu.groupby(["graph", "config"])["block_size"].nunique().max() < 2:
        return None
    graphs = list(dict.fromkeys(gpu["graph"]))
    configs = sorted(gpu["config"].unique())
    titles = graph_labels(graphs, width=40)
    fig, axes = _panel_figure(*_wrapped(len(graphs)), configs, PANEL_IN)
    handles: dict[str, object] = {}
    sizes = sorted(gpu["block_size"].unique())
    for ax, graph in zip(axes.flat, graphs, strict=False):
        part = gpu[gpu["graph"] == graph].sort_values("block_size")
        for config, line in part.groupby("config"):
            (handles[config],) = ax.plot(line["block_size"].astype(float), line["time_ms"], "o-",
                                         color=colours[config], markersize=4)  # fmt: skip
            ax.fill_between(line["block_size"].astype(float), line["time_q1_ms"],
                            line["time_q3_ms"], color=colours[config], alpha=0.15)  # fmt: skip
        ax.set_xscale("log", base=2)
        _log_y(ax)
        ax.set_xticks([float(s) for s in sizes], [str(s) for s in sizes], fontsize="small")
        ax.xaxis.set_minor_locator(NullLocator())
        ax.margins(x=0.08)
        ax.set_title(titles[graph].replace("\n", " "), fontsize="medium")
        ax.set_xlabel("block size (threads)")
        ax.set_ylabel("median time (ms)")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(graphs) :]:
        ax.set_visible(False)
    fig.suptitle("Time vs block size (band: interquartile range)")
    names = [c for c in configs if c in handles]
    _legend(fig, [handles[c] for c in names], names, "configuration")
    return _save(fig, path)


def trace_curves(
    traces: pd.DataFrame,
    best: pd.DataFrame,
    path: Path,
    colours: dict[str, tuple[float, ...]],
) -> Path | None:
    """Per-round trace values (e.g. vertices still active), one line per configuration
    (:func:`~gcbench.report.aggregate.trace_lines`): a row of panels per graph and a column
    per series, or, with a single series, the graphs' panels three to a row. None when no
    trace has two rounds or more."""
    from gcbench.report.aggregate import trace_lines

    t = trace_lines(traces, best)
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
    configs = sorted(t["config"].unique())
    titles = graph_labels(graphs, width=40)
    fig, axes = _panel_figure(rows, cols, configs, PANEL_IN)
    for ax in axes.flat:
        ax.set_visible(False)
    handles: dict[str, object] = {}
    for (graph, name), part in t.groupby(["graph", "series"], sort=False):
        ax = axes[where[graph, name]]
        ax.set_visible(True)
        for config, line in part.groupby("config"):
            (handles[config],) = ax.plot(line["round"], line["active"], ".-",
                                         color=colours.get(config), markersize=3)  # fmt: skip
        if (part["active"] > 0).any():
            _log_y(ax)
        ax.set_title(f"{titles[graph].replace(chr(10), ' ')}: {name}", fontsize="medium")
        ax.set_xlabel("round")
        ax.set_ylabel(f"{name} (count)")
        ax.grid(alpha=0.3)
    fig.suptitle("Per-round trace (first repetition)")
    names = [c for c in configs if c in handles]
    swept = t["block_size"].notna().any()
    title = "configuration" + ("\n(GPU: best block size)" if swept else "")
    _legend(fig, [handles[c] for c in names], names, title)
    return _save(fig, path)


def write_plots(
    summary: pd.DataFrame,
    best: pd.DataFrame,
    traces: pd.DataFrame | None,
    baseline: str | None,
    out: Path,
) -> list[Path]:
    """Every plot the data supports, as PNGs in ``out``; returns the paths written.

    ``best`` is each configuration at its fastest block size per graph.
    """
    colours = palette(sorted(summary["config"].unique()))
    written = [
        grouped_bars(best, "time_ms", out / "time.png", colours=colours, log=True,
                     err=("time_q1_ms", "time_q3_ms"),
                     title="Median time per graph (whiskers: interquartile range)",
                     ylabel="median time (ms, log scale)"),
        grouped_bars(best, "colors", out / "colors.png", colours=colours, log=False,
                     title="Colors used per graph", ylabel="colors (median)"),
    ]  # fmt: skip
    if baseline is not None and best["speedup"].notna().any():
        written.append(
            grouped_bars(
                best,
                "speedup",
                out / "speedup.png",
                colours=colours,
                log=True,
                reference=(1.0, f"baseline: {baseline}"),
                mean_group="geo. mean",
                title=f"Speedup over {baseline} (higher is better)",
                ylabel="speedup (×, log scale)",
            )  # fmt: skip
        )
    sweep = block_size_sweep(summary, out / "block_sizes.png", colours)
    if sweep is not None:
        written.append(sweep)
    rounds = best[best.groupby("config")["iterations"].transform("count") > 0]
    if not rounds.empty:
        spread = rounds["iterations"].max() / max(rounds["iterations"].min(), 1)
        written.append(
            grouped_bars(rounds, "iterations", out / "rounds.png", colours=colours,
                         log=bool(spread > 30),
                         title="Rounds per algorithm (iterations column)",
                         ylabel="rounds (median)" + (", log scale" if spread > 30 else ""))
        )  # fmt: skip
    if traces is not None and (curves := trace_curves(traces, best, out / "trace.png", colours)):
        written.append(curves)
    return written
