"""SuiteSparse catalogue look-ups: does ``GROUP/NAME`` exist, and what is it
(docs/architecture.md, "Downloads").

ssgetpy is the catalogue client when the base URL is the public site (it always queries that
site), imported lazily and in a bounded way: it downloads its index at import time, so
importing it offline raises, and it does so without a timeout. Its ``name`` search is a
substring match, so results are filtered to the exact name. When ssgetpy is missing or fails,
or a mirror is configured, ``<base>/files/ssstats.csv`` is read through gcbench's own client
and kept in the cache (``<data>/ss/ssstats.csv``). Its format: the number of matrices, the
date of the last revision, then one row per matrix id: Group, Name, nrows, ncols, nnz, isReal,
isBinary, isND, posdef, pattern_symmetry, numerical_symmetry, kind[, pattern_entries].
"""

from __future__ import annotations

import contextlib
import csv
import importlib
import importlib.util
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from gcbench.errors import FetchError
from gcbench.graphs.fetch import http
from gcbench.graphs.fetch.remote import SUITESPARSE_URL, base_url
from gcbench.resources import data_dir

SSGETPY_IMPORT_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Matrix:
    """One catalogue entry."""

    group: str
    name: str
    rows: int
    cols: int
    nnz: int
    kind: str

    @property
    def spec(self) -> str:
        return f"ss:{self.group}/{self.name}"


def lookup(
    group: str, name: str, *, data_dir: Path, refresh: bool = False
) -> tuple[Matrix | None, list[Matrix]]:
    """(the entry GROUP/NAME or None, other entries with that name in any letter case).

    Raises :class:`FetchError` when no catalogue can be had.
    """
    matrices = None
    if base_url("ss") == SUITESPARSE_URL:
        matrices = _via_ssgetpy(name)
    if matrices is None:
        matrices = _via_csv(Path(data_dir), refresh)
    exact = next((m for m in matrices if m.group == group and m.name == name), None)
    similar = [m for m in matrices if m.name.lower() == name.lower() and m is not exact]
    return exact, sorted(similar, key=lambda m: (m.group != group, m.group, m.name))


def parse_ssstats(lines: list[str]) -> list[Matrix]:
    """Entries of an ssstats.csv text (two header lines, then one row per matrix)."""
    out = []
    for row in csv.reader(lines[2:]):
        if len(row) < 12:
            continue
        try:
            out.append(Matrix(row[0], row[1], int(row[2]), int(row[3]), int(row[4]), row[11]))
        except ValueError:
            continue
    return out


def _via_csv(data_dir: Path, refresh: bool) -> list[Matrix]:
    path = data_dir / "ss" / "ssstats.csv"
    url = f"{base_url('ss')}/files/ssstats.csv"
    if refresh or not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            http.download(url, path, progress=False)
        finally:
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # only when empty: leave nothing behind on failure
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    matrices = parse_ssstats(lines)
    if not matrices:
        path.unlink(missing_ok=True)
        raise FetchError(f"{url} is not a SuiteSparse catalogue (no matrix rows); check the URL")
    return matrices


_ssgetpy_state: dict[str, object] = {}


def _via_ssgetpy(name: str) -> list[Matrix] | None:
    """ssgetpy's matches for ``name``, or None when ssgetpy is missing or fails."""
    module = _import_ssgetpy()
    if module is None:
        return None
    try:
        found = module.search(name=name, limit=100_000)
    except Exception:
        return None
    return [Matrix(m.group, m.name, m.rows, m.cols, m.nnz, m.kind) for m in found]


def _ssgetpy_config() -> None:
    """Load ssgetpy's configuration module alone, with its directory in gcbench's data
    directory: it makes ``$HOME/.ssgetpy`` when loaded, and gcbench writes only where
    ``GCBENCH_DATA`` says (issue 32). ``HOME`` points there for that one file's execution
    (the package itself, which downloads its index, is imported afterwards)."""
    if "ssgetpy.config" in sys.modules:
        return
    package = importlib.util.find_spec("ssgetpy")
    if package is None or not package.submodule_search_locations:
        return
    path = Path(next(iter(package.submodule_search_locations))) / "config.py"
    spec = importlib.util.spec_from_file_location("ssgetpy.config", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    home = data_dir() / "ssgetpy"
    home.mkdir(parents=True, exist_ok=True)
    previous = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        spec.loader.exec_module(module)
    finally:
        if previous is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = previous
    sys.modules["ssgetpy.config"] = module


def _import_ssgetpy() -> object | None:
    """Import ssgetpy once per process, giving up after a timeout (its import does network I/O
    without one); the outcome is remembered so a hung import is never waited for twice."""
    if "outcome" not in _ssgetpy_state:

        def target() -> None:
            try:
                _ssgetpy_config()
                import ssgetpy

                _ssgetpy_state["module"] = ssgetpy
            except Exception:
                _ssgetpy_state["module"] = None

        thread = threading.Thread(target=target, name="gcbench-ssgetpy-import", daemon=True)
        thread.start()
        thread.join(SSGETPY_IMPORT_TIMEOUT_S)
        _ssgetpy_state["outcome"] = _ssgetpy_state.get("module")
    return _ssgetpy_state["outcome"]
