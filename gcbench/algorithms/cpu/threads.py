"""The ``threads`` parameter of the parallel CPU algorithms, and numba's thread count around a run.

``threads`` is the number of workers the algorithm partitions its work into (the paper's p
processors). numba runs them on min(threads, NUMBA_NUM_THREADS) OS threads, so asking for more
workers than cores is allowed: the partition (and so the speculative races) follows p, and the
extra workers share cores.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numba

from gcbench.algorithms.registry import Param

THREADS = Param(
    "threads",
    0,
    int,
    low=0,
    high=1024,
    help="parallel workers (the paper's p); 0 = all numba threads (NUMBA_NUM_THREADS)",
)


def os_threads(params: dict) -> int:
    """The OS threads a CPU algorithm with these parameters runs on: numba's for one that
    takes ``threads`` (:func:`numba_threads`), else one."""
    if "threads" not in params:
        return 1
    available = numba.config.NUMBA_NUM_THREADS
    return min(int(params["threads"]) or available, available)


@contextmanager
def numba_threads(threads: int) -> Iterator[int]:
    """Run the body with numba set to ``threads`` workers (0 = all); yields the worker count."""
    available = numba.config.NUMBA_NUM_THREADS
    workers = threads or available
    previous = numba.get_num_threads()
    numba.set_num_threads(min(workers, available))
    try:
        yield workers
    finally:
        numba.set_num_threads(previous)
