"""``gcbench run`` and ``gcbench list suites`` for real, in subprocesses: exit codes, messages,
and interrupted runs (SIGINT, SIGKILL) that ``--resume`` completes without duplicates."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

REPS, CASES = 10, 6  # 3 s of sleeping: a loaded machine still interrupts it before the end


def sleeps(base: float, cases: int = CASES) -> str:
    """``cases`` sleep lengths from ``base`` s: one test-sleep case each."""
    return "seconds=" + ",".join(f"{base + i / 1000:g}" for i in range(cases))


SLOW = ["--graph", "gen:cycle?n=9", "--algo", "test-sleep", "--param", sleeps(0.05),
        "--reps", str(REPS), "--warmup", "0", "--device", "cpu", "--quiet"]  # fmt: skip
QUICK = {"GCBENCH_TEST_SLEEP_SCALE": "0.1"}  # a resume: nothing to interrupt, shorter sleeps


def start(env, *args):
    return subprocess.Popen(
        [sys.executable, "-m", "gcbench", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def wait_for_rows(path: Path, rows: int, proc: subprocess.Popen, limit_s: float = 60) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text().splitlines()) > rows:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"no {rows} rows in {path} after {limit_s} s")


def children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def running(pid: int) -> bool:
    """Whether process ``pid`` has not exited: /proc has it, and not as a zombie (an exited
    process whose parent died waits there until init reaps it, which can take seconds)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def check_complete(path: Path, reps: int = REPS, cases: int = CASES) -> None:
    frame = pd.read_csv(path)
    assert frame.params.nunique() == cases and (frame.status == "ok").all()
    for _, case in frame.groupby("params"):
        assert sorted(case.rep) == list(range(reps))


def whole_cases(path: Path) -> pd.DataFrame:
    """The rows of an interrupted file: each case it holds is whole (a case's rows are written
    together when it ends), none twice."""
    frame = pd.read_csv(path)
    assert (frame.groupby("params").size() == REPS).all() and not frame.duplicated(
        ["params", "rep"]
    ).any()
    return frame


