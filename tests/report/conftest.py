"""Hand-written result CSVs for the report tests, with the real COLUMNS header."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from gcbench.bench.results import COLUMNS, TRACE_COLUMNS

GRAPH_SIZES = {"g1": (100, 300), "g2": (1000, 5000), "g3": (50, 60)}


def make_row(
    graph: str, algorithm: str, time_ms: float | None, problem: str = "d1", **fields: Any
) -> dict[str, Any]:
    """One result row of ``problem``; ``fields`` override the defaults (status ok, rep 0,
    run r1, CPU)."""
    n, m = GRAPH_SIZES.get(graph, (10, 20))
    base: dict[str, Any] = dict.fromkeys(COLUMNS, "")
    base.update(
        run_id="r1", host="h", device="cpu", graph=graph, n=n, m=m, algorithm=algorithm,
        backend="cpu", rep=0, status="ok", time_ms="" if time_ms is None else time_ms,
        transfer_ms=0.5, colors=5, iterations=3, conflicts=0, uncolored=0, problem=problem,
    )  # fmt: skip
    base.update(fields)
    if base["time_ms"] != "" and base["total_ms"] == "":
        base["total_ms"] = float(base["time_ms"]) + float(base["transfer_ms"])
    return base


def make_reps(
    graph: str, algorithm: str, times: Iterable[float | None], **fields: Any
) -> list[dict]:
    """One row per time, reps numbered from 0."""
    return [make_row(graph, algorithm, t, rep=i, **fields) for i, t in enumerate(times)]


def write_rows(path: Path, rows: Iterable[Mapping[str, Any]], columns=COLUMNS) -> Path:
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture
def row():
    """The :func:`make_row` factory."""
    return make_row


@pytest.fixture
def reps():
    """The :func:`make_reps` factory."""
    return make_reps


@pytest.fixture
def write_csv(tmp_path):
    """``write_csv(rows, name="results.csv", columns=COLUMNS)`` → the path of a results CSV
    in tmp_path."""

    def write(
        rows: Iterable[Mapping[str, Any]], name: str = "results.csv", columns=COLUMNS
    ) -> Path:
        return write_rows(tmp_path / name, rows, columns)

    return write


@pytest.fixture
def write_trace(tmp_path):
    """``write_trace(rows, name)`` → a trace CSV (TRACE_COLUMNS) in tmp_path."""

    def write(
        rows: Iterable[Mapping[str, Any]],
        name: str = "results.trace.csv",
        columns: Sequence[str] = TRACE_COLUMNS,
    ) -> Path:
        return write_rows(tmp_path / name, rows, columns)

    return write


@pytest.fixture
def pixel_spread():
    """``pixel_spread(path)``: the standard deviation of a PNG's grey levels (~0 if blank)."""
    import numpy as np
    from PIL import Image

    def spread(path: Path) -> float:
        return float(np.asarray(Image.open(path).convert("L"), dtype=float).std())

    return spread


@pytest.fixture
def built():
    """``built(rep)``: a Report's figures by name, drawn (so their ticks exist), and why any
    is missing."""
    from gcbench.report.aggregate import best_block_per_config
    from gcbench.report.plots import Style, figures, palette

    def build(rep: Any) -> tuple[dict, dict]:
        best = best_block_per_config(rep.summary)
        style = Style(palette(sorted(rep.summary.config.unique())), rep.where, rep.timing)
        made, missing = figures(rep.summary, best, rep.traces, rep.baseline, style)
        for fig in made.values():
            fig.draw_without_rendering()
        return made, missing

    return build


@pytest.fixture
def mixed_rows() -> list[dict]:
    """Two graphs, CPU and GPU configurations, a block-size sweep, and failed repetitions."""
    return make_mixed_rows()


@pytest.fixture(scope="module")
def traced_report(tmp_path_factory):
    """The mixed results with a sibling trace file (two series), reported with ``out``:
    (the Report, the output directory)."""
    from gcbench.report import report

    here = tmp_path_factory.mktemp("traced")
    path = write_rows(here / "results.csv", make_mixed_rows())
    trace = [
        {"run_id": "r1", "graph": g, "algorithm": "ecl-gc", "params": "shortcuts=both",
         "block_size": bs, "rep": rep, "round": r, "series": series, "active": 1000 // 3**r}
        for g in ("g1", "g2") for bs in (128, 256) for rep in (0, 1)
        for series in ("active", "edges") for r in range(6)
    ]  # fmt: skip
    trace += [  # eb-tent timed out on g1: its trace is drawn at the smallest block size
        {"run_id": "r1", "graph": "g1", "algorithm": "eb-tent", "params": "", "block_size": bs,
         "rep": 0, "round": r, "series": "active", "active": 7}
        for bs in (128, 64) for r in range(100)
    ]  # fmt: skip
    trace += [  # a total, one value per run: no per-round curve
        {"run_id": "r1", "graph": g, "algorithm": "cusparse", "params": "", "block_size": "",
         "rep": 0, "round": 0, "series": "reported_colors", "active": 5}
        for g in ("g1", "g2")
    ]  # fmt: skip
    write_rows(here / "results.trace.csv", trace, TRACE_COLUMNS)
    return report([path], out=here / "report"), here / "report"


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory):
    """The mixed results plus a graph whose name is markup and a group whose error is a
    script, reported with ``out`` (PNG and SVG, 20 dpi): (the Report, the output directory)."""
    from gcbench.report import report

    here = tmp_path_factory.mktemp("hostile")
    graph = "gen:<b>bold</b>&amp;x"
    error = "<script>alert(1)</script> & <img src=x onerror=alert(2)>"
    rows = make_mixed_rows()
    rows += [make_row(graph, "greedy", t, rep=i, params="order=ldf", chi_lower=3, degeneracy=4,
                      chi_known=3) for i, t in enumerate([1.0, 1.2, 1.1])]  # fmt: skip
    rows += [make_row(graph, "bad<algo>", None, rep=i, status="error", error=error)
             for i in range(2)]  # fmt: skip
    path = write_rows(here / "results.csv", rows)
    return report([path], out=here / "out", plot_formats=["png", "svg"], dpi=20), here / "out"


