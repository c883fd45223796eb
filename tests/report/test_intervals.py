"""How sure the report is: intervals of medians and speedups, ≈ for groups not told apart
from the fastest, flags, their marks in tables and figures, and v1 / v2 files."""

from __future__ import annotations

import io
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from matplotlib.container import BarContainer
from matplotlib.legend import Legend
from rich.console import Console

from gcbench.bench.results import (
    COLUMNS_V1,
    COLUMNS_V2,
    FLAG_CAUSES,
    FLOOR_CAUSE,
    HOST_CAUSE,
)
from gcbench.report import report
from gcbench.report.aggregate import flag_union
from gcbench.report.plots import FLAG_HATCH, FLAG_LABEL
from gcbench.report.tables import FLAG_LEGEND, NEAR_LEGEND, interval, sections, summary_csv
from gcbench.stats import median_ci, ratio_ci

GPU = {"backend": "gpu", "device": "gpu", "device_name": "H100"}
SPREAD = [1.0, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06]  # 7 times: the interval is [min, max]


def scaled(low: float, step: float = 0.01, n: int = 7) -> list[float]:
    """``n`` times from ``low`` in steps of ``step``: their interval is [first, last]."""
    return [round(low + step * i, 6) for i in range(n)]


def by_label(rep, graph: str) -> pd.DataFrame:
    return rep.summary[rep.summary.graph == graph].set_index("label")


def graph_table(rep, graph: str):
    """The display section of ``graph``'s groups."""
    return next(s for s in sections(rep) if s.title.startswith(f"{graph} "))


def test_median_interval_is_stats_median_ci_of_the_ok_times(write_csv, reps, row):
    times = [4.1, 3.9, 4.4, 5.0, 3.7, 4.2, 4.0, 4.6, 9.0, 4.3, 3.8]
    rows = [*reps("g1", "a", times), *reps("g1", "few", [1.0, 2.0, 3.0]),
            row("g1", "a", 0.01, rep=11, status="invalid", conflicts=2),  # never counted
            *reps("g1", "none", [None] * 7, status="timeout")]  # fmt: skip
    rep = report([write_csv(rows)])
    s = by_label(rep, "g1")
    low, high = median_ci(times)
    assert (s.loc["a", "time_ci_low_ms"], s.loc["a", "time_ci_high_ms"]) == (low, high)
    assert low < s.loc["a", "time_ms"] < high and s.loc["a", "ok_times_ms"] == tuple(sorted(times))
    for label in ("few", "none"):  # 3 ok times, and none: no interval
        assert math.isnan(s.loc[label, "time_ci_low_ms"])
        assert math.isnan(s.loc[label, "time_ci_high_ms"])
    shown = graph_table(rep, "g1").frame.set_index("configuration")["CI ms"]
    assert shown.to_dict() == {"a": interval(low, high), "few": "—", "none": "—"}
    assert interval(low, high) == f"{low:.2f}–{high:.2f}"


def test_speedup_interval_is_ratio_ci_against_the_baselines_best_group(write_csv, reps):
    base128, base256 = scaled(10.0, 0.3, 8), scaled(12.0, 0.2, 8)
    fast = scaled(4.0, 0.25, 9)
    rows = [*reps("g1", "base", base128, block_size=128, **GPU),
            *reps("g1", "base", base256, block_size=256, **GPU),
            *reps("g1", "fast", fast), *reps("g1", "one", [2.0])]  # fmt: skip
    rep = report([write_csv(rows)], baseline="base")
    s = by_label(rep, "g1")
    expected = ratio_ci(fast, base128)  # median(base@128) / median(fast): the speedup
    assert s.loc["fast", "speedup"] == pytest.approx(expected.ratio)
    assert (s.loc["fast", "speedup_ci_low"], s.loc["fast", "speedup_ci_high"]) == (
        expected.low, expected.high
    )  # fmt: skip
    assert 1 < expected.low < expected.ratio < expected.high
    slower = ratio_ci(base256, base128)
    assert s.loc["base@256", "speedup_ci_high"] == slower.high < 1
    assert (s.loc["base@128", "speedup_ci_low"], s.loc["base@128", "speedup_ci_high"]) == (1, 1)
    assert s.loc["one", "speedup"] > 1 and math.isnan(s.loc["one", "speedup_ci_low"])
    shown = graph_table(rep, "g1").frame.set_index("configuration")["speedup CI"]
    assert shown["base@128"] == "1.00–1.00" and shown["one"] == "—"


