"""gcbench/bench/worker.py: which failed cases replace the worker (its CUDA context)."""

from __future__ import annotations

import pytest

from gcbench.bench.worker import classify, needs_fresh_context
from gcbench.errors import RoundCapError, SpecError


@pytest.mark.parametrize(
    ("backend", "exc", "fresh"),
    [
        ("gpu", RuntimeError("cudaErrorIllegalAddress"), True),  # the context may be gone
        ("gpu", MemoryError(), True),
        ("gpu", SpecError("jpl: block size 1 is not a multiple of 32 in 32..1024"), False),
        ("gpu", RoundCapError("still 5 active", None), False),  # a timeout row, not a fault
        ("cpu", RuntimeError("boom"), False),  # no CUDA context to lose
    ],
)
def test_only_faults_that_may_break_cuda_replace_the_worker(backend, exc, fresh):
    status, _ = classify(exc)
    assert needs_fresh_context(backend, status, exc) is fresh


def _loaded(spec, tmp_path, monkeypatch):
    """What a worker sends back after loading ``spec`` in this process: its GraphInfo."""
    from multiprocessing import Pipe

    from gcbench.bench.worker import LoadJob, _Worker

    monkeypatch.setenv("GCBENCH_DATA", str(tmp_path / "data"))
    parent, child = Pipe()
    _Worker(child).load(LoadJob(spec, None, False))
    messages = []
    while parent.poll():
        messages.append(parent.recv())
    assert messages[-1][0] == "loaded", messages
    return messages[-1][1]


def test_a_loaded_graph_carries_its_bounds_and_stated_chi(tmp_path, monkeypatch):
    info = _loaded("gen:cycle?n=7", tmp_path, monkeypatch)
    assert (info.chi_lower, info.degeneracy, info.chi_known, info.note) == (2, 2, 3, None)


def test_bounds_that_cannot_be_had_leave_the_columns_empty(tmp_path, monkeypatch):
    """The bounds are facts beside the rows: failing them fails no case (a note says why)."""
    from gcbench.errors import InsufficientMemoryError
    from gcbench.graphs import bounds

    def refuse(graph):
        raise InsufficientMemoryError("bounds of g.el need 1 GiB, 1 MiB available")

    monkeypatch.setattr(bounds, "compute", refuse)
    path = tmp_path / "g.el"
    path.write_text("1 2\n2 3\n")
    info = _loaded(str(path), tmp_path, monkeypatch)
    assert (info.n, info.chi_lower, info.degeneracy, info.chi_known) == (3, None, None, None)
    assert "no bounds on χ" in info.note and "1 MiB available" in info.note
