"""``gcbench compare``: per-case ratios with intervals and verdicts, from two files or from two
configurations of one file; its summary, its CSV, its exit codes and its one-line errors."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import gcbench
from gcbench.bench.results import COLUMNS_V2, COLUMNS_V5
from gcbench.cli import main
from gcbench.errors import InputError
from gcbench.report.compare import COLUMNS as TABLE_COLUMNS
from gcbench.report.compare import NO_DEVICE, NO_TIME, compare

CASES, REPS, MEDIAN_MS, NOISE = 40, 10, 20.0, 0.02
GPU = {"backend": "gpu", "device": "gpu", "device_name": "H100"}


@pytest.fixture
def quiet_rows(reps):
    """``quiet_rows(seed, scale=1.0, **fields)``: CASES cases (20 graphs × 2 configurations)
    of REPS lognormal times around MEDIAN_MS × scale, NOISE (a share) apart."""

    def make(seed: int, scale: float = 1.0, **fields) -> list[dict]:
        rng = np.random.default_rng(seed)
        rows = []
        for case in range(CASES):
            times = MEDIAN_MS * scale * np.exp(rng.normal(0.0, NOISE, REPS))
            params = f"order={'ldf' if case % 2 else 'ff'}"
            rows += reps(f"g{case // 2}", "greedy", times.round(6), params=params, **fields)
        return rows

    return make


@pytest.fixture
def files(write_csv, quiet_rows):
    """base.csv, a quiet copy (same distribution) and a 10 % slower one."""
    return {
        "base": write_csv(quiet_rows(1), "base.csv"),
        "quiet": write_csv(quiet_rows(2), "quiet.csv"),
        "slower": write_csv(quiet_rows(3, scale=1.1), "slower.csv"),
    }


def cli(*args: object):
    """``gcbench compare ARGS`` in this process, 200 columns wide."""
    return CliRunner(env={"COLUMNS": "200"}).invoke(main, ["compare", *map(str, args)])


def one_error_line(done) -> str:
    assert done.exit_code == 2 and done.stdout == "", done.output
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def test_same_distribution_is_mostly_same(files):
    result = compare(files["base"], files["quiet"])
    assert len(result.table) == CASES
    changed = result.counts["faster"] + result.counts["slower"]
    assert changed <= 0.05 * CASES and result.counts["same"] == CASES - changed
    mean, low, high = result.geomean
    assert low <= mean <= high and 0.98 < mean < 1.02
    assert result.only_base.empty and result.only_new.empty


def test_ten_percent_slower_is_slower_everywhere(files):
    result = compare(files["base"], files["slower"])
    assert result.counts["slower"] == CASES
    assert (result.table["verdict"] == "slower").all()
    mean, low, high = result.geomean
    assert 1.0 < low < mean < high and abs(mean - 1.1) < 0.01
    row = result.table.iloc[0]
    assert row["ci_low"] <= row["ratio"] <= row["ci_high"]
    assert row["ratio"] == pytest.approx(row["new_ms"] / row["base_ms"])


def test_fail_on_slower_exits_1_only_when_a_case_is_slower(files):
    slower = cli(files["base"], files["slower"], "--fail-on", "slower")
    assert slower.exit_code == 1, slower.output
    assert f"--fail-on slower: {CASES} case(s) slower" in slower.stderr
    assert cli(files["base"], files["quiet"], "--fail-on", "slower").exit_code == 0
    assert cli(files["base"], files["slower"], "--fail-on", "faster").exit_code == 0
    assert cli(files["slower"], files["base"], "--fail-on", "faster").exit_code == 1


def test_table_format_shows_the_summary(files):
    done = cli(files["base"], files["slower"])
    assert done.exit_code == 0, done.output
    assert "greedy[order=ldf]" in done.stdout and "slower" in done.stdout
    assert "geometric mean of new/base over 40 case(s): 1.1" in done.stdout
    assert f"verdicts: {CASES} slower" in done.stdout


def test_csv_format_has_exactly_the_columns(files):
    done = cli(files["base"], files["slower"], "--format", "csv", "--threshold", "5%")
    assert done.exit_code == 0, done.output
    table = pd.read_csv(io.StringIO(done.stdout), keep_default_na=False)
    assert list(table.columns) == TABLE_COLUMNS == [
        "graph", "problem", "algorithm", "params", "block_size", "base_ms", "new_ms", "ratio",
        "ci_low", "ci_high", "verdict", "flags",
    ]  # fmt: skip
    assert len(table) == CASES and set(table["verdict"]) == {"slower"}
    assert "geometric mean" in done.stderr  # the summary goes beside the CSV, not into it


def test_threshold_share_or_percentage(files):
    by_share = compare(files["base"], files["slower"], threshold=0.05).table
    by_percentage = compare(files["base"], files["slower"], threshold="5%").table
    pd.testing.assert_frame_equal(by_share, by_percentage)
    for bad in ("5", "100%", "-1%", "x", "nan", 0):
        with pytest.raises(InputError, match="--threshold"):
            compare(files["base"], files["slower"], threshold=bad)


def test_a_large_threshold_makes_a_real_change_same(files):
    result = compare(files["base"], files["slower"], threshold=0.2)
    assert result.counts["same"] == CASES


def test_one_file_two_configurations(write_csv, reps):
    """Shared block sizes pair per block size (a size one side lacks is listed); a side
    without block sizes pairs per graph, the other at its fastest group there."""
    rng = np.random.default_rng(5)

    def times(ms: float) -> list[float]:
        return list((ms * np.exp(rng.normal(0, NOISE, REPS))).round(6))

    rows = []
    for graph in ("g1", "g2"):
        for bs, both, none in ((128, 10.0, 10.0), (256, 8.0, 12.0)):
            rows += reps(graph, "ecl-gc", times(both), params="shortcuts=both",
                              block_size=bs, **GPU)  # fmt: skip
            rows += reps(graph, "ecl-gc", times(none), params="shortcuts=none",
                              block_size=bs, **GPU)  # fmt: skip
        rows += reps(graph, "ecl-gc", times(9.0), params="shortcuts=none", block_size=512,
                          **GPU)  # fmt: skip
        rows += reps(graph, "cusparse", times(16.0), **GPU)
    path = write_csv(rows)

    result = compare(path, a="ecl-gc[shortcuts=both]", b="ecl-gc[shortcuts=none]")
    table = result.table.set_index(["graph", "block_size"])
    assert list(table.index) == [("g1", 128), ("g1", 256), ("g2", 128), ("g2", 256)]
    assert set(table.loc[(slice(None), 128), "verdict"]) == {"same"}
    assert set(table.loc[(slice(None), 256), "verdict"]) == {"slower"}
    assert table.loc[("g1", 256), "algorithm"] == (
        "ecl-gc[shortcuts=both]@256 vs ecl-gc[shortcuts=none]@256"
    )
    assert table.loc[("g1", 256), "params"] == "shortcuts=both vs shortcuts=none"
    assert result.case_names(result.only_new) == [
        "g1 ecl-gc[shortcuts=none]@512", "g2 ecl-gc[shortcuts=none]@512",
    ]  # fmt: skip

    versus = compare(path, a="cusparse", b="ecl-gc[shortcuts=both]")
    assert list(versus.table["graph"]) == ["g1", "g2"] and versus.table["block_size"].isna().all()
    assert set(versus.table["algorithm"]) == {"cusparse vs ecl-gc[shortcuts=both]@256"}
    assert versus.counts["faster"] == 2
    assert any("its fastest (lowest median) was compared" in n for n in versus.notes)

    done = cli(path, "--a", "cusparse", "--b", "ecl-gc[shortcuts=none]@256", "--format", "csv")
    assert done.exit_code == 0, done.output
    assert len(pd.read_csv(io.StringIO(done.stdout))) == 2


def test_schema_v2_compares_with_v3(write_csv, files, quiet_rows):
    rows = [{c: r[c] for c in COLUMNS_V2} for r in quiet_rows(4, schema_version=2)]
    old = write_csv(rows, "v2.csv", COLUMNS_V2)
    result = compare(old, files["slower"])
    assert result.counts["slower"] == CASES
    assert any("v2.csv predates result schema v3" in n for n in result.notes)
    assert not any("slower.csv predates" in n for n in result.notes)


def test_flags_are_the_union_of_both_sides(write_csv, reps, row):
    base = reps("g1", "greedy", [1.0] * 5, flags="drift")
    new = [*reps("g1", "greedy", [1.0] * 4, flags="noisy;throttled"),
           row("g1", "greedy", 1.0, rep=4, flags="contended")]  # fmt: skip
    flagged = write_csv(base, "b.csv")
    result = compare(flagged, write_csv(new, "n.csv"))
    assert result.table["flags"].tolist() == ["throttled;contended;drift;noisy"]
    assert any("carry flags" in n for n in result.notes)
    clean = compare(write_csv(reps("g1", "greedy", [1.0] * 5), "c.csv"), flagged)
    assert clean.table["flags"].tolist() == ["drift"]


def test_cases_only_in_one_file_are_listed(write_csv, reps, quiet_rows):
    extra = [*quiet_rows(6), *reps("g99", "greedy", [5.0] * REPS, params="order=ff")]
    fewer = [r for r in quiet_rows(7) if r["graph"] != "g0"]
    paths = write_csv(extra, "extra.csv"), write_csv(fewer, "fewer.csv")
    result = compare(*paths)
    assert len(result.table) == CASES - 2
    assert result.case_names(result.only_base) == [
        "g0 greedy[order=ff]", "g0 greedy[order=ldf]", "g99 greedy[order=ff]",
    ]  # fmt: skip
    assert result.only_new.empty
    done = cli(*paths)
    assert f"only in {paths[0]} (3): g0 greedy[order=ff]" in " ".join(done.stdout.split())


def test_a_case_without_a_valid_time(write_csv, reps):
    base = [*reps("g1", "greedy", [1.0] * 5), *reps("g2", "greedy", [2.0] * 5)]
    new = [*reps("g1", "greedy", [None] * 5, status="timeout", error="round cap"),
           *reps("g2", "greedy", [2.0] * 5)]  # fmt: skip
    result = compare(write_csv(base, "b.csv"), write_csv(new, "n.csv"))
    row = result.table.set_index("graph").loc["g1"]
    assert row["verdict"] == NO_TIME and pd.isna(row["ratio"]) and pd.isna(row["new_ms"])
    assert result.counts[NO_TIME] == 1 and result.geomean == (1.0, 1.0, 1.0)


def test_too_few_repetitions_give_no_interval(write_csv, reps):
    result = compare(write_csv(reps("g1", "greedy", [1.0, 1.1]), "b.csv"),
                     write_csv(reps("g1", "greedy", [3.0, 3.1]), "n.csv"))  # fmt: skip
    row = result.table.iloc[0]
    assert row["ratio"] == pytest.approx(3.05 / 1.05) and pd.isna(row["ci_low"])
    assert row["verdict"] == "same" and any("too few" in n for n in result.notes)


def test_auto_rows_match_by_the_params_asked_for(write_csv, reps):
    base = reps("g1", "auto", [1.0] * 5, params="choice=greedy;device=cpu")
    new = reps("g1", "auto", [1.0] * 5, params="choice=jpl-cpu;device=cpu")
    result = compare(write_csv(base, "b.csv"), write_csv(new, "n.csv"))
    assert result.table["params"].tolist() == ["device=cpu"] and result.only_base.empty


def test_the_python_form_returns_the_table(files):
    table = gcbench.compare(files["base"], files["slower"], threshold=0.05)
    assert list(table.columns) == TABLE_COLUMNS and len(table) == CASES
    assert table.attrs["counts"]["slower"] == CASES and table.attrs["geomean_low"] > 1


def test_errors_are_one_line_and_exit_2(tmp_path, write_csv, files, reps, quiet_rows):
    junk = tmp_path / "junk.csv"
    junk.write_text("a,b\n1,2\n")
    assert "not a gcbench results file" in one_error_line(cli(files["base"], junk))
    other = write_csv(reps("h1", "greedy", [1.0] * 5), "other.csv")
    assert "no case in common" in one_error_line(cli(files["base"], other))
    d2 = write_csv([{**r, "problem": "d2"} for r in quiet_rows(8)], "d2.csv")
    assert "problem d1 but" in one_error_line(cli(files["base"], d2))
    d1 = write_csv([{**r, "problem": ""} for r in quiet_rows(8)], "d1.csv")
    assert cli(files["base"], d1).exit_code == 0
    assert "--a needs --b" in one_error_line(cli(files["base"], "--a", "greedy"))
    assert "not both" in one_error_line(cli(files["base"], files["quiet"], "--a", "greedy"))
    assert "needs a second file" in one_error_line(cli(files["base"]))
    assert "names nothing" in one_error_line(cli(files["base"], "--a", "greedy", "--b", "jpl"))
    overlap = cli(files["base"], "--a", "greedy", "--b", "greedy[order=ff]")
    assert "both name" in one_error_line(overlap)
    too_large = cli(files["base"], files["quiet"], "--threshold", "5")
    assert "--threshold: '5' must lie between 0 and 1" in one_error_line(too_large)


def test_different_timing_conventions_are_refused(write_csv, files, quiet_rows):
    setup = write_csv(quiet_rows(9, count_setup="true"), "setup.csv")
    with pytest.raises(InputError, match="time differently"):
        compare(files["base"], setup)


def test_a_host_round_trip_that_moved_is_flagged(write_csv, quiet_rows):
    """Sides whose rows ran with host round trips more than 10 % apart carry round_trip."""
    base = write_csv(quiet_rows(1, round_trip_us=40.0), "rt-base.csv")
    same_host = write_csv(quiet_rows(2, round_trip_us=42.0), "rt-same.csv")
    slow_host = write_csv(quiet_rows(3, round_trip_us=60.0), "rt-slow.csv")
    assert not compare(base, same_host).table["flags"].str.contains("round_trip").any()
    moved = compare(base, slow_host)
    assert (moved.table["flags"] == "round_trip").all()
    assert any("round trip" in note for note in moved.notes)


def test_a_moved_round_trip_is_not_flagged_on_calls_that_never_waited(write_csv, quiet_rows):
    """Held until queued and never reading back (host_syncs 0, no flag host), a call's time
    holds no round trip: the host's move does not explain its verdict."""
    held = {**GPU, "host_syncs": 0}
    base = write_csv(quiet_rows(1, round_trip_us=40.0, **held), "held-base.csv")
    slow_host = write_csv(quiet_rows(3, round_trip_us=60.0, **held), "held-slow.csv")
    assert not compare(base, slow_host).table["flags"].str.contains("round_trip").any()
    waits = write_csv(quiet_rows(3, round_trip_us=60.0, **held, flags="host"), "host-slow.csv")
    assert compare(base, waits).table["flags"].str.contains("round_trip").all()


