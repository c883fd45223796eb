"""The algorithm registry, populated by importing every module of ``cpu/`` and ``gpu/``.

A new algorithm is a new module that calls :func:`register`; nothing else changes.
"""

from __future__ import annotations

import importlib
import pkgutil

from gcbench.algorithms.registry import (
    AlgorithmSpec,
    Coloring,
    Param,
    all_specs,
    backends,
    get,
    register,
    solves,
    unregister,
)
from gcbench.grammar import canonical_params

__all__ = [
    "AlgorithmSpec",
    "Coloring",
    "Param",
    "all_specs",
    "backends",
    "canonical_params",
    "get",
    "register",
    "solves",
    "unregister",
]


def _load_all() -> None:
    for package in ("cpu", "gpu"):
        pkg = importlib.import_module(f"{__name__}.{package}")
        for info in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"{pkg.__name__}.{info.name}")
    importlib.import_module(f"{__name__}.peers")
    importlib.import_module(f"{__name__}.auto")
    importlib.import_module(f"{__name__}.auto_d2")


_load_all()
