"""Rendered outputs: markdown and CSV parse, rich tables fit, PNGs are real non-blank images."""

from __future__ import annotations

import io
import struct

import numpy as np
import pandas as pd
from PIL import Image
from rich.console import Console

from gcbench.report import report
from gcbench.report.aggregate import best_block_per_config, trace_lines
from gcbench.report.plots import (
    DPI,
    MAX_WIDTH_IN,
    PANEL_IN,
    Style,
    bar_layout,
    graph_labels,
    grouped_bars,
    legend_width_in,
    palette,
    save,
    tick_text,
)
from gcbench.report.plots_panels import series_unit
from gcbench.report.tables import SUMMARY_COLUMNS

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path) -> tuple[int, int]:
    """Width and height from the IHDR chunk (the first chunk of every PNG)."""
    head = path.read_bytes()[:24]
    assert head[:8] == PNG_SIGNATURE and head[12:16] == b"IHDR", path
    return struct.unpack(">II", head[16:24])


def test_markdown_tables_parse(write_csv, mixed_rows):
    text = report([write_csv(mixed_rows)], format="markdown").render()
    assert text.startswith("# gcbench report")
    for title in ("## g1", "## Speedup over cusparse", "## Winners per graph",
                  "## Best block size", "## Pareto front", "## Graphs", "## Notes"):  # fmt: skip
        assert title in text, title
    tables = [block.strip().splitlines() for block in text.split("\n\n") if block.startswith("|")]
    assert len(tables) == 7  # g1, g2, speedups, winners, graphs, block sizes, pareto
    for lines in tables:
        cells = [len(line.split(" | ")) for line in lines]
        assert len(set(cells)) == 1 and set(lines[1]) <= set("|-: "), lines[:2]
    g1 = tables[0]
    assert "eb-tent@64 | 0/3 | — |" in "\n".join(g1)
    assert g1[-1].endswith("| 3 timeout: round cap 100 reached |")


def test_csv_output_is_the_summary(write_csv, mixed_rows):
    rep = report([write_csv(mixed_rows)], format="csv")
    frame = pd.read_csv(io.StringIO(rep.render()), keep_default_na=False, na_values=[""])
    assert list(frame.columns) == SUMMARY_COLUMNS and len(frame) == len(rep.summary)
    np.testing.assert_allclose(frame.time_ms, rep.summary.time_ms.astype(float))
    np.testing.assert_allclose(frame.speedup, rep.summary.speedup.astype(float))


def test_rich_tables_leave_out_columns_to_fit(write_csv, mixed_rows):
    rendered = report([write_csv(mixed_rows)]).render()

    def text(width: int) -> str:
        console = Console(width=width, record=True, file=io.StringIO())
        console.print(rendered)
        return console.export_text()

    wide, narrow = text(250), text(80)
    assert "Medge/s" in wide and "Medge/s" not in narrow
    assert all(len(line) <= 80 for line in narrow.splitlines())
    # labels with brackets are text, not rich markup
    assert "ecl-gc@128" in wide and "ecl-gc@" in narrow


def test_out_writes_summary_and_plots(traced_report, pixel_spread):
    rep, out = traced_report
    names = {p.name for p in rep.written}
    assert names == {"summary.csv", "summary.md", "index.html", "time.png", "colors.png",
                     "front.png", "speedup.png", "profile_time.png", "profile_colors.png",
                     "block_sizes.png", "rounds.png", "trace.png"}  # fmt: skip
    written = pd.read_csv(out / "summary.csv")
    assert list(written.columns) == SUMMARY_COLUMNS and len(written) == len(rep.summary)
    md = (out / "summary.md").read_text()
    assert "![time.png](time.png)" in md and "![trace.png](trace.png)" in md
    for path in rep.written:
        if path.suffix == ".png":
            width, height = png_size(path)
            assert 1000 <= width <= 8000 and 800 <= height <= 6000, (path.name, width, height)
            assert Image.open(path).size == (width, height)
            assert pixel_spread(path) > 20, path.name


def test_bar_plot_size_follows_its_layout(traced_report):
    rep, out = traced_report
    configs = sorted(set(rep.summary.config))
    # two graphs, one bar per configuration (GPU ones at their best block size)
    _, rows, (w, h) = bar_layout(2, len(configs), configs)
    assert rows == 1
    assert png_size(out / "time.png") == (round(w * DPI), round(h * DPI))
    # the speedup plot has one more cluster: the geometric mean
    _, _, (w, h) = bar_layout(3, len(configs), configs)
    assert png_size(out / "speedup.png") == (round(w * DPI), round(h * DPI))