def with_device(rows: list[dict], share: float) -> list[dict]:
    """GPU rows whose device_ms is ``share`` of their time_ms (schema v6)."""
    return [{**r, **GPU, "block_size": 128, "host_syncs": 3,
             "device_ms": round(float(r["time_ms"]) * share, 6)} for r in rows]  # fmt: skip


def test_metric_device_compares_device_ms(write_csv, quiet_rows):
    """The same times, the device's part of them 20 % less: same by time, faster on the
    device."""
    base = write_csv(with_device(quiet_rows(1), 0.5), "dev-base.csv")
    new = write_csv(with_device(quiet_rows(1), 0.4), "dev-new.csv")
    assert compare(base, new).counts["same"] == CASES
    device = compare(base, new, metric="device")
    assert device.counts["faster"] == CASES and device.metric == "device"
    assert device.geomean[0] == pytest.approx(0.8)
    row = device.table.iloc[0]
    assert row["base_ms"] == pytest.approx(MEDIAN_MS * 0.5, rel=0.05)
    assert any(n.startswith("compared device_ms") for n in device.notes)
    done = cli(base, new, "--metric", "device", "--fail-on", "faster")
    assert done.exit_code == 1 and "base device ms" in done.stdout, done.output
    assert cli(base, new, "--fail-on", "faster").exit_code == 0  # by time: no change


