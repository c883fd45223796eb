"""``gcbench compare``: how much faster or slower one set of timings is than another, case by
case, and how sure that is (docs/compare.md).

Two forms: two result files (before and after a change, two GPUs, two versions) matched case
by case, or one file and two of its configurations (``a`` the base, ``b`` the new) matched per
graph and problem. A case names its problem (d1, or a distance-2 one): rows of different
problems are never matched. A case's ratio is median(new) / median(base) with the interval of
:func:`gcbench.stats.ratio_ci` and the verdict of :func:`gcbench.stats.verdict`; the summary
is the geometric mean of the ratios with :func:`gcbench.stats.geomean_ci`'s interval across
cases. What is compared is ``time_ms``, or with ``metric="device"`` the GPU's own time on
the call's work, ``device_ms`` (result schema v6). Nothing here prints.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from gcbench import stats
from gcbench.errors import InputError, shown
from gcbench.grammar import requested_params, share
from gcbench.report.aggregate import (
    config_label,
    flag_union,
    group_label,
    matching,
    provenance,
    suspect,
    with_problem,
)
from gcbench.report.load import COUNT_SETUP, TIMING, read_results
from gcbench.stats import geomean_ci, ratio_ci, verdict

if TYPE_CHECKING:
    from rich.console import RenderableType

CASE = ["graph", "problem", "algorithm", "params", "block_size"]
COLUMNS = [*CASE, "base_ms", "new_ms", "ratio", "ci_low", "ci_high", "verdict", "flags"]
NO_TIME = "no valid time"  # the verdict of a case with no ok repetition on a side
# The verdict of a case whose ok repetitions on a side record no device_ms (--metric device).
NO_DEVICE = "no device_ms"
VERDICTS = ("faster", "slower", "same", NO_TIME, NO_DEVICE)
# What --metric compares: the column of the rows it takes.
METRICS = {"time": "time_ms", "device": "device_ms"}
DEFAULT_METRIC = "time"
FORMATS = ("table", "csv")
DEFAULT_THRESHOLD = stats.CHANGE

Key = tuple[str, str, str, str, int]  # graph, problem, algorithm, requested params, block size
BLOCK = 4  # where a Key holds the block size (0: none)


# Sides of a case whose median host round trip (column round_trip_us) differ by more than
# this share get the flag ROUND_TRIP when a side's timed calls waited for the device (flag
# host, or rows from before the device was held until queued: no host_syncs of 0 recorded):
# the host, not the change, may explain the verdict.
ROUND_TRIP_SHIFT = 0.10
ROUND_TRIP = "round_trip"


@dataclass(frozen=True)
class _Sample:
    """One side of a case: the compared metric of its ok rows (``times``), the flags of all
    its rows (";"-joined), and the median host round trip of its ok rows in µs (NaN where
    not recorded); ``timed``: some ok row has a time_ms (so empty ``times`` of another
    metric mean that the rows do not record it); ``waited``: its times may hold the host's
    round trips (:data:`ROUND_TRIP`)."""

    times: tuple[float, ...]
    flags: str
    label: str = ""
    round_trip_us: float = math.nan
    timed: bool = True
    waited: bool = True

    @property
    def median(self) -> float:
        return float(np.median(self.times)) if self.times else math.nan


Pair = tuple[Key, _Sample, _Sample]


@dataclass(frozen=True)
class Comparison:
    """The per-case ``table`` (:data:`COLUMNS`) and its summary.

    ``geomean``: the geometric mean of the cases' ratios with its 95 % t interval across
    cases, or None without a ratio. ``counts``: cases per verdict (:data:`VERDICTS`).
    ``only_base``/``only_new``: the cases (:data:`CASE` columns) that one side has and the
    other lacks. ``base``/``new`` name the sides (a file, or ``--a NAME``); ``by_config``
    says which form: one file's two configurations, whose ``algorithm`` holds the two
    groups' labels (``A vs B``), or two files. ``metric``: what was compared
    (:data:`METRICS`); ``base_ms``, ``new_ms`` and the ratio are of its column.
    """

    table: pd.DataFrame
    geomean: tuple[float, float, float] | None
    counts: dict[str, int]
    only_base: pd.DataFrame
    only_new: pd.DataFrame
    base: str
    new: str
    threshold: float
    timing: str
    by_config: bool
    metric: str = DEFAULT_METRIC
    notes: tuple[str, ...] = field(default=())

    def summary(self) -> dict[str, object]:
        """The summary as plain values (what :func:`gcbench.compare` puts in ``attrs``)."""
        mean, low, high = self.geomean or (None, None, None)
        return {
            "base": self.base,
            "new": self.new,
            "threshold": self.threshold,
            "metric": self.metric,
            "geomean": mean,
            "geomean_low": low,
            "geomean_high": high,
            "counts": dict(self.counts),
            "only_base": self.case_names(self.only_base),
            "only_new": self.case_names(self.only_new),
            "notes": list(self.notes),
        }

    def frame(self) -> pd.DataFrame:
        """A copy of the table with :meth:`summary` in its ``attrs``."""
        table = self.table.copy()
        table.attrs.update(self.summary())
        return table

    def summary_lines(self) -> list[str]:
        """The summary in words: the geometric mean and its interval, the verdicts, the
        cases only one side has, and the notes."""
        lines = []
        ratios = int(self.table["ratio"].notna().sum())
        if self.geomean is not None:
            mean, low, high = self.geomean
            spread = (
                "one case: no interval across cases"
                if ratios == 1
                else f"95 % interval {low:.3f} to {high:.3f} across cases: how consistently "
                "they changed"
            )
            lines.append(f"geometric mean of new/base over {ratios} case(s): {mean:.3f} ({spread})")
        counted = ", ".join(f"{self.counts[v]} {v}" for v in VERDICTS if self.counts[v])
        lines.append(
            f"verdicts: {counted} (a change counts when its interval excludes 1 and it "
            f"exceeds {self.threshold * 100:g} %)"
        )
        for name, cases in ((self.base, self.only_base), (self.new, self.only_new)):
            if len(cases):
                listed = ", ".join(self.case_names(cases))
                lines.append(f"only in {name} ({len(cases)}): {listed}")
        return lines + [f"note: {n}" for n in self.notes]

    def case_names(self, cases: pd.DataFrame) -> list[str]:
        """``graph algorithm[params]@block`` per case of ``cases``, ``graph algorithm
        (problem)[params]@block`` for a problem other than d1 (``graph label`` for the
        groups of one file's configurations, whose labels name it), for lines of text."""
        return [
            f"{c.graph} {c.algorithm}"
            if self.by_config
            else f"{c.graph} {with_problem(c.algorithm, c.problem)}"
            + (f"[{c.params}]" if c.params else "")
            + ("" if pd.isna(c.block_size) else f"@{c.block_size}")
            for c in cases.itertuples(index=False)
        ]

    def render(self, format: str = "table") -> RenderableType | str:
        """The table as rich text with the summary lines (``table``), or CSV text of exactly
        :data:`COLUMNS` (``csv``)."""
        if format == "csv":
            return self.table.to_csv(index=False, columns=COLUMNS)
        if format != "table":
            raise InputError(f"unknown compare format {format!r}; use one of {'|'.join(FORMATS)}")
        from rich.console import Group
        from rich.text import Text

        return Group(_rich_table(self), Text("\n".join(self.summary_lines())))


def compare(
    base: str | Path,
    new: str | Path | None = None,
    *,
    a: str | None = None,
    b: str | None = None,
    threshold: float | str = DEFAULT_THRESHOLD,
    metric: str = DEFAULT_METRIC,
) -> Comparison:
    """Compare ``new`` against ``base`` (two result files, cases matched by graph, problem,
    algorithm, requested params and block size), or, with ``a`` and ``b``, configuration
    ``b`` against ``a`` in the one file ``base`` (matched per graph and problem;
    docs/compare.md). ``threshold`` is the
    smallest change that counts as one: a share (0.05) or a percentage ("5%"), as
    ``--threshold`` takes it. ``metric``: ``time`` compares ``time_ms``, ``device``
    ``device_ms`` (:data:`METRICS`)."""
    threshold = share(threshold, "--threshold")
    if metric not in METRICS:
        raise InputError(f"unknown compare metric {metric!r}; use one of {'|'.join(METRICS)}")
    if new is not None:
        if a is not None or b is not None:
            raise InputError(
                "compare takes two files, or one file with --a and --b, not both: drop the "
                "second file or --a/--b"
            )
        return _two_files(Path(base), Path(new), threshold, metric)
    if a is None and b is None:
        raise InputError(
            f"compare needs a second file (BASE NEW), or --a CONFIG --b CONFIG to compare two "
            f"configurations of {base}"
        )
    if a is None or b is None:
        given, missing = ("a", "b") if b is None else ("b", "a")
        raise InputError(f"--{given} needs --{missing}: name both configurations to compare")
    return _two_configs(Path(base), a, b, threshold, metric)


# ------------------------------------------------------------------------------- reading


def _read_side(path: Path) -> tuple[pd.DataFrame, list[str]]:
    """The rows of one file (``problem`` d1 where it predates the column) and notes (one
    of them when its schema predates the flags, so that an empty flag means unknown there,
    not clean)."""
    rows, notes = read_results([path])
    with open(path, newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle), [])
    if "flags" not in header:
        notes.append(
            f"{path} predates result schema v3: its rows record no conditions, so its "
            "flags are unknown rather than clean"
        )
    return rows, notes


