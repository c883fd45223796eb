"""Reading result CSVs of every schema so far: columns by name, new columns optional, and
one timing convention (``count_setup``) per report."""

from __future__ import annotations

import random

import pytest

from gcbench.bench.results import COLUMNS, COLUMNS_V5
from gcbench.errors import InputError
from gcbench.report import report

# Columns the runner writes since schema 1 (docs/report.md); older files lack them.
NEW_COLUMNS = ("schema_version", "compute_capability", "sm_clock_mhz", "command", "setup_ms",
               "count_setup")  # fmt: skip
OLD_COLUMNS = [c for c in COLUMNS if c not in NEW_COLUMNS]
ALGORITHM_ONLY = "time_ms: algorithm only"
WITH_SETUP = "time_ms includes setup (--count-setup)"


def new_rows(reps, count_setup: str) -> list[dict]:
    extra = {"schema_version": 2, "compute_capability": "9.0", "sm_clock_mhz": 1980,
             "command": "gcbench run --count-setup", "setup_ms": 0.25,
             "count_setup": count_setup}  # fmt: skip
    return [*reps("g1", "jpl", [1.0, 2.0], **extra), *reps("g1", "greedy", [3.0], **extra)]


def test_new_columns_in_any_order(reps, write_csv):
    columns = list(COLUMNS)
    random.Random(3).shuffle(columns)
    path = write_csv(new_rows(reps, "true"), "new.csv", columns)
    rep = report([path], format="markdown")
    assert rep.timing == WITH_SETUP and rep.summary.count_setup.all()
    assert rep.summary.set_index("algorithm").time_ms.to_dict() == {"jpl": 1.5, "greedy": 3.0}
    text = rep.render()
    tables = text.count("\n| --- |")
    assert tables >= 3 and text.count(f"\n\n*{WITH_SETUP}*") == tables


def old_file(reps, write_csv):
    """A results file from before the new columns."""
    rows = [{c: r[c] for c in OLD_COLUMNS} for r in reps("g1", "jpl", [1.0, 2.0])]
    return write_csv(rows, "old.csv", OLD_COLUMNS)


def test_older_files_count_no_setup(reps, write_csv):
    old = old_file(reps, write_csv)
    new = write_csv(new_rows(reps, "false"), "new.csv", COLUMNS)
    rep = report([old, new])
    assert rep.timing == ALGORITHM_ONLY and not rep.summary.count_setup.any()
    assert rep.summary.set_index("algorithm").reps.to_dict() == {"jpl": 4, "greedy": 1}
    v1 = [note for note in rep.notes if "result schema v1" in note]
    assert len(v1) == 1 and str(old) in v1[0]  # one line, for the old file only


def test_a_mix_of_timing_conventions_is_refused(reps, write_csv):
    old = old_file(reps, write_csv)
    new = write_csv(new_rows(reps, "True"), "new.csv", COLUMNS)
    with pytest.raises(InputError) as caught:
        report([old, new])
    assert str(caught.value) == (
        f"the results mix timing conventions: {WITH_SETUP} in {new} but {ALGORITHM_ONLY}"
        f" in {old}; report them separately"
    )


def test_count_setup_must_be_a_boolean(reps, write_csv):
    path = write_csv(new_rows(reps, "maybe"), "x.csv", COLUMNS)
    with pytest.raises(InputError, match="count_setup must be true or false, not 'maybe'"):
        report([path])


GPU = {"backend": "gpu", "device": "gpu", "device_name": "H100", "block_size": 128}


def test_a_v6_row_reads_its_host_columns(reps, write_csv):
    rows = reps("g1", "jpl", [2.0, 4.0], host_syncs=6, device_ms=1.5, **GPU)
    rows += reps("g1", "greedy", [3.0])  # a CPU row: both empty
    rep = report([write_csv(rows)])
    gpu = rep.rows[rep.rows["algorithm"] == "jpl"]
    assert gpu["host_syncs"].tolist() == [6.0, 6.0] and gpu["device_ms"].tolist() == [1.5, 1.5]
    cpu = rep.rows[rep.rows["algorithm"] == "greedy"]
    assert cpu[["host_syncs", "device_ms"]].isna().all(axis=None)


def test_a_v5_file_reads_without_host_columns(reps, write_csv):
    rows = [{c: r[c] for c in COLUMNS_V5} for r in reps("g1", "jpl", [1.0, 2.0], **GPU)]
    rep = report([write_csv(rows, "v5.csv", COLUMNS_V5)], format="markdown")
    assert rep.rows[["host_syncs", "device_ms"]].isna().all(axis=None)
    assert rep.summary["time_ms"].tolist() == [1.5]
    assert rep.summary[["device_ms", "host_syncs", "host_share"]].isna().all(axis=None)
    assert rep.host_shares.empty and "share" not in rep.render()  # no table, no word of it
