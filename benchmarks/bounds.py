"""Time the χ lower bound and the degeneracy (gcbench/graphs/bounds.py) on large graphs.

    python benchmarks/bounds.py [--reps 3] SPEC...

For each spec: loads the graph (from the cache; generated first if need be), compiles the
numba kernels on a 5-vertex graph, then times ``bounds.compute`` ``--reps`` times (wall
clock, each on the loaded graph, nothing cached between them) and samples the process's
resident memory every 10 ms while it runs, after returning freed heap to the system: the
peak above what the loaded graph already held is "extra". Prints one line per spec: the
median with the range of the times.
Budget (issue 33): rgg scale 24 in at most 30 s on 2 cores and 2 GiB beyond the graph.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import threading
import time

import numpy as np


def resident_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakMemory:
    """The highest resident size seen, sampled every 10 ms on a thread, while in scope; freed
    heap is handed back to the system first (glibc's malloc_trim), so that growth is new
    memory, not pages an earlier step freed and kept."""

    def __enter__(self) -> PeakMemory:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
        self.start = self.peak = resident_bytes()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self) -> None:
        while not self.done.wait(0.01):
            self.peak = max(self.peak, resident_bytes())

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()
        self.peak = max(self.peak, resident_bytes())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()

    from gcbench.graphs import bounds
    from gcbench.graphs.graph import from_edges
    from gcbench.graphs.sources import load_graph

    from_edges(5, np.array([0, 1, 2, 3]), np.array([1, 2, 3, 4])).bounds  # noqa: B018 compile
    import numba

    print(f"threads {os.cpu_count()}, numba {numba.__version__}")
    for spec in args.specs:
        t0 = time.perf_counter()
        graph = load_graph(spec)
        loaded_s = time.perf_counter() - t0
        times, extra = [], 0
        for _ in range(args.reps):
            with PeakMemory() as memory:
                t0 = time.perf_counter()
                found = bounds.compute(graph)
                times.append(time.perf_counter() - t0)
            extra = max(extra, memory.peak - memory.start)
        print(
            f"{spec}: n {graph.n:,} entries {graph.nnz:,} (loaded in {loaded_s:.1f} s) "
            f"clique {found.clique} degeneracy {found.degeneracy}: "
            f"median {statistics.median(times):.2f} s (min {min(times):.2f}, max "
            f"{max(times):.2f}, {len(times)} runs), extra memory {extra / 2**20:.0f} MiB, "
            f"load average {os.getloadavg()[0]:.2f} after"
        )


if __name__ == "__main__":
    main()
