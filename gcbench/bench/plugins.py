"""Out-of-tree algorithms: modules named in ``GCBENCH_PLUGINS`` register themselves at import.

``GCBENCH_PLUGINS="mypkg.algos,other"`` is imported by ``gcbench run`` in the parent (to
expand suites) and in every worker (to run the cases), after the built-in registry.
"""

from __future__ import annotations

import importlib
import os

from gcbench.errors import SpecError

ENV_VAR = "GCBENCH_PLUGINS"


def plugin_modules() -> tuple[str, ...]:
    """The module names listed in ``GCBENCH_PLUGINS`` (comma-separated)."""
    return tuple(m.strip() for m in os.environ.get(ENV_VAR, "").split(",") if m.strip())


def load_plugins() -> tuple[str, ...]:
    """Import the registry and every plugin module; returns the plugin names."""
    importlib.import_module("gcbench.algorithms")
    modules = plugin_modules()
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise SpecError(
                f"{ENV_VAR}: cannot import {name!r} ({exc}); fix the name or its PYTHONPATH"
            ) from None
    return modules
