"""Read result CSVs (docs/architecture.md, "CSV schema") and their sibling trace files into
typed DataFrames."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from gcbench.bench.results import (
    BALANCE_COLUMNS,
    BOUND_COLUMNS,
    CONDITION_COLUMNS,
    HOST_COLUMNS,
    LEVEL_COLUMNS,
    PROBLEM_COLUMNS,
    STATUSES,
    TRACE_COLUMNS,
    trace_path,
)
from gcbench.errors import InputError
from gcbench.grammar import DEFAULT_PROBLEM, PROBLEMS

TRACE_SUFFIX = ".trace.csv"
# The numbers among what each repetition ran under (schema v3); throttle and flags are text.
CONDITION_NUMERIC = ("round_trip_us", "load_avg", "cpu_util", "cpu_wait")
NUMERIC = ("n", "m", "max_degree", "avg_degree", "rep", "time_ms", "transfer_ms", "total_ms",
           "iterations", "colors", "max_color", "conflicts", "uncolored",
           *BALANCE_COLUMNS, *LEVEL_COLUMNS, *CONDITION_NUMERIC, *BOUND_COLUMNS,
           "nets", *HOST_COLUMNS)  # fmt: skip
# Columns a file may lack (written since schema 2, 3, 4, 5 or 6): NaN, or "" for text, where
# missing.
OPTIONAL = (*BALANCE_COLUMNS, *LEVEL_COLUMNS, *CONDITION_COLUMNS, *BOUND_COLUMNS,
            *PROBLEM_COLUMNS, *HOST_COLUMNS)  # fmt: skip
# The columns the report reads; a file lacking one of them cannot be reported on.
NEEDED = ("run_id", "host", "device_name", "graph", "n", "m", "algorithm", "backend", "params",
          "block_size", "rep", "status", "error", "time_ms", "transfer_ms", "total_ms",
          "iterations", "colors")  # fmt: skip
# Written since schema 1 (docs/report.md); read by name where present, defaults otherwise.
COUNT_SETUP = "count_setup"
TRUE_TEXT = frozenset({"true", "1", "yes"})
FALSE_TEXT = frozenset({"false", "0", "no", ""})
RECOVERED = "recovered"  # schema v5: true, false, or empty where not checked (d1 rows)
TIMING = {
    False: "time_ms: algorithm only",
    True: "time_ms includes setup (--count-setup)",
}


def newest_csv(directory: Path) -> Path:
    """The most recently modified results CSV in ``directory`` (trace files excluded)."""
    found = [p for p in directory.glob("*.csv") if not p.name.endswith(TRACE_SUFFIX)]
    if not found:
        raise InputError(
            f"no results CSV in {directory}/: run `gcbench run` first or name the CSV files"
        )
    return max(found, key=lambda p: (p.stat().st_mtime, p.name))


def _cut_short(path: Path) -> bool:
    """Whether the file's last line lacks its newline (a writer killed mid-row)."""
    with open(path, "rb") as handle:
        handle.seek(0, 2)
        if handle.tell() == 0:
            return False
        handle.seek(-1, 2)
        return handle.read(1) != b"\n"


def _read(path: Path, needed: Sequence[str], what: str, notes: list[str]) -> pd.DataFrame:
    """The CSV as strings, checked for the ``needed`` columns; a last row cut short by an
    interrupted writer is left out, with a note."""
    if not path.is_file():
        raise InputError(f"no such {what} file: {path}")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot parse {path} as CSV ({exc}); is it a gcbench {what}?") from None
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        hint = (
            " (a trace file: pass the results CSV beside it)"
            if path.name.endswith(TRACE_SUFFIX)
            else ""
        )
        raise InputError(
            f"{path} is not a gcbench {what} file{hint}: missing columns {', '.join(missing)}"
        )
    if len(frame) and _cut_short(path):
        notes.append(f"left out the incomplete last line of {path} (an interrupted run?)")
        frame = frame.iloc[:-1]
    return frame


def _block_size(column: pd.Series) -> pd.Series:
    return pd.to_numeric(column, errors="coerce").astype("Int64")


def _count_setup(frame: pd.DataFrame, path: Path) -> pd.Series:
    """The ``count_setup`` column as booleans; a file without it (older) counts no setup."""
    if COUNT_SETUP not in frame.columns:
        return pd.Series(False, index=frame.index)
    text = frame[COUNT_SETUP].str.strip().str.lower()
    odd = sorted(set(text) - TRUE_TEXT - FALSE_TEXT)
    if odd:
        raise InputError(
            f"{path}: count_setup must be true or false, not {', '.join(map(repr, odd))}"
        )
    return text.isin(TRUE_TEXT)


def _recovered(column: pd.Series, paths: Sequence[Path]) -> pd.Series:
    """The ``recovered`` column as nullable booleans: NA where empty (a d1 row, or a
    distance-2 row whose check did not run)."""
    text = column.str.strip().str.lower()
    odd = sorted(set(text) - TRUE_TEXT - FALSE_TEXT)
    if odd:
        raise InputError(
            f"{', '.join(map(str, paths))}: recovered must be true, false or empty, not"
            f" {', '.join(map(repr, odd))}"
        )
    flags = text.map(lambda t: pd.NA if t == "" else t in TRUE_TEXT)
    return flags.astype("boolean")