def test_traces_follow_the_best_block_size(traced_report):
    rep, _ = traced_report
    assert set(rep.traces.series) == {"active", "edges", "reported_colors"}
    assert len(rep.traces) == 96 + 200 + 2
    lines = trace_lines(rep.traces, best_block_per_config(rep.summary))
    chosen = lines.groupby(["graph", "config"])["block_size"].unique().map(list).to_dict()
    # ecl-gc is fastest at 128 on g1 and at 256 on g2; eb-tent has no valid time on g1
    assert chosen == {("g1", "ecl-gc"): [128], ("g1", "eb-tent"): [64],
                      ("g2", "ecl-gc"): [256]}  # fmt: skip
    assert set(lines.rep) == {0} and len(lines) == 2 * 2 * 6 + 100  # one rep per series
    assert list(lines.graph.unique()) == ["g1", "g2"]
    assert set(lines.series) == {"active", "edges"}  # reported_colors has a single round


def test_trace_plot_is_a_graph_by_series_grid(traced_report):
    _, out = traced_report
    # 2 graphs × 2 series with curves (reported_colors is left out), legend: 2 configurations
    width = round(2 * PANEL_IN[0] + legend_width_in(["ecl-gc", "eb-tent"]) + 0.4, 2)
    height = round(2 * PANEL_IN[1] + 1.0, 2)
    assert png_size(out / "trace.png") == (round(width * DPI), round(height * DPI))


def test_a_trace_series_is_labelled_in_its_unit():
    assert [series_unit(n) for n in ("active", "edges", "tabu_colors", "tabu_ms", "reduce_ms")] == [
        "count", "count", "count", "ms", "ms",
    ]  # fmt: skip


def test_many_graphs_wrap_onto_rows(tmp_path, write_csv, row, pixel_spread):
    rows = [row(f"gen:rgg?scale={s}&seed=0", f"algo-{a}", 1.0 + a + s, params=f"k={a}")
            for s in range(10, 26) for a in range(10)]  # fmt: skip
    rep = report([write_csv(rows)])
    configs = sorted(set(rep.summary.config))
    style = Style(palette(configs), rep.where, rep.timing)
    fig = grouped_bars(rep.summary, "time_ms", style, title="t", ylabel="ms", log=True)
    (path,) = save(fig, tmp_path / "t", style)
    per_row, n_rows, (w, h) = bar_layout(16, 10, configs)
    assert n_rows == 2 and per_row == 8 and w <= MAX_WIDTH_IN
    width, height = png_size(path)
    assert (width, height) == (round(w * DPI), round(h * DPI)) and height > width / 2
    assert pixel_spread(path) > 20


def test_no_sweep_or_trace_plot_without_their_data(tmp_path, write_csv, reps):
    rows = [*reps("g1", "a", [1.0, 2.0]), *reps("g1", "b", [2.0], block_size=128)]
    rep = report([write_csv(rows)], out=tmp_path / "o", baseline="a")
    assert {p.name for p in rep.written} == {"summary.csv", "summary.md", "index.html",
                                             "time.png", "colors.png", "front.png",
                                             "speedup.png", "rounds.png"}  # fmt: skip


def test_graph_tick_labels_are_short_and_one_line():
    labels = graph_labels(["ss:DIMACS10/rgg_n_2_20_s0", "gen:kron?scale=14&seed=0",
                           "/data/x/road.mtx", "snap:com-LiveJournal"])  # fmt: skip
    assert labels["ss:DIMACS10/rgg_n_2_20_s0"] == "rgg_n_2_20_s0"
    assert labels["gen:kron?scale=14&seed=0"] == "kron s14"
    assert labels["/data/x/road.mtx"] == "road"
    assert labels["snap:com-LiveJournal"] == "com-LiveJournal"
    # the same short name from two sources: their sources tell them apart
    both = graph_labels(["ss:A/web", "ss:B/web"], width=40)
    assert both == {"ss:A/web": "A/web", "ss:B/web": "B/web"}


def test_tick_text():
    assert [tick_text(x) for x in (0.3, 40, 2000, 1e7)] == ["0.3", "40", "2k", "10M"]
