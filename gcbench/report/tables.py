"""Report tables as display sections, rendered for rich, markdown or CSV.

Each section is a title and a frame of display strings, so the terminal and markdown show the
same numbers; CSV output is the raw per-group summary (full precision). Every table is of
times (or of ratios of times) and carries the report's timing convention as its caption.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

import pandas as pd

from gcbench.bench.results import is_suspect
from gcbench.grammar import DEFAULT_PROBLEM
from gcbench.report.aggregate import (
    CASE,
    config_gaps,
    gpu_rows,
    has_block_sizes,
    has_distance2,
    suspect,
)
from gcbench.report.defaults import PROBLEM_BOUNDS

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
    from rich.table import Table

    from gcbench.report import Report

MISSING = "—"
ERROR_CHARS = 60
NOTE_WIDTH = 32
UNBOUNDED = 10_000  # console width used to measure a table's natural width
# Columns a narrow terminal leaves out, first to last.
DROP_ORDER = ["Medge/s", "transfer ms", "its time ms", "worst ms", "speedup CI", "class CV",
              "vs greedy CI", "Mvert/s", "harm. mean", "min", "max", "rounds", "colors/best",
              "colors/best geo. mean", "degeneracy + 1", "m", "nets", "over bound", "CI ms",
              "tried", "colors/bound", "bound", "colors/χ max"]  # fmt: skip
NEAR = "≈"  # marks a time not told apart from the fastest on its graph
FLAGGED = "†"  # marks a time measured under a suspect flag (any but floor)
NEAR_SHOWN = 2  # groups named beside the fastest in the winners, at most
CI_LEGEND = (
    "CI: 95 % confidence interval of the median time, or of the speedup (docs/statistics.md);"
    f" {MISSING} where there are too few ok repetitions for one"
)
CI_TIME_LEGEND = CI_LEGEND.replace(", or of the speedup", "")  # a table without speedups
NEAR_LEGEND = (
    f"{NEAR}: its interval overlaps the fastest's on the graph: not told apart from the fastest"
)
FLAG_LEGEND = f"{FLAGGED}: flagged, its times are suspect (the note names the flags)"
AT_BOUND = "✓"  # marks colors equal to the graph's bound: provably optimal
BELOW_BOUND = "!"  # marks colors below the graph's bound: the bound or the coloring is wrong
BOUND_LEGEND = (
    "over bound: median colors minus the graph's bound (χ where its source publishes it, else"
    f" the size of a clique found in it, a lower bound on χ); {AT_BOUND}: at the bound,"
    " provably optimal"
)
BOUND_LEGEND_D2 = (
    "over bound: median colors minus the problem's lower bound (Δ+1 for d2: a vertex and its"
    " neighbours all differ; the largest row count for pd2 and pd2-rows: the columns of a row"
    f" all differ); {AT_BOUND}: at the bound, provably optimal"
)
BELOW_LEGEND = f"{BELOW_BOUND}: below the bound, which a valid coloring never is (see the notes)"
GRAPHS_LEGEND = (
    "bound: the graph's χ as its source publishes it (χ), else the size of a clique found in"
    " it (clique), a lower bound on χ; degeneracy + 1: the colors a smallest-last greedy needs"
    " at most, an upper bound on χ",
    "best colors: the fewest median colors of any group; at bound: the configurations that"
    f" reach the bound, of those with a valid coloring ({AT_BOUND}: provably optimal)",
)
GRAPHS_LEGEND_D2 = (
    "a distance-2 problem's bound: Δ+1 for d2 (a vertex and its neighbours all differ), the"
    " largest row count (max row) for pd2 and pd2-rows (the columns of a row all differ); nets:"
    " the rows of the matrix whose columns are colored (those of A + I for d2)"
)
RECOVERED_SHOWN = {True: "yes", False: "NO"}  # else MISSING: not checked
DISTANCE2_LEGEND = (
    "bound: the problem's lower bound (Δ+1 for d2, the largest row count for pd2 and"
    " pd2-rows); colors/bound 1.00: provably optimal",
    "n/colors: the columns per color (compression): J·S recovers a Jacobian of n columns"
    " with that many times fewer products than J·I; nets: the rows of the matrix colored",
    "recovered: yes where every repetition that checked it recovered every nonzero of J from"
    f" the compressed B = J·S, NO where one did not, {MISSING} where none checked",
)
SERIAL_LEGEND = (
    "vs greedy: the median time of greedy on the CPU, same graph and problem, at the"
    " configuration's order where it has one (its fastest order otherwise), over this median"
    f" time, with its 95 % interval; {MISSING} where no such greedy ran"
)
CONFIG_GAPS_LEGEND = (
    "graphs: those with a bound where the configuration has a valid coloring; reaches it: on"
    " how many its colors equal the bound (provably optimal); over bound: its median colors"
    " minus the bound, the median and the largest over those graphs"
)
HOST_LEGEND = (
    "host share: 1 − device_ms / time_ms of each repetition, the share of the timed call the"
    " GPU sat idle on the host's blocking reads; host syncs: those reads per call; each the"
    " median over a group's repetitions, then over the configuration's cases (GPU rows of"
    " result schema v6 only)",
)
FEWEST = "★"  # marks the fewest colors of any configuration on an instance
CHI_LEGEND = (
    "χ: the chromatic number the instance's source publishes, colors/χ 1.00: optimal"
    f" ({MISSING} where none is published); bound: χ where published, else the size of a"
    " clique found in it (a lower bound on χ), colors/bound 1.00: provably optimal",
    f"{FEWEST}: the fewest colors of any configuration on the instance",
)
CHI_MEANS_LEGEND = (
    "instances: those with a published χ where the configuration has a valid coloring;"
    " colors/χ: its geometric mean and its largest over them; at χ: on how many its colors"
    " equal χ",
)
LABEL_HEADER = "figure label"
TEXT_HEADERS = frozenset({"configuration", "graph", "fastest", "fewest colors", "note", "tried",
                          LABEL_HEADER, "at bound", "problem", "recovered"})  # fmt: skip

# The per-group summary's CSV columns, in order (summary.csv and --format csv).
SUMMARY_COLUMNS = [
    "graph", "problem", "n", "m", "nets", "chi_lower", "degeneracy", "chi_known", "bound",
    "bound_kind", "algorithm", "backend", "params", "block_size", "config", "label",
    "reps", "runs", "ok", "invalid", "error", "timeout", "oom", "unsupported", "note",
    "flags", "count_setup", "time_ms", "time_ci_low_ms", "time_ci_high_ms", "near_fastest",
    "time_min_ms", "time_q1_ms", "time_q3_ms", "time_iqr_ms", "transfer_ms", "total_ms",
    "colors", "iterations", "speedup", "speedup_ci_low", "speedup_ci_high", "colors_rel",
    "colors_gap", "reaches_bound", "recovered", "mverts_per_s", "medges_per_s", "error_message",
    "min_class", "max_class", "class_cv",
    "levels_natural", "levels_colored", "trsv_natural_ms", "trsv_colored_ms", "trsv_speedup",
    "device_ms", "host_syncs", "host_share",
]  # fmt: skip


def num(x: float) -> str:
    """Three significant digits; thousands as whole numbers with separators; NaN as a dash."""
    if x is None or pd.isna(x):
        return MISSING
    x = float(x)
    if math.isinf(x):
        return "inf"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def ratio(x: float) -> str:
    """Speedups and relative colors: 0.042, 0.95, 4.13, 20.0, 153."""
    if pd.isna(x):
        return MISSING
    x = float(x)
    if abs(x) < 0.1:
        return f"{x:.2g}"
    return f"{x:.2f}" if abs(x) < 10 else f"{x:.1f}" if abs(x) < 100 else f"{x:,.0f}"


def percent(x: float) -> str:
    """A share as a percentage to three significant digits: 42.1 %, 0.52 %; a dash for none."""
    return MISSING if pd.isna(x) else f"{num(100 * float(x))} %"


def block(x: float) -> str:
    """A block size: an integer without separators."""
    return MISSING if pd.isna(x) else str(int(x))


def count(x: float) -> str:
    """Whole numbers shown as such, medians of two (x.5) with their half."""
    if pd.isna(x):
        return MISSING
    return f"{int(x):,}" if float(x).is_integer() else f"{float(x):.1f}"


def interval(low: float, high: float) -> str:
    """``low–high``, both ends to the decimals that give the smaller end three significant
    digits, so they read alike (1.00–1.30, 0.0123–0.0150, 1,234–1,456); a dash for none."""
    if pd.isna(low) or pd.isna(high):
        return MISSING
    ends = [abs(float(v)) for v in (low, high) if v != 0]
    digits = 2 - math.floor(math.log10(min(ends))) if ends else 0
    return f"{low:,.{max(0, digits)}f}–{high:,.{max(0, digits)}f}"


def gap(x: float) -> str:
    """Colors over the bound: ``+2``, ``0 ✓`` at the bound, ``-1 !`` below it; a dash for
    none."""
    if pd.isna(x):
        return MISSING
    if x == 0:
        return f"0 {AT_BOUND}"
    return f"+{count(x)}" if x > 0 else f"{count(x)} {BELOW_BOUND}"


def bound(value: float, kind: str) -> str:
    """A case's bound and its kind: ``5 (χ)``, ``4 (clique)``, ``9 (Δ+1)``; a dash for
    none."""
    return MISSING if pd.isna(value) else f"{count(value)} ({kind})"


def recovered(value: object) -> str:
    """``yes`` (every repetition that checked recovered J), ``NO``, or a dash (none checked)."""
    return MISSING if pd.isna(value) else RECOVERED_SHOWN[bool(value)]


def graph_heading(graph: str, row: pd.Series, problem: str = DEFAULT_PROBLEM) -> str:
    """A case's title: the graph's spec, size and what it allows, e.g. ``g1  (n = 100,
    m = 300, χ = 5 published, degeneracy + 1 = 7)`` or ``... χ ≥ 4 by a clique ...``; for a
    distance-2 problem the problem, the nets and its bound: ``g1, d2  (n = 100, m = 300,
    nets = 100, colors ≥ 9 by Δ+1)`` (``nnz`` for a matrix's nonzeros, pd2 and pd2-rows)."""
    parts = [] if pd.isna(row["n"]) else [f"n = {int(row['n']):,}", f"m = {int(row['m']):,}"]
    if problem != DEFAULT_PROBLEM:
        if parts and problem != "d2":
            parts[1] = parts[1].replace("m =", "nnz =")
        if pd.notna(row["nets"]):
            parts.append(f"nets = {int(row['nets']):,}")
        if pd.notna(row["chi_lower"]):
            parts.append(f"colors ≥ {count(row['chi_lower'])} by {PROBLEM_BOUNDS[problem]}")
        return f"{graph}, {problem}  ({', '.join(parts)})" if parts else f"{graph}, {problem}"
    if pd.notna(row["chi_known"]):
        parts.append(f"χ = {count(row['chi_known'])} published")
    elif pd.notna(row["chi_lower"]):
        parts.append(f"χ ≥ {count(row['chi_lower'])} by a clique")
    if pd.notna(row["degeneracy"]):
        parts.append(f"degeneracy + 1 = {count(row['degeneracy'] + 1)}")
    return f"{graph}  ({', '.join(parts)})" if parts else graph


def text(x: object) -> str:
    """A label, or a dash where there is none (a graph with no valid group has no winner)."""
    return MISSING if x is None or (isinstance(x, float) and math.isnan(x)) else str(x)


def _display(frame: pd.DataFrame, columns: Sequence[tuple[str, str, Callable]]) -> pd.DataFrame:
    """``(source column, header, formatter)`` → a frame of strings with those headers."""
    return pd.DataFrame(
        {header: [fmt(v) for v in frame[key]] for key, header, fmt in columns},
        index=range(len(frame)),
    )


class Section(NamedTuple):
    """A table of the report: its title, its display strings and the legend of its marks."""

    title: str
    frame: pd.DataFrame
    legend: tuple[str, ...] = ()


def _why(row: pd.Series) -> str:
    """The note column: failures per status (with the first error message when none ran),
    then the group's flags."""
    note = row["note"]
    if row["ok"] == 0 and row["error_message"]:
        message = row["error_message"]
        if len(message) > ERROR_CHARS:
            message = message[: ERROR_CHARS - 1] + "…"
        note = f"{note}: {message}"
    flags = f"flags: {row['flags'].replace(';', ', ')}" if row["flags"] else ""
    return "; ".join(part for part in (note, flags) if part)


def _marked_time(row: pd.Series) -> str:
    """The median time, after ``≈`` where it is not told apart from the fastest's, and
    before ``†`` where the group is flagged."""
    near = f"{NEAR} " if row["near_fastest"] else ""
    return near + num(row["time_ms"]) + (FLAGGED if is_suspect(row["flags"]) else "")


RESULT_COLUMNS = [
    ("label", "configuration", str),
    ("runs_ok", "ok/reps", str),
    ("time_shown", "time ms", str),
    ("time_ci", "CI ms", str),
    ("transfer_ms", "transfer ms", num),
    ("colors", "colors", count),
    ("colors_rel", "colors/best", ratio),
    ("colors_gap", "over bound", gap),
    ("iterations", "rounds", count),
    ("class_cv", "class CV", ratio),
    ("speedup", "speedup", ratio),
    ("speedup_ci", "speedup CI", str),
    ("mverts_per_s", "Mvert/s", num),
    ("medges_per_s", "Medge/s", num),
    ("why", "note", str),
]


def _result_legend(part: pd.DataFrame, speedups: bool) -> tuple[str, ...]:
    """The legend lines of a case's table: the intervals, and the marks it shows."""
    bounds = BOUND_LEGEND_D2 if has_distance2(part) else BOUND_LEGEND
    marks = (
        (part["near_fastest"].any(), NEAR_LEGEND),
        (suspect(part["flags"]).any(), FLAG_LEGEND),
        (part["colors_gap"].notna().any(), bounds),
        ((part["colors_gap"] < 0).any(), BELOW_LEGEND),
    )
    ci = CI_LEGEND if speedups else CI_TIME_LEGEND
    return (ci, *(line for shown, line in marks if shown))


def _result_columns(
    part: pd.DataFrame, gpu: bool, speedups: bool
) -> list[tuple[str, str, Callable]]:
    """The columns of a graph's table: no ``over bound`` where the graph has no bound, no
    ``transfer ms`` (the GPU's copies) in CPU-only results, no speedups without a baseline."""
    skip = {"over bound"} if part["bound"].isna().all() else set()
    if not gpu:
        skip.add("transfer ms")
    if not speedups:
        skip |= {"speedup", "speedup CI"}
    return [column for column in RESULT_COLUMNS if column[1] not in skip]


def result_sections(summary: pd.DataFrame) -> list[Section]:
    """One section per case (graph, problem), its groups sorted by median time (no valid
    time last)."""
    records = [row for _, row in summary.iterrows()]
    frame = summary.assign(
        runs_ok=summary["ok"].astype(str) + "/" + summary["reps"].astype(str),
        why=[_why(row) for row in records],
        time_shown=[_marked_time(row) for row in records],
        time_ci=[interval(lo, hi) for lo, hi in
                 zip(summary["time_ci_low_ms"], summary["time_ci_high_ms"], strict=True)],
        speedup_ci=[interval(lo, hi) for lo, hi in
                    zip(summary["speedup_ci_low"], summary["speedup_ci_high"], strict=True)],
    )  # fmt: skip
    gpu = gpu_rows(summary)
    speedups = bool(summary["speedup"].notna().any())
    sections = []
    for (graph, problem), part in frame.groupby(CASE, sort=False):
        head = part[["n", "m", "nets", "chi_known", "chi_lower", "degeneracy"]].max()
        ordered = part.sort_values(["time_ms", "colors", "label"], na_position="last")
        display = _display(ordered, _result_columns(part, gpu, speedups))
        title = graph_heading(str(graph), head, str(problem))
        sections.append(Section(title, display, _result_legend(part, speedups)))
    return sections


def _at_bound_cell(names: Sequence[str], configs: int, known: bool) -> str:
    """``3 of 20: a, b +1 more``, ``0 of 20``; a dash where the graph has no bound or no
    valid coloring."""
    if not known or not configs:
        return MISSING
    shown = ", ".join(names[:NEAR_SHOWN])
    more = f" +{len(names) - NEAR_SHOWN} more" if len(names) > NEAR_SHOWN else ""
    return f"{len(names)} of {configs}" + (f": {shown}{more}" if names else "")


def graphs_section(table: pd.DataFrame, labels: bool) -> Section | None:
    """The graphs: their size, bound and the fewest colors against it, one row per case
    (with a ``problem`` and a ``nets`` column where a distance-2 problem is among them);
    with ``labels``, first the short label the figures name each by (``table``'s ``label``,
    for summary.md and index.html).
    Without bounds in the results (files before schema v4) only the labels' table, and
    none without ``labels``."""
    bounded = bool(table["bound"].notna().any() or table["degeneracy"].notna().any())
    if not (bounded or labels):
        return None
    frame = table.assign(
        bound_shown=[bound(v, k) for v, k in zip(table["bound"], table["bound_kind"],
                                                 strict=True)],
        degeneracy_1=table["degeneracy"] + 1,
        at_bound_shown=[_at_bound_cell(n, c, pd.notna(b)) for n, c, b in
                        zip(table["at_bound"], table["configs"], table["bound"], strict=True)],
    )  # fmt: skip
    distance2 = has_distance2(table)
    columns: list[tuple[str, str, Callable]] = [
        ("graph", "graph", str), *([("problem", "problem", str)] if distance2 else []),
        ("n", "n", count), ("m", "m", count), *([("nets", "nets", count)] if distance2 else []),
    ]  # fmt: skip
    if labels:
        columns.insert(0, ("label", LABEL_HEADER, str))
    if bounded:
        columns += [
            ("bound_shown", "bound", str), ("degeneracy_1", "degeneracy + 1", count),
            ("fewest_colors", "best colors", count), ("fewest_gap", "over bound", gap),
            ("at_bound_shown", "at bound", str),
        ]  # fmt: skip
    else:
        columns.append(("fewest_colors", "best colors", count))
    title = "Graphs: colors against the bound" if bounded else "Graphs"
    if labels:
        title += " (figure labels)"
    legend = (*GRAPHS_LEGEND, *([GRAPHS_LEGEND_D2] if distance2 else [])) if bounded else ()
    return Section(title, _display(frame, columns), legend)


def _fastest_cells(winners: pd.DataFrame) -> list[str]:
    """The winners' fastest group per graph, with (up to ``NEAR_SHOWN``) the groups not told
    apart from it: ``a ≈ b ≈ c ≈ 2 more``."""
    cells = []
    for label, near in zip(winners["fastest_label"], winners["fastest_near"], strict=True):
        named = [text(label), *near]
        more = len(named) - 1 - NEAR_SHOWN
        shown = named[: NEAR_SHOWN + 1] + ([f"{more} more"] if more > 0 else [])
        cells.append(f" {NEAR} ".join(shown))
    return cells


def sections(rep: Report, labels: bool = False) -> list[Section]:
    """Every section of the report, in reading order: a table per graph
    (:func:`result_sections`), then those across graphs (:func:`summary_sections`)."""
    return [*result_sections(rep.summary), *summary_sections(rep, labels)]


def distance2_section(table: pd.DataFrame) -> Section:
    """The distance-2 colorings (:func:`gcbench.report.aggregate.distance2_table`): per
    graph, problem and configuration its time, colors against the lower bound, compression,
    nets, whether J was recovered and the speedup over the serial greedy (those two columns
    only where some configuration has a reference)."""
    records = [row for _, row in table.iterrows()]
    frame = table.assign(
        time_shown=[_marked_time(row) for row in records],
        time_ci=[interval(lo, hi) for lo, hi in
                 zip(table["time_ci_low_ms"], table["time_ci_high_ms"], strict=True)],
        bound_shown=[bound(v, k) for v, k in zip(table["bound"], table["bound_kind"],
                                                 strict=True)],
        recovered_shown=[recovered(v) for v in table["recovered"]],
        serial_ci=[interval(lo, hi) for lo, hi in zip(table["speedup_serial_ci_low"],
                                                      table["speedup_serial_ci_high"],
                                                      strict=True)],
    )  # fmt: skip
    serial = bool(table["speedup_serial"].notna().any())
    columns: list[tuple[str, str, Callable]] = [
        ("graph", "graph", str), ("problem", "problem", str), ("config", "configuration", str),
        ("time_shown", "time ms", str), ("time_ci", "CI ms", str), ("colors", "colors", count),
        ("bound_shown", "bound", str), ("colors_over_bound", "colors/bound", ratio),
        ("compression", "n/colors", ratio), ("nets", "nets", count),
        ("recovered_shown", "recovered", str),
        *([("speedup_serial", "vs greedy", ratio), ("serial_ci", "vs greedy CI", str)]
          if serial else []),
    ]  # fmt: skip
    marks = ((table["near_fastest"].any(), NEAR_LEGEND), (suspect(table["flags"]).any(),
             FLAG_LEGEND), (serial, SERIAL_LEGEND))  # fmt: skip
    legend = (CI_LEGEND if serial else CI_TIME_LEGEND, *DISTANCE2_LEGEND,
              *(line for shown, line in marks if shown))  # fmt: skip
    title = "Distance-2 colorings: colors against the lower bound, compression" + (
        " (at its fastest block size)" if has_block_sizes(table) else ""
    )
    return Section(title, _display(frame, columns), legend)


def host_section(table: pd.DataFrame, blocks: bool) -> Section:
    """How much of each GPU configuration's time was the host
    (:func:`gcbench.report.aggregate.host_shares`), the most first; ``blocks``: the results
    have block sizes, so the title says at which."""
    title = "Host's share of the time per configuration" + (
        " (at its fastest block size)" if blocks else ""
    )
    columns: list[tuple[str, str, Callable]] = [
        ("config", "configuration", str), ("cases", "cases", count),
        ("host_share", "host share", percent), ("host_syncs", "host syncs", count),
    ]  # fmt: skip
    return Section(title, _display(table, columns), HOST_LEGEND)


def fewest(value: float, marked: bool) -> str:
    """Median colors, followed by :data:`FEWEST` where no configuration used fewer."""
    return count(value) + (f" {FEWEST}" if marked else "")


def chi_sections(rep: Report) -> list[Section]:
    """Colors against the published χ (:func:`gcbench.report.aggregate.chi_means`, then
    :func:`~gcbench.report.aggregate.chi_table`): per configuration over the instances with
    one, then per instance and configuration; none where no graph has a published χ."""
    if rep.chi.empty:
        return []
    at = " (at its fastest block size)" if has_block_sizes(rep.summary) else ""
    out = []
    if not rep.chi_means.empty:
        out.append(Section(
            "Colors over the published χ per configuration" + at,
            _display(rep.chi_means, [
                ("config", "configuration", str), ("instances", "instances", count),
                ("chi_geomean", "colors/χ geo. mean", ratio), ("chi_max", "colors/χ max", ratio),
                ("at_chi", "at χ", count),
            ]),
            CHI_MEANS_LEGEND,
        ))  # fmt: skip
    table = rep.chi.assign(
        colors_shown=[fewest(v, f) for v, f in zip(rep.chi["colors"], rep.chi["fewest"],
                                                   strict=True)],
        bound_shown=[bound(v, k) for v, k in zip(rep.chi["bound"], rep.chi["bound_kind"],
                                                 strict=True)],
    )  # fmt: skip
    out.append(Section(
        "Colors against the published χ per instance" + at,
        _display(table, [
            ("graph", "graph", str), ("config", "configuration", str),
            ("colors_shown", "colors", str), ("chi_known", "χ", count),
            ("colors_over_chi", "colors/χ", ratio), ("bound_shown", "bound", str),
            ("colors_over_bound", "colors/bound", ratio),
        ]),
        CHI_LEGEND,
    ))  # fmt: skip
    return out


def summary_sections(rep: Report, labels: bool = False) -> list[Section]:
    """The sections across graphs: speedup means, winners, the host's share, the graphs
    against their bounds, colors over the bound per configuration, colors against the
    published χ, block sizes, levels, distance-2 colorings, pareto; ``labels``: the
    graphs' table names the short labels of the figures (:func:`graphs_section`)."""
    out: list[Section] = []
    if not rep.means.empty:
        out.append(Section(
            f"Speedup over {rep.baseline_label} across graphs",
            _display(rep.means, [
                ("label", "configuration", str), ("graphs", "graphs", count),
                ("speedup_geomean", "geo. mean", ratio), ("speedup_hmean", "harm. mean", ratio),
                ("speedup_min", "min", ratio), ("speedup_max", "max", ratio),
                ("colors_rel_geomean", "colors/best geo. mean", ratio),
            ]),
        ))  # fmt: skip
    speedups = bool(rep.summary["speedup"].notna().any())
    winners = rep.winners.assign(fastest=_fastest_cells(rep.winners))
    near = any(rep.winners["fastest_near"])
    problem = [("problem", "problem", str)] if has_distance2(rep.summary) else []
    out.append(Section(
        "Winners per graph",
        _display(winners, [
            ("graph", "graph", str), *problem, ("fastest", "fastest", str),
            ("fastest_time_ms", "time ms", num),
            *([("fastest_speedup", "speedup", ratio)] if speedups else []),
            ("fewest_label", "fewest colors", text),
            ("fewest_colors", "colors", count), ("fewest_time_ms", "its time ms", num),
        ]),
        (NEAR_LEGEND,) if near else (),
    ))  # fmt: skip
    if not rep.host_shares.empty:
        out.append(host_section(rep.host_shares, has_block_sizes(rep.summary)))
    graphs = graphs_section(rep.graphs, labels)
    if graphs is not None:
        out.append(graphs)
    gaps = config_gaps(rep.summary)
    bounded = rep.graphs.dropna(subset=["bound"]).groupby("problem").size()
    if gaps["graphs"].gt(0).any() and bounded.gt(1).any():  # some problem on several graphs
        out.append(Section(
            "Colors over the bound per configuration"
            + (" (at its fastest block size)" if has_block_sizes(rep.summary) else ""),
            _display(gaps, [
                ("config", "configuration", str), ("graphs", "graphs", count),
                ("at_bound", "reaches it", count), ("gap_median", "over bound median", count),
                ("gap_max", "over bound max", count),
            ]),
            (CONFIG_GAPS_LEGEND,),
        ))  # fmt: skip
    out += chi_sections(rep)
    if not rep.block_sizes.empty:
        out.append(Section(
            "Best block size",
            _display(rep.block_sizes, [
                ("graph", "graph", str), ("config", "configuration", str),
                ("block_sizes", "tried", str), ("best_block_size", "best", block),
                ("best_time_ms", "best ms", num), ("worst_block_size", "worst", block),
                ("worst_time_ms", "worst ms", num), ("worst_over_best", "worst/best", ratio),
            ]),
        ))  # fmt: skip
    if not rep.levels.empty:
        out.append(Section(
            "Levels of a lower-triangular solve: natural vs color order (--metrics levels)",
            _display(rep.levels, [
                ("graph", "graph", str), ("label", "configuration", str),
                ("colors", "colors", count), ("levels_natural", "levels natural", count),
                ("levels_colored", "levels colored", count),
                ("trsv_natural_ms", "solve natural ms", num),
                ("trsv_colored_ms", "solve colored ms", num),
                ("trsv_speedup", "solve speedup", ratio),
            ]),
        ))  # fmt: skip
    if not rep.distance2.empty:
        out.append(distance2_section(rep.distance2))
    out.append(Section(
        "Pareto front per graph (not beaten on both time and colors)",
        _display(rep.pareto, [
            ("graph", "graph", str), *problem, ("label", "configuration", str),
            ("time_ms", "time ms", num), ("colors", "colors", count),
            *([("speedup", "speedup", ratio)] if speedups else []),
        ]),
    ))  # fmt: skip
    return out


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured pipe table; numeric-looking columns right-aligned."""
    headers = list(frame.columns)
    right = [h not in TEXT_HEADERS for h in headers]
    lines = [
        "| " + " | ".join(_md_cell(h) for h in headers) + " |",
        "| " + " | ".join("---:" if r else "---" for r in right) + " |",
    ]
    lines += ["| " + " | ".join(_md_cell(str(v)) for v in row) + " |"
              for row in frame.itertuples(index=False)]  # fmt: skip
    return "\n".join(lines)


def _figures(images: Sequence[str]) -> list[str]:
    """A markdown line per figure: its PNG (else SVG) shown, its other formats linked."""
    stems: dict[str, list[str]] = {}
    for name in images:
        stems.setdefault(name.rsplit(".", 1)[0], []).append(name)
    lines = []
    for names in stems.values():
        shown = [n for n in names if not n.endswith(".pdf")][:1]
        links = ", ".join(f"[{n}]({n})" for n in names if n not in shown)
        if not shown:
            lines.append(links)
        else:
            lines.append(f"![{shown[0]}]({shown[0]})" + (f" (also {links})" if links else ""))
    return lines


def markdown(rep: Report, images: Sequence[str] = ()) -> str:
    """The whole report as markdown, with ``images`` (figure file names) and the reasons
    for figures left out (``rep.plot_notes``) at the end."""
    parts = [f"# gcbench report\n\n{len(rep.sources)} results file(s): "
             + ", ".join(f"`{p}`" for p in rep.sources)
             + (f"\n\nMeasured on {rep.where}; {rep.timing}." if rep.where
                else f"\n\n{rep.timing}.")]  # fmt: skip
    parts += [f"## {s.title}\n\n{markdown_table(s.frame)}\n\n"
              + "  \n".join(f"*{line}*" for line in (rep.timing, *s.legend))
              for s in sections(rep, labels=True)]  # fmt: skip
    if rep.notes:
        parts.append("## Notes\n\n" + "\n".join(f"- {note}" for note in rep.notes))
    if images or rep.plot_notes:
        figures = [*(f"- {n}" for n in rep.plot_notes), *_figures(images)]
        parts.append("## Plots\n\n" + "\n\n".join(figures))
    return "\n\n".join(parts) + "\n"


def summary_csv(summary: pd.DataFrame) -> str:
    """The per-group summary as CSV text (raw numbers, empty where missing)."""
    return summary[SUMMARY_COLUMNS].to_csv(index=False)


def console() -> Console:
    """The console ``report`` and ``compare`` print their tables on: the terminal's, or, with
    stdout not a terminal and COLUMNS unset (a CI log, ``| tee``, a file), one as wide as the
    widest table, so that no cell wraps (rich would draw 80 columns and fold every cell into
    fragments). COLUMNS, where set, is the width asked for."""
    from rich.console import Console

    out = Console()
    if out.is_terminal or "COLUMNS" in os.environ:
        return out
    return Console(width=UNBOUNDED)


def _rich_table(title: str, frame: pd.DataFrame, caption: str, note_width: int | None) -> Table:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title, style="bold"), title_justify="left", header_style="bold",
                  caption=Text(caption, style="dim"), caption_justify="left")  # fmt: skip
    for header in frame.columns:
        justify = "left" if header in TEXT_HEADERS else "right"
        width = note_width if header == "note" else None
        overflow = "fold" if header in TEXT_HEADERS else "ellipsis"
        table.add_column(Text(header), justify=justify, max_width=width, overflow=overflow)
    for row in frame.itertuples(index=False):
        table.add_row(*(Text(str(v)) for v in row))
    return table


class _Fitted:
    """A table that fits the console: whole where it fits, else with its notes folded to
    ``NOTE_WIDTH``, then leaving out its least useful columns (``DROP_ORDER``) until it fits,
    instead of squeezing every cell to an ellipsis."""

    def __init__(self, title: str, frame: pd.DataFrame, caption: str) -> None:
        self.title, self.frame, self.caption = title, frame, caption

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.measure import Measurement

        def natural(table: Table) -> int:
            return Measurement.get(console, options.update_width(UNBOUNDED), table).maximum

        frame = self.frame
        droppable = [h for h in DROP_ORDER if h in frame.columns]
        table = _rich_table(self.title, frame, self.caption, None)
        if natural(table) > options.max_width:
            table = _rich_table(self.title, frame, self.caption, NOTE_WIDTH)
        while droppable and natural(table) > options.max_width:
            frame = frame.drop(columns=droppable.pop(0))
            table = _rich_table(self.title, frame, self.caption, NOTE_WIDTH)
        yield table


def rich_tables(rep: Report) -> RenderableType:
    """The report as rich tables (cells as plain text, so ``[k=v]`` is never read as markup).

    On a narrow terminal secondary columns are left out; markdown and CSV keep them all.
    """
    from rich.console import Group
    from rich.text import Text

    items: list[RenderableType] = [
        _Fitted(s.title, s.frame, "\n".join((rep.timing, *s.legend))) for s in sections(rep)
    ]
    if rep.notes:
        items.append(Text("\n".join(f"note: {n}" for n in rep.notes), style="dim"))
    return Group(*items)