def _problems(column: pd.Series, paths: Sequence[Path]) -> pd.Series:
    """The ``problem`` column, ``d1`` where empty (files before schema v5 solved only
    d1); an unknown problem is an error."""
    problems = column.str.strip().replace("", DEFAULT_PROBLEM)
    unknown = sorted(set(problems) - set(PROBLEMS))
    if unknown:
        raise InputError(
            f"unknown problem {', '.join(map(repr, unknown))} in {', '.join(map(str, paths))};"
            f" expected one of {'|'.join(PROBLEMS)}"
        )
    return problems


def _one_timing(frames: Sequence[pd.DataFrame], paths: Sequence[Path]) -> None:
    """Refuse results that mix timing conventions: every table would compare unlike times."""
    where: dict[bool, list[str]] = {False: [], True: []}
    for frame, path in zip(frames, paths, strict=True):
        for value in sorted(set(frame[COUNT_SETUP])):
            where[value].append(str(path))
    if where[False] and where[True]:
        raise InputError(
            f"the results mix timing conventions: {TIMING[True]} in {', '.join(where[True])}"
            f" but {TIMING[False]} in {', '.join(where[False])}; report them separately"
        )


def read_results(paths: Sequence[Path]) -> tuple[pd.DataFrame, list[str]]:
    """Concatenate result CSVs into one typed frame; also return notes about the merge.

    Numbers become floats (NaN where empty), ``block_size`` a nullable integer (NA for CPU
    rows), ``count_setup`` a boolean (False where the file predates it), text columns stay
    strings ("" where empty, also where a column is missing from some files, and
    ``throttle`` and ``flags`` "" where every file predates schema v3); the graph's bounds
    (``chi_lower``, ``degeneracy``, ``chi_known``, schema v4) are NaN where a file predates
    them or its source publishes no χ. ``problem`` (schema v5) is ``d1`` where a file
    predates it, ``nets`` NaN there and ``recovered`` a nullable boolean (NA where not
    checked); ``host_syncs`` and ``device_ms`` (schema v6) are NaN on CPU rows and where a
    file predates them. Exact duplicate rows (the same file given twice) are dropped and
    counted. Results that mix timing conventions (``count_setup`` true and false) are
    refused.
    """
    notes: list[str] = []
    frames = [_read(Path(p), NEEDED, "results", notes) for p in paths]
    for frame, path in zip(frames, paths, strict=True):
        if "schema_version" not in frame.columns:
            notes.append(
                f"{path}: result schema v1 (before setup_ms, count_setup, clock and command "
                "were recorded): its times count no setup"
            )
    frames = [
        f.assign(**{COUNT_SETUP: _count_setup(f, p)}) for f, p in zip(frames, paths, strict=True)
    ]
    _one_timing(frames, paths)
    rows = pd.concat(frames, ignore_index=True)
    text = [c for c in rows.columns if c not in NUMERIC and c != COUNT_SETUP]
    rows[text] = rows[text].fillna("")
    if rows.empty:
        names = ", ".join(str(p) for p in paths)
        raise InputError(f"no result rows in {names}: the run recorded nothing yet")
    unknown = sorted(set(rows["status"]) - set(STATUSES))
    if unknown:
        raise InputError(
            f"unknown status {', '.join(map(repr, unknown))} in {', '.join(map(str, paths))};"
            f" expected one of {'|'.join(STATUSES)}"
        )
    before = len(rows)
    rows = rows.drop_duplicates(ignore_index=True)
    if len(rows) < before:
        notes.append(f"dropped {before - len(rows)} duplicate rows (a file given twice?)")
    for col in OPTIONAL:
        if col not in rows.columns:
            rows[col] = ""
    for col in NUMERIC:
        if col in rows.columns:
            rows[col] = pd.to_numeric(rows[col], errors="coerce")
    rows["block_size"] = _block_size(rows["block_size"])
    rows["problem"] = _problems(rows["problem"], paths)
    rows[RECOVERED] = _recovered(rows[RECOVERED], paths)
    runs = rows["run_id"].nunique()
    if len(paths) > 1 or runs > 1:
        notes.append(f"merged {len(paths)} file(s) holding {runs} run(s)")
    for column, what in (("host", "hosts"), ("device_name", "GPUs")):
        seen = sorted(v for v in rows[column].unique() if v)
        if len(seen) > 1:
            notes.append(
                f"rows from {len(seen)} {what} merged ({', '.join(seen)}):"
                " their timings are pooled per configuration"
            )
    return rows, notes


def read_traces(paths: Sequence[Path], notes: list[str]) -> pd.DataFrame | None:
    """The trace rows beside ``paths`` (``series`` defaults to "active"), or None if none.
    ``problem`` is "" (not known) where a trace file has no such column: its rows are
    matched to a group by algorithm and params alone."""
    found = [trace_path(Path(p)) for p in paths if trace_path(Path(p)).is_file()]
    if not found:
        return None
    needed = [c for c in TRACE_COLUMNS if c not in ("series", "problem")]  # older files lack them
    traces = pd.concat([_read(p, needed, "trace", notes) for p in found], ignore_index=True)
    if "series" not in traces.columns:
        traces["series"] = "active"
    traces["series"] = traces["series"].replace("", "active")
    if "problem" not in traces.columns:
        traces["problem"] = ""
    for col in ("rep", "round", "active"):
        traces[col] = pd.to_numeric(traces[col], errors="coerce")
    traces["block_size"] = _block_size(traces["block_size"])
    traces = traces.dropna(subset=["round", "active"])
    return None if traces.empty else traces.drop_duplicates(ignore_index=True)