def _cases(rows: pd.DataFrame, metric: str, labels: pd.Series | None = None) -> dict[Key, _Sample]:
    """One sample of ``metric`` (:data:`METRICS`) per case, in the order the rows first meet
    it; ``labels`` (per row) name each case's group."""
    keyed = rows.assign(
        params=rows["params"].map(requested_params),
        block_size=rows["block_size"].fillna(0).astype(int),
        label="" if labels is None else labels,
    )
    out: dict[Key, _Sample] = {}
    for key, group in keyed.groupby(CASE, sort=False):
        ok = group[group["status"] == "ok"]
        trip = ok["round_trip_us"].median() if ok["round_trip_us"].notna().any() else math.nan
        flags = flag_union(group["flags"])
        held = "host" not in flags.split(";") and bool((ok["host_syncs"] == 0).all())
        out[key] = _Sample(tuple(ok[METRICS[metric]].dropna()), flags,
                           str(group["label"].iloc[0]), float(trip),
                           bool(ok["time_ms"].notna().any()), not held)  # fmt: skip
    return out


def _where(rows: pd.DataFrame) -> str:
    return provenance(rows) or "no device recorded"


# ------------------------------------------------------------------------------- matching


def _problems(rows: pd.DataFrame) -> list[str]:
    return sorted(set(rows["problem"]))


