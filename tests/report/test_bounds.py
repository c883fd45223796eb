"""Colors against the graph's bound (schema v4: chi_lower, degeneracy, chi_known): read,
carried per graph into the summary, shown in the tables; older files read beside them."""

from __future__ import annotations

import io
import math

import pandas as pd

from gcbench.bench.results import COLUMNS, COLUMNS_V3
from gcbench.report import report
from gcbench.report.compare import compare
from gcbench.report.tables import SUMMARY_COLUMNS, sections

# g1: χ published (5) above the clique found (4); g2: a clique only; g3: nothing known.
BOUNDS = {"g1": {"chi_lower": 4, "degeneracy": 6, "chi_known": 5},
          "g2": {"chi_lower": 3, "degeneracy": 9, "chi_known": ""},
          "g3": {}}  # fmt: skip
COLORS = {("g1", "a"): 5, ("g1", "b"): 7, ("g2", "a"): 3, ("g2", "b"): 4, ("g3", "a"): 4}


def bound_rows(reps) -> list[dict]:
    rows = []
    for (graph, algo), colors in COLORS.items():
        rows += reps(graph, algo, [1.0, 2.0] if algo == "a" else [3.0], colors=colors,
                     **BOUNDS[graph])  # fmt: skip
    # a failed row carries the graph's bounds as well; it adds no coloring
    rows += reps("g2", "c", [None], status="error", error="boom", **BOUNDS["g2"])
    return rows


def section(rep, start: str):
    (found,) = [s for s in sections(rep, labels=True) if s.title.startswith(start)]
    return found


def test_bounds_are_carried_per_graph_and_compared_with_colors(write_csv, reps):
    rep = report([write_csv(bound_rows(reps))], baseline="a")
    s = rep.summary.set_index(["graph", "label"])
    assert s.loc["g1", "a"][["chi_lower", "degeneracy", "chi_known", "bound"]].tolist() == [
        4, 6, 5, 5
    ]  # fmt: skip
    assert s.bound_kind.xs("a", level="label").to_dict() == {"g1": "χ", "g2": "clique", "g3": ""}
    assert s.loc["g2", "c"].bound == 3 and math.isnan(s.loc["g2", "c"].colors_gap)
    gaps = s.colors_gap.dropna().to_dict()
    assert gaps == {("g1", "a"): 0, ("g1", "b"): 2, ("g2", "a"): 0, ("g2", "b"): 1}
    assert s.reaches_bound.to_dict() == {
        ("g1", "a"): True, ("g1", "b"): False, ("g2", "a"): True, ("g2", "b"): False,
        ("g2", "c"): False, ("g3", "a"): False,
    }  # fmt: skip
    assert math.isnan(s.loc["g3", "a"].bound) and math.isnan(s.loc["g3", "a"].colors_gap)
    graphs = rep.graphs.set_index("graph")
    assert graphs.at_bound.to_dict() == {"g1": ("a",), "g2": ("a",), "g3": ()}
    assert graphs.configs.to_dict() == {"g1": 2, "g2": 2, "g3": 1}
    assert graphs.fewest_gap.dropna().to_dict() == {"g1": 0, "g2": 0}
    csv = pd.read_csv(io.StringIO(report([write_csv(bound_rows(reps))], format="csv").render()))
    assert list(csv.columns) == SUMMARY_COLUMNS
    assert {"bound", "bound_kind", "colors_gap", "reaches_bound"} <= set(csv.columns)


def test_tables_show_colors_against_the_bound(write_csv, reps):
    rep = report([write_csv(bound_rows(reps))], baseline="a")
    titles = [s.title for s in sections(rep)][:3]
    assert titles == ["g1  (n = 100, m = 300, χ = 5 published, degeneracy + 1 = 7)",
                      "g2  (n = 1,000, m = 5,000, χ ≥ 3 by a clique, degeneracy + 1 = 10)",
                      "g3  (n = 50, m = 60)"]  # fmt: skip
    g1, _, g3 = sections(rep)[:3]
    assert g1.frame.set_index("configuration")["over bound"].to_dict() == {"a": "0 ✓", "b": "+2"}
    assert any(line.startswith("over bound:") for line in g1.legend)
    assert "over bound" not in g3.frame.columns and not any("bound" in x for x in g3.legend)
    graphs = section(rep, "Graphs").frame
    assert list(graphs.columns) == ["figure label", "graph", "n", "m", "bound", "degeneracy + 1",
                                    "best colors", "over bound", "at bound"]  # fmt: skip
    assert graphs["bound"].tolist() == ["5 (χ)", "3 (clique)", "—"]
    assert graphs["at bound"].tolist() == ["1 of 2: a", "1 of 2: a", "—"]
    assert graphs["over bound"].tolist() == ["0 ✓", "0 ✓", "—"]
    per_config = section(rep, "Colors over the bound per configuration").frame
    assert per_config.values.tolist() == [["a", "2", "2", "0", "0"], ["b", "2", "0", "1.5", "2"]]
    terminal = [s for s in sections(rep) if s.title.startswith("Graphs")]
    assert len(terminal) == 1 and "figure label" not in terminal[0].frame.columns
    text = report([write_csv(bound_rows(reps))], format="markdown").render()
    assert "| 5 (χ) |" in text and "0 ✓" in text


