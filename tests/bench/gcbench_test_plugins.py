"""Test-only CPU algorithms, loaded through GCBENCH_PLUGINS by the runner and its workers.

Each one misbehaves in one way the runner must survive and record.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import numpy as np

from gcbench.algorithms import AlgorithmSpec, Coloring, Param, register
from gcbench.errors import RoundCapError, UnsupportedError


def _distinct(graph, *, offset: int = 0, **_) -> Coloring:
    """Every vertex its own color: always valid; a two-series trace."""
    colors = np.arange(graph.n, dtype=np.int32) + offset
    return Coloring(colors, 2, {"active": [float(graph.n), 0.0], "edges": [float(graph.m), 0.0]})


def _setup(graph) -> None:
    time.sleep(0.02)


def _pid(graph, **_) -> Coloring:
    """Valid colors; ``iterations`` is the worker's process id (which worker ran the case)."""
    return Coloring(np.arange(graph.n, dtype=np.int32), os.getpid())


def _exit(graph, **_) -> Coloring:
    os._exit(3)


def _segfault(graph, **_) -> Coloring:
    import ctypes

    ctypes.string_at(0)  # reads address 0: SIGSEGV


def _sleep(graph, *, seconds: float, **_) -> Coloring:
    """Sleeps ``seconds`` times $GCBENCH_TEST_SLEEP_SCALE (default 1): the resume of an
    interrupted run, with nothing left to interrupt, need not wait as long."""
    time.sleep(seconds * float(os.environ.get("GCBENCH_TEST_SLEEP_SCALE", "1")))
    return _distinct(graph)


def _invalid(graph, **_) -> Coloring:
    return Coloring(np.zeros(graph.n, dtype=np.int32), 1)


def _roundcap(graph, **_) -> Coloring:
    raise RoundCapError("test-roundcap: still 5 active after 3 rounds")


def _memory(graph, **_) -> Coloring:
    raise MemoryError("cannot allocate the test's forbidden array")


def _unsupported(graph, **_) -> Coloring:
    raise UnsupportedError("test-unsupported: needs a package that is not installed")


class _Slept:
    """The protocol probes' setup: sleeps ``SETUP_S`` and marks the graph it set up, so a run
    can tell whether it got a set-up view (and a test, how often setup ran)."""

    calls = 0

    def __call__(self, graph) -> None:
        type(self).calls += 1
        time.sleep(SETUP_S)
        graph.__dict__["test_setup_done"] = True


SETUP_S, RUN_S, SPIN_MS = 0.08, 0.03, 40.0


def _timed_cpu(graph, **_) -> Coloring:
    """Sleeps ``RUN_S``: time_ms must be that, and never the setup's ``SETUP_S``."""
    assert graph.__dict__.get("test_setup_done"), "run before setup"
    time.sleep(RUN_S)
    return _distinct(graph)


def _timed_gpu(dgraph, *, block_size: int, **_) -> Coloring:
    """One kernel that spins ``SPIN_MS`` on the device's global timer: time_ms must be that."""
    import cupy as cp

    assert dgraph.extras.get("test_setup_done"), "run before setup"
    spin = cp.RawKernel(
        r"""extern "C" __global__ void spin(const unsigned long long ns, int* colors, int n) {
            unsigned long long start, now;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
            do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
            for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x)
                colors[v] = v;
        }""",
        "spin",
    )
    colors = cp.empty(dgraph.n, dtype=cp.int32)
    spin((1,), (32,), (np.uint64(SPIN_MS * 1e6), colors, np.int32(dgraph.n)))
    return Coloring(colors, 1)


def _gpu_setup(dgraph) -> None:
    time.sleep(SETUP_S)
    dgraph.extras["test_setup_done"] = True


