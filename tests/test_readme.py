"""The README's set-up commands: the install-and-test line is the one .ci/run runs, and every
extra an install line names exists in pyproject.toml."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = "python3 -m venv .venv && . .venv/bin/activate && "


def setup_lines() -> list[str]:
    """The README's shell lines that make a virtual environment."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.startswith(VENV)]


def test_the_readme_test_command_is_what_ci_runs():
    tests = [line for line in setup_lines() if line.endswith("pytest")]
    ci = [line for line in (ROOT / ".ci/run").read_text().splitlines() if line.startswith(VENV)]
    assert len(tests) == 1 and ci == tests


def test_install_lines_name_existing_extras_and_run_gcbench():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    runs = [line for line in setup_lines() if line.endswith("&& gcbench run")]
    assert len(runs) == 2  # GPU and CPU-only
    named = [re.search(r"pip install (?:-q )?-e '\.\[([a-z0-9,]+)\]'", line) for line in runs]
    assert all(named)
    for match in named:
        assert set(match.group(1).split(",")) <= set(extras)
    assert any("cupy" in dep for extra in named[0].group(1).split(",") for dep in extras[extra])
    assert not any("cupy" in dep for extra in named[1].group(1).split(",") for dep in extras[extra])


def test_extras_bring_the_cuda_libraries_and_tests_reuse_peers():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    # NVML: clocks; cuda-bindings: the conditional graph nodes of sync=graph
    assert extras["cuda12"] == [
        "cupy-cuda12x[ctk]>=14",
        "cuda-bindings>=12.8,<13",
        "nvidia-ml-py>=12.535",
    ]
    assert extras["cuda13"] == [
        "cupy-cuda13x[ctk]>=14",
        "cuda-bindings>=13,<14",
        "nvidia-ml-py>=12.535",
    ]
    assert "gcbench[peers]" in extras["test"]
    assert not any(dep.startswith("python-igraph") for deps in extras.values() for dep in deps)