def test_sigint_stops_cleanly_and_resume_completes(bench_env, tmp_path, cli):
    out = tmp_path / "r.csv"
    proc = start(bench_env, "run", *SLOW, "--out", str(out))
    wait_for_rows(out, REPS, proc)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, (proc.returncode, stdout, stderr)
    assert REPS <= len(whole_cases(out)) < REPS * CASES
    command = stderr.strip().splitlines()[-1].split("run: ", 1)[1]
    args = shlex.split(command)
    assert args[0] == "gcbench" and args[-2:] == ["--resume", str(out)] and "--out" not in args
    done = cli(*args[1:], env={**os.environ, **QUICK})
    assert done.returncode == 0, done.stderr
    check_complete(out)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigkill_leaves_a_resumable_file_and_no_orphan(bench_env, tmp_path, cli):
    out = tmp_path / "r.csv"
    proc = start(bench_env, "run", *SLOW, "--out", str(out))
    wait_for_rows(out, REPS, proc)
    workers = children(proc.pid)
    assert workers
    proc.kill()
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while any(running(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(w) for w in workers), "worker outlived parent"
    with open(out, "a") as handle:  # what a write cut short by the kill would leave
        handle.write("0123abcd,2026-01-01T00:00:00")
    done = cli("run", *SLOW, "--resume", str(out), env={**os.environ, **QUICK})
    assert done.returncode == 0, done.stderr
    check_complete(out)


def test_failures_exit_1_and_the_device_is_named(bench_env, tmp_path, cli):
    done = cli("run", "--graph", "gen:cycle?n=5", "--algo", "test-invalid",
               "--reps", "1", "--warmup", "0", "--out", str(tmp_path / "r.csv"))  # fmt: skip
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert "running" in lines[0] and ("GPU" in lines[0] or "CPU" in lines[0])
    assert lines[-1] == f"1 case (1 row) written to {tmp_path / 'r.csv'} (file: 1 invalid)"


def test_spec_errors_are_one_line_before_anything_runs(bench_env, tmp_path, cli):
    out = tmp_path / "r.csv"
    done = cli("run", "--algo", "nope", "--device", "cpu", "--out", str(out))
    assert done.returncode == 2
    assert done.stderr.startswith("error: unknown algorithm 'nope'")
    assert len(done.stderr.strip().splitlines()) == 1 and not out.exists()
    done = cli("run", "--algo", "greedy", "--param", "order=zz", "--device", "cpu",
               "--out", str(out))  # fmt: skip
    assert done.returncode == 2 and "order=zz is not one of" in done.stderr


def test_list_suites(bench_env, cli):
    done = cli("list", "suites")
    assert done.returncode == 0
    assert any(
        line.split()[0] == "quick" and "default" in line for line in done.stdout.splitlines()
    )


def test_plugins_must_import(bench_env, tmp_path, cli):
    env = {**bench_env, "GCBENCH_PLUGINS": "no_such_module_xyz"}
    done = cli("run", "--device", "cpu", "--out", str(tmp_path / "r.csv"), env=env)
    assert done.returncode == 2 and "GCBENCH_PLUGINS: cannot import 'no_such_module_xyz'" in (
        done.stderr
    )
    assert os.environ.get("GCBENCH_PLUGINS") == "gcbench_test_plugins"


@pytest.mark.parametrize("algorithm", ["test-memory", "test-unsupported", "test-roundcap"])
def test_every_status_but_ok_exits_1_and_says_why(bench_env, tmp_path, algorithm, cli):
    """oom and unsupported rows fail a run as invalid, error and timeout rows do (docs/cli.md);
    the end of the output groups them with their first error, then names the file."""
    out = tmp_path / "r.csv"
    done = cli("run", "--graph", "gen:cycle?n=5", "--algo",
               f"{algorithm},test-distinct", "--reps", "2", "--warmup", "0",
               "--device", "cpu", "--quiet", "--out", str(out))  # fmt: skip
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    status = pd.read_csv(out).query("algorithm == @algorithm").status.iloc[0]
    assert lines[-3:] == [
        f"  gen:cycle?n=5  {algorithm}: {status} ×2: "
        + pd.read_csv(out).query("algorithm == @algorithm").error.iloc[0],
        f"2 cases (4 rows) written to {out} (file: 2 ok, 2 {status})",
        f"next: gcbench report {out}",
    ]
    assert lines[-4] == "2 rows not ok (graph, algorithm: status × rows: first error):"


def test_a_graph_that_fails_to_load_is_one_line_for_all_its_algorithms(bench_env, tmp_path, cli):
    junk = tmp_path / "junk.txt"
    junk.write_bytes(bytes(range(256)) * 8)
    empty = tmp_path / "empty.mtx"
    empty.write_text("")
    out = tmp_path / "r.csv"
    done = cli("run", "--graph", str(junk), "--graph", str(empty), "--graph", "gen:cycle?n=6",
               "--algo", "test-distinct,test-invalid", "--device", "cpu", "--quiet",
               "--reps", "1", "--out", str(out))  # fmt: skip
    assert done.returncode == 1
    junk_line, empty_line = done.stderr.splitlines()  # one line on stderr a graph
    assert junk_line.startswith(f"error: graph file {junk} line 1: vertex id is not an integer")
    assert junk_line.isascii()  # the junk is escaped
    assert empty_line == f"error: graph file {empty} is empty; download or copy it again"
    assert f"{junk}" not in done.stdout and f"{empty}" not in done.stdout
    assert "gen:cycle?n=6  test-invalid: invalid" in done.stdout  # the other failures as before
    frame = pd.read_csv(out, keep_default_na=False)
    assert (frame[frame.graph != "gen:cycle?n=6"].status == "error").all()  # and their rows


def test_color_exits_1_when_the_algorithm_fails(bench_env, tmp_path, cli):
    out = tmp_path / "c.txt"
    done = cli("color", "gen:cycle?n=5", "--algo", "test-roundcap", "--out",
               str(out))  # fmt: skip
    assert done.returncode == 1 and not out.exists() and not list(tmp_path.iterdir())
    assert done.stderr.splitlines() == [
        "error: test-roundcap on gen:cycle?n=5: timeout: test-roundcap: still 5 active after 3 "
        "rounds"
    ]
    done = cli("color", "gen:cycle?n=5", "--algo", "test-invalid")
    assert done.returncode == 1 and "valid        NO" in done.stdout


def test_levels_colors_with_a_plugin_algorithm(bench_env, cli):
    done = cli("levels", "gen:grid2d?side=6", "--algo", "test-distinct",
               "--device", "cpu", "--no-solve")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "algorithm    test-distinct" in done.stdout
    assert "colors       36" in done.stdout  # a color per vertex: one level per vertex too


def test_color_interrupted_exits_130_and_leaves_no_file(bench_env, tmp_path):
    out = tmp_path / "c.txt"
    env = {**bench_env, "GCBENCH_DATA": str(tmp_path / "data")}
    proc = start(env, "color", "gen:cycle?n=7", "--algo", "test-sleep", "--out", str(out))
    deadline = time.monotonic() + 60
    while not list((tmp_path / "data").rglob("*.npz")):  # loaded: now in the warm-up's sleep
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert [line for line in stderr.splitlines() if line] == ["interrupted"], stderr
    assert [p.name for p in tmp_path.iterdir()] == ["data"]
