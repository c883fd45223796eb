"""Aggregation, speedups, winners, block sizes and pareto on hand-written CSVs."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gcbench.errors import InputError
from gcbench.report import report
from gcbench.report.aggregate import KEYS


def one(frame: pd.DataFrame, **where) -> pd.Series:
    """The single row of ``frame`` matching ``where``."""
    mask = np.logical_and.reduce([frame[k] == v for k, v in where.items()])
    assert mask.sum() == 1, where
    return frame[mask].iloc[0]


def test_summary_matches_direct_pandas(write_csv, row):
    rng = np.random.default_rng(7)
    statuses = ["ok"] * 6 + ["invalid", "timeout", "error"]
    rows = [
        row(g, a, round(float(rng.uniform(0.1, 50)), 6), rep=r, params=p, block_size=b,
            status=str(rng.choice(statuses)), colors=int(rng.integers(3, 9)),
            iterations=int(rng.integers(1, 40)), transfer_ms=float(rng.uniform(0, 1)))
        for g in ("g1", "g2", "g3")
        for a, p, b in [("greedy", "order=ff", ""), ("greedy", "order=ldf", ""),
                        ("jpl", "", 128), ("jpl", "", 256)]
        for r in range(7)
    ]  # fmt: skip
    rep = report([write_csv(rows)])
    raw = pd.read_csv(write_csv(rows), keep_default_na=False, na_values=[""])
    raw["params"] = raw["params"].fillna("")
    raw["block_size"] = raw["block_size"].fillna(0).astype(int)
    ok = raw[raw.status == "ok"].groupby(KEYS)
    expected = pd.DataFrame(
        {
            "time_ms": ok.time_ms.median(),
            "time_min_ms": ok.time_ms.min(),
            "time_q1_ms": ok.time_ms.quantile(0.25),
            "time_q3_ms": ok.time_ms.quantile(0.75),
            "total_ms": ok.total_ms.median(),
            "transfer_ms": ok.transfer_ms.median(),
            "colors": ok.colors.median(),
            "iterations": ok.iterations.median(),
            "ok": ok.size(),
        }
    )
    got = rep.summary.assign(block_size=rep.summary.block_size.fillna(0).astype(int))
    got = got.set_index(KEYS)
    assert len(got) == 12 and got["reps"].eq(7).all()
    for column in expected.columns:
        pd.testing.assert_series_equal(
            got.loc[expected.index, column].astype(float), expected[column].astype(float),
            check_names=False,
        )  # fmt: skip
    counts = raw.groupby([*KEYS, "status"]).size().unstack(fill_value=0)
    for status in counts.columns:
        assert (got.loc[counts.index, status] == counts[status]).all()


def test_single_repetition(write_csv, row):
    rep = report([write_csv([row("g1", "greedy", 4.0, params="order=ldf;seed=0")])])
    s = rep.summary.iloc[0]
    assert (s.time_ms, s.time_min_ms, s.time_iqr_ms, s.ok, s.reps) == (4.0, 4.0, 0.0, 1, 1)
    assert s.label == "greedy" and s.speedup == 1.0 and s.colors_rel == 1.0
    assert rep.baseline == "greedy[order=ldf]"  # the CPU default, though its label is greedy


def test_failed_rows_are_counted_never_averaged(write_csv, mixed_rows):
    rep = report([write_csv(mixed_rows)])
    eb1 = one(rep.summary, graph="g1", algorithm="eb-tent")
    assert math.isnan(eb1.time_ms) and eb1.ok == 0 and eb1.timeout == 3
    assert eb1.note == "3 timeout" and eb1.error_message == "round cap 100 reached"
    eb2 = one(rep.summary, graph="g2", algorithm="eb-tent")
    assert eb2.time_ms == 30 and (eb2.ok, eb2.invalid, eb2.oom) == (1, 1, 1)
    assert eb2.note == "1 invalid, 1 oom"
    assert "eb-tent@64" not in set(rep.pareto.label[rep.pareto.graph == "g1"])


def test_all_invalid_group_shows_why(write_csv, reps):
    rows = [
        *reps("g1", "greedy", [1, 2, 3], params="order=ldf"),
        *reps("g1", "broken", [0.5, 0.6, 0.7], status="invalid", conflicts=3),
    ]
    rep = report([write_csv(rows)])
    broken = one(rep.summary, algorithm="broken")
    assert broken.ok == 0 and broken.invalid == 3 and broken.note == "3 invalid"
    assert math.isnan(broken.time_ms) and math.isnan(broken.colors)
    assert math.isnan(broken.speedup)
    assert rep.baseline == "greedy[order=ldf]"
    assert rep.winners.iloc[0].fastest_label == "greedy"
    assert "broken" not in set(rep.means.label) and "broken" not in set(rep.pareto.label)
    only_broken = report([write_csv(rows[3:], "broken.csv")], format="markdown")
    assert only_broken.baseline is None and only_broken.means.empty
    assert "| g1 | — | — | — | — | — |" in only_broken.render()  # no speedup column


def test_speedups_and_means_by_hand(write_csv, mixed_rows):
    rep = report([write_csv(mixed_rows)])
    assert rep.baseline == "cusparse"  # the default when present
    s = rep.summary.set_index(["graph", "label"])["speedup"]
    # cusparse medians: g1 11, g2 42
    assert s["g1", "ecl-gc@128"] == pytest.approx(11 / 3)
    assert s["g2", "ecl-gc@256"] == pytest.approx(42 / 5)
    assert s["g1", "greedy"] == pytest.approx(11 / 1.5)
    assert s["g2", "greedy"] == pytest.approx(2.0)
    means = rep.means.set_index("label")
    greedy = means.loc["greedy"]
    assert greedy.graphs == 2
    assert greedy.speedup_geomean == pytest.approx(math.sqrt(11 / 1.5 * 2))
    assert greedy.speedup_hmean == pytest.approx(2 / (1.5 / 11 + 1 / 2))
    assert (greedy.speedup_min, greedy.speedup_max) == pytest.approx((2.0, 11 / 1.5))
    eb = means.loc["eb-tent@64"]  # valid on g2 only
    assert eb.graphs == 1 and eb.speedup_geomean == pytest.approx(42 / 30)
    assert means.loc["cusparse"].speedup_geomean == pytest.approx(1.0)
    # colors relative to the fewest per graph (g1: greedy's 3; g2: cusparse's and eb-tent's 5)
    c = rep.summary.set_index(["graph", "label"])["colors_rel"]
    assert c["g1", "cusparse"] == pytest.approx(5 / 3) and c["g2", "greedy"] == 7 / 5
    assert greedy.colors_rel_geomean == pytest.approx(math.sqrt(1 * 7 / 5))


def host_rows(reps, row) -> list[dict]:
    """GPU groups of schema v6 whose host shares (1 - device_ms / time_ms) are known by hand."""
    gpu = {"backend": "gpu", "device": "gpu", "device_name": "H100"}
    jpl = {**gpu, "block_size": 128}
    invalid = {"status": "invalid", "device_ms": 0, "host_syncs": 99, "block_size": 256, **gpu}

    def timed(graph, algorithm, times, devices, syncs, **fields):
        return [row(graph, algorithm, t, rep=i, device_ms=d, host_syncs=s, **fields)
                for i, (t, d, s) in enumerate(zip(times, devices, syncs, strict=True))]  # fmt: skip

    return [
        # jpl at its fastest block size: row shares .75 / .5, .25, .75 / .9, group medians
        # .75, .5 (not 1 - 1/4 of the medians), .9; syncs 12, 20, 40
        *timed("g1", "jpl", [4, 4, 4], [1, 1, 1], [12, 12, 12], **jpl),
        *timed("g2", "jpl", [2, 4, 4], [1, 3, 1], [10, 20, 30], **jpl),
        *timed("g3", "jpl", [10, 10, 10], [1, 1, 1], [40, 40, 40], **jpl),
        # slower at 256 on g1, with no host time: not its fastest block size, left out
        *timed("g1", "jpl", [8, 8, 8], [8, 8, 8], [0, 0, 0], **{**jpl, "block_size": 256}),
        # ecl-gc on two graphs, with invalid rows that would be all host: not ok, left out
        *timed("g1", "ecl-gc", [2, 2, 2], [1.9, 1.9, 1.9], [0, 0, 0], block_size=256, **gpu),
        *timed("g2", "ecl-gc", [2, 2, 2], [1.9, 1.9, 1.9], [0, 0, 0], block_size=256, **gpu),
        *[row("g2", "ecl-gc", 100, rep=r, **invalid) for r in (3, 4, 5)],
        *reps("g1", "cusparse", [3, 3, 3], **gpu),  # GPU rows without the host columns
        *reps("g1", "greedy", [9, 9, 9], params="order=ldf"),  # CPU rows: none either
    ]


def test_host_share_per_configuration_by_hand(write_csv, reps, row):
    rep = report([write_csv(host_rows(reps, row))], format="markdown")
    g2 = one(rep.summary, graph="g2", label="jpl@128")
    assert (g2.device_ms, g2.host_syncs, g2.host_share) == (1.0, 20.0, 0.5)
    assert math.isnan(one(rep.summary, algorithm="cusparse").host_share)
    table = rep.host_shares
    assert table["config"].tolist() == ["jpl", "ecl-gc"]  # the largest share first
    assert table["cases"].tolist() == [3, 2] and table["host_syncs"].tolist() == [20.0, 0.0]
    assert table["host_share"].tolist() == pytest.approx([0.75, 0.05])
    text = rep.render()
    assert "| jpl | 3 | 75 % | 20 |\n| ecl-gc | 2 | 5 % | 0 |" in text
    title = "## Host's share of the time per configuration (at its fastest block size)"
    assert text.index("## Winners per graph") < text.index(title) < text.index("## Pareto")


def test_throughput_is_per_second_in_millions(write_csv, row):
    rep = report([write_csv([row("g2", "greedy", 2.0)])])  # n 1000, m 5000, 2 ms
    s = rep.summary.iloc[0]
    assert s.mverts_per_s == pytest.approx(1000 / 2e-3 / 1e6)
    assert s.medges_per_s == pytest.approx(5000 / 2e-3 / 1e6)


def test_default_baseline_on_cpu_only_results_is_greedy_ldf(write_csv, reps):
    rows = [
        *reps("g1", "fast", [1.0]), *reps("g2", "fast", [2.0]),
        *reps("g1", "greedy", [3.0], params="order=ldf;seed=0"),
        *reps("g2", "greedy", [4.0], params="order=ldf;seed=0"),
        *reps("g1", "greedy", [2.0], params="order=ldf;seed=1"),  # its best counts
        *reps("g1", "greedy", [0.5], params="order=ff;seed=0"),  # another order: not it
        *reps("g1", "slowest", [100.0]), *reps("g2", "slowest", [100.0]),  # never chosen
    ]  # fmt: skip
    rep = report([write_csv(rows)])
    assert rep.baseline == "greedy[order=ldf]"
    assert "baseline greedy[order=ldf] (the default for CPU-only results)" in rep.notes
    s = rep.summary.set_index(["graph", "label"])["speedup"]
    assert s["g1", "fast"] == 2.0 and s["g2", "fast"] == 2.0
    assert s["g1", "greedy[order=ff,seed=0]"] == 4.0 and s["g1", "slowest"] == 0.02
    assert s["g1", "greedy[order=ldf,seed=1]"] == 1.0


def test_no_default_baseline_means_no_speedups(write_csv, reps):
    cpu = [*reps("g1", "slow", [4.0]), *reps("g1", "greedy", [1.0], params="order=ff")]
    rep = report([write_csv(cpu, "cpu.csv")], format="markdown")
    assert rep.baseline is None and rep.summary.speedup.isna().all() and rep.means.empty
    (note,) = [n for n in rep.notes if n.startswith("no speedups")]
    assert note == (
        "no speedups: the default baseline for CPU-only results, greedy[order=ldf], is not in"
        " the results; pick one with --baseline: an algorithm (greedy, slow) or a"
        " configuration as the tables name it (ALGO[k=v])"
    )
    text = rep.render()
    assert "speedup" not in text.replace("no speedups", "") and "cusparse" not in text
    assert "transfer" not in text  # CPU-only: no GPU copies
    gpu = {"backend": "gpu", "device": "gpu", "device_name": "H100"}
    rows = [*cpu, *reps("g1", "jpl", [0.5], block_size=128, **gpu),
            *reps("g1", "greedy", [2.0], params="order=ldf")]  # fmt: skip
    rep = report([write_csv(rows, "gpu.csv")])
    assert rep.baseline is None and rep.summary.speedup.isna().all()
    assert any(n.startswith("no speedups: the default baseline for results with GPU rows,"
                            " cusparse, is not in the results") for n in rep.notes)  # fmt: skip
    failed = [*rows, *reps("g1", "cusparse", [None], status="error", error="x", **gpu)]
    rep = report([write_csv(failed, "failed.csv")])
    assert rep.baseline is None and any("cusparse, has no valid time" in n for n in rep.notes)
    picked = report([write_csv(rows, "gpu.csv")], baseline="greedy[order=ldf]")
    assert picked.baseline == "greedy[order=ldf]"
    assert one(picked.summary, algorithm="jpl").speedup == 4.0


def test_missing_baseline_on_one_graph(write_csv, reps):
    gpu = {"backend": "gpu", "device": "gpu"}
    rows = [
        *reps("g1", "cusparse", [10.0], **gpu),
        *reps("g2", "cusparse", [None], status="error", error="CUSPARSE_STATUS_INTERNAL_ERROR",
              **gpu),
        *reps("g1", "jpl", [5.0], **gpu), *reps("g2", "jpl", [8.0], **gpu),
    ]  # fmt: skip
    rep = report([write_csv(rows)])
    assert rep.baseline == "cusparse"
    s = rep.summary.set_index(["graph", "label"])["speedup"]
    assert s["g1", "jpl"] == 2.0 and math.isnan(s["g2", "jpl"])
    assert any("no valid cusparse time on g2" in n for n in rep.notes)
    assert rep.means.set_index("label").loc["jpl"].graphs == 1


def test_explicit_baseline_by_algorithm_config_or_label(write_csv, mixed_rows):
    path = write_csv(mixed_rows)
    by_algo = report([path], baseline="ecl-gc").summary.set_index(["graph", "label"])
    assert by_algo.speedup["g1", "cusparse"] == pytest.approx(3 / 11)  # ecl-gc best on g1: 3
    by_label = report([path], baseline="ecl-gc@256")
    s = by_label.summary.set_index(["graph", "label"]).speedup
    assert s["g1", "ecl-gc@128"] == pytest.approx(2.0)
    with pytest.raises(InputError, match="baseline 'nope' is not in the results"):
        report([path], baseline="nope")


def test_winners_per_graph(write_csv, mixed_rows):
    w = report([write_csv(mixed_rows)]).winners.set_index("graph")
    assert w.loc["g1"].fastest_label == "greedy" and w.loc["g1"].fastest_time_ms == 1.5
    assert w.loc["g2"].fastest_label == "ecl-gc@256"
    assert w.loc["g1"].fewest_label == "greedy" and w.loc["g1"].fewest_colors == 3
    # g2: cusparse and eb-tent use 5 colors; eb-tent is faster (30 ms vs 42 ms)
    assert w.loc["g2"].fewest_label == "eb-tent@64" and w.loc["g2"].fewest_colors == 5
    assert (w.loc["g1"].groups, w.loc["g1"].valid_groups) == (5, 4)


def test_best_block_size(write_csv, mixed_rows):
    b = report([write_csv(mixed_rows)]).block_sizes.set_index("graph")
    assert list(b.config) == ["ecl-gc"] * 2  # eb-tent ran at one size only
    assert (b.loc["g1"].best_block_size, b.loc["g1"].worst_block_size) == (128, 256)
    assert (b.loc["g2"].best_block_size, b.loc["g2"].best_time_ms) == (256, 5.0)
    assert (
        b.loc["g1"].worst_over_best == pytest.approx(2.0) and b.loc["g1"].block_sizes == "128,256"
    )


def test_pareto_front(write_csv, row):
    rows = [
        row("g1", "a", 1.0, colors=9),
        row("g1", "b", 2.0, colors=5),
        row("g1", "c", 3.0, colors=5),  # beaten by b: slower, same colors
        row("g1", "d", 4.0, colors=4),
        row("g1", "e", 5.0, colors=9),  # beaten on both by a
    ]
    p = report([write_csv(rows)]).pareto
    assert list(p.label) == ["a", "b", "d"]


def test_two_runs_merged_and_duplicates_dropped(write_csv, reps):
    first = write_csv(reps("g1", "greedy", [1.0, 2.0], run_id="run-a"), "a.csv")
    second = write_csv(reps("g1", "greedy", [3.0, 4.0, 5.0], run_id="run-b"), "b.csv")
    rep = report([first, second])
    s = rep.summary.iloc[0]
    assert (s.reps, s.runs, s.time_ms, s.time_min_ms) == (5, 2, 3.0, 1.0)
    assert any("merged 2 file(s) holding 2 run(s)" in n for n in rep.notes)
    again = report([first, first, second])
    assert again.summary.iloc[0].reps == 5
    assert any("dropped 2 duplicate rows" in n for n in again.notes)


def test_a_row_cut_short_by_an_interrupted_run_is_left_out(write_csv, reps):
    path = write_csv(reps("g1", "greedy", [1.0, 2.0, 3.0]))
    text = path.read_text()
    path.write_text(text[: text.rindex("\n", 0, len(text) - 1) + 12])  # 11 chars of row 3
    rep = report([path])
    assert rep.summary.iloc[0].reps == 2 and rep.summary.iloc[0].time_ms == 1.5
    assert any("left out the incomplete last line" in n for n in rep.notes)


def test_rows_from_several_gpus_are_flagged(write_csv, row):
    rows = [row("g1", "jpl", 1.0, device_name="H100"), row("g1", "jpl", 2.0, device_name="H200")]
    rep = report([write_csv(rows)])
    assert any("2 GPUs merged (H100, H200)" in n for n in rep.notes)


def test_labels_show_the_parameters_that_vary(write_csv, row):
    rows = [
        row("g1", "ecl-gc", 1.0, params="reduce=none;shortcuts=none", block_size=256),
        row("g1", "ecl-gc", 1.0, params="reduce=none;shortcuts=both", block_size=256),
        row("g1", "ecl-gc", 1.0, params="reduce=h1;shortcuts=both", block_size=128),
        row("g1", "greedy", 1.0, params="order=ldf;seed=0"),
        row("g1", "cusparse", 1.0),
    ]
    summary = report([write_csv(rows)]).summary
    assert set(summary.label) == {
        "ecl-gc[reduce=none,shortcuts=none]@256", "ecl-gc[reduce=none,shortcuts=both]@256",
        "ecl-gc[reduce=h1,shortcuts=both]@128", "greedy", "cusparse",
    }  # fmt: skip
    assert set(summary.params) == {"reduce=none;shortcuts=none", "reduce=none;shortcuts=both",
                                   "reduce=h1;shortcuts=both", "order=ldf;seed=0", ""}  # fmt: skip
    only_none = report([write_csv(rows[:1] + rows[3:], "b.csv")]).summary
    assert set(only_none.label) == {"ecl-gc@256", "greedy", "cusparse"}


def test_input_errors(tmp_path, write_csv, monkeypatch, row):
    with pytest.raises(InputError, match="no such results file"):
        report([tmp_path / "missing.csv"])
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="not a gcbench results file: missing columns run_id"):
        report([other])
    header_only = write_csv([], "empty.csv")
    with pytest.raises(InputError, match="no result rows"):
        report([header_only])
    trace = tmp_path / "x.trace.csv"
    trace.write_text("run_id,graph,algorithm,params,block_size,rep,round,series,active\n")
    with pytest.raises(InputError, match="a trace file: pass the results CSV beside it"):
        report([trace])
    bad = write_csv([row("g1", "a", 1.0, status="finished")], "bad.csv")
    with pytest.raises(InputError, match="unknown status 'finished'"):
        report([bad])
    with pytest.raises(InputError, match="unknown report format"):
        report([bad], format="html")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="no results CSV in results/"):
        report()


def test_default_is_the_newest_results_csv(tmp_path, monkeypatch, write_csv, row):
    results = tmp_path / "results"
    results.mkdir()
    old = write_csv([row("g1", "old", 1.0)], "results/20250101T000000Z-quick.csv")
    new = write_csv([row("g1", "new", 1.0)], "results/20250102T000000Z-quick.csv")
    write_csv([row("g1", "trace", 1.0)], "results/20250103T000000Z-quick.trace.csv")
    os.utime(old, (1_000_000, 1_000_000))
    os.utime(new, (2_000_000, 2_000_000))
    monkeypatch.chdir(tmp_path)
    rep = report()
    assert rep.sources == (Path("results") / new.name,)
    assert set(rep.summary.algorithm) == {"new"}


def test_provenance_lists_devices_hosts_and_dates_compactly(write_csv, row):
    gpu = {"backend": "gpu", "device": "gpu"}
    rows = [
        row("g1", "jpl", 1.0, device_name="NVIDIA H200", host="a",
            timestamp="2025-06-01T23:59:59.000+00:00", **gpu),
        row("g1", "jpl", 1.0, rep=1, device_name="NVIDIA H100", host="b",
            timestamp="2025-06-03T00:00:01.000+00:00", **gpu),
        *(row("g1", "greedy", 1.0, rep=i, host=h, timestamp="2025-06-02T12:00:00.000+00:00")
          for i, h in enumerate("cde")),
    ]  # fmt: skip
    assert report([write_csv(rows)]).where == (
        "NVIDIA H100, NVIDIA H200 + CPU · hosts a, b, c +2 more · 2025-06-01 to 2025-06-03"
    )
    one = [row("g1", "greedy", 1.0, host="node", timestamp="2025-06-02T12:00:00.000+00:00")]
    assert report([write_csv(one, "one.csv")]).where == "CPU · host node · 2025-06-02"
    bare = [row("g1", "greedy", 1.0, host="")]  # no host, no timestamp
    assert report([write_csv(bare, "bare.csv")]).where == "CPU"