def _two_files(base: Path, new: Path, threshold: float, metric: str) -> Comparison:
    base_rows, notes = _read_side(base)
    new_rows, new_notes = _read_side(new)
    notes += new_notes
    base_problems, new_problems = _problems(base_rows), _problems(new_rows)
    if not set(base_problems) & set(new_problems):
        raise InputError(
            f"{base} holds problem {', '.join(base_problems)} but {new} problem "
            f"{', '.join(new_problems)}: their times are of different colorings; compare "
            "files that share a problem"
        )
    timing = _one_timing(base_rows, base, new_rows, new)
    notes += [f"base {base} measured on {_where(base_rows)}",
              f"new {new} measured on {_where(new_rows)}"]  # fmt: skip
    before, after = _cases(base_rows, metric), _cases(new_rows, metric)
    pairs = [(key, before[key], after[key]) for key in before if key in after]
    if not pairs:
        raise InputError(
            f"{base} and {new} have no case in common (graph, problem, algorithm, params,"
            " block size);"
            " compare two runs of the same suite"
        )
    only_base = [key for key in before if key not in after]
    only_new = [key for key in after if key not in before]
    sides = str(base), str(new)
    return _result(pairs, only_base, only_new, sides, threshold, timing, notes, metric,
                   by_config=False)  # fmt: skip


