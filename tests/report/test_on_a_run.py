"""The report on a CSV the real runner wrote (CPU greedy, two orders, two tiny graphs)."""

from __future__ import annotations

import pandas as pd
import pytest

from gcbench.bench import runner
from gcbench.report import report

GRAPHS = ["gen:cycle?n=11", "gen:grid2d?side=8"]


@pytest.mark.slow
def test_report_on_a_runner_csv(tmp_path, data_dir):
    out = tmp_path / "run.csv"
    summary = runner.run(
        graphs=GRAPHS, algorithms=["greedy"], params={"order": "ff,ldf"}, reps=3, warmup=1,
        out=out, trace=True, progress=False, choice=runner.DeviceChoice("cpu", "test"),
    )  # fmt: skip
    assert summary.exit_code == 0
    rep = report([out], out=tmp_path / "report")
    rows = pd.read_csv(out)
    assert (rows.status == "ok").all() and len(rows) == 2 * 2 * 3

    s = rep.summary.set_index(["graph", "label"])
    assert set(s.index.get_level_values("graph")) == set(GRAPHS) and len(s) == 4
    assert (s.reps == 3).all() and (s.ok == 3).all() and s.block_size.isna().all()
    medians = rows.groupby(["graph", "params"])[["time_ms", "colors"]].median()
    for (graph, params), median in medians.iterrows():
        label = "greedy[order=" + dict(kv.split("=") for kv in params.split(";"))["order"] + "]"
        assert s.loc[(graph, label), "time_ms"] == pytest.approx(median.time_ms)
        assert s.loc[(graph, label), "colors"] == median.colors
    assert (s.xs("gen:cycle?n=11").colors == 3).all()  # any greedy order: 3 on an odd cycle

    assert rep.baseline == "greedy[order=ldf]"  # the default on CPU-only results
    assert (s.xs("greedy[order=ldf]", level="label").speedup == 1.0).all()
    assert set(rep.winners.graph) == set(GRAPHS)
    if "chi_lower" in rows.columns and rows.chi_lower.notna().all():  # schema v4
        assert (s.colors_gap >= 0).all() and (s.bound >= 2).all()
    names = {p.name for p in rep.written}
    assert {"summary.csv", "summary.md", "index.html", "time.png", "colors.png",
            "speedup.png"} <= names  # fmt: skip
    assert summary.trace_path is not None and rep.traces is not None
    per_round = (rep.traces.series != "class_size").any()  # greedy traces no rounds
    assert ("trace.png" in names) == per_round
    assert "balance.png" in names  # every row has class sizes; --trace adds every class
