"""What ``gcbench run`` says (issues 46 and 48): nothing but the usage error for a file that
exists, the warnings only for the cases it measured, plain progress and the next command when
stderr is not a terminal, a slow case capped at its case time."""

from __future__ import annotations

import pandas as pd

from gcbench.algorithms.sampling import CAPPED_REPS
from gcbench.bench import progress


def test_an_existing_out_file_is_the_only_thing_run_prints(bench_env, tmp_path, cli):
    out = tmp_path / "A.csv"
    out.write_text("x\n")
    done = cli("run", "--device", "cpu", "--graph", "gen:grid2d?side=20", "--algo", "greedy",
               "--out", str(out))  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"error: {out} already exists; pass --resume {out} or another --out\n"


def test_warnings_name_the_cases_and_a_resumed_finished_file_repeats_none(bench_env, tmp_path, cli):
    out = tmp_path / "r.csv"
    # 1.5 times slower each call: a loaded machine cannot reorder the halves (at 1.1 it did)
    args = ["--graph", "gen:cycle?n=9", "--algo", "test-drift", "--param", "growth=1.5",
            "--reps", "10", "--warmup", "0", "--device", "cpu", "--quiet"]  # fmt: skip
    first = cli("run", *args, "--out", str(out))
    assert first.returncode == 0, first.stderr
    # (a machine busy with other work may add a contended line: not tested here)
    warning = next(line for line in first.stdout.splitlines() if "(drift: " in line)
    assert warning.startswith("warning: 1 case drifted") and "--case-time" in warning
    assert "(drift: gen:cycle?n=9 test-drift)" in warning
    assert first.stdout.splitlines()[-2:] == [
        f"1 case (10 rows) written to {out} (file: 10 ok)",
        f"next: gcbench report {out}",
    ]
    again = cli("run", "--resume", str(out))
    assert again.returncode == 0, again.stderr
    assert "warning:" not in again.stdout and "0 cases (0 rows) written" in again.stdout


def test_without_a_terminal_progress_is_a_plain_line_now_and_then(monkeypatch, capsys):
    monkeypatch.setattr(progress, "PLAIN_EVERY_S", 0.0)
    with progress.Display(3) as display:
        for _ in range(3):
            display.current("running x", 1.0)
            display.advance()
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(",")[0] for line in lines] == ["1/3 cases", "2/3 cases"]  # not the last
    assert "elapsed" in lines[0] and "ETA" in lines[0]
    with progress.Display(3, enabled=False) as quiet:  # --quiet
        quiet.advance(3)
    assert capsys.readouterr().err == ""


def test_a_case_slower_than_its_case_time_stops_capped(bench_env, tmp_path, cli):
    out = tmp_path / "slow.csv"
    done = cli("run", "--graph", "gen:cycle?n=9", "--algo", "test-draw", "--param",
               "median_ms=100", "--param", "noise=0", "--case-time", "0.05", "--device", "cpu",
               "--quiet", "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    frame = pd.read_csv(out, keep_default_na=False)
    flags = frame["flags"].str.split(";")
    assert len(frame) == CAPPED_REPS and flags.map(lambda f: "capped" in f).all(), flags
    assert "(capped: gen:cycle?n=9 test-draw)" in done.stdout
