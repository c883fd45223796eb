"""Shared fixtures; GPU tests skip cleanly where no usable CUDA device exists."""

from __future__ import annotations

import functools

import pytest


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


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """An empty gcbench data directory for the test (GCBENCH_DATA)."""
    path = tmp_path / "data"
    monkeypatch.setenv("GCBENCH_DATA", str(path))
    return path
