"""The report's defaults and allowed values: a leaf module that the command line, the report
package and its figures share without importing one another."""

from __future__ import annotations

from pathlib import Path

FORMATS = ("table", "markdown", "csv")
DPI = 200  # PNG resolution by default
DPI_RANGE = (20, 1200)
RESULTS_DIR = Path("results")
# What the bound of a graph is (``bound_kind``): the χ its source publishes, else the size of
# a clique found in it (a lower bound on χ); "" where neither is known.
KNOWN, CLIQUE = "χ", "clique"
# The lower bound of a distance-2 problem (docs/distance2.md), which ``chi_lower`` holds for
# its rows: Δ + 1 for d2 (a vertex and its neighbours all differ), the largest row count for
# pd2 and pd2-rows (the columns of a row all differ).
DELTA_1, MAX_ROW = "Δ+1", "max row"
PROBLEM_BOUNDS = {"d2": DELTA_1, "pd2": MAX_ROW, "pd2-rows": MAX_ROW}
# What a figure of a distance-2 problem says of it in its subtitle.
PROBLEM_TITLES = {
    "d2": "distance-2 coloring (d2)",
    "pd2": "partial distance-2 coloring of the columns (pd2)",
    "pd2-rows": "partial distance-2 coloring of the rows (pd2-rows)",
}
