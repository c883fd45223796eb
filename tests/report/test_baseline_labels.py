"""Labels (issue 46): the speedup figure, the HTML page and the tables name the baseline in
full where ``greedy[order=ldf]`` names several configurations, and the class-balance figure
names each row by its whole configuration label (name=value, never cut)."""

from __future__ import annotations

from matplotlib.legend import Legend

from gcbench.report import report
from gcbench.report.aggregate import baseline_label

PLAIN = "greedy[balance=none,order=ldf,reduce=none]"
REDUCED = "greedy[balance=none,order=ldf,reduce=h2]"
SHUFFLED = "greedy[balance=shuffle,order=ldf,reduce=none]"
LONG = "nx-greedy[strategy=connected_sequential_bfs]"


def rows(reps, reduced_ms: float = 3.0) -> list[dict]:
    """The three configurations that greedy[order=ldf] names (plain 1 ms, reduce=h2
    ``reduced_ms`` on g2, else 3 ms, balance=shuffle 5 ms), greedy ff and two nx-greedy
    strategies, on two graphs, with class sizes."""
    out = []
    for graph in ("g1", "g2"):
        for algo, params, ms in [
            ("greedy", "balance=none;order=ldf;reduce=none", 1.0),
            ("greedy", "balance=none;order=ldf;reduce=h2", reduced_ms if graph == "g2" else 3.0),
            ("greedy", "balance=shuffle;order=ldf;reduce=none", 5.0),
            ("greedy", "balance=none;order=ff;reduce=none", 0.5),
            ("nx-greedy", "strategy=connected_sequential_bfs", 20.0),
            ("nx-greedy", "strategy=largest_first", 10.0),
        ]:
            out += reps(graph, algo, [ms, 1.1 * ms, 0.9 * ms], params=params, min_class=3,
                        max_class=40, class_cv=0.5)  # fmt: skip
    return out


def speedup_texts(figure) -> tuple[str, list[str]]:
    """The speedup figure's title (lines joined) and its legend's entries."""
    title = " ".join(figure.get_suptitle().split())
    legend = next(iter(figure.findobj(Legend)))
    return title, [" ".join(t.get_text().split()) for t in legend.get_texts()]


def test_a_baseline_that_names_three_configurations_is_named_in_full(
    write_csv, reps, built, tmp_path
):
    rep = report([write_csv(rows(reps))], out=tmp_path / "out")
    assert rep.baseline == "greedy[order=ldf]"  # as asked: the CPU default
    assert rep.baseline_label == PLAIN  # the configuration that sets its time
    made, _ = built(rep)
    title, legend = speedup_texts(made["speedup"])
    assert title == f"Speedup over {PLAIN} (higher is better)"
    assert f"baseline: {PLAIN} (speedup 1)" in legend
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert f"speedups over {PLAIN}." in page
    markdown = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert f"## Speedup over {PLAIN} across graphs" in markdown


def test_a_baseline_set_by_different_configurations_names_them_all(write_csv, reps, built):
    rep = report([write_csv(rows(reps, reduced_ms=0.8))])  # reduce=h2 is fastest on g2
    assert rep.baseline_label == f"the fastest of {PLAIN}, {REDUCED} on each graph"
    figure = built(rep)[0]["speedup"]
    title, legend = speedup_texts(figure)
    assert (
        title == f"Speedup over the fastest of {PLAIN}, {REDUCED} on each graph (higher is better)"
    )
    assert any(PLAIN in entry and REDUCED in entry for entry in legend)
    assert "\n" in figure.get_suptitle()  # wrapped, not one long line


def test_balance_names_each_row_by_its_whole_configuration(write_csv, reps, built):
    rep = report([write_csv(rows(reps))])
    figure = built(rep)[0]["balance"]
    panel = figure.axes[0]
    names = [t.get_text() for t in panel.get_yticklabels()]
    assert set(names) == {PLAIN, REDUCED, SHUFFLED, "greedy[balance=none,order=ff,reduce=none]",
                          LONG, "nx-greedy[strategy=largest_first]"}  # fmt: skip
    renderer = figure.canvas.get_renderer()
    for label in panel.get_yticklabels():  # inside the figure: nothing clipped at its edge
        assert label.get_window_extent(renderer).x0 >= 0, label.get_text()


def test_a_baseline_label_names_the_configuration_that_sets_the_time(write_csv, reps):
    summary = report([write_csv(rows(reps))]).summary
    assert baseline_label(summary, None) is None
    assert baseline_label(summary, "cusparse") is None  # not in the results
    # every greedy configuration: ff is the fastest on both graphs
    assert baseline_label(summary, "greedy") == "greedy[balance=none,order=ff,reduce=none]"
