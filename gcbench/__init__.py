"""gcbench: benchmark parallel graph-coloring algorithms on GPUs, with every coloring validated.

Public API: :func:`load_graph`, :func:`info`, :func:`color`, :func:`validate`,
:func:`compare` and the :mod:`algorithms` registry. They are imported when first used, so
``import gcbench`` (and the command line's start, before it can take an interrupt quietly:
docs/cli.md) loads none of numba, numpy or the algorithms.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gcbench._version import __version__

if TYPE_CHECKING:
    import pandas as pd

    from gcbench import algorithms
    from gcbench.algorithms.validation import Validation, validate
    from gcbench.api import ColorResult, GraphStats, PatternStats, color, info, load_graph
    from gcbench.graphs.graph import Graph

_LAZY = {
    "algorithms": "gcbench.algorithms", "ColorResult": "gcbench.api",
    "GraphStats": "gcbench.api", "PatternStats": "gcbench.api", "color": "gcbench.api",
    "info": "gcbench.api", "load_graph": "gcbench.api", "Graph": "gcbench.graphs.graph",
    "Validation": "gcbench.algorithms.validation", "validate": "gcbench.algorithms.validation",
}  # fmt: skip


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


def __getattr__(name: str) -> Any:
    """The public names, imported on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module 'gcbench' has no attribute {name!r}")
    module = importlib.import_module(_LAZY[name])
    return module if name == "algorithms" else getattr(module, name)


def compare(
    base: str | Path,
    new: str | Path | None = None,
    *,
    a: str | None = None,
    b: str | None = None,
    threshold: float | str = 0.05,
    metric: str = "time",
) -> pd.DataFrame:
    """The table of ``gcbench compare`` (docs/compare.md): one row per case, new against
    base, with its ratio, 95 % interval, verdict and flags. Two files (``base``, ``new``) or
    one file and two of its configurations (``a`` the base, ``b`` the new); ``threshold`` is
    a share (0.05) or a percentage ("5%"); ``metric`` ``time`` compares ``time_ms``,
    ``device`` the GPU's ``device_ms``. The summary (geometric mean and its interval,
    counts per verdict, cases only one side has, notes) is in the frame's ``attrs``;
    :func:`gcbench.report.compare.compare` returns it typed."""
    from gcbench.report.compare import compare as comparison

    return comparison(base, new, a=a, b=b, threshold=threshold, metric=metric).frame()


__all__ = [
    "ColorResult",
    "Graph",
    "GraphStats",
    "PatternStats",
    "Validation",
    "__version__",
    "algorithms",
    "color",
    "compare",
    "info",
    "load_graph",
    "validate",
]