def _one_timing(base_rows: pd.DataFrame, base: Path, new_rows: pd.DataFrame, new: Path) -> str:
    """The timing convention both files follow; refused when they differ."""
    conventions = [TIMING[bool(rows[COUNT_SETUP].any())] for rows in (base_rows, new_rows)]
    if conventions[0] != conventions[1]:
        raise InputError(
            f"{base} and {new} time differently ({base}: {conventions[0]}; {new}: "
            f"{conventions[1]}): compare runs made with the same --count-setup"
        )
    return conventions[0]


def _two_configs(path: Path, a: str, b: str, threshold: float, metric: str) -> Comparison:
    rows, notes = _read_side(path)
    named = rows.assign(requested=rows["params"].map(requested_params))
    named["config"] = config_label(named["algorithm"], named["requested"], named["problem"])
    named["label"] = group_label(named["config"], named["block_size"])
    masks = {}
    for option, name in (("--a", a), ("--b", b)):
        masks[option] = matching(named, name)
        if not masks[option].any():
            known = ", ".join(sorted(named["algorithm"].unique()))
            raise InputError(
                f"{option} {shown(name)} names nothing in {path} (algorithms: {known}); name "
                "an algorithm, a configuration or a group label as gcbench report shows them"
            )
    shared = named[masks["--a"] & masks["--b"]]
    if len(shared):
        raise InputError(
            f"--a {shown(a)} and --b {shown(b)} both name {shared['label'].iloc[0]}: name two "
            "configurations that do not overlap"
        )
    side_a = _cases(rows[masks["--a"]], metric, named["label"][masks["--a"]])
    side_b = _cases(rows[masks["--b"]], metric, named["label"][masks["--b"]])
    pairs, only_a, only_b, chosen = _per_graph(side_a, side_b)
    if not pairs:
        raise InputError(
            f"--a {shown(a)} and --b {shown(b)} share no graph in {path}: nothing to compare"
        )
    if chosen:
        notes.append(
            f"in {chosen} case(s) a side had several groups to choose from and its fastest "
            "(lowest median) was compared; chosen on the same times, this slightly favours "
            "that side: name group labels (ALGO[...]@BLOCK) to fix the groups"
        )
    timing = TIMING[bool(rows[COUNT_SETUP].any())]
    sides = f"--a {a}", f"--b {b}"
    return _result(pairs, only_a, only_b, sides, threshold, timing, notes, metric,
                   by_config=True)  # fmt: skip


def _per_graph(
    side_a: dict[Key, _Sample], side_b: dict[Key, _Sample]
) -> tuple[list[Pair], list[Key], list[Key], int]:
    """Pair the two configurations' groups per graph and problem: per block size where they
    share block sizes (each side's fastest group at each), else once per graph and problem,
    each side at its fastest group there. Also: the groups left unpaired, and in how many
    cases a side's fastest of several groups was chosen."""
    pairs: list[Pair] = []
    only_a: list[Key] = []
    only_b: list[Key] = []
    chosen = 0
    for case in dict.fromkeys(key[:2] for key in (*side_a, *side_b)):
        ga = {k: s for k, s in side_a.items() if k[:2] == case}
        gb = {k: s for k, s in side_b.items() if k[:2] == case}
        if not ga or not gb:
            only_a += list(ga)
            only_b += list(gb)
            continue
        common = sorted({k[BLOCK] for k in ga} & {k[BLOCK] for k in gb} - {0})
        blocks = common or [None]
        for block in blocks:
            in_a = {k: s for k, s in ga.items() if block is None or k[BLOCK] == block}
            in_b = {k: s for k, s in gb.items() if block is None or k[BLOCK] == block}
            chosen += len(in_a) > 1 or len(in_b) > 1
            ka, kb = _fastest(in_a), _fastest(in_b)
            pairs.append((_pair_key(ka, kb, ga[ka], gb[kb], block), ga[ka], gb[kb]))
        only_a += [k for k in ga if common and k[BLOCK] not in common]
        only_b += [k for k in gb if common and k[BLOCK] not in common]
    return pairs, _labelled(only_a, side_a), _labelled(only_b, side_b), chosen