def near_rows(reps) -> list[dict]:
    """g1: fast, then tie and edge overlapping its interval [1.00, 1.06], slow just clear of
    it, few without an interval and a failure; g2: fast and a clearly slower one."""
    return [
        *reps("g1", "fast", SPREAD),
        *reps("g1", "tie", scaled(1.05)),  # [1.05, 1.11]
        *reps("g1", "edge", scaled(1.06)),  # [1.06, 1.12]: touches it
        *reps("g1", "slow", scaled(1.07)),  # [1.07, 1.13]
        *reps("g1", "few", [1.04, 1.05, 1.06]),
        *reps("g1", "broken", [None] * 7, status="error", error="boom"),
        *reps("g2", "fast", SPREAD),
        *reps("g2", "slow", scaled(2.0)),
    ]


def test_near_fastest_marks_exactly_the_overlapping_groups(write_csv, reps):
    rep = report([write_csv(near_rows(reps))], baseline="fast")
    s = by_label(rep, "g1")
    assert s.near_fastest.to_dict() == {"broken": False, "edge": True, "fast": False,
                                        "few": False, "slow": False, "tie": True}  # fmt: skip
    assert not by_label(rep, "g2").near_fastest.any()
    g1, g2 = graph_table(rep, "g1"), graph_table(rep, "g2")
    times = g1.frame.set_index("configuration")["time ms"].to_dict()
    assert times == {"fast": "1.03", "tie": "≈ 1.08", "edge": "≈ 1.09", "few": "1.05",
                     "slow": "1.1", "broken": "—"}  # fmt: skip
    assert list(g1.frame.configuration) == ["fast", "few", "tie", "edge", "slow", "broken"]
    assert NEAR_LEGEND in g1.legend and NEAR_LEGEND not in g2.legend
    winners = next(s for s in sections(rep) if s.title == "Winners per graph")
    assert winners.frame.fastest.tolist() == ["fast ≈ tie ≈ edge", "fast"]
    assert winners.legend == (NEAR_LEGEND,)
    md = replace(rep, format="markdown").render()
    assert "| g1 | fast ≈ tie ≈ edge | 1.03 |" in md
    assert f"*{rep.timing}*  \n*CI: 95 % confidence interval" in md


def test_narrow_terminals_leave_out_the_speedup_interval_first(write_csv, reps):
    rendered = report([write_csv(near_rows(reps))], baseline="fast").render()

    def text(width: int) -> str:
        console = Console(width=width, record=True, file=io.StringIO())
        console.print(rendered)
        return console.export_text()

    wide, narrow = text(250), text(100)
    assert "speedup CI" in wide and "1.05–1.11" in wide and "≈ 1.08" in wide
    assert "speedup CI" not in narrow and "≈ 1.08" in narrow
    assert all(len(line) <= 100 for line in narrow.splitlines())


def test_winners_name_at_most_two_beside_the_fastest(write_csv, reps):
    rows = [*reps("g1", "a", SPREAD)] + [
        r for i, name in enumerate("bcde") for r in reps("g1", name, scaled(1.01 + i / 100))
    ]
    rep = report([write_csv(rows)])
    assert rep.winners.fastest_near.iloc[0] == ("b", "c", "d", "e")
    winners = next(s for s in sections(rep) if s.title == "Winners per graph")
    assert winners.frame.fastest.tolist() == ["a ≈ b ≈ c ≈ 2 more"]


