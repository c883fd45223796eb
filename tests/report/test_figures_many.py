"""Figures that read at 20 configurations and more (issue 33): a look per configuration that
no other shares and that every figure keeps, performance profiles on a 1-2-5 τ axis with
lines that stay visible at 1, colors on a log axis or over the graph's bound, a class
balance figure of bounded width that names its rows, one-line graph labels, and no GPU
wording on CPU-only results."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba
from matplotlib.container import BarContainer
from matplotlib.legend import Legend

from gcbench.bench.results import COLUMNS
from gcbench.report import report
from gcbench.report.defaults import CLIQUE, KNOWN
from gcbench.report.plots import (
    MARKERS,
    MAX_WIDTH_IN,
    Style,
    class_balance,
    graph_bounds,
    graph_labels,
    in_order,
    palette,
    tau_ticks,
)

GPU = {"backend": "gpu", "device": "gpu", "device_name": "NVIDIA H100"}
# grid2d: χ = 2 published; rmat: a clique of 150 found; com-Orkut: no bound
GRAPHS = {"gen:grid2d?side=64": (2, 2), "gen:rmat?a=0.45&b=0.15&c=0.15&edgefactor=8&scale=16"
          "&seed=0": (150, None), "ss:SNAP/com-Orkut": (None, None)}  # fmt: skip
CONFIGS = 24


def reps(graph: str, algorithm: str, times: list[float], **fields) -> list[dict]:
    """A result row per time (CPU unless ``fields`` say otherwise)."""
    rows = []
    for rep, time in enumerate(times):
        row = dict.fromkeys(COLUMNS, "")
        row.update(run_id="r1", host="h", device="cpu", backend="cpu", graph=graph, n=5000,
                   m=20000, algorithm=algorithm, rep=rep, status="ok", time_ms=time,
                   transfer_ms=0, total_ms=time, iterations=3)  # fmt: skip
        row.update(fields)
        rows.append(row)
    return rows


def many_rows(cpu: bool = False) -> list[dict]:
    """24 configurations (GPU ones with a block size, the first two swept over two) on the
    three GRAPHS, times 0.05 ms to 5 s (up to 100× apart on a graph), colors 2 to 300;
    ``cpu``: CPU ones only."""
    rows = []
    for g, (graph, (lower, known)) in enumerate(GRAPHS.items()):
        for c in range(CONFIGS):
            where = {} if cpu else dict(GPU, block_size=128)
            bound = {"chi_lower": lower or "", "chi_known": known or ""}
            colors = (2 + c % 4) if g == 0 else min(300, 150 + 7 * c)
            time = 0.05 * 10 ** (1.5 * g + c * 2 / CONFIGS)
            rows += reps(graph, f"algo-{c:02d}", [time, time * 1.01, time * 1.02],
                         colors=colors, **bound, **where)  # fmt: skip
            if not cpu and c < 2:
                rows += reps(graph, f"algo-{c:02d}", [time * 1.3] * 3, colors=colors,
                             **bound, **dict(where, block_size=256))  # fmt: skip
    return rows


def write(path, rows: list[dict]):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return path


def bar_containers(ax) -> list[BarContainer]:
    """The bars of ``ax``, a container per configuration (their whiskers are others)."""
    return [c for c in ax.containers if isinstance(c, BarContainer)]


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """The figures (drawn) of 24 GPU configurations on three graphs, by name."""
    from gcbench.report.aggregate import best_block_per_config
    from gcbench.report.plots import figures

    rep = report([write(tmp_path_factory.mktemp("many") / "results.csv", many_rows())])
    style = Style(palette(in_order(rep.summary.config)), rep.where, rep.timing)
    made, _ = figures(rep.summary, best_block_per_config(rep.summary), None, rep.baseline, style)
    for fig in made.values():
        fig.draw_without_rendering()
    yield rep, style, made
    for fig in made.values():
        fig.clear()


def test_24_configurations_each_look_unlike_any_other():
    configs = [f"c{i:02d}" for i in range(CONFIGS)]
    style = Style(palette(configs), "", "")
    looks = [style.line(c) for c in configs]
    keys = {(lk["color"], lk["marker"], str(lk["linestyle"])) for lk in looks}
    assert len(keys) == CONFIGS
    assert len({(lk["color"], lk["marker"]) for lk in looks}) == CONFIGS  # bars: no line style
    for a, b in zip(looks, looks[1:], strict=False):  # neighbours differ in hue and marker
        assert a["color"] != b["color"] and a["marker"] != b["marker"]
    assert len({lk["color"] for lk in looks}) == CONFIGS  # no colour is used twice
    assert style.hues_repeat and not Style(palette(configs[:10]), "", "").hues_repeat


def test_every_figure_keeps_each_configurations_look(many):
    rep, style, made = many
    configs = in_order(rep.summary.config)
    bars = made["time"].axes[0]
    for config, container in zip(configs, bar_containers(bars), strict=True):
        assert container.patches[0].get_facecolor() == pytest.approx(to_rgba(style.colour(config)))
    # the marker under each bar where hues repeat, as on the lines of the other figures
    feet = [line for line in bars.get_lines() if line.get_marker() in MARKERS]
    assert [line.get_marker() for line in feet] == [style.marker(c) for c in configs]
    profile = made["profile_time"].axes[0]
    steps = [line for line in profile.get_lines() if line.get_linestyle() != "None"]
    assert len(steps) == CONFIGS
    for config, line in zip(configs, steps, strict=True):
        assert to_rgba(line.get_color()) == pytest.approx(to_rgba(style.colour(config)))
    sweep = made["block_sizes"].axes[0]  # algo-00 and algo-01 ran at two block sizes
    for config, line in zip(configs[:2], sweep.get_lines(), strict=False):
        assert line.get_marker() == style.marker(config)
        assert to_rgba(line.get_color()) == pytest.approx(to_rgba(style.colour(config)))


def test_profiles_read_1_2_5_and_keep_lines_at_one_visible(many):
    _, _, made = many
    for name in ("profile_time", "profile_colors"):
        ax = made[name].axes[0]
        assert ax.get_ylim()[1] > 1.02 and not ax.spines["top"].get_visible()
        assert all(not line.get_clip_on() for line in ax.get_lines())
    ax = made["profile_time"].axes[0]  # ratios up to about 80: a 1-2-5 axis
    shown = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert shown == ["1", "2", "5", "10", "20", "50"]
    legend = made["profile_time"].findobj(Legend)[0]
    assert len(legend.get_texts()) == CONFIGS and legend.get_title().get_text().startswith(
        "configuration"
    )


@pytest.mark.parametrize(
    ("hi", "expected"),
    [(30, [1, 2, 5, 10, 20]), (2.0, [1, 1.2, 1.5, 2]), (6, [1, 1.5, 2, 3, 5]),
     (1e6, [1, 10, 100, 1e3, 1e4, 1e5, 1e6])],
)  # fmt: skip
def test_tau_ticks(hi, expected):
    labelled, minor = tau_ticks(hi)
    assert labelled == pytest.approx(expected)
    assert not set(minor) & set(labelled) and all(1 <= v <= hi for v in minor)


def test_colors_are_shown_over_the_bound_on_a_log_axis(many):
    _, _, made = many
    ax = made["colors"].axes[0]
    assert ax.get_yscale() == "log" and "÷ bound" in ax.get_ylabel()
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["grid2d side64\nχ = 2", "rmat s16\nχ ≥ 150", "com-Orkut\nfewest 150"]
    assert any(np.allclose(line.get_ydata(), 1.0) for line in ax.get_lines())  # the bound
    # grid2d's 2 vs 5 colors is a factor 2.5 above the bound, as tall as it reads
    heights = [p.get_height() for c in bar_containers(ax) for p in c.patches[:1]]
    assert min(heights) == pytest.approx(1.0) and max(heights) == pytest.approx(2.5)


def test_graph_bounds_per_graph_from_the_summary():
    summary = pd.DataFrame({"graph": ["a", "a", "b", "c"], "bound": [3, 3, 7, np.nan],
                            "bound_kind": [KNOWN, KNOWN, CLIQUE, ""]})  # fmt: skip
    assert graph_bounds(summary).to_dict("index") == {
        "a": {"bound": 3, "kind": KNOWN}, "b": {"bound": 7, "kind": CLIQUE}
    }  # fmt: skip
    assert graph_bounds(summary.assign(bound=np.nan, bound_kind="")) is None  # before v4


def test_colors_on_a_log_axis_without_bounds(tmp_path, built):
    rows = [r for r in many_rows() if r["block_size"] != 256]
    for r in rows:
        r.update(chi_lower="", chi_known="")
    made, _ = built(report([write(tmp_path / "r.csv", rows)]))
    ax = made["colors"].axes[0]
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "colors (median, log scale)"
    low, high = ax.get_ylim()
    assert low < 2 and high > 300


def test_balance_names_its_rows_within_a_bounded_width():
    graphs = [f"gen:rmat?a=0.{45 + g % 5}&b=0.15&c=0.15&edgefactor=8&scale=16&seed={g}"
              for g in range(13)]  # fmt: skip
    configs = [f"ecl-gc[shortcuts={s}]" for s in ("both", "none")] + [
        f"algo-{c}[k={c}]" for c in range(18)
    ]
    best = pd.DataFrame([{"graph": g, "config": c, "min_class": 2.0, "max_class": 900.0,
                          "colors": 20.0, "n": 5000.0, "class_cv": 0.5, "block_size": pd.NA}
                         for g in graphs for c in configs])  # fmt: skip
    style = Style(palette(in_order(configs)), "CPU", "")
    fig = class_balance(best, None, style)
    assert fig.get_size_inches()[0] <= MAX_WIDTH_IN
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 13 and fig.axes[3].get_visible()  # four to a row
    names = [t.get_text() for t in panels[0].get_yticklabels()]
    assert names[:2] == ["algo-0[k=0]", "algo-1[k=1]"] and "ecl-gc[shortcuts=both]" in names
    assert len(set(names)) == len(configs)
    assert not fig.findobj(Legend)  # the rows say which configuration each is
    caption = fig.subfigs[0].get_suptitle()
    assert "dots" not in caption and "block size" not in caption  # no trace, no GPU
    titles = [ax.get_title() for ax in panels]
    assert len(set(titles)) == 13 and all("\n" not in t and len(t) <= 18 for t in titles)


def test_graph_labels_are_one_short_line_each_and_unique():
    rmat = "gen:rmat?a={a}&b=0.15&c=0.15&edgefactor=8&scale={s}&seed={seed}"
    names = [rmat.format(a=a, s=16, seed=seed) for a in (0.45, 0.57) for seed in (0, 1)]
    names += [rmat.format(a=0.45, s=18, seed=0), "gen:kron?scale=16&seed=0",
              "gen:kron?scale=16&seed=1", "gen:cycle?n=100000", "gen:grid2d?side=8",
              "ss:A/web", "ss:B/web", "/data/x/europe_osm.mtx.gz",
              "ss:DIMACS10/a_graph_with_a_very_long_name_1",
              "ss:DIMACS10/a_graph_with_a_very_long_name_2"]  # fmt: skip
    labels = graph_labels(names)
    assert list(labels) == names
    assert len(set(labels.values())) == len(names)
    assert all("\n" not in v and 0 < len(v) <= 18 for v in labels.values()), labels
    assert [labels[n] for n in names[:5]] == [
        "rmat s16 #1",
        "rmat s16 #2",
        "rmat s16 #3",
        "rmat s16 #4",
        "rmat s18",
    ]
    assert labels["gen:kron?scale=16&seed=1"] == "kron s16 seed=1"
    assert labels["gen:cycle?n=100000"] == "cycle n100k"
    assert labels["/data/x/europe_osm.mtx.gz"] == "europe_osm"
    assert labels["ss:A/web"] == "A/web"
    long = [labels[n] for n in names[-2:]]
    assert long[0] != long[1] and all(v.startswith("a_graph_with") for v in long)
    # a figure with every graph of the report names each alike
    assert graph_labels(names[:5])["gen:" + names[0][4:]] == labels[names[0]]


def test_no_gpu_wording_on_cpu_results(tmp_path, built):
    made, _ = built(report([write(tmp_path / "r.csv", many_rows(cpu=True))]))
    assert {"time", "colors", "profile_time", "profile_colors"} <= set(made)
    for name, fig in made.items():
        texts = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
        assert not any("block size" in t for t in texts), name


def test_gpu_results_say_which_block_size(many):
    _, _, made = many
    for name in ("time", "profile_time", "colors"):
        title = made[name].findobj(Legend)[0].get_title().get_text()
        assert "best block size" in title, name


def test_labels_of_dimacs_and_exact_families():
    labels = graph_labels(["dimacs:le450_15c", "/data/flat300_28_0.col.b", "gen:cycle?n=100001",
                           "gen:mycielski?k=9", "gen:grid2d?cols=4096&rows=64"])  # fmt: skip
    assert list(labels.values()) == [
        "le450_15c", "flat300_28_0", "cycle n100001", "mycielski k9", "grid2d r64"
    ]  # fmt: skip