def _fastest(samples: dict[Key, _Sample]) -> Key:
    """The group of lowest median of the compared metric (one without it last; ties by
    label)."""

    def rank(key: Key) -> tuple[float, str]:
        median = samples[key].median
        return (math.inf if math.isnan(median) else median, samples[key].label)

    return min(samples, key=rank)


def _pair_key(ka: Key, kb: Key, sa: _Sample, sb: _Sample, block: int | None) -> Key:
    """A one-file case: its graph and problem, both groups' labels as its algorithm, their
    params (one text when equal), the shared block size (0 when each side is at its own)."""
    params = ka[3] if ka[3] == kb[3] else f"{ka[3]} vs {kb[3]}"
    return (ka[0], ka[1], f"{sa.label} vs {sb.label}", params, block or 0)


def _labelled(keys: list[Key], side: dict[Key, _Sample]) -> list[Key]:
    """Unpaired one-file groups named by their label rather than their algorithm."""
    return [(k[0], k[1], side[k].label, k[3], k[BLOCK]) for k in keys]


# -------------------------------------------------------------------------------- results


def _result(
    pairs: list[Pair], only_base: list[Key], only_new: list[Key], sides: tuple[str, str],
    threshold: float, timing: str, notes: list[str], metric: str, *, by_config: bool,
) -> Comparison:  # fmt: skip
    table = _frame([_compared(key, b, n, threshold) for key, b, n in pairs], COLUMNS)
    counts = {v: int((table["verdict"] == v).sum()) for v in VERDICTS}
    if metric == "device":
        notes = [*_device_notes(counts, sides), *notes]
    few = int((table["ratio"].notna() & table["ci_low"].isna()).sum())
    if few:
        notes.append(
            f"{few} case(s) have too few valid repetitions for an interval (docs/compare.md): "
            "their verdict is same"
        )
    shifted = int(table["flags"].str.contains(ROUND_TRIP).sum())
    if shifted:
        notes.append(
            f"{shifted} case(s) ran with the host's round trip to the GPU more than "
            f"{ROUND_TRIP_SHIFT:.0%} apart between the sides (flag {ROUND_TRIP}): algorithms "
            "that read a result back every round move with it (docs/statistics.md)"
        )
    flagged = int(suspect(table["flags"]).sum())
    if flagged:
        notes.append(
            f"{flagged} case(s) carry flags (their rows ran throttled, contended, drifting, "
            "noisy or capped; docs/statistics.md): read their verdicts with care"
        )
    return Comparison(
        table=table,
        geomean=geomean_ci(table["ratio"].dropna().tolist()),
        counts=counts,
        only_base=_frame(only_base, CASE),
        only_new=_frame(only_new, CASE),
        base=sides[0],
        new=sides[1],
        threshold=threshold,
        timing=timing,
        by_config=by_config,
        metric=metric,
        notes=tuple(notes),
    )


def _device_notes(counts: dict[str, int], sides: tuple[str, str]) -> list[str]:
    """What comparing device_ms rather than time_ms says (from the ``counts`` per verdict):
    which column, and how many cases lack it on a side (:data:`NO_DEVICE`); refused where
    some case lacks it and none has it on both sides."""
    column = METRICS["device"]
    lacking = counts[NO_DEVICE]
    if lacking and not any(counts[v] for v in ("faster", "slower", "same")):
        raise InputError(
            f"{sides[0]} and {sides[1]} share no case with {column} on both sides (GPU rows"
            " record it since result schema v6): compare their time_ms with --metric time"
        )
    notes = [
        f"compared {column}, the GPU's time on the call's work (time_ms less its idle time on"
        " the host's blocking reads), not time_ms"
    ]
    if lacking:
        notes.append(
            f"{lacking} case(s) lack {column} on a side (CPU rows, or a file before result"
            f" schema v6): verdict {NO_DEVICE}, not compared"
        )
    return notes


