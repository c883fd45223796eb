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
