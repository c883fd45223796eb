"""The report's class-balance plot and levels table (issue 18), from hand-written rows."""

from __future__ import annotations

import pandas as pd
import pytest

from gcbench.bench.results import COLUMNS, TRACE_COLUMNS
from gcbench.report import report
from gcbench.report.tables import SUMMARY_COLUMNS, markdown, sections

GPU = {"backend": "gpu", "device": "gpu", "device_name": "H200", "block_size": 256}


def rows(reps, levels: bool = True) -> list[dict]:
    """ecl-gc plain and balanced, and greedy, on two graphs; level columns on g1 only."""
    out = []
    for graph in ("g1", "g2"):
        for algo, params, extra, cv, low, high in [
            ("ecl-gc", "balance=none", GPU, 0.9, 2, 60),
            ("ecl-gc", "balance=shuffle", GPU, 0.05, 24, 26),
            ("greedy", "balance=none;order=ldf", {}, 0.7, 4, 50),
        ]:
            metrics = {}
            if levels and graph == "g1":
                metrics = dict(levels_natural=19, levels_colored=4,
                               trsv_natural_ms=2.0, trsv_colored_ms=0.5)  # fmt: skip
            out += reps(graph, algo, [1.0, 1.2, 1.1], params=params, colors=4, min_class=low,
                        max_class=high, class_cv=cv, **metrics, **extra)  # fmt: skip
    return out


def trace(graph: str, algo: str, params: str, block, sizes) -> list[dict]:
    return [
        {"run_id": "r1", "graph": graph, "algorithm": algo, "params": params, "block_size": block,
         "rep": 0, "round": i, "series": "class_size", "active": s}
        for i, s in enumerate(sizes)
    ]  # fmt: skip


def test_summary_and_levels_table(write_csv, reps):
    rep = report([write_csv(rows(reps))])
    ecl = rep.summary[(rep.summary.graph == "g1") & (rep.summary.algorithm == "ecl-gc")]
    assert sorted(ecl.class_cv) == [0.05, 0.9] and set(ecl.min_class) == {2, 24}
    assert rep.levels.graph.tolist() == ["g1"] * 3
    assert (rep.levels.levels_natural == 19).all() and (rep.levels.trsv_speedup == 4.0).all()
    tables = {s.title: s.frame for s in sections(rep)}
    titles = list(tables)
    table = tables[next(t for t in titles if t.startswith("Levels"))]
    assert list(table.columns) == [
        "graph", "configuration", "colors", "levels natural", "levels colored",
        "solve natural ms", "solve colored ms", "solve speedup",
    ]  # fmt: skip
    assert table["solve speedup"].tolist() == ["4.00"] * 3
    assert "class CV" in tables[titles[0]].columns
    assert "## Levels of a lower-triangular solve" in markdown(rep)
    assert set(SUMMARY_COLUMNS) <= set(rep.summary.columns)


def test_no_levels_table_without_the_metric(write_csv, reps):
    rep = report([write_csv(rows(reps, levels=False))])
    assert rep.levels.empty
    assert not any(s.title.startswith("Levels") for s in sections(rep))


def test_results_without_the_new_columns_still_report(write_csv, reps, built):
    old = [c for c in COLUMNS if c not in ("min_class", "max_class", "class_cv")]
    path = write_csv([{k: v for k, v in r.items() if k in old} for r in rows(reps)],
                     columns=old)  # fmt: skip
    rep = report([path])
    assert rep.summary.class_cv.isna().all()
    assert rep.traces is None  # no trace file: the plot has only the class-size columns
    assert "balance" not in built(rep)[0]


@pytest.mark.slow
def test_balance_plot_draws_ranges_and_every_class(
    tmp_path, write_csv, write_trace, reps, built, pixel_spread
):
    path = write_csv(rows(reps))
    write_trace(
        trace("g1", "ecl-gc", "balance=none", 256, [60, 30, 8, 2])
        + trace("g1", "ecl-gc", "balance=shuffle", 256, [26, 25, 25, 24])
    )
    rep = report([path], out=tmp_path / "out", dpi=60)
    assert (tmp_path / "out" / "balance.png") in rep.written
    assert pixel_spread(tmp_path / "out" / "balance.png") > 20
    made, _ = built(rep)
    fig = made["balance"]
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["g1", "g2"]
    ticks = [t.get_text() for t in panels[0].get_yticklabels()]  # a row per configuration
    assert ticks == ["ecl-gc[balance=none]", "ecl-gc[balance=shuffle]", "greedy"]
    cvs = [t.get_text() for t in panels[0].texts]  # each row's class_cv at its right
    assert sorted(cvs) == ["0.05", "0.70", "0.90", "CV"]
    assert "dots: every class" in fig.subfigs[0].get_suptitle()  # the trace has them
    dots = [line for line in panels[0].get_lines() if line.get_marker() == "."]
    assert sorted(len(line.get_xdata()) for line in dots) == [4, 4]
    assert "trace" not in made  # class sizes are no per-round curve
    low, high = panels[0].get_xlim()
    assert low < 2 and high > 60
    assert pd.read_csv(tmp_path / "results.trace.csv").columns.tolist() == list(TRACE_COLUMNS)
