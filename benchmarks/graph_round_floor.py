"""The floor of one round of a ``sync=graph`` loop (issue 43; docs/performance.md, "The floor of
a graph round"): what a CUDA graph's WHILE node costs per round on this device before any
coloring work, so a round-based algorithm's time per round can be read against it.

    PYTHONPATH=. python3 benchmarks/graph_round_floor.py [--rounds 5000] [--reps 5]

Each variant is a :class:`gcbench.algorithms.gpu.loops.Loop` whose body is ``tick`` (a kernel
that does nothing but keep the loop going: it writes a nonzero count into the round's slot)
and ``round_step``, as every captured round ends: ``tick`` on one thread; on one block of 256;
on a device-filling grid of 256-thread blocks; the same with 4 KiB of dynamic shared memory a
block; and two such grid kernels a round. Each loop runs ``--rounds`` rounds per launch; one
warm-up launch, then ``--reps`` launches between CUDA events. Prints µs per round: median and
range over the launches.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable

import numpy as np
from _common import gpu_banner

from gcbench.algorithms.gpu import loops, runtime

TICK = r"""
extern "C" __global__ void tick(const int* at, int* slots, const int width) {
    if (blockIdx.x == 0 && threadIdx.x == 0) slots[(*at + 1) * width] = 1;
}
"""
BLOCK = 256


def per_round_us(body: Callable[[loops.DeviceRounds], None], rounds: int, reps: int) -> list[float]:
    """µs per round of a loop of ``rounds`` rounds whose round is ``body`` then round_step."""
    cp = runtime.cupy()
    counter = loops.DeviceRounds(start=(1,), cap=rounds)

    def round_(handle: int) -> None:
        body(counter)
        counter.step(handle)

    loop = loops.Loop(counter.reset, round_)
    out = []
    for rep in range(reps + 1):
        begin, end = cp.cuda.Event(), cp.cuda.Event()
        begin.record()
        loop.launch()
        end.record()
        end.synchronize()
        ran, _ = counter.read()
        if ran != rounds:
            raise RuntimeError(f"the loop ran {ran} rounds, not {rounds}")
        if rep:  # the first launch warms up
            out.append(cp.cuda.get_elapsed_time(begin, end) * 1e3 / rounds)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    cp = runtime.cupy()
    tick = cp.RawKernel(TICK, "tick")
    width = np.int32(runtime.SLOT_WIDTH)
    full = runtime.persistent_grid(BLOCK)

    def launches(grid: int, block: int, shared: int = 0, times: int = 1):  # type: ignore[no-untyped-def]
        def body(counter: loops.DeviceRounds) -> None:
            for _ in range(times):
                tick((grid,), (block,), (counter.at, counter.slots, width), shared_mem=shared)

        return body

    print(gpu_banner())
    print(f"{runtime.device_facts().multiprocessors} SMs; device-filling grid {full} x {BLOCK}")
    variants = {
        "tick on 1 thread + round_step": launches(1, 1),
        "tick on 1 block": launches(1, BLOCK),
        "tick on the device-filling grid": launches(full, BLOCK),
        "the same, 4 KiB shared memory a block": launches(full, BLOCK, 4096),
        "two grid kernels a round": launches(full, BLOCK, times=2),
    }
    for name, body in variants.items():
        times = per_round_us(body, args.rounds, args.reps)
        print(
            f"{name:40s} {statistics.median(times):6.2f} us/round "
            f"[{min(times):.2f}, {max(times):.2f}] ({args.reps} launches of {args.rounds} rounds)"
        )


if __name__ == "__main__":
    main()
