"""Report tables as display sections, rendered for rich, markdown or CSV.

Each section is a title and a frame of display strings, so the terminal and markdown show the
same numbers; CSV output is the raw per-group summary (full precision). Every table is of
times (or of ratios of times) and carries the report's timing convention as its caption.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

import pandas as pd

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
              "Mvert/s", "harm. mean", "min", "max", "rounds", "colors/best",
              "colors/best geo. mean", "CI ms", "tried"]  # fmt: skip
NEAR = "≈"  # marks a time not told apart from the fastest on its graph
FLAGGED = "†"  # marks a time measured under a flag (throttled, contended, drift, noisy)
NEAR_SHOWN = 2  # groups named beside the fastest in the winners, at most
CI_LEGEND = (
    "CI: 95 % confidence interval of the median time, or of the speedup (docs/statistics.md);"
    f" {MISSING} where there are too few ok repetitions for one"
)
NEAR_LEGEND = (
    f"{NEAR}: its interval overlaps the fastest's on the graph: not told apart from the fastest"
)
FLAG_LEGEND = f"{FLAGGED}: flagged, its times are suspect (the note names the flags)"
TEXT_HEADERS = frozenset({"configuration", "graph", "fastest", "fewest colors", "note", "tried"})

# The per-group summary's CSV columns, in order (summary.csv and --format csv).
SUMMARY_COLUMNS = [
    "graph", "n", "m", "algorithm", "backend", "params", "block_size", "config", "label",
    "reps", "runs", "ok", "invalid", "error", "timeout", "oom", "unsupported", "note",
    "flags", "count_setup", "time_ms", "time_ci_low_ms", "time_ci_high_ms", "near_fastest",
    "time_min_ms", "time_q1_ms", "time_q3_ms", "time_iqr_ms", "transfer_ms", "total_ms",
    "colors", "iterations", "speedup", "speedup_ci_low", "speedup_ci_high", "colors_rel",
    "mverts_per_s", "medges_per_s", "error_message",
    "min_class", "max_class", "class_cv",
    "levels_natural", "levels_colored", "trsv_natural_ms", "trsv_colored_ms", "trsv_speedup",
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
    return near + num(row["time_ms"]) + (FLAGGED if row["flags"] else "")


RESULT_COLUMNS = [
    ("label", "configuration", str),
    ("runs_ok", "ok/reps", str),
    ("time_shown", "time ms", str),
    ("time_ci", "CI ms", str),
    ("transfer_ms", "transfer ms", num),
    ("colors", "colors", count),
    ("colors_rel", "colors/best", ratio),
    ("iterations", "rounds", count),
    ("class_cv", "class CV", ratio),
    ("speedup", "speedup", ratio),
    ("speedup_ci", "speedup CI", str),
    ("mverts_per_s", "Mvert/s", num),
    ("medges_per_s", "Medge/s", num),
    ("why", "note", str),
]


def _result_legend(part: pd.DataFrame) -> tuple[str, ...]:
    """The legend lines of a graph's table: the intervals, and the marks it shows."""
    marks = ((part["near_fastest"].any(), NEAR_LEGEND), ((part["flags"] != "").any(), FLAG_LEGEND))
    return (CI_LEGEND, *(line for shown, line in marks if shown))


def result_sections(summary: pd.DataFrame) -> list[Section]:
    """One section per graph, its groups sorted by median time (no valid time last)."""
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
    sections = []
    for graph, part in frame.groupby("graph", sort=False):
        n, m = part["n"].max(), part["m"].max()
        size = "" if pd.isna(n) else f"  (n = {int(n):,}, m = {int(m):,})"
        ordered = part.sort_values(["time_ms", "colors", "label"], na_position="last")
        display = _display(ordered, RESULT_COLUMNS)
        sections.append(Section(f"{graph}{size}", display, _result_legend(part)))
    return sections


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


def sections(rep: Report) -> list[Section]:
    """Every section of the report, in reading order."""
    out = result_sections(rep.summary)
    if not rep.means.empty:
        out.append(Section(
            f"Speedup over {rep.baseline} across graphs",
            _display(rep.means, [
                ("label", "configuration", str), ("graphs", "graphs", count),
                ("speedup_geomean", "geo. mean", ratio), ("speedup_hmean", "harm. mean", ratio),
                ("speedup_min", "min", ratio), ("speedup_max", "max", ratio),
                ("colors_rel_geomean", "colors/best geo. mean", ratio),
            ]),
        ))  # fmt: skip
    winners = rep.winners.assign(fastest=_fastest_cells(rep.winners))
    near = any(rep.winners["fastest_near"])
    out.append(Section(
        "Winners per graph",
        _display(winners, [
            ("graph", "graph", str), ("fastest", "fastest", str),
            ("fastest_time_ms", "time ms", num), ("fastest_speedup", "speedup", ratio),
            ("fewest_label", "fewest colors", text),
            ("fewest_colors", "colors", count), ("fewest_time_ms", "its time ms", num),
        ]),
        (NEAR_LEGEND,) if near else (),
    ))  # fmt: skip
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
    out.append(Section(
        "Pareto front per graph (not beaten on both time and colors)",
        _display(rep.pareto, [
            ("graph", "graph", str), ("label", "configuration", str),
            ("time_ms", "time ms", num), ("colors", "colors", count),
            ("speedup", "speedup", ratio),
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
              for s in sections(rep)]  # fmt: skip
    if rep.notes:
        parts.append("## Notes\n\n" + "\n".join(f"- {note}" for note in rep.notes))
    if images or rep.plot_notes:
        figures = [*(f"- {n}" for n in rep.plot_notes), *_figures(images)]
        parts.append("## Plots\n\n" + "\n\n".join(figures))
    return "\n\n".join(parts) + "\n"


def summary_csv(summary: pd.DataFrame) -> str:
    """The per-group summary as CSV text (raw numbers, empty where missing)."""
    return summary[SUMMARY_COLUMNS].to_csv(index=False)


def _rich_table(title: str, frame: pd.DataFrame, caption: str) -> Table:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title, style="bold"), title_justify="left", header_style="bold",
                  caption=Text(caption, style="dim"), caption_justify="left")  # fmt: skip
    for header in frame.columns:
        justify = "left" if header in TEXT_HEADERS else "right"
        width = NOTE_WIDTH if header == "note" else None
        overflow = "fold" if header in TEXT_HEADERS else "ellipsis"
        table.add_column(Text(header), justify=justify, max_width=width, overflow=overflow)
    for row in frame.itertuples(index=False):
        table.add_row(*(Text(str(v)) for v in row))
    return table


class _Fitted:
    """A table that leaves out its least useful columns (``DROP_ORDER``) until it fits the
    console, instead of squeezing every cell to an ellipsis."""

    def __init__(self, title: str, frame: pd.DataFrame, caption: str) -> None:
        self.title, self.frame, self.caption = title, frame, caption

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.measure import Measurement

        def natural(table: Table) -> int:
            return Measurement.get(console, options.update_width(UNBOUNDED), table).maximum

        frame = self.frame
        droppable = [h for h in DROP_ORDER if h in frame.columns]
        table = _rich_table(self.title, frame, self.caption)
        while droppable and natural(table) > options.max_width:
            frame = frame.drop(columns=droppable.pop(0))
            table = _rich_table(self.title, frame, self.caption)
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