def test_metric_device_flags_cases_without_it(write_csv, quiet_rows):
    """A case without device_ms on a side (g0's rows here, a v5 file there) is not compared,
    and files where no case has it on both sides are refused."""
    base = write_csv(with_device(quiet_rows(1), 0.5), "dev-base.csv")
    unmeasured = {"device_ms": "", "host_syncs": ""}
    new = [{**r, **unmeasured} if r["graph"] == "g0" else r
           for r in with_device(quiet_rows(2), 0.5)]  # fmt: skip
    new = write_csv(new, "dev-new.csv")
    result = compare(base, new, metric="device")
    lacking = result.table[result.table["verdict"] == NO_DEVICE]
    assert lacking["graph"].tolist() == ["g0", "g0"] and lacking["ratio"].isna().all()
    assert result.counts[NO_DEVICE] == 2 and result.table["ratio"].notna().sum() == CASES - 2
    assert any("2 case(s) lack device_ms on a side" in n for n in result.notes)
    assert "2 no device_ms" in " ".join(result.summary_lines())
    assert NO_DEVICE not in set(compare(base, new).table["verdict"])  # by time: compared
    v5 = [{c: r[c] for c in COLUMNS_V5} for r in with_device(quiet_rows(3), 0.5)]
    old = write_csv(v5, "v5.csv", COLUMNS_V5)
    assert compare(base, old).table["ratio"].notna().all()  # by time, v5 compares with v6
    line = one_error_line(cli(base, old, "--metric", "device"))
    assert "share no case with device_ms on both sides" in line
    with pytest.raises(InputError, match="unknown compare metric 'host'"):
        compare(base, new, metric="host")
