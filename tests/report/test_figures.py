"""Figures on synthetic benchmarks of 1, 7 and 22 graphs and on results that all failed:
the files written, labelled ticks on every log axis (read back from the figure objects),
the formats, the subtitle, and the performance profile against a hand computation."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from gcbench.bench.results import COLUMNS
from gcbench.errors import InputError
from gcbench.report import plots, report
from gcbench.report.aggregate import performance_profile, performance_ratios
from gcbench.report.plots import (
    MAX_WIDTH_IN,
    MIN_LABELS,
    figures,
    graph_labels,
    log_ticks,
    plot_formats,
)

ALWAYS = {"time", "colors", "front", "speedup", "block_sizes", "rounds"}
PROFILES = {"profile_time", "profile_colors"}
# The fewest graphs whose bars wrap onto four rows or more (ROW_IN_MANY) and whose panels onto
# more than three rows (PANEL_MANY_IN): the layouts of many graphs (the width test checks the
# rows), drawn at less cost than 30 graphs
MANY = 22


def labels(axis) -> list[str]:
    """The visible major tick labels of ``axis`` that have text, within its view."""
    low, high = sorted(axis.get_view_interval())
    return [
        t.get_text()
        for tick, t in zip(axis.get_major_ticks(), axis.get_majorticklabels(), strict=True)
        if t.get_visible() and t.get_text() and low <= tick.get_loc() <= high
    ]


def log_axes(fig):
    """(axes, axis name, axis) for every visible logarithmic axis of ``fig``."""
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if axis.get_scale() == "log":
                yield ax, name, axis


@pytest.fixture(scope="module", params=[1, 7, MANY])
def suite_report(request, suite_rows, tmp_path_factory):
    """The report (``out``, dpi 60) of a synthetic benchmark of 1, 7 or MANY graphs, shared by
    the tests that read its files and its figures: (graphs, Report, output directory, the
    figures it wrote by name, kept open and drawn by the writing, so their ticks exist)."""
    graphs = request.param
    here = tmp_path_factory.mktemp(f"suite-{graphs}")
    results = here / "results.csv"
    with open(results, "w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS)
        writer.writeheader()
        writer.writerows(suite_rows(graphs))
    made = {}

    def kept(*args, **kwargs):
        figs, missing = figures(*args, **kwargs)
        made.update(figs)
        return figs, missing

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(plots, "figures", kept)
        rep = report([results], out=here / "out", dpi=60)
    yield graphs, rep, here / "out", made
    for fig in made.values():
        fig.clear()


@pytest.mark.slow
def test_report_writes_every_figure_and_none_empty(suite_report, pixel_spread):
    graphs, rep, out, _ = suite_report
    expected = ALWAYS | (PROFILES if graphs > 1 else set())
    assert {p.name for p in rep.written} == {"summary.csv", "summary.md", "index.html"} | {
        f"{name}.png" for name in expected
    }
    for path in rep.written:
        if path.suffix == ".png":
            assert pixel_spread(path) > 20, path.name  # not blank
    md = (out / "summary.md").read_text()
    assert "Measured on NVIDIA H200 + CPU · host node-a ·" in md
    assert all(f"![{name}.png]({name}.png)" in md for name in expected)
    if graphs == 1:
        assert rep.plot_notes == tuple(
            f"no {what} profile: it compares configurations across graphs, and only one graph"
            " has a valid run"
            for what in ("time", "colors")
        )
        assert all(f"- {note}" in md for note in rep.plot_notes)
    else:
        assert rep.plot_notes == ()


@pytest.mark.slow
def test_every_log_axis_has_labelled_ticks(suite_report):
    graphs, rep, _, made = suite_report  # the figures the report wrote
    assert {f"{name}.png" for name in made} == {p.name for p in rep.written if p.suffix == ".png"}
    block_sizes = sorted({str(b) for b in rep.summary.block_size.dropna()})
    checked = 0
    for name, fig in made.items():
        for ax, which, axis in log_axes(fig):
            text = labels(axis)
            if name == "block_sizes" and which == "x":
                assert text == block_sizes, (name, ax.get_title())
            else:
                assert len(text) >= MIN_LABELS, (name, which, ax.get_title(), text)
            checked += 1
    # at least: time and speedup, and a panel per graph of block sizes (log x and log y)
    assert checked >= 2 + 2 * graphs


@pytest.mark.slow
def test_figures_are_at_most_14_in_wide_and_name_graphs_on_one_line(suite_report):
    graphs, rep, _, made = suite_report
    names = set(graph_labels(list(dict.fromkeys(rep.summary.graph))).values())
    assert len(names) == graphs
    for name, fig in made.items():
        assert fig.get_size_inches()[0] <= MAX_WIDTH_IN, name
        for ax in fig.axes:
            if ax.get_visible() and name in {"time", "colors", "speedup", "rounds"}:
                ticks = {t.get_text() for t in ax.get_xticklabels()} - {"geo. mean"}
                assert ticks <= names, (name, ticks - names)
            elif ax.get_visible() and ax.get_title():  # a panel per graph
                assert ax.get_title().split(":")[0] in names, (name, ax.get_title())
    assert made["colors"].axes[0].get_yscale() == "log"  # no bounds: colors on a log axis
    if graphs == MANY:  # the layouts of many graphs are the ones drawn
        assert sum(ax.get_visible() for ax in made["time"].axes) >= 4  # rows of bars
        panels = [ax for ax in made["block_sizes"].axes if ax.get_visible() and ax.get_title()]
        assert len({round(ax.get_position().y0, 3) for ax in panels}) > 3  # rows of panels


def test_short_bars_and_speedups_below_one_get_labels(write_csv, reps, built):
    # rgg 20's case: a 111 ms bar among times up to 5 s; speedups from 0.04 to 0.9
    rows = [*reps("g1", "fast", [111, 111]), *reps("g1", "slow", [5000, 5000]),
            *reps("g1", "base", [4000, 4000]), *reps("g2", "fast", [200, 200]),
            *reps("g2", "slow", [4500, 4500]), *reps("g2", "base", [180, 180])]  # fmt: skip
    rep = report([write_csv(rows)], baseline="base")
    made, _ = built(rep)
    time_axis = made["time"].axes[0].yaxis
    values = [float(t.replace("k", "e3")) for t in labels(time_axis)]
    assert min(values) <= 111 < 200 and len(values) >= MIN_LABELS
    speedups = labels(made["speedup"].axes[0].yaxis)
    assert sum(float(t) < 1 for t in speedups) >= 2, speedups


@pytest.mark.parametrize(
    ("lo", "hi"), [(55, 5500), (0.6, 1.8), (0.02, 3e4), (1, 1.05), (60, 200), (0.03, 0.9)]
)
def test_log_ticks_label_at_least_four_values_spread_over_the_axis(lo, hi):
    labelled, minor = log_ticks(lo, hi)
    assert len(labelled) >= MIN_LABELS and all(lo <= v <= hi for v in labelled)
    edges = np.log10([lo, *labelled, hi])
    assert np.diff(edges).max() <= 0.5 * np.log10(hi / lo)
    assert not set(minor) & set(labelled)


def test_log_ticks_over_many_ranges():
    for lo in np.geomspace(1e-4, 1e4, 23):
        for factor in np.geomspace(1.01, 1e14, 61):
            labelled, _ = log_ticks(lo, lo * factor)
            assert MIN_LABELS <= len(labelled) <= 13, (lo, factor, labelled)
            assert lo <= min(labelled) and max(labelled) <= lo * factor


def test_all_failed_results_write_no_empty_figure(tmp_path, write_csv, suite_rows):
    rows = suite_rows(3, status="error", error="illegal address", time_ms="", total_ms="")
    rep = report([write_csv(rows)], out=tmp_path / "out")
    assert {p.name for p in rep.written} == {"summary.csv", "summary.md", "index.html"}
    line = "no figures of time, colors or performance profiles: no row has status ok (117 error)"
    assert rep.plot_notes == (line,)
    assert f"## Plots\n\n- {line}\n" in (tmp_path / "out" / "summary.md").read_text()


@pytest.fixture
def few_rows(reps) -> list[dict]:
    """One graph, two CPU configurations: the figures of one graph (time, colors, front,
    speedup, rounds), each written by the same save as those of a larger benchmark."""
    return [*reps("g1", "greedy", [1.0, 1.5], params="order=ldf"),
            *reps("g1", "greedy", [2.0, 2.5], params="order=ff")]  # fmt: skip


def test_each_plot_format_is_written(tmp_path, write_csv, few_rows):
    rep = report(
        [write_csv(few_rows)], out=tmp_path / "out", plot_formats=["png,svg", "pdf", "svg"],
        dpi=60,
    )  # fmt: skip
    time = [p.name for p in rep.written if p.stem == "time"]
    assert time == ["time.png", "time.svg", "time.pdf"]
    out = tmp_path / "out"
    assert (out / "colors.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (out / "colors.svg").read_bytes()[:2000]
    assert (out / "colors.pdf").read_bytes()[:5] == b"%PDF-"
    md = (out / "summary.md").read_text()
    assert "![time.png](time.png) (also [time.svg](time.svg), [time.pdf](time.pdf))" in md
    only_pdf = report([write_csv(few_rows)], out=tmp_path / "pdf", plot_formats=["pdf"])
    assert {p.suffix for p in only_pdf.written} == {".csv", ".md", ".html", ".pdf"}
    assert "[time.pdf](time.pdf)" in (tmp_path / "pdf" / "summary.md").read_text()


def test_png_resolution(tmp_path, write_csv, mixed_rows):
    sizes = {}
    for dpi in (50, 100):
        rep = report([write_csv(mixed_rows)], out=tmp_path / str(dpi), dpi=dpi)
        sizes[dpi] = Image.open(next(p for p in rep.written if p.name == "time.png")).size
    assert sizes[100] == (2 * sizes[50][0], 2 * sizes[50][1])
    with pytest.raises(InputError, match="dpi 5 is out of range"):
        report([write_csv(mixed_rows)], out=tmp_path / "x", dpi=5)


def test_plot_formats_are_checked():
    assert plot_formats(["PNG, svg", "png"]) == ("png", "svg")
    with pytest.raises(InputError, match="unknown plot format 'jpg'; use a comma list of"):
        plot_formats(["png,jpg"])


def test_profile_by_hand():
    # three graphs, three configurations: c fails on g2 and is absent from g3
    best = pd.DataFrame(
        {
            "graph": ["g1", "g1", "g1", "g2", "g2", "g2", "g3", "g3", "g4", "g4"],
            "config": ["a", "b", "c", "a", "b", "c", "a", "b", "a", "b"],
            "time_ms": [2.0, 4.0, 1.0, 3.0, 3.0, np.nan, 10.0, 5.0, np.nan, np.nan],
        }
    )
    ratios = performance_ratios(best, "time_ms")
    # g4 has no valid time: no best, left out
    expected = pd.DataFrame(
        {"a": [2.0, 1.0, 2.0], "b": [4.0, 1.0, 1.0], "c": [1.0, np.inf, np.inf]},
        index=pd.Index(["g1", "g2", "g3"], name="graph"),
    )
    pd.testing.assert_frame_equal(ratios, expected, check_names=False)
    rho = performance_profile(ratios, [1.0, 1.5, 2.0, 4.0, 100.0])
    assert rho["a"].tolist() == pytest.approx([1 / 3, 1 / 3, 1, 1, 1])
    assert rho["b"].tolist() == pytest.approx([2 / 3, 2 / 3, 2 / 3, 1, 1])
    assert rho["c"].tolist() == pytest.approx([1 / 3] * 5)  # failures are never within τ


def test_profile_with_a_zero_best():
    best = pd.DataFrame({"graph": ["g", "g"], "config": ["a", "b"], "time_ms": [0.0, 2.0]})
    ratios = performance_ratios(best, "time_ms")
    assert ratios.loc["g", "a"] == 1.0 and ratios.loc["g", "b"] == np.inf
