"""The time-colors front (issue 45, item 3): the Pareto set on medians, the table of colors
against the published χ with its geometric mean, and the front figure."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.legend import Legend
from matplotlib.text import Text

from gcbench.report import report
from gcbench.report.aggregate import pareto, pareto_mask
from gcbench.report.tables import FEWEST, MISSING, chi_sections

FRONT_RING = 11  # the marker size of the rings round the front's points


def summary_of(points: list[tuple[str, str, str, float, float]]) -> pd.DataFrame:
    """A constructed summary: (graph, problem, label, median time, median colors) per group."""
    frame = pd.DataFrame(points, columns=["graph", "problem", "label", "time_ms", "colors"])
    return frame.assign(speedup=np.nan)


def test_the_front_keeps_ties_and_drops_the_dominated():
    s = summary_of([
        ("g1", "d1", "a", 1.0, 9), ("g1", "d1", "a2", 1.0, 9),  # an exact tie: both on it
        ("g1", "d1", "b", 2.0, 5),
        ("g1", "d1", "c", 2.0, 6),  # as fast as b, one color more
        ("g1", "d1", "d", 3.0, 5),  # as few colors as b, slower
        ("g1", "d1", "e", 4.0, 4),
        ("g1", "d1", "f", 5.0, 9),  # beaten on both by a
        ("g1", "d1", "x", math.nan, 1),  # no valid time: never on it
        ("g2", "d1", "slow", 50.0, 3),  # another graph: its own front
        ("g1", "d2", "other", 9.0, 9),  # another problem of g1: its own front
    ])  # fmt: skip
    on = dict(zip(s["label"], pareto_mask(s), strict=True))
    assert {k for k, v in on.items() if v} == {"a", "a2", "b", "e", "slow", "other"}
    # the front table keeps one of an exact tie, the first label
    assert list(pareto(s)["label"]) == ["a", "b", "e", "other", "slow"]


def chi_rows(reps) -> list[dict]:
    """g1 (χ = 5 published, clique 4), g2 (χ = 10) and g3 (no χ published, clique 3): a and
    b on each, and a GPU configuration swept over two block sizes on g1."""
    graphs = {"g1": (5, 4), "g2": (10, 8), "g3": ("", 3)}
    colors = {"a": {"g1": 5, "g2": 15, "g3": 4}, "b": {"g1": 6, "g2": 10, "g3": 3}}
    out = []
    for g, (known, lower) in graphs.items():
        for algo, times in (("a", [1.0, 1.1, 1.2]), ("b", [3.0, 3.1, 3.2])):
            out += reps(g, algo, times, colors=colors[algo][g], chi_known=known,
                        chi_lower=lower)  # fmt: skip
    gpu = {"backend": "gpu", "device": "gpu", "chi_known": 5, "chi_lower": 4}
    out += reps("g1", "gpu", [0.5, 0.6], block_size=128, colors=7, **gpu)  # its fastest
    out += reps("g1", "gpu", [0.9, 1.0], block_size=256, colors=5, **gpu)
    return out


def test_colors_against_the_published_chi(tmp_path, write_csv, reps):
    rep = report([write_csv(chi_rows(reps))], out=tmp_path / "out")
    chi = rep.chi.set_index(["graph", "config"])
    assert list(rep.chi["graph"]) == ["g1"] * 3 + ["g2"] * 2 + ["g3"] * 2
    assert chi.loc[("g1", "gpu"), "colors"] == 7  # at its fastest block size, 128
    assert chi.loc[("g1", "b"), "colors_over_chi"] == pytest.approx(1.2)
    assert chi.loc[("g2", "a"), "colors_over_chi"] == pytest.approx(1.5)
    assert np.isnan(chi.loc[("g3", "a"), "colors_over_chi"])  # no χ published
    assert chi.loc[("g3", "a"), "colors_over_bound"] == pytest.approx(4 / 3)  # the clique
    assert chi.loc[("g1", "b"), "colors_over_bound"] == pytest.approx(1.2)  # χ is the bound
    fewest = set(rep.chi.loc[rep.chi["fewest"], ["graph", "config"]].itertuples(index=False))
    assert fewest == {("g1", "a"), ("g2", "b"), ("g3", "b")}
    # geometric means over the instances with a published χ: g3 is left out
    means = rep.chi_means.set_index("config")
    assert list(rep.chi_means["config"]) == ["b", "a", "gpu"]  # smallest mean first
    assert means.loc["a", "chi_geomean"] == pytest.approx(math.sqrt(1.0 * 1.5))
    assert means.loc["b", "chi_geomean"] == pytest.approx(math.sqrt(1.2 * 1.0))
    assert means.loc["gpu", "chi_geomean"] == pytest.approx(1.4)
    assert list(means["instances"]) == [2, 2, 1] and list(means["at_chi"]) == [1, 1, 0]
    assert means.loc["a", "chi_max"] == pytest.approx(1.5)
    # the tables: the fewest marked, a dash where no χ is published; in every output
    per_config, per_instance = chi_sections(rep)
    cells = per_instance.frame.set_index(["graph", "configuration"])
    assert cells.loc[("g1", "a"), "colors"] == f"5 {FEWEST}"
    assert cells.loc[("g1", "b"), "colors"] == "6"
    assert cells.loc[("g3", "b"), "χ"] == MISSING
    assert cells.loc[("g3", "b"), "bound"] == "3 (clique)"
    assert cells.loc[("g1", "b"), "colors/χ"] == "1.20"
    assert per_config.frame["colors/χ geo. mean"].tolist() == ["1.10", "1.22", "1.40"]
    for name in ("summary.md", "index.html"):
        text = (tmp_path / "out" / name).read_text()
        assert per_instance.title in text and per_config.title in text, name
        assert "(at its fastest block size)" in per_instance.title


def test_no_chi_table_without_a_published_chi(write_csv, mixed_rows):
    rep = report([write_csv(mixed_rows)])
    assert rep.chi.empty and rep.chi_means.empty and chi_sections(rep) == []


def rings(ax) -> set[tuple[float, float]]:
    """The (time, colors) of the points ringed as the front on ``ax``."""
    return {
        (float(x), float(y))
        for line in ax.get_lines()
        if line.get_markersize() == FRONT_RING and line.get_markerfacecolor() == "none"
        for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True)
    }


def test_front_figure(tmp_path, write_csv, mixed_rows, built, pixel_spread):
    rows = [{**r, "chi_known": 3, "chi_lower": 2} if r["graph"] == "g1" else r
            for r in mixed_rows]  # fmt: skip
    rep = report([write_csv(rows)], out=tmp_path / "out")
    path = tmp_path / "out" / "front.png"
    assert path in rep.written and pixel_spread(path) > 20  # written, not blank
    assert "![front.png](front.png)" in (tmp_path / "out" / "summary.md").read_text()
    assert 'id="fig-front"' in (tmp_path / "out" / "index.html").read_text()
    fig = built(rep)[0]["front"]
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["g1\nχ = 3 · χ ≥ 2", "g2"]  # g2: no bound
    g1, g2 = panels
    assert g1.get_xscale() == "log" and g1.get_xlabel() == "median time (ms, log scale)"
    assert rings(g1) == {(1.5, 3.0)}  # greedy: fastest and fewest
    # g2: ecl-gc@256 fastest, eb-tent as few colors as cusparse and faster
    assert rings(g2) == {(5.0, 6.0), (30.0, 5.0)}
    across = [line for line in g1.get_lines() if list(line.get_xdata()) == [0, 1]]
    assert sorted(line.get_ydata()[0] for line in across) == [2.0, 3.0]  # the clique, χ
    [legend] = [[t.get_text() for t in found.get_texts()] for found in fig.findobj(Legend)]
    assert legend[-3:] == ["Pareto front (medians)", "published χ", "lower bound: a clique found"]
    assert {"cusparse", "ecl-gc", "greedy", "eb-tent"} <= set(legend)
    words = " ".join(t.get_text() for t in fig.findobj(Text))
    assert "the Pareto front, on medians" in words and "intervals not used" in words
