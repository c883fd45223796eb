"""``gcbench fetch`` and ``gcbench list graphs`` run for real, in a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from gcbench.bench.suite import remote_specs


def test_fetch_then_list_graphs(server, make, data_dir, tmp_path, cli):
    server.put("files/ssstats.csv", make.ssstats([("Test", "tiny", 60, 60, 400)]))
    tar = make.tarball([("tiny/tiny.mtx", make.mtx_text(make.random_matrix(60, 400, 0)))])
    server.put("MM/Test/tiny.tar.gz", tar)
    server.put("snap/wiki-Tiny.txt.gz", make.edge_list_gz(make.random_matrix(30, 90, 2)))
    suite = tmp_path / "mine.toml"
    suite.write_text(
        'name = "mine"\n'
        'graphs = ["snap:wiki-Tiny", {spec = "ss:Test/tiny", standin = "gen:cycle?n=9"},'
        ' "gen:cycle?n=5"]\n'
        '[[algorithms]]\nname = "greedy"\n'
    )

    done = cli("fetch", "--suite", str(suite))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["downloaded", "snap:wiki-Tiny"],
        ["downloaded", "ss:Test/tiny"],
    ]
    assert "n=60" in lines[1]

    again = cli("fetch", "ss:Test/tiny")
    assert again.returncode == 0 and again.stdout.startswith("cached")

    listed = cli("list", "graphs")
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split() == ["spec", "vertices", "edges", "size", "source"]
    assert rows[1].split()[:2] == ["ss:Test/tiny", "60"]
    assert rows[1].endswith(f"{server.url}/MM/Test/tiny.tar.gz")
    assert rows[0].endswith(f"{server.url}/snap/wiki-Tiny.txt.gz")


def test_fetch_failure_is_one_line_and_exit_1(server, make, data_dir, cli):
    server.put("files/ssstats.csv", make.ssstats([("Test", "tiny", 60, 60, 400)]))
    done = cli("fetch", "ss:Test/tyni")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "error: ss:Test/tyni is not in the SuiteSparse catalogue; search the collection at "
        "https://sparse.tamu.edu",
        "1 of 1 graphs could not be fetched",
    ]


def test_fetch_needs_specs_and_list_graphs_says_when_empty(data_dir, cli):
    done = cli("fetch")
    assert done.returncode == 2 and "give graph specs" in done.stderr
    empty = cli("list", "graphs")
    assert empty.returncode == 0 and empty.stdout.startswith("no cached graphs in")


def test_a_suite_without_network_reports_the_cause_once(run_limited, closed_port):
    """seed-ecl's 13 remote graphs against a closed port: one error line with the cause and
    every graph it hit, exit 1 (fetch's code for graphs that could not be fetched)."""
    closed = closed_port
    port = closed.rsplit(":", 1)[1]
    env = {"GCBENCH_SUITESPARSE_URL": closed, "GCBENCH_SNAP_URL": closed + "/snap"}
    done = run_limited("fetch", "--suite", "seed-ecl", env=env)
    assert done.returncode == 1, done.stderr
    assert done.seconds < 10
    assert done.stdout == ""
    specs = remote_specs("seed-ecl")
    assert len(specs) == 13
    error, total = done.stderr.splitlines()
    assert error == (
        f"error: cannot reach 127.0.0.1:{port} (connection refused); check the network "
        f"connection, or use a local path or a gen: spec (13 graphs: {', '.join(specs)})"
    )
    assert total == "13 of 13 graphs could not be fetched"
    assert run_limited.leftovers() == []


def test_an_interrupted_fetch_keeps_no_partial_file(server, make, data_dir, leftovers):
    """SIGINT (or SIGTERM) while a download hangs: exit 130, one line, no traceback, nothing
    half-downloaded left in the cache (issue 32)."""
    server.put("files/ssstats.csv", make.ssstats([("Test", "tiny", 60, 60, 400)]))
    tar = make.tarball([("tiny/tiny.mtx", make.mtx_text(make.random_matrix(60, 400, 0)))])
    server.put("MM/Test/tiny.tar.gz", tar)
    server.stall["/MM/Test/tiny.tar.gz"] = 30.0
    for stop in (signal.SIGINT, signal.SIGTERM):
        proc = subprocess.Popen(
            [sys.executable, "-m", "gcbench", "fetch", "ss:Test/tiny"], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while server.count("/MM/Test/tiny.tar.gz") == 0 and time.monotonic() < deadline:
            time.sleep(0.05)  # the download has begun (and hangs)
        os.killpg(proc.pid, stop)
        stdout, stderr = proc.communicate(timeout=30)
        assert proc.returncode == 130 and "Traceback" not in stdout + stderr, stderr
        assert stderr.strip().splitlines()[-1] == "interrupted"
        assert not [p for p in leftovers(data_dir) if p.suffix in (".part", ".npz", ".gz")]
        server.requests.clear()
