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
