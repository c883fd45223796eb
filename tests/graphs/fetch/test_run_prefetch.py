"""``gcbench run`` fetches remote graphs in the parent first, then falls back to stand-ins."""

from __future__ import annotations

import pandas as pd

from gcbench.bench.runner import choose_device, run


def test_run_prefetches_then_workers_read_the_cache(server, make, data_dir, tmp_path):
    matrix = make.random_matrix(40, 200, 3)
    server.put("MM/Test/tiny.tar.gz", make.tarball([("tiny/tiny.mtx", make.mtx_text(matrix))]))
    out = tmp_path / "run.csv"
    summary = run(graphs=["ss:Test/tiny"], algorithms=["greedy"], reps=1, warmup=0,
                  out=out, progress=False, choice=choose_device("cpu"))  # fmt: skip
    rows = pd.read_csv(out)
    assert set(rows["status"]) == {"ok"} and summary.exit_code == 0
    assert set(rows["graph"]) == {"ss:Test/tiny"}
    assert server.count("/MM/Test/tiny.tar.gz") == 1  # fetched once, by the parent
    assert (data_dir / "ss" / "Test" / "tiny.npz").is_file()


def test_unreachable_graph_runs_its_standin(server, data_dir, tmp_path):
    suite = tmp_path / "s.toml"
    suite.write_text(
        'name = "s"\nreps = 1\nwarmup = 0\n'
        'graphs = [{ spec = "ss:Test/missing", standin = "gen:cycle?n=9" }]\n'
        '[[algorithms]]\nname = "greedy"\n'
    )
    out = tmp_path / "run.csv"
    summary = run(suite=suite, out=out, progress=False, choice=choose_device("cpu"))
    rows = pd.read_csv(out)
    assert set(rows["status"]) == {"ok"}
    assert set(rows["graph"]) == {"gen:cycle?n=9"}
    assert any("ss:Test/missing" in note for note in summary.notes)