def make_mixed_rows() -> list[dict]:
    """The rows of :func:`mixed_rows`."""
    gpu = {"backend": "gpu", "device": "gpu", "device_name": "H100"}
    return [
        *make_reps("g1", "cusparse", [10, 12, 11], **gpu),
        *make_reps("g2", "cusparse", [40, 44, 42], **gpu),
        *make_reps(
            "g1", "ecl-gc", [2, 3, 4], params="shortcuts=both", block_size=128, colors=4, **gpu
        ),
        *make_reps(
            "g1", "ecl-gc", [5, 6, 7], params="shortcuts=both", block_size=256, colors=4, **gpu
        ),
        *make_reps(
            "g2", "ecl-gc", [8, 9, 10], params="shortcuts=both", block_size=128, colors=6, **gpu
        ),
        *make_reps(
            "g2", "ecl-gc", [4, 5, 6], params="shortcuts=both", block_size=256, colors=6, **gpu
        ),
        *make_reps("g1", "greedy", [1, 1.5, 2], params="order=ldf", colors=3),
        *make_reps("g2", "greedy", [20, 22, 21], params="order=ldf", colors=7),
        *make_reps(
            "g1",
            "eb-tent",
            [None] * 3,
            block_size=64,
            status="timeout",
            error="round cap 100 reached",
            **gpu,
        ),  # fmt: skip
        make_row("g2", "eb-tent", 30, rep=0, block_size=64, **gpu),
        make_row("g2", "eb-tent", 1, rep=1, block_size=64, status="invalid", conflicts=4, **gpu),
        make_row("g2", "eb-tent", None, rep=2, block_size=64, status="oom", **gpu),
    ]


# A realistic mix for figure tests: GPU and CPU configurations, a block-size sweep, peers
# that are unsupported here, timeouts and times spread over six decades.
SUITE_CONFIGS = [  # (algorithm, params, block sizes, speed factor, colors factor)
    ("cusparse", "", [""], 4.0, 2.2),
    ("ecl-gc", "shortcuts=both", [128, 256, 512], 0.6, 1.0),
    ("ecl-gc", "shortcuts=none", [128, 256, 512], 0.9, 1.0),
    ("jpl-minmax", "", [128, 256], 1.5, 1.3),
    ("eb-tent", "", [256], 1.1, 1.1),
    ("greedy", "order=ff", [""], 30.0, 1.05),
    ("greedy", "order=ldf", [""], 45.0, 0.95),
    ("networkx", "", [""], None, None),
]
SUITE_GRAPHS = ["ss:DIMACS10/rgg_n_2_{s}_s0", "gen:kron?scale={s}&seed=0",
                "gen:rgg?scale={s}&seed=0", "snap:com-Orkut{s}", "ss:SNAP/roadNet-{s}",
                "/data/graphs/europe_osm_{s}.mtx"]  # fmt: skip


def make_suite_rows(graphs: int, *, seed: int = 0, reps: int = 3, **fields: Any) -> list[dict]:
    """Rows of a synthetic benchmark of ``graphs`` graphs: every SUITE_CONFIGS configuration
    on each (networkx unsupported, eb-tent timing out on every fifth graph), GPU rows on an
    H200, median times from about 0.05 ms to 5 s; ``fields`` override every row."""
    import numpy as np

    rng = np.random.default_rng(seed)
    gpu = {"device": "gpu", "device_name": "NVIDIA H200", "backend": "gpu"}
    rows = []
    for g in range(graphs):
        name = SUITE_GRAPHS[g % len(SUITE_GRAPHS)].format(s=12 + g)
        base_ms = 10 ** rng.uniform(-1.3, 2.7)
        base_colors = int(rng.integers(4, 90))
        for algo, params, sizes, speed, colors in SUITE_CONFIGS:
            cpu = sizes == [""] and algo != "cusparse"
            where = {} if cpu else gpu
            for bs in sizes:
                for r in range(reps):
                    common = dict(rep=r, params=params, block_size=bs, timestamp=
                                  f"2025-06-0{1 + g % 2}T10:00:00.000+00:00", host="node-a",
                                  n=1000 * (g + 1), m=8000 * (g + 1), **where)  # fmt: skip
                    if speed is None:
                        row = make_row(name, algo, None, status="unsupported",
                                       error="networkx is not installed", **common)  # fmt: skip
                    elif algo == "eb-tent" and g % 5 == 4:
                        row = make_row(name, algo, None, status="timeout",
                                       error="round cap 1000 reached", **common)  # fmt: skip
                    else:
                        t = base_ms * speed * (1 + 0.1 * (bs == 512)) * rng.uniform(0.95, 1.1)
                        row = make_row(name, algo, round(t, 6), colors=max(2, round(
                            base_colors * colors)), iterations=int(rng.integers(2, 300)),
                            **common)  # fmt: skip
                    row.update(fields)
                    rows.append(row)
    return rows


@pytest.fixture(scope="session")
def suite_rows():
    """The :func:`make_suite_rows` factory."""
    return make_suite_rows
