"""``gcbench report``: tables, speedups and plots from result CSVs (docs/architecture.md, "CSV
schema"; docs/report.md).

:func:`report` takes the command's arguments and returns a :class:`Report` of DataFrames;
nothing here prints. pandas, rich and matplotlib are imported only when a report is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from gcbench.errors import InputError
from gcbench.outputs import replaced, require_parent
from gcbench.report.defaults import DPI, DPI_RANGE, FORMATS, RESULTS_DIR

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import RenderableType


@dataclass(frozen=True)
class Report:
    """The aggregated results.

    ``rows``: every input row (typed; ``problem`` d1 where a file predates it).
    ``summary``: one row per graph × problem × algorithm × params × block size (statistics
    with 95 % intervals, status counts, flags, speedup and its interval, relative colors,
    throughput).
    ``means``: speedup means per group label across graphs. ``winners``: per case (graph,
    problem). ``block_sizes``: best/worst block size per graph × configuration swept.
    ``pareto``: per case. ``graphs``: per case, the graph's figure label, size, bounds and
    fewest colors against the bound.
    ``levels``: the ``--metrics levels`` figures per graph × group (empty without them).
    ``distance2``: per case of a distance-2 problem × configuration, colors against the
    lower bound, compression, recovery and speedup over the serial greedy (empty without
    such rows).
    ``host_shares``: per configuration whose GPU rows record it (schema v6), the median share
    of its time that was the host and its median blocking reads (empty without such rows).
    ``chi``: per graph × configuration, colors against the published χ and the bound;
    ``chi_means``: per configuration, colors ÷ χ over the graphs with one (both empty where
    no graph has a published χ).
    ``baseline``: the name speedups are over, as asked (or the default); ``baseline_label``
    names it in full (:func:`aggregate.baseline_label`).
    ``traces``: the sibling trace rows or None. ``timing``: what ``time_ms`` includes (one
    convention per report). ``where``: the devices, hosts and dates measured on.
    ``written``: files made under ``out`` (``summary.csv``, ``summary.md``, ``index.html``,
    the figures); ``plot_notes``: why a main figure was left out.
    """

    rows: pd.DataFrame
    summary: pd.DataFrame
    means: pd.DataFrame
    winners: pd.DataFrame
    block_sizes: pd.DataFrame
    pareto: pd.DataFrame
    graphs: pd.DataFrame
    levels: pd.DataFrame
    distance2: pd.DataFrame
    host_shares: pd.DataFrame
    chi: pd.DataFrame
    chi_means: pd.DataFrame
    traces: pd.DataFrame | None
    baseline: str | None
    sources: tuple[Path, ...]
    notes: tuple[str, ...]
    format: str
    timing: str
    where: str
    written: tuple[Path, ...] = ()
    plot_notes: tuple[str, ...] = ()

    @property
    def baseline_label(self) -> str | None:
        """The baseline's full configuration label(s), as headings name it."""
        from gcbench.report.aggregate import baseline_label

        return baseline_label(self.summary, self.baseline)

    def render(self) -> RenderableType | str:
        """The report in its ``format``: rich tables, or markdown / CSV text."""
        from gcbench.report import tables

        if self.format == "table":
            return tables.rich_tables(self)
        if self.format == "markdown":
            return tables.markdown(self)
        return tables.summary_csv(self.summary)


def report(
    csvs: Sequence[str | Path] = (),
    *,
    baseline: str | None = None,
    out: str | Path | None = None,
    format: str = "table",
    plot_formats: Sequence[str] = ("png",),
    dpi: int = DPI,
) -> Report:
    """Aggregate result CSVs (default: the newest in ``results/``) into a :class:`Report`.

    ``baseline`` names the algorithm (or configuration, or label) speedups are relative to;
    by default ``cusparse`` for results with GPU rows and ``greedy[order=ldf]`` for CPU-only
    ones, and none (no speedups, with a note) where the default is not in the results.
    ``out`` is a directory to receive ``summary.csv``, ``summary.md``, the figures, in each
    of ``plot_formats`` (``png``, ``svg``, ``pdf``; each item may be a comma list), PNGs at
    ``dpi``, and ``index.html``, every table and figure on one page.
    """
    from gcbench.report import aggregate, html_page, load, plots, tables

    if format not in FORMATS:
        raise InputError(f"unknown report format {format!r}; use one of {'|'.join(FORMATS)}")
    formats = plots.plot_formats(plot_formats)
    if not DPI_RANGE[0] <= dpi <= DPI_RANGE[1]:
        raise InputError(f"dpi {dpi} is out of range; use {DPI_RANGE[0]} to {DPI_RANGE[1]}")
    paths = tuple(Path(p) for p in csvs) or (load.newest_csv(RESULTS_DIR),)
    rows, notes = load.read_results(paths)
    summary = aggregate.summarise(rows)
    chosen, why = aggregate.choose_baseline(summary, baseline)
    notes.append(why)
    notes += aggregate.add_comparisons(summary, chosen)
    notes += aggregate.flag_notes(summary)
    notes += aggregate.bound_notes(summary)
    traces = load.read_traces(paths, notes)
    labels = plots.graph_labels(list(summary["graph"].unique()))  # the figures' names
    rep = Report(
        rows=rows,
        summary=summary,
        means=aggregate.speedup_means(summary),
        winners=aggregate.winners(summary),
        block_sizes=aggregate.best_block_sizes(summary),
        pareto=aggregate.pareto(summary),
        graphs=aggregate.graphs_table(summary, labels),
        levels=aggregate.levels_table(summary),
        distance2=aggregate.distance2_table(summary),
        host_shares=aggregate.host_shares(summary),
        chi=aggregate.chi_table(summary),
        chi_means=aggregate.chi_means(summary),
        traces=traces,
        baseline=chosen,
        sources=paths,
        notes=tuple(notes),
        format=format,
        timing=load.TIMING[bool(rows[load.COUNT_SETUP].any())],
        where=aggregate.provenance(rows),
    )
    if out is None:
        return rep
    directory = Path(out)
    require_parent(directory)
    try:
        directory.mkdir(exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create report directory {directory}: {exc.strerror}") from None
    best = aggregate.best_block_per_config(summary)
    colours = plots.palette(plots.in_order(summary["config"]))
    style = plots.Style(colours, rep.where, rep.timing, formats, dpi, graphs=labels)
    images, missing = plots.write_plots(summary, best, rep.traces, chosen, directory, style)
    rep = replace(rep, plot_notes=tuple(missing))
    md, page = directory / "summary.md", directory / "index.html"
    names = [p.name for p in images]
    texts = {directory / "summary.csv": tables.summary_csv(summary),
             md: tables.markdown(rep, names),
             page: html_page.page(rep, names, directory, dpi)}  # fmt: skip
    for path, text in texts.items():
        with replaced(path) as partial:
            partial.write_text(text, encoding="utf-8")
    return replace(rep, written=(directory / "summary.csv", md, page, *images))


__all__ = ["DPI", "FORMATS", "Report", "report"]