def test_flags_union_marks_and_notes(write_csv, reps, row):
    flags = ["", "noisy", "contended;throttled", "", "", "", ""]
    rows = [
        *(row("g1", "a", t, rep=i, flags=f)
          for i, (t, f) in enumerate(zip(SPREAD, flags, strict=True))),
        *reps("g1", "b", scaled(2.0)),
        *reps("g1", "c", [None] * 2, status="error", error="x", flags="contended"),
        *reps("g2", "a", scaled(3.0)),
    ]  # fmt: skip
    rep = report([write_csv(rows)])
    s = by_label(rep, "g1")
    assert s["flags"].to_dict() == {"a": "throttled;contended;noisy", "b": "", "c": "contended"}
    assert (by_label(rep, "g2")["flags"] == "").all()
    frame = graph_table(rep, "g1").frame.set_index("configuration")
    assert frame.loc["a", "time ms"] == "1.03†" and frame.loc["b", "time ms"] == "2.03"
    assert frame.loc["a", "note"] == "flags: throttled, contended, noisy"
    assert frame.loc["c", "note"] == "2 error: x; flags: contended"
    assert FLAG_LEGEND in graph_table(rep, "g1").legend
    assert FLAG_LEGEND not in graph_table(rep, "g2").legend
    assert [n for n in rep.notes if " group" in n] == [
        f"1 group {FLAG_CAUSES['throttled'][0]} (throttled): their times are unreliable",
        f"2 groups {FLAG_CAUSES['contended'][0]} (contended): their times are unreliable",
        f"1 group {FLAG_CAUSES['noisy'][0]} (noisy): their times are unreliable",
    ]
    assert "flags" in summary_csv(rep.summary).splitlines()[0].split(",")


@pytest.mark.parametrize(
    ("flag", "note"),
    [
        ("floor", f"1 group {FLOOR_CAUSE} (floor): as sure as gcbench can measure"),
        ("host", f"1 group {HOST_CAUSE} (host): compare them across runs with care"),
    ],
)
def test_a_floor_or_host_group_is_noted_but_not_marked_suspect(write_csv, reps, flag, note):
    rows = [*reps("g1", "a", SPREAD, flags=flag), *reps("g1", "b", scaled(2.0))]
    rep = report([write_csv(rows)])
    frame = graph_table(rep, "g1").frame.set_index("configuration")
    assert frame.loc["a", "time ms"] == "1.03" and frame.loc["a", "note"] == f"flags: {flag}"
    assert FLAG_LEGEND not in graph_table(rep, "g1").legend
    assert note in rep.notes


def test_flag_union_orders_known_flags_first():
    assert flag_union(["drift;later", " noisy ", "", "throttled;drift"]) == (
        "throttled;drift;noisy;later"
    )
    assert flag_union(["", ""]) == ""


@pytest.mark.parametrize(("columns", "version"), [(COLUMNS_V2, 2), (COLUMNS_V1, 1)])
def test_older_files_report_with_intervals_and_no_flags(write_csv, reps, columns, version):
    rows = [*reps("g1", "a", SPREAD), *reps("g1", "b", scaled(1.02)), *reps("g1", "c", [5])]
    old = write_csv([{c: r[c] for c in columns} for r in rows], f"v{version}.csv", columns)
    rep = report([old], format="markdown")
    s = by_label(rep, "g1")
    assert (s["flags"] == "").all() and s.near_fastest.to_dict() == {"a": False, "b": True,
                                                                  "c": False}  # fmt: skip
    assert s.loc["a", "time_ci_low_ms"] == 1.0 and s.loc["a", "time_ci_high_ms"] == 1.06
    assert not any(" group" in n for n in rep.notes)
    assert "†" not in rep.render() and "≈ 1.05" in rep.render()
    both = report([old, write_csv(reps("g1", "a", [1.0], flags="drift"), "v3.csv")])
    assert by_label(both, "g1")["flags"].to_dict() == {"a": "drift", "b": "", "c": ""}


def whiskers(fig) -> set[tuple[float, float]]:
    """(low, high) of every whisker drawn on ``fig``'s bars, rounded."""
    out = set()
    for ax in fig.axes:
        for bars in (c for c in ax.containers if isinstance(c, BarContainer)):
            if bars.errorbar is None:
                continue
            for segment in bars.errorbar.lines[2][0].get_segments():
                if len(segment):
                    out.add((round(segment[0][1], 6), round(segment[1][1], 6)))
    return out