def _compared(key: Key, base: _Sample, new: _Sample, threshold: float) -> tuple:
    """One row of the table: medians, ratio and interval, verdict, and both sides' flags
    (with ROUND_TRIP where their host round trips differ)."""
    trips = new.round_trip_us / base.round_trip_us
    waited = base.waited or new.waited
    shifted = ROUND_TRIP if waited and abs(trips - 1) > ROUND_TRIP_SHIFT else ""  # NaN: none
    flags = flag_union([base.flags, new.flags, shifted])
    if not base.times or not new.times:
        missing = NO_TIME if not (base.timed and new.timed) else NO_DEVICE
        return (*key, base.median, new.median, math.nan, math.nan, math.nan, missing, flags)
    interval = ratio_ci(base.times, new.times)
    point = new.median / base.median if base.median > 0 else math.nan
    low, high = (math.nan, math.nan) if interval is None else (interval.low, interval.high)
    return (*key, base.median, new.median, point, low, high, verdict(interval, threshold), flags)


def _frame(records: list[tuple], columns: list[str]) -> pd.DataFrame:
    """``records`` as a frame of ``columns``, block size 0 shown as missing (no block)."""
    frame = pd.DataFrame.from_records(records, columns=columns)
    frame["block_size"] = frame["block_size"].astype("Int64").replace(0, pd.NA)
    return frame


# ------------------------------------------------------------------------------- the table

VERDICT_STYLE = {"faster": "green", "slower": "red", NO_TIME: "yellow", NO_DEVICE: "yellow"}
TEXT_HEADERS = ("graph", "configuration", "verdict", "flags")


def _rich_table(comparison: Comparison) -> RenderableType:
    """The per-case table as rich text (cells plain, so ``[k=v]`` is never markup); the
    verdict coloured, flags shown as recorded."""
    from rich.table import Table
    from rich.text import Text

    from gcbench.report.tables import MISSING, block, num, ratio

    t = comparison.table
    names = (
        t["algorithm"]
        if comparison.by_config
        else config_label(t["algorithm"], t["params"], t["problem"])
    )
    interval = [
        MISSING if pd.isna(low) else f"{ratio(low)}–{ratio(high)}"
        for low, high in zip(t["ci_low"], t["ci_high"], strict=True)
    ]
    unit = "ms" if comparison.metric == DEFAULT_METRIC else f"{comparison.metric} ms"
    shown_columns = {
        "graph": list(t["graph"]),
        "configuration": list(names),
        "block": [block(v) for v in t["block_size"]],
        f"base {unit}": [num(v) for v in t["base_ms"]],
        f"new {unit}": [num(v) for v in t["new_ms"]],
        "new/base": [ratio(v) for v in t["ratio"]],
        "95 % interval": interval,
        "verdict": list(t["verdict"]),
        "flags": list(t["flags"]),
    }
    table = Table(
        title=Text(f"new {comparison.new} against base {comparison.base}", style="bold"),
        title_justify="left",
        header_style="bold",
        caption=Text(comparison.timing, style="dim"),
        caption_justify="left",
    )
    for header in shown_columns:
        justify = "left" if header in TEXT_HEADERS else "right"
        table.add_column(Text(header), justify=justify, overflow="fold")
    for cells in zip(*shown_columns.values(), strict=True):
        texts = [Text(str(c)) for c in cells]
        texts[-2].stylize(VERDICT_STYLE.get(str(cells[-2]), ""))
        table.add_row(*texts)
    return table