def _visible(graph, **_) -> Coloring:
    """Reports the GPU pinning it sees, as an ``unsupported`` row's message."""
    pinned = [f"{k}={os.environ.get(k)}" for k in ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")]
    raise UnsupportedError(" ".join(pinned))


def _kill_parent(graph, *, times: int, tag: str, **_) -> Coloring:
    """Kills the process that started this worker (a Dask worker, in the cluster tests) on its
    first ``times`` calls per ``tag``, counted in the file $GCBENCH_TEST_KILLS/<tag>; after
    that, colors like test-distinct."""
    folder = os.environ.get("GCBENCH_TEST_KILLS")
    if not folder:
        raise RuntimeError("test-kill-parent runs only where GCBENCH_TEST_KILLS names a folder")
    counter = Path(folder) / tag
    done = int(counter.read_text()) if counter.exists() else 0
    if done < times:
        counter.write_text(str(done + 1))
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(60)  # PR_SET_PDEATHSIG kills this worker with its parent before this ends
    return _distinct(graph)


def drawn_ms(median_ms: float, noise: float, rng: np.random.Generator) -> float:
    """A time from test-draw's distribution: uniform on median × [1 - noise, 1 + noise] (the
    one tests/test_stats.py checks the intervals on)."""
    return median_ms * (1 + noise * (2 * rng.random() - 1))


def _wait_ms(ms: float, start: float) -> None:
    """Wait until ``ms`` after ``start`` precisely: sleep to a millisecond before, then spin."""
    end = start + ms / 1e3
    time.sleep(max(0.0, end - time.perf_counter() - 1e-3))
    while time.perf_counter() < end:
        pass


_CALLS: dict[tuple, int] = {}


def _calls(key: tuple) -> int:
    """How often this process has called with ``key`` before (the draw's or the growth's step)."""
    done = _CALLS.get(key, 0)
    _CALLS[key] = done + 1
    return done


def _draw(graph, *, median_ms: float, noise: float, seed: int, **_) -> Coloring:
    """Takes a time drawn from :func:`drawn_ms`, a known distribution, times the factor in
    $GCBENCH_TEST_SLOW (default 1): the same case, made slower, for compare's tests."""
    start = time.perf_counter()
    key = ("draw", median_ms, noise, seed)
    rng = np.random.default_rng([seed, _calls(key)])
    slow = float(os.environ.get("GCBENCH_TEST_SLOW", "1"))
    _wait_ms(slow * drawn_ms(median_ms, noise, rng), start)
    return _distinct(graph)


def _drift(graph, *, base_ms: float, growth: float, **_) -> Coloring:
    """Every call ``growth`` times slower than the one before."""
    _wait_ms(base_ms * growth ** _calls(("drift", base_ms, growth)), time.perf_counter())
    return _distinct(graph)


def _spec(name: str, run, **extra) -> AlgorithmSpec:
    return register(AlgorithmSpec(name, "cpu", "gcbench tests", run, **extra))


_spec(
    "test-distinct",
    _distinct,
    params=(Param("offset", 0, int, low=0, high=100),),
    setup=_setup,
    description="every vertex its own color",
)
_spec("test-pid", _pid)
_spec("test-exit", _exit)
_spec("test-segfault", _segfault)
_spec("test-sleep", _sleep, params=(Param("seconds", 30.0, float, low=0.0),))
_spec("test-invalid", _invalid)
_spec("test-roundcap", _roundcap)
_spec("test-memory", _memory)
_spec("test-unsupported", _unsupported)
_spec("test-timed", _timed_cpu, setup=_Slept(), description="setup 80 ms, run 30 ms")
register(
    AlgorithmSpec(
        "test-timed-gpu", "gpu", "gcbench tests", _timed_gpu, setup=_gpu_setup,
        default_block_size=32, description="setup 80 ms on the host, a 40 ms device spin",
    )
)  # fmt: skip
_spec(
    "test-draw",
    _draw,
    params=(
        Param("median_ms", 20.0, float, low=0.1), Param("noise", 0.02, float, low=0.0, high=0.9),
        Param("seed", 0, int, low=0),
    ),
    description="a time drawn from median × (1 ± noise), times $GCBENCH_TEST_SLOW",
)  # fmt: skip
_spec(
    "test-drift",
    _drift,
    params=(Param("base_ms", 2.0, float, low=0.1), Param("growth", 1.1, float, low=1.0)),
    description="each call growth times slower than the last",
)
_spec("test-visible", _visible)
_spec(
    "test-kill-parent",
    _kill_parent,
    params=(Param("times", 1, int, low=0, high=10), Param("tag", "kill")),
)
