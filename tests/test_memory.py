"""The memory budget (gcbench/memory.py): parsing, the checks, and estimates against
measured peaks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from gcbench import memory
from gcbench.bench.worker import classify
from gcbench.errors import GcbenchError, InputError, InsufficientMemoryError
from gcbench.graphs import generators
from gcbench.graphs.graph import from_edges
from gcbench.graphs.sources import load_graph

GIB = 1 << 30


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4096", 4096),
        ("20G", 20 * GIB),
        ("20g", 20 * GIB),
        ("20GiB", 20 * GIB),
        ("20 GB", 20 * GIB),
        ("512M", 512 << 20),
        ("1.5T", int(1.5 * (1 << 40))),
        ("64k", 64 << 10),
        (".5G", GIB // 2),
        (" 3G ", 3 * GIB),
    ],
)
def test_parse_size(text, expected):
    assert memory.parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "G", "-1G", "20X", "1e9", "twenty", "20 G B", "0", "0.1"])
def test_malformed_sizes_are_one_line_input_errors(text):
    with pytest.raises(InputError) as info:
        memory.parse_size(text)
    message = str(info.value)
    assert message.startswith(f"{memory.ENV}=") and "\n" not in message


def test_malformed_size_shows_an_escaped_excerpt():
    with pytest.raises(InputError) as info:
        memory.parse_size("\x1b[31m" + "9" * 100)
    message = str(info.value)
    assert "\x1b" not in message and "\\x1b" in message and len(message) < 200


def test_budget_from_the_environment(monkeypatch):
    monkeypatch.setenv(memory.ENV, "2G")
    assert memory.budget() == memory.Budget(2 * GIB, f"{memory.ENV}=2G", available=False)


def test_budget_from_meminfo(monkeypatch, tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24000000 kB\nMemAvailable:    1048576 kB\n")
    monkeypatch.delenv(memory.ENV, raising=False)
    monkeypatch.setattr(memory, "MEMINFO", meminfo)
    limit = memory.budget()
    assert (limit.bytes, limit.available) == (GIB, True)
    assert limit.source.startswith("MemAvailable")
    monkeypatch.setattr(memory, "MEMINFO", tmp_path / "missing")
    assert memory.budget().bytes is None
    memory.require(10**18, "anything")  # no figure: nothing refused


def test_require_names_the_need_and_the_budget(monkeypatch):
    monkeypatch.setenv(memory.ENV, "1G")
    memory.require(GIB, "fits exactly")
    with pytest.raises(InsufficientMemoryError) as info:
        memory.require(3 * GIB, "gen:rgg?scale=30")
    assert str(info.value) == (
        f"gen:rgg?scale=30: needs about 3.0 GiB of memory, budget 1.0 GiB ({memory.ENV}=1G)"
    )


def test_held_memory_counts_only_against_available_memory(monkeypatch, tmp_path):
    """MemAvailable no longer includes what the work holds; a fixed budget does."""
    meminfo = tmp_path / "meminfo"
    meminfo.write_text(f"MemAvailable: {GIB // 1024} kB\n")
    monkeypatch.delenv(memory.ENV, raising=False)
    monkeypatch.setattr(memory, "MEMINFO", meminfo)
    memory.require(int(1.5 * GIB), "x", held=GIB)  # 0.5 GiB more, 1 GiB available
    with pytest.raises(InsufficientMemoryError, match="budget 2.0 GiB"):
        memory.require(3 * GIB, "x", held=GIB)
    monkeypatch.setenv(memory.ENV, "1G")
    with pytest.raises(InsufficientMemoryError, match="budget 1.0 GiB"):
        memory.require(int(1.5 * GIB), "x", held=GIB)


def test_the_error_is_a_gcbench_error_and_a_memory_error_the_runner_calls_oom():
    error = InsufficientMemoryError("x: needs about 3.0 GiB of memory, budget 1.0 GiB")
    assert isinstance(error, GcbenchError) and isinstance(error, MemoryError)
    assert classify(error) == ("oom", str(error))


def test_check_device_and_upload_estimate():
    graph = from_edges(5, [0, 1, 2], [1, 2, 3])
    needed = memory.estimate_upload_bytes(graph.n, graph.nnz)
    assert needed == 4 * (graph.n + 1) + 4 * graph.nnz + 4 * graph.n
    memory.check_device(needed, needed, "g")
    with pytest.raises(InsufficientMemoryError) as info:
        memory.check_device(3 * GIB, GIB, "gen:rgg?scale=26")
    assert str(info.value) == "gen:rgg?scale=26: needs about 3.0 GiB of GPU memory, 1.0 GiB free"


def test_guard_turns_memory_errors_into_one_line():
    with pytest.raises(InsufficientMemoryError) as info, memory.guard("reading graph file x.mtx"):
        raise MemoryError("Unable to allocate 7.45 GiB for an array\nwith shape (10,)")
    message = str(info.value)
    assert message.startswith("out of memory while reading graph file x.mtx (Unable to allocate")
    assert "\n" not in message
    with pytest.raises(InsufficientMemoryError, match="^first$"), memory.guard("outer"):
        raise InsufficientMemoryError("first")  # an inner, more precise message is kept


def test_format_bytes():
    assert [memory.format_bytes(b) for b in (512, 3 << 20, 96 * GIB, 3 << 40)] == [
        "512 B",
        "3.0 MiB",
        "96.0 GiB",
        "3.0 TiB",
    ]


def test_a_low_budget_makes_a_small_generator_refuse(monkeypatch, data_dir):
    monkeypatch.setenv(memory.ENV, "16M")
    with pytest.raises(InsufficientMemoryError) as info:
        load_graph("gen:cycle?n=1000")
    assert str(info.value).startswith("gen:cycle?n=1000: needs about ")
    assert str(info.value).endswith(f"budget 16.0 MiB ({memory.ENV}=16M)")
    with pytest.raises(InsufficientMemoryError):
        generators.kron(10)
    assert not data_dir.exists() or not any(p.is_file() for p in data_dir.rglob("*"))
    monkeypatch.setenv(memory.ENV, "1G")
    assert load_graph("gen:cycle?n=1000").m == 1000


def test_estimates_grow_with_the_parameters():
    rgg = generators.FAMILIES["rgg"]
    sizes = [rgg.estimate({"scale": s, "seed": 0}) for s in (10, 20, 30)]
    assert sizes == sorted(sizes) and sizes[2] > 100 * GIB
    complete = generators.FAMILIES["complete"]
    assert complete.estimate({"n": 100_000}) > 14 * 10**10


# --- estimates against measured peaks --------------------------------------------------------

_CHILD = textwrap.dedent(
    """
    import json, sys
    from gcbench import memory
    from gcbench.graphs.sources import load_graph

    def status(field):
        for line in open("/proc/self/status"):
            if line.startswith(field):
                return int(line.split()[1]) * 1024

    load_graph("gen:cycle?n=5")  # numba kernels compiled (or loaded) outside the measurement
    checked = []
    require = memory.require
    memory.require = lambda needed, what, held=0: (checked.append(needed), require(
        needed, what, held=held))
    open("/proc/self/clear_refs", "w").write("5")
    before = status("VmRSS")
    load_graph(sys.argv[1])
    print(json.dumps({"extra": status("VmHWM") - before, "estimate": max(checked)}))
    """
)


def _can_reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _write_graph_files(directory: Path) -> dict[str, Path]:
    from gcbench.graphs.formats import save_cache, write_dimacs, write_edgelist, write_mtx

    graph = generators.rgg(17)
    paths = {suffix: directory / f"g.{suffix}" for suffix in ("mtx", "txt", "col", "npz")}
    write_mtx(graph, paths["mtx"])
    write_edgelist(graph, paths["txt"])
    write_dimacs(graph, paths["col"])
    save_cache(graph, paths["npz"], spec="g")
    paths["csv"] = directory / "g.csv"
    np.savetxt(paths["csv"], np.column_stack(graph.edges()), fmt="%d", delimiter=",")
    return paths


@pytest.mark.skipif(not _can_reset_peak(), reason="needs Linux /proc/self/clear_refs")
def test_estimates_cover_the_measured_peak(tmp_path, data_dir):
    """The estimate checked against the budget is at least the peak RSS the load reached
    above its start, for generators and readers (sizes where the data outweighs noise)."""
    env = {**os.environ, "GCBENCH_DATA": str(data_dir)}

    def measure(spec: str) -> tuple[str, subprocess.CompletedProcess]:
        return spec, subprocess.run(
            [sys.executable, "-c", _CHILD, spec], capture_output=True, text=True, env=env,
            check=False, timeout=120,
        )  # fmt: skip

    # Each load in a process of its own (its peak is that process's own), two at a time: the
    # generators while the files are written, then the readers.
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = [pool.submit(measure, spec) for spec in (
            "gen:kron?scale=17&edgefactor=16",
            "gen:rgg?scale=17",
            "gen:er?n=200000&avg_degree=16",
            "gen:grid2d?side=1000",
        )]  # fmt: skip
        files = _write_graph_files(tmp_path)
        done += [pool.submit(measure, str(path)) for path in files.values()]
    assert len(done) == 9
    for spec, child in (future.result() for future in done):
        assert child.returncode == 0, (spec, child.stderr)
        result = json.loads(child.stdout)
        assert result["extra"] <= result["estimate"], (spec, result)


def test_check_device_against_free_memory_and_the_gpu_budget(monkeypatch):
    memory.check_device(100, 200, "upload")
    with pytest.raises(InsufficientMemoryError, match="200 B free"):
        memory.check_device(300, 200, "upload")
    monkeypatch.setenv(memory.GPU_ENV, "150")
    with pytest.raises(InsufficientMemoryError, match=r"allowed \(GCBENCH_MAX_GPU_MEMORY=150\)"):
        memory.check_device(160, 200, "upload")