def legend_texts(fig) -> list[str]:
    """The text of every legend entry of ``fig`` (legends sit in nested subfigures)."""
    return [t.get_text() for legend in fig.findobj(Legend) for t in legend.get_texts()]


def subtitle(fig) -> str:
    """The subtitle of ``fig`` (the title of the subfigure under its title)."""
    return fig.subfigs[0].get_suptitle()


def figure_rows(reps) -> list[dict]:
    """Two graphs: a and b with intervals (b flagged on g2 only), c with 3 repetitions,
    d at two block sizes with intervals."""
    return [
        *reps("g1", "a", scaled(10.0, 0.5)), *reps("g2", "a", scaled(20.0, 0.5)),
        *reps("g1", "b", scaled(3.0, 0.1)),
        *reps("g2", "b", scaled(4.0, 0.1), flags="contended"),
        *reps("g1", "c", [1.0, 1.2, 1.1]), *reps("g2", "c", [2.0, 2.2, 2.1]),
        *(r for g, at in (("g1", 5.0), ("g2", 7.0)) for bs, t in ((128, at), (256, at + 1))
          for r in reps(g, "d", scaled(t, 0.2), block_size=bs, **GPU)),
    ]  # fmt: skip


def test_figures_draw_intervals_as_whiskers_and_mark_flags(write_csv, reps, built):
    rep = report([write_csv(figure_rows(reps))], baseline="a")
    made, _ = built(rep)
    best = rep.summary[rep.summary.label != "d@256"]  # the bars: d at its best block size
    time = {
        (round(lo, 6), round(hi, 6))
        for lo, hi in zip(best.time_ci_low_ms, best.time_ci_high_ms, strict=True)
        if not np.isnan(lo)
    }
    speedup = {
        (round(lo, 6), round(hi, 6))
        for lo, hi in zip(best.speedup_ci_low, best.speedup_ci_high, strict=True)
        if not np.isnan(lo)
    }
    assert len(time) == 6 and whiskers(made["time"]) == time  # c has none
    # a is 1–1 on both graphs; c's 3 times against a's 7 are enough for a ratio's interval
    assert len(speedup) == 7 and whiskers(made["speedup"]) == speedup
    for name in ("time", "speedup"):
        fig = made[name]
        assert "whiskers: 95 % confidence interval of the" in subtitle(fig)
        hatched = [p for ax in fig.axes for p in ax.patches if p.get_hatch() == FLAG_HATCH]
        assert len(hatched) == 1  # b on g2
        assert FLAG_LABEL in legend_texts(fig)
    sweep = made["block_sizes"]
    assert "band: 95 % confidence interval of the median" in subtitle(sweep)
    bands = [c for ax in sweep.axes for c in ax.collections if c.get_paths()]
    tops = {round(float(v), 6) for band in bands for p in band.get_paths()
            for v in p.vertices[:, 1]}  # fmt: skip
    d = rep.summary[rep.summary.algorithm == "d"]
    assert set(d.time_ci_low_ms.round(6)) | set(d.time_ci_high_ms.round(6)) <= tops


def test_no_flag_legend_without_flags(write_csv, reps, built):
    rows = [r for r in figure_rows(reps) if not r["flags"]]
    made, _ = built(report([write_csv(rows)], baseline="a"))
    assert {"time", "speedup", "block_sizes"} <= set(made)
    for fig in made.values():
        assert FLAG_LABEL not in legend_texts(fig)


def test_figures_without_intervals_say_why(write_csv, mixed_rows, built):
    made, _ = built(report([write_csv(mixed_rows)]))  # 3 repetitions a group at most
    for name, mark in (("time", "whiskers"), ("speedup", "whiskers"), ("block_sizes", "band")):
        assert subtitle(made[name]).endswith(
            f"no {mark}: too few ok repetitions for a 95 % confidence interval"
        )
        assert all(low == high for low, high in whiskers(made[name]))  # the baseline's 1–1
