"""Which algorithms can run here (issue 15): missing packages and a missing GPU, decided
without importing the packages or touching CUDA; the notes name the extra to install."""

from __future__ import annotations

from pathlib import Path

from gcbench import algorithms
from gcbench.algorithms.availability import code_files, installed, skip_notes, unusable


def test_installed_finds_packages_without_importing_them():
    assert installed("numpy") and not installed("gcbench_no_such_package")


def test_a_peer_without_its_package_names_the_extra(no_peers):
    why = unusable(algorithms.get("nx-greedy"), None)
    assert why is not None and (why.missing, why.extra) == (("networkx",), "peers")
    assert why.reason == "networkx not installed (pip install 'gcbench[peers]')"
    assert unusable(algorithms.get("nx-greedy"), None, packages=False) is None
    assert unusable(algorithms.get("greedy"), "no GPU") is None


def test_gpu_algorithms_need_a_usable_gpu():
    ecl = algorithms.get("ecl-gc")
    assert unusable(ecl, None) is None
    why = unusable(ecl, "CuPy is not installed")
    assert why is not None and why.reason == "needs a GPU (CuPy is not installed)"


def test_one_note_per_remedy(no_peers):
    specs = [algorithms.get(n) for n in ("nx-greedy", "igraph-greedy", "ecl-gc", "jpl")]
    notes = skip_notes(filter(None, (unusable(s, "--device cpu") for s in specs)))
    assert notes == [
        "skipped nx-greedy, igraph-greedy: they need networkx, igraph (not installed; "
        "pip install 'gcbench[peers]')",
        "skipped ecl-gc, jpl: they need a GPU (this run uses --device cpu)",
    ]


def test_every_gpu_algorithm_names_an_existing_kernel_file():
    for spec in algorithms.all_specs():
        files = code_files(spec)
        assert files[-1] == spec.run.__module__
        if spec.backend == "cpu" or spec.chooser or spec.name == "cusparse":
            assert spec.kernel is None and len(files) == 1, spec.name
        else:
            assert Path(files[0]).is_file() and files[0].endswith(f"{spec.kernel}.cu"), spec.name
