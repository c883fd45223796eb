"""gcbench: benchmark parallel graph-coloring algorithms on GPUs, with every coloring validated.

Public API: :func:`load_graph`, :func:`color`, :func:`validate` and the :mod:`algorithms`
registry.
"""

from gcbench import algorithms
from gcbench.api import ColorResult, color, load_graph
from gcbench.graph import Graph
from gcbench.validate import Validation, validate

__version__ = "0.1.0"

__all__ = [
    "ColorResult",
    "Graph",
    "Validation",
    "__version__",
    "algorithms",
    "color",
    "load_graph",
    "validate",
]
