"""gcbench: benchmark parallel graph-coloring algorithms on GPUs, with every coloring validated.

Public API: :func:`load_graph`, :func:`info`, :func:`color`, :func:`validate` and the
:mod:`algorithms` registry.
"""

from gcbench import algorithms
from gcbench.api import ColorResult, GraphStats, color, info, load_graph
from gcbench.graph import Graph
from gcbench.validate import Validation, validate

__version__ = "0.1.0"

__all__ = [
    "ColorResult",
    "Graph",
    "GraphStats",
    "Validation",
    "__version__",
    "algorithms",
    "color",
    "info",
    "load_graph",
    "validate",
]
