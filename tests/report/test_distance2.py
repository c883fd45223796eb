"""The distance-2 problems in the report and compare (result schema v5: problem, nets,
recovered): d1, d2 and pd2 rows of one graph and one algorithm name never mix, their bounds
and the distance-2 table's numbers, files before v5 read as d1, and compare keyed on the
problem."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from gcbench.bench.results import COLUMNS_V3, COLUMNS_V4, TRACE_COLUMNS
from gcbench.errors import InputError
from gcbench.report import plots, report
from gcbench.report.compare import compare
from gcbench.report.plots import figures
from gcbench.report.tables import sections

GPU = {"backend": "gpu", "device": "gpu", "device_name": "H100"}
SIX = [1.0, 1.02, 0.98, 1.01, 0.99, 1.0]  # six times around 1: an interval of the median
D1 = {"n": 1000, "m": 5000, "chi_lower": 6, "degeneracy": 9}
D2 = {"problem": "d2", "n": 1000, "m": 5000, "nets": 1000, "chi_lower": 21}
PD2 = {"problem": "pd2", "n": 2000, "m": 9000, "nets": 800, "chi_lower": 12}


def times(scale: float) -> list[float]:
    return [round(t * scale, 6) for t in SIX]


def mixed(reps) -> list[dict]:
    """One graph, greedy and jpl solving d1, d2 and pd2 (jpl on the GPU, at two block sizes
    for d2, where one more repetition did not recover J), and sl solving pd2 without an
    order, its one ok repetition unchecked."""
    fast = reps("g1", "jpl", times(0.4), params="order=natural", block_size=256, colors=32,
                recovered="true", **D2, **GPU)  # fmt: skip
    unchecked = reps("g1", "sl", times(0.5), colors=20, recovered="false", status="invalid",
                     **PD2)  # fmt: skip
    unchecked[-1].update(status="ok", recovered="")
    return [
        *reps("g1", "greedy", times(1.0), params="order=ldf", colors=8, **D1),
        *reps("g1", "jpl", times(0.5), block_size=128, colors=9, **D1, **GPU),
        *reps("g1", "greedy", times(4.0), params="order=natural", colors=30, recovered="true",
              **D2),
        *reps("g1", "greedy", times(5.0), params="order=largest-first", colors=21,
              recovered="True", **D2),
        *reps("g1", "jpl", times(0.8), params="order=natural", block_size=128, colors=32,
              recovered="true", **D2, **GPU),
        *fast, {**fast[0], "rep": 6, "status": "invalid", "recovered": "false"},
        *reps("g1", "greedy", times(2.0), params="order=natural", colors=16, recovered="true",
              **PD2),
        *reps("g1", "jpl", times(0.25), params="order=random", block_size=128, colors=18,
              **PD2, **GPU),
        *unchecked,
    ]  # fmt: skip


@pytest.fixture
def rep(write_csv, reps):
    return report([write_csv(mixed(reps))], baseline="greedy")


def test_each_problem_is_its_own_case(rep):
    s = rep.summary.set_index(["problem", "label"])
    assert sorted(s.index) == [
        ("d1", "greedy"), ("d1", "jpl@128"),
        ("d2", "greedy (d2)[order=largest-first]"), ("d2", "greedy (d2)[order=natural]"),
        ("d2", "jpl (d2)@128"), ("d2", "jpl (d2)@256"),
        ("pd2", "greedy (pd2)"), ("pd2", "jpl (pd2)@128"), ("pd2", "sl (pd2)"),
    ]  # fmt: skip
    bounds = s.groupby("problem")[["bound", "bound_kind"]].first()
    assert bounds.to_dict("index") == {
        "d1": {"bound": 6, "bound_kind": "clique"},
        "d2": {"bound": 21, "bound_kind": "Δ+1"},
        "pd2": {"bound": 12, "bound_kind": "max row"},
    }  # fmt: skip
    assert s.loc[("d2", "greedy (d2)[order=largest-first]"), "reaches_bound"]
    assert s.loc[("d1", "greedy"), "colors_gap"] == 2 and s.loc[("pd2", "sl (pd2)"), "ok"] == 1
    # colors and speedups are relative within the case: greedy is each problem's baseline
    assert s.colors_rel.xs("d1").to_dict() == {"greedy": 1.0, "jpl@128": 9 / 8}
    assert s.speedup.xs("d2")["jpl (d2)@256"] == pytest.approx(4.0 / 0.4)
    assert s.speedup.xs("pd2")["greedy (pd2)"] == 1.0
    titles = [x.title for x in sections(rep)][:3]
    assert titles == [
        "g1  (n = 1,000, m = 5,000, χ ≥ 6 by a clique, degeneracy + 1 = 10)",
        "g1, d2  (n = 1,000, m = 5,000, nets = 1,000, colors ≥ 21 by Δ+1)",
        "g1, pd2  (n = 2,000, nnz = 9,000, nets = 800, colors ≥ 12 by max row)",
    ]
    winners = rep.winners.set_index("problem")
    assert winners.fastest_label.to_dict() == {"d1": "jpl@128", "d2": "jpl (d2)@256",
                                               "pd2": "jpl (pd2)@128"}  # fmt: skip
    assert rep.graphs[["problem", "bound_kind"]].values.tolist() == [
        ["d1", "clique"], ["d2", "Δ+1"], ["pd2", "max row"]
    ]  # fmt: skip
    assert rep.graphs.nets.tolist()[1:] == [1000, 800] and math.isnan(rep.graphs.nets[0])


def test_the_distance2_table(rep):
    t = rep.distance2.set_index(["problem", "config"])
    d2 = t.loc[("d2", "jpl (d2)")]
    assert d2.block_size == 256 and d2.colors == 32 and d2.nets == 1000
    assert d2.colors_over_bound == pytest.approx(32 / 21)
    assert d2.compression == pytest.approx(1000 / 32)
    assert not d2.recovered  # one repetition did not recover J
    assert d2.speedup_serial == pytest.approx(4.0 / 0.4)  # greedy of its order, natural
    assert d2.speedup_serial_ci_low < 10 < d2.speedup_serial_ci_high
    own = t.loc[("d2", "greedy (d2)[order=largest-first]")]
    assert (own.speedup_serial, own.speedup_serial_ci_low, own.colors_over_bound) == (1, 1, 1)
    assert math.isnan(t.loc[("pd2", "jpl (pd2)"), "speedup_serial"])  # no greedy of random
    assert t.loc[("pd2", "sl (pd2)"), "speedup_serial"] == pytest.approx(2.0 / 0.5)  # no order
    assert list(rep.distance2["problem"]) == ["d2", "d2", "d2", "pd2", "pd2", "pd2"]

    (section,) = [x for x in sections(rep) if x.title.startswith("Distance-2 colorings")]
    shown = section.frame.set_index("configuration")
    assert list(section.frame.columns) == [
        "graph", "problem", "configuration", "time ms", "CI ms", "colors", "bound",
        "colors/bound", "n/colors", "nets", "recovered", "vs greedy", "vs greedy CI",
    ]  # fmt: skip
    assert shown.loc["jpl (d2)", ["bound", "colors/bound", "n/colors", "recovered"]].tolist() == [
        "21 (Δ+1)", "1.52", "31.2", "NO"
    ]  # fmt: skip
    assert shown.recovered.to_dict() == {
        "jpl (d2)": "NO", "greedy (d2)[order=natural]": "yes",
        "greedy (d2)[order=largest-first]": "yes", "jpl (pd2)": "—", "greedy (pd2)": "yes",
        "sl (pd2)": "NO",
    }  # fmt: skip
    assert shown.loc["jpl (pd2)", "vs greedy"] == "—" and shown.loc["sl (pd2)", "n/colors"] == "100"
    assert any(line.startswith("recovered: yes") for line in section.legend)


def test_d1_only_reports_have_no_distance2_table(write_csv, reps):
    only = report([write_csv(reps("g1", "greedy", times(1.0), params="order=ldf"))])
    assert only.distance2.empty and set(only.summary.problem) == {"d1"}
    assert not any(x.title.startswith("Distance-2") for x in sections(only, labels=True))
    assert "problem" not in next(x for x in sections(only) if x.title.startswith("Winners")).frame


@pytest.mark.parametrize("columns", [COLUMNS_V4, COLUMNS_V3], ids=["v4", "v3"])
def test_files_before_v5_read_as_d1(write_csv, reps, row, columns):
    old = [{c: r[c] for c in columns} for r in reps("g1", "greedy", [1.0, 1.1], params="order=ff")]
    new = [row("g1", "greedy", 1.2, rep=2, params="order=ff"),
           *reps("g1", "greedy", [3.0], params="order=ff", recovered="true", **D2)]  # fmt: skip
    both = report([write_csv(old, "old.csv", columns), write_csv(new, "new.csv")])
    s = both.summary.set_index("problem")
    assert s.loc["d1", "reps"] == 3 and s.loc["d1", "label"] == "greedy"  # pooled with v5's d1
    assert pd.isna(s.loc["d1", "recovered"]) and pd.isna(s.loc["d1", "nets"])
    assert s.loc["d2", "reps"] == 1 and bool(s.loc["d2", "recovered"])
    alone = report([write_csv(old, "alone.csv", columns)])
    assert list(alone.rows.problem) == ["d1", "d1"] and alone.rows.recovered.isna().all()


def test_unknown_problem_or_recovered_is_refused(write_csv, reps):
    with pytest.raises(InputError, match="unknown problem 'd3'"):
        report([write_csv(reps("g1", "a", [1.0], problem="d3"), "p.csv")])
    with pytest.raises(InputError, match="recovered must be true, false or empty"):
        report([write_csv(reps("g1", "a", [1.0], problem="d2", recovered="maybe"), "r.csv")])


def test_compare_keys_on_the_problem(write_csv, reps):
    """The same graph, algorithm and params in d1 and d2: two cases, never one."""

    def side(d2_scale: float, pd2: bool = False) -> list[dict]:
        rows = [
            *reps("g1", "greedy", times(1.0) + times(1.0), params="order=natural"),
            *reps("g1", "greedy", times(d2_scale) * 2, params="order=natural", **D2),
        ]
        if pd2:
            rows += reps("g1", "greedy", times(1.0) * 2, params="order=natural", **PD2)
        return rows  # fmt: skip

    base, new = write_csv(side(1.0), "base.csv"), write_csv(side(1.2, pd2=True), "new.csv")
    result = compare(base, new)
    table = result.table.set_index("problem")
    assert list(table.index) == ["d1", "d2"]
    assert table.verdict.to_dict() == {"d1": "same", "d2": "slower"}
    assert table.loc["d2", "ratio"] == pytest.approx(1.2)
    assert result.only_base.empty
    assert result.case_names(result.only_new) == ["g1 greedy (pd2)[order=natural]"]

    one = write_csv([*side(1.0), *reps("g1", "jpl", times(0.5) * 2, params="order=natural",
                                       **D2)], "one.csv")  # fmt: skip
    versus = compare(one, a="greedy", b="jpl")
    assert versus.table[["problem", "algorithm"]].values.tolist() == [
        ["d2", "greedy (d2) vs jpl (d2)"]
    ]  # fmt: skip
    assert versus.case_names(versus.only_base) == ["g1 greedy"]  # d1: jpl did not solve it
    assert versus.table.verdict.tolist() == ["faster"]

    old = write_csv([{c: r[c] for c in COLUMNS_V4} for r in side(1.0)[:12]], "v4.csv",
                    COLUMNS_V4)  # fmt: skip
    against_v4 = compare(old, new)
    assert against_v4.table.problem.tolist() == ["d1"]
    assert len(against_v4.only_new) == 2  # d2 and pd2: the v4 file solved d1 only


def test_figures_and_page_per_problem(tmp_path, write_csv, write_trace, reps, monkeypatch):
    path = write_csv(mixed(reps))
    trace = [  # a trace file without a problem column: matched by algorithm and params
        {"run_id": "r1", "graph": "g1", "algorithm": algo, "params": params, "block_size": bs,
         "rep": 0, "round": r, "series": "active", "active": 100 - 10 * r}
        for algo, params, bs in (("jpl", "", 128), ("jpl", "order=natural", 256))
        for r in range(5)
    ]  # fmt: skip
    write_trace(trace, columns=[c for c in TRACE_COLUMNS if c != "problem"])
    made = {}  # the figures the report wrote (drawn by the writing, so their ticks exist)

    def kept(*args, **kwargs):
        figs, left_out = figures(*args, **kwargs)
        made.update(figs)
        return figs, left_out

    monkeypatch.setattr(plots, "figures", kept)
    rep = report([path], baseline="greedy", out=tmp_path / "out", dpi=40)
    missing = rep.plot_notes
    assert {"time", "colors", "time_d2", "colors_d2", "block_sizes_d2", "time_pd2", "trace",
            "trace_d2"} <= set(made)  # fmt: skip
    assert "trace_pd2" not in made and all(line[:3] in ("d1:", "d2:", "pd2") for line in missing)
    subtitle = made["colors_d2"].texts + [t for s in made["colors_d2"].subfigs for t in s.texts]
    assert any("distance-2 coloring (d2)" in t.get_text() for t in subtitle)
    ticks = [t.get_text() for t in made["colors_pd2"].axes[0].get_xticklabels()]
    assert ticks == ["g1\nmax row = 12"]
    page = (tmp_path / "out" / "index.html").read_text()
    assert "Distance-2 colorings" in page and ">g1 (d2)</a>" in page and "time_d2.png" in page
    assert "| greedy (d2)[order=natural] |" in (tmp_path / "out" / "summary.md").read_text()
