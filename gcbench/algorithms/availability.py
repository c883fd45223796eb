"""Which algorithms can run here, and why not (issue 15: ``all`` means every usable one).

Decided without importing anything optional and without initialising CUDA: packages are
looked up with :func:`importlib.util.find_spec` (a search of the path, no import), and whether
a GPU is usable is the caller's answer, which the runner asks of a subprocess
(:func:`gcbench.bench.runner.probe_gpu`), so its parent never touches CUDA
(docs/architecture.md, "Isolation and failures").
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from gcbench.algorithms.registry import AlgorithmSpec
from gcbench.resources import resource_dir


@dataclass(frozen=True)
class Unusable:
    """Why ``name`` cannot run here: Python packages it imports are ``missing`` (the gcbench
    ``extra`` installs them), or it runs on the GPU and there is none (``device`` says why)."""

    name: str
    missing: tuple[str, ...] = ()
    extra: str = ""
    device: str = ""

    @property
    def reason(self) -> str:
        if self.missing:
            return f"{', '.join(self.missing)} not installed ({install_hint(self.extra)})"
        return f"needs a GPU ({self.device})"


def install_hint(extra: str) -> str:
    return f"pip install 'gcbench[{extra}]'"


def installed(module: str) -> bool:
    """Whether the top-level package ``module`` can be imported: already imported, or found on
    the path (not imported, so a broken install still fails when the algorithm runs). A
    ``None`` in ``sys.modules`` blocks an import, so it counts as missing."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def unusable(
    spec: AlgorithmSpec, gpu_problem: str | None, *, packages: bool = True
) -> Unusable | None:
    """Why ``spec`` cannot run here, or None. ``gpu_problem`` is None when a GPU is usable,
    else why not (the probe's answer, or that the run is on the CPU). ``packages=False``
    leaves out the package check (the cases run on other machines, e.g. a Dask cluster)."""
    missing = tuple(m for m in spec.requires if packages and not installed(m))
    if missing:
        return Unusable(spec.name, missing, spec.extra)
    if spec.backend == "gpu" and gpu_problem is not None:
        return Unusable(spec.name, device=gpu_problem)
    return None


def skip_notes(skipped: Iterable[Unusable]) -> list[str]:
    """One note per remedy, for a run that goes on without them: ``skipped jpl: it needs a
    GPU (this run uses --device cpu)``, ``skipped nx-greedy, igraph-greedy: they need
    networkx, igraph (not installed; pip install 'gcbench[peers]')``."""
    return [
        f"skipped {', '.join(names)}: {'it needs' if len(names) == 1 else 'they need'} {need}"
        for names, need in _remedies(skipped)
    ]


def skip_reasons(skipped: Iterable[Unusable]) -> str:
    """Why none of ``skipped`` can run, one clause per remedy, for the error of a run left
    with nothing: ``jpl needs a GPU (this run uses --device cpu)``, ``ecl-gc, jpl need a
    GPU (...)``."""
    return "; ".join(
        f"{', '.join(names)} {'needs' if len(names) == 1 else 'need'} {need}"
        for names, need in _remedies(skipped)
    )


def _remedies(skipped: Iterable[Unusable]) -> list[tuple[list[str], str]]:
    """The skipped algorithms grouped by remedy: (their names, what they need and how to get
    it): the packages an extra installs, or a GPU with why there is none (an option that
    chose the CPU reads "this run uses --device cpu")."""
    groups: dict[tuple[str, str], list[Unusable]] = {}
    for item in skipped:
        groups.setdefault((item.extra, item.device), []).append(item)
    out = []
    for (extra, device), items in groups.items():
        names = list(dict.fromkeys(item.name for item in items))
        if extra:
            packages = ", ".join(dict.fromkeys(p for item in items for p in item.missing))
            out.append((names, f"{packages} (not installed; {install_hint(extra)})"))
        else:
            why = f"this run uses {device}" if device.startswith("--") else device
            out.append((names, f"a GPU ({why})"))
    return out


def code_files(spec: AlgorithmSpec) -> tuple[str, ...]:
    """Where the algorithm is written: its CUDA kernel file (``kernels/<kernel>.cu``, under
    the installed package for a wheel) and its Python module."""
    kernel = () if spec.kernel is None else (str(resource_dir("kernels") / f"{spec.kernel}.cu"),)
    return (*kernel, spec.run.__module__)
