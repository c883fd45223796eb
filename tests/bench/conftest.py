"""Fixtures for the runner tests: the test-only algorithms of gcbench_test_plugins, visible
to this process and to spawned workers and CLI subprocesses (GCBENCH_PLUGINS)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from gcbench.algorithms import registry

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PLUGIN = "gcbench_test_plugins"


@pytest.fixture(scope="module")
def bench_env(tmp_path_factory):
    """Plugins registered and a shared graph cache for one test module; yields the
    environment for subprocesses. Test algorithms are unregistered afterwards so other
    test modules never see them."""
    data = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(HERE))
        mp.setenv("GCBENCH_PLUGINS", PLUGIN)
        mp.setenv("GCBENCH_DATA", str(data))
        path = os.pathsep.join(filter(None, [str(ROOT), str(HERE), os.environ.get("PYTHONPATH")]))
        mp.setenv("PYTHONPATH", path)
        before = set(registry._REGISTRY)
        __import__(PLUGIN)
        yield dict(os.environ)
        for name in set(registry._REGISTRY) - before:
            registry.unregister(name)
        sys.modules.pop(PLUGIN, None)
