"""``--gpus 0,1 | all``: one worker per GPU of this host, all fed from one queue of graphs.

Each GPU gets a slot: a thread of the parent that takes the next graph (largest estimated
cost first, :mod:`gcbench.bench.cost`), runs its cases in a worker pinned to that GPU with
``CUDA_VISIBLE_DEVICES`` (:class:`~gcbench.bench.graphrun.GraphRun`), and takes the next.
A slot runs one worker at a time, so no two timed cases ever share a GPU. Rows go to the
parent's one session, so the CSV, ``--resume`` and interrupts work as in a plain run.

GPUs are found without initialising CUDA here: ``all`` is the parent's
``CUDA_VISIBLE_DEVICES`` when set, else every GPU ``nvidia-smi -L`` lists.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections import deque
from collections.abc import Sequence

from gcbench.bench.cost import largest_first
from gcbench.bench.graphrun import GraphRun, GraphWork, Settings, Sink
from gcbench.bench.process import Interrupted, starts_on_main_thread
from gcbench.errors import GpuUnavailableError, SpecError

LIST_TIMEOUT_S = 30.0
JOIN_POLL_S = 0.05  # the main thread wakes this often: SIGINT's handler, workers to start


def count_gpus() -> int | None:
    """How many GPUs ``nvidia-smi -L`` lists (MIG instances not counted), None if it cannot
    be asked."""
    tool = shutil.which("nvidia-smi")
    if tool is None:
        return None
    try:
        done = subprocess.run(
            [tool, "-L"], capture_output=True, text=True, timeout=LIST_TIMEOUT_S, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return sum(1 for line in done.stdout.splitlines() if line.startswith("GPU "))


def visible_list() -> list[str] | None:
    """The parent's ``CUDA_VISIBLE_DEVICES`` entries, None when it is not set."""
    value = os.environ.get("CUDA_VISIBLE_DEVICES")
    return None if value is None else [v.strip() for v in value.split(",") if v.strip()]


def resolve_gpus(value: str | Sequence[int | str], backend: str) -> list[str]:
    """The ``CUDA_VISIBLE_DEVICES`` entry of each worker slot.

    ``value`` is ``"all"``, ``"0,1"`` or a list of indices; an index is a GPU as nvidia-smi
    numbers it, or a position in the parent's CUDA_VISIBLE_DEVICES when that is set. On a
    CPU run the indices only name slots (cases then run side by side on the host's cores).
    """
    listed = visible_list()
    if isinstance(value, str) and value.strip() == "all":
        if backend != "gpu":
            raise SpecError("--gpus all needs a GPU run; on the CPU name slots, e.g. --gpus 0,1")
        ids = listed if listed is not None else [str(i) for i in range(count_gpus() or 0)]
        if not ids:
            raise GpuUnavailableError("--gpus all: nvidia-smi -L lists no GPU; name them: --gpus 0")
        return ids
    indices = _indices(value)
    if listed is not None:
        shown = f"CUDA_VISIBLE_DEVICES={','.join(listed)} shows"
        return [listed[i] for i in _within(indices, len(listed), shown)]
    count = count_gpus() if backend == "gpu" else None
    if count is not None:
        _within(indices, count, "nvidia-smi -L lists")
    return [str(i) for i in indices]


def _indices(value: str | Sequence[int | str]) -> list[int]:
    items = value.split(",") if isinstance(value, str) else list(value)
    out = []
    for item in items:
        text = str(item).strip()
        if not text.isdigit():
            raise SpecError(f"--gpus {value}: {text!r} is not a GPU index; write --gpus 0,1 or all")
        out.append(int(text))
    if not out:
        raise SpecError("--gpus: no GPU given; write --gpus 0,1 or --gpus all")
    return list(dict.fromkeys(out))


def _within(indices: list[int], count: int, where: str) -> list[int]:
    bad = [i for i in indices if i >= count]
    if bad:
        raise SpecError(f"--gpus {bad[0]}: {where} {count} GPU(s), indices 0..{count - 1}")
    return indices


def run_pool(
    sink: Sink, works: Sequence[GraphWork], settings: Settings, gpus: Sequence[str],
    stop: threading.Event,
) -> None:  # fmt: skip
    """Run ``works`` on one slot per entry of ``gpus``; returns when all are done. An
    exception in a slot (Interrupted included) stops the others and is raised here."""
    queue = deque(largest_first(works))
    lock = threading.Lock()
    failures: list[BaseException] = []

    def slot(gpu: str) -> None:
        try:
            while not stop.is_set():
                with lock:
                    if not queue:
                        return
                    work = queue.popleft()
                GraphRun(sink, work, settings, pin=gpu, gpu_index=gpu).run()
        except BaseException as exc:  # handed to the main thread, which raises it
            failures.append(exc)
            stop.set()

    threads = [
        threading.Thread(target=slot, args=(gpu,), name=f"gcbench-gpu-{gpu}", daemon=True)
        for gpu in gpus
    ]
    with starts_on_main_thread() as serve:  # every worker born ignoring Ctrl-C (process.py)
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                serve()
                thread.join(JOIN_POLL_S)
    if failures:
        raise failures[0]
    if stop.is_set():
        raise Interrupted