def test_colors_below_the_bound_are_noted(write_csv, reps):
    rows = [*reps("g1", "a", [1.0], colors=3, chi_lower=4, degeneracy=6),
            *reps("g1", "b", [2.0], colors=5, chi_lower=4, degeneracy=6)]  # fmt: skip
    rep = report([write_csv(rows)], baseline="a")
    assert [n for n in rep.notes if "bound" in n] == [
        "on g1, a used fewer colors than the bound (4, a clique found in it): the bound does not"
        " hold for this graph or the coloring is wrong"
    ]
    g1 = sections(rep)[0]
    assert g1.frame.set_index("configuration")["over bound"].to_dict() == {"a": "-1 !", "b": "+1"}
    assert any(line.startswith("!:") for line in g1.legend)


def test_files_before_v4_read_beside_v4_ones(write_csv, reps):
    v4 = write_csv(bound_rows(reps), "v4.csv")
    old_rows = [{c: r[c] for c in COLUMNS_V3} for r in reps("g3", "a", [5.0], colors=4)]
    old_rows += [{c: r[c] for c in COLUMNS_V3} for r in reps("g1", "b", [9.0], colors=6)]
    v3 = write_csv(old_rows, "v3.csv", COLUMNS_V3)
    rep = report([v3, v4], baseline="a")
    s = rep.summary.set_index(["graph", "label"])
    assert s.loc[("g1", "b"), "bound"] == 5 and s.loc[("g1", "b"), "reps"] == 2  # v4's bound
    assert math.isnan(s.loc[("g3", "a"), "bound"])
    only_old = report([v3], format="markdown", baseline="a")
    assert only_old.summary[["chi_lower", "degeneracy", "chi_known"]].isna().all().all()
    assert any(n.startswith("no graph has a known bound") for n in only_old.notes)
    assert not any(s.title.startswith("Graphs") for s in sections(only_old))  # terminal
    labels = section(only_old, "Graphs").frame  # summary.md keeps the figure labels
    assert list(labels.columns) == ["figure label", "graph", "n", "m", "best colors"]


def test_compare_reads_v3_and_v4_files_together(write_csv, reps):
    rows = [r for g in ("g1", "g2") for r in reps(g, "a", [1.0, 1.1, 0.9, 1.0, 1.05, 0.95])]
    v3 = write_csv([{c: r[c] for c in COLUMNS_V3} for r in rows], "v3.csv", COLUMNS_V3)
    v4 = write_csv([{**r, "chi_lower": 3, "degeneracy": 4} for r in rows], "v4.csv", COLUMNS)
    for base, new in ((v3, v4), (v4, v3)):
        result = compare(base, new)
        assert len(result.table) == 2 and set(result.table.verdict) == {"same"}
        assert not any("bound" in n or "predates" in n for n in result.notes)


def test_a_clique_above_the_published_chi_is_the_bound_and_noted(write_csv, reps):
    """A clique larger than the published χ means the published value does not hold for
    this graph: the clique is the bound, and a note says so."""
    rows = reps("g1", "a", [1.0, 2.0], colors=9, chi_lower=8, degeneracy=9, chi_known=5)
    rep = report([write_csv(rows)], baseline="a")
    row = rep.summary.iloc[0]
    assert (row.bound, row.bound_kind, row.colors_gap) == (8, "clique", 1)
    assert any("a clique of 8 was found but its source publishes χ = 5" in n for n in rep.notes)


def test_cpu_only_tables_and_page_say_nothing_of_gpus(write_csv, reps, tmp_path):
    rows = [r for r in bound_rows(reps) if r["status"] == "ok"]
    rep = report([write_csv(rows)], baseline="a", out=tmp_path / "out")
    assert any(s.title.startswith("Colors over the bound per configuration")
               for s in sections(rep, labels=True))  # fmt: skip
    for name in ("summary.md", "index.html"):
        text = (tmp_path / "out" / name).read_text()
        assert "block size" not in text and "GPU" not in text, name
