"""Shared fixtures; GPU tests skip cleanly where no usable CUDA device exists."""

from __future__ import annotations

import functools
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ADDRESS_SPACE_LIMIT = 4 << 30  # RLIMIT_AS for commands that must fail cleanly, not grow
# Where gcbench would write in the real home; the suite must leave them as it found them.
REAL_HOME_PATHS = (Path.home() / ".cache" / "gcbench", Path.home() / ".ssgetpy")


@functools.cache
def _gpu_usable() -> bool:
    try:
        from gcbench.algorithms.gpu import runtime

        runtime.cupy()
        return True
    except Exception:
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    if gpu_items and not _gpu_usable():
        skip = pytest.mark.skip(reason="needs a usable CUDA GPU and CuPy")
        for item in gpu_items:
            item.add_marker(skip)


def _snapshot(paths: tuple[Path, ...]) -> dict[str, object]:
    """Each path's files with their sizes and modification times (None: no such path)."""
    out: dict[str, object] = {}
    for root in paths:
        files = sorted(root.rglob("*")) if root.exists() else None
        out[str(root)] = None if files is None else [
            (str(f.relative_to(root)), f.stat().st_size, f.stat().st_mtime_ns) for f in files
        ]  # fmt: skip
    return out


@pytest.fixture
def snapshot():
    """The guard's view of some paths (:func:`_snapshot`), for its own test."""
    return _snapshot


@pytest.fixture(scope="session", autouse=True)
def real_home_untouched(tmp_path_factory):
    """Every test runs with a temporary data directory unless it names its own
    (GCBENCH_DATA), and the session fails if it wrote into the real home's gcbench cache or
    ssgetpy's directory (issue 32)."""
    before = _snapshot(REAL_HOME_PATHS)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GCBENCH_DATA", str(tmp_path_factory.mktemp("gcbench-data")))
        yield
    after = _snapshot(REAL_HOME_PATHS)
    changed = [path for path in before if before[path] != after[path]]
    assert not changed, f"the test suite wrote into the real home: {', '.join(changed)}"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """An empty gcbench data directory for the test (GCBENCH_DATA)."""
    path = tmp_path / "data"
    monkeypatch.setenv("GCBENCH_DATA", str(path))
    return path


@pytest.fixture
def no_peers(monkeypatch):
    """networkx and igraph look uninstalled (None in sys.modules blocks an import)."""
    for module in ("networkx", "igraph"):
        monkeypatch.setitem(sys.modules, module, None)


@dataclass(frozen=True)
class Limited:
    """A finished command run under :data:`ADDRESS_SPACE_LIMIT`, with its wall time."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("error:")]

    def one_error(self, fragment: str) -> str:
        """Assert the command failed fast with exit 2 (bad input) and printed exactly one error
        line holding ``fragment`` (no traceback, nothing else on stderr); return that line."""
        assert self.returncode == 2, (self.returncode, self.stdout, self.stderr)
        assert self.seconds < 10, self.seconds
        assert self.error_lines == self.stderr.splitlines(), self.stderr  # no traceback, no noise
        assert len(self.error_lines) == 1
        assert fragment in self.error_lines[0], self.error_lines[0]
        return self.error_lines[0]


def _limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))


class LimitedRunner:
    """Runs ``gcbench ARGS`` in a subprocess in ``out`` (the output directory) under an
    address-space limit, so a regression that allocates without bound fails its test instead
    of taking the machine down; ``data`` is the (empty) GCBENCH_DATA directory."""

    def __init__(self, out: Path, data: Path) -> None:
        self.out, self.data = out, data

    def __call__(self, *args: str, env: dict[str, str] | None = None) -> Limited:
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "gcbench", *args],
            capture_output=True,
            text=True,
            cwd=self.out,
            env={**os.environ, "GCBENCH_DATA": str(self.data), **(env or {})},
            preexec_fn=_limit_address_space,
            timeout=120,
            check=False,
        )
        return Limited(done.returncode, done.stdout, done.stderr, time.perf_counter() - start)

    def leftovers(self, *inputs: Path) -> list[Path]:
        """Files in the data cache or the output directory, other than ``inputs``."""
        found = [p for root in (self.out, self.data) if root.exists() for p in root.rglob("*")]
        return sorted(p for p in found if p.is_file() and p not in inputs)


@pytest.fixture
def run_limited(data_dir, tmp_path) -> LimitedRunner:
    out = tmp_path / "out"
    out.mkdir()
    return LimitedRunner(out, data_dir)


@pytest.fixture
def cli():
    """``cli(*args, env=None, cwd=None, timeout=120)``: ``python -m gcbench ARGS`` in a
    subprocess; ``env`` defaults to this process's (the fixtures' GCBENCH_* variables)."""

    def run(*args: str, env=None, cwd=None, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "gcbench", *args],
            capture_output=True,
            text=True,
            env=dict(os.environ) if env is None else env,
            cwd=cwd,
            timeout=timeout,
            check=False,
        )

    return run
