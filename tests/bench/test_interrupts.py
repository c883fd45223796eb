"""Interrupts at any moment (issue 32): SIGINT to the process group, or SIGTERM, ends
``gcbench run`` with exit 130, one line and no traceback from any process; then ``gcbench run
--resume FILE`` alone finishes the file to exactly what an uninterrupted run writes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

ARGS = ["--graph", "gen:cycle?n=9,gen:cycle?n=10", "--algo", "test-sleep,greedy",
        "--param", "seconds=0.03", "--reps", "3", "--warmup", "0", "--device", "cpu",
        "--quiet"]  # fmt: skip
KEY = ["graph", "algorithm", "params", "block_size", "rep", "status"]
MOMENTS = 20


def gcbench(env, *args: str) -> subprocess.Popen:
    """``gcbench ARGS`` in a process group of its own (so the test can signal the group)."""
    return subprocess.Popen(
        [sys.executable, "-m", "gcbench", *args], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
    )  # fmt: skip


def keys(path) -> list[tuple]:
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    return sorted(map(tuple, frame[KEY].to_numpy()))


def has_rows(path) -> bool:
    return path.exists() and len(path.read_text().splitlines()) > 1


def takes_signals(proc: subprocess.Popen, limit_s: float = 60) -> None:
    """Wait until ``proc`` catches SIGTERM (/proc's SigCgt): gcbench.__main__ takes SIGINT and
    SIGTERM first thing, and a signal before that, while Python itself starts (tens of ms, more
    on a busy machine), no program can take. Without /proc: at once."""
    status = Path(f"/proc/{proc.pid}/status")
    deadline = time.monotonic() + limit_s
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            caught = [line.split()[1] for line in status.read_text().splitlines()
                      if line.startswith("SigCgt:")]  # fmt: skip
        except OSError:
            return
        if not caught or int(caught[0], 16) >> (signal.SIGTERM - 1) & 1:
            return
        time.sleep(0.002)


def test_interrupted_at_random_moments_then_resumed_alone(bench_env, tmp_path):
    reference = tmp_path / "reference.csv"  # uninterrupted, on the other core meanwhile
    uninterrupted = gcbench(bench_env, "run", *ARGS, "--out", str(reference))
    out = tmp_path / "r.csv"
    rng = random.Random(32)
    for moment in range(MOMENTS):
        if has_rows(out):
            proc = gcbench(bench_env, "run", "--resume", str(out))
        elif out.exists():  # interrupted before any case finished: the options again
            proc = gcbench(bench_env, "run", *ARGS, "--resume", str(out))
        else:
            proc = gcbench(bench_env, "run", *ARGS, "--out", str(out))
        takes_signals(proc)
        time.sleep(rng.uniform(0.0, 0.7))  # from its start to its cases
        if moment % 2:
            proc.send_signal(signal.SIGTERM)
        else:
            os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        stdout, stderr = proc.communicate(timeout=60)
        assert "Traceback" not in stdout + stderr, (moment, stdout, stderr)
        assert proc.returncode in (0, 130), (moment, proc.returncode, stdout, stderr)
        if proc.returncode == 130:
            assert stderr.strip().splitlines()[-1].startswith("interrupted"), stderr
        if proc.returncode == 0:
            break  # finished before the signal came
    if has_rows(out):
        finish = gcbench(bench_env, "run", "--resume", str(out))
    else:
        out.unlink(missing_ok=True)
        finish = gcbench(bench_env, "run", *ARGS, "--out", str(out))
    stdout, stderr = finish.communicate(timeout=120)
    assert finish.returncode == 0, (stdout, stderr)
    stdout, stderr = uninterrupted.communicate(timeout=120)
    assert uninterrupted.returncode == 0, (stdout, stderr)
    assert keys(out) == keys(reference)


def test_resume_alone_refuses_contradictions_and_an_empty_file(bench_env, tmp_path, cli):
    out = tmp_path / "r.csv"
    args = ["--graph", "gen:cycle?n=9", "--algo", "greedy", "--reps", "2", "--warmup", "0",
            "--device", "cpu", "--quiet"]  # fmt: skip
    assert cli("run", *args, "--out", str(out)).returncode == 0
    again = cli("run", "--resume", str(out), "--algo", "greedy", "--reps", "2")  # agrees
    assert again.returncode == 0 and "0 cases (0 rows) written" in again.stdout, again.stderr
    wrong = cli("run", "--resume", str(out), "--reps", "3")
    assert wrong.returncode == 2
    assert wrong.stderr.splitlines() == [wrong.stderr.strip()]  # one line
    assert (
        "--reps contradicts the command" in wrong.stderr and "gcbench run --graph" in wrong.stderr
    )
    empty = tmp_path / "empty.csv"
    empty.write_text(out.read_text().splitlines()[0] + "\n")  # the header alone
    nothing = cli("run", "--resume", str(empty))
    assert nothing.returncode == 2 and "holds no row yet" in nothing.stderr


def test_retry_runs_failed_cases_again_and_replaces_their_rows(bench_env, tmp_path, cli):
    out = tmp_path / "r.csv"
    args = ["--graph", "gen:cycle?n=9", "--algo", "greedy,test-exit", "--reps", "2",
            "--warmup", "0", "--device", "cpu", "--quiet"]  # fmt: skip
    assert cli("run", *args, "--out", str(out)).returncode == 1  # test-exit: error rows
    before = pd.read_csv(out)
    retried = cli("run", "--resume", str(out), "--retry", "error")
    assert retried.returncode == 1 and "1 case (2 rows) written" in retried.stdout, retried.stderr
    after = pd.read_csv(out)
    assert len(after) == len(before) == 4 and not after.duplicated(KEY[:5]).any()
    assert set(after.run_id[after.algorithm == "test-exit"]) != set(
        before.run_id[before.algorithm == "test-exit"]
    )  # the failed case's rows are the new run's
    assert (after[after.algorithm == "greedy"].run_id == before.run_id[0]).all()
    assert cli("run", "--resume", str(out), "--retry", "ok").returncode == 2
    assert cli("run", *args, "--out", str(tmp_path / "x.csv"), "--retry", "error").returncode == 2
