"""The GPU runtime: CuPy import, kernel compilation, device-resident graphs, launch geometry.

Everything that touches CuPy goes through here, so a missing or broken CuPy is one clear
:class:`GpuUnavailableError` and nothing above this module imports CuPy at load time.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import numpy as np

from gcbench import memory
from gcbench.algorithms.registry import UNCOLORED
from gcbench.algorithms.validation import ClassSizes, Validation, from_counts, summarise
from gcbench.errors import GpuUnavailableError
from gcbench.graphs import pattern as patterns
from gcbench.graphs.graph import Graph, check_gpu_size
from gcbench.graphs.pattern import Pattern
from gcbench.resources import resource_dir


@functools.cache
def cupy() -> ModuleType:
    """Import CuPy and check that a device is usable, or raise GpuUnavailableError.

    The message says why and what to install, and names no option: each command adds the
    hint that fits it (``run``: ``--device cpu``; ``color``: a CPU algorithm)."""
    try:
        import cupy as cp
    except Exception as exc:  # ImportError, or a CUDA library that fails to load
        raise GpuUnavailableError(
            f"CuPy is not usable ({type(exc).__name__}: {exc}); install gcbench[cuda12] or "
            "gcbench[cuda13] to match your driver"
        ) from None
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as exc:
        raise GpuUnavailableError(f"no usable CUDA device ({exc})") from None
    if count < 1:
        raise GpuUnavailableError("no CUDA device found")
    return cp


@dataclass(frozen=True)
class DeviceFacts:
    """What the CSV records about the GPU and the geometry kernels are sized from."""

    name: str
    compute_capability: str
    multiprocessors: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    driver_version: str
    cuda_runtime: str
    cupy_version: str
    pci_bus_id: str
    l2_bytes: int


def _version(v: int) -> str:
    return f"{v // 1000}.{(v % 1000) // 10}"


@functools.cache
def device_facts() -> DeviceFacts:
    cp = cupy()
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"]
    return DeviceFacts(
        name=name.decode() if isinstance(name, bytes) else str(name),
        compute_capability=f"{props['major']}{props['minor']}",
        multiprocessors=int(props["multiProcessorCount"]),
        max_threads_per_sm=int(props["maxThreadsPerMultiProcessor"]),
        max_blocks_per_sm=int(props.get("maxBlocksPerMultiProcessor", 32)),
        driver_version=_version(cp.cuda.runtime.driverGetVersion()),
        cuda_runtime=_version(cp.cuda.runtime.runtimeGetVersion()),
        cupy_version=cp.__version__,
        pci_bus_id=cp.cuda.Device().pci_bus_id,
        l2_bytes=int(props["l2CacheSize"]),
    )


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"[ \t]*$', re.MULTILINE)
_PRAGMA_ONCE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+once[ \t]*$", re.MULTILINE)


def kernel_source(family: str, kernel_dir: Path | None = None) -> str:
    """``kernels/<family>.cu`` with every ``#include "x.cuh"`` of the kernel directory inlined
    (each header once, ``#line`` directives keeping compiler messages' file and line).

    CuPy keys its on-disk module cache on the source text and the options, not on files pulled
    in with ``-I``; inlining the headers puts them in that key, so editing ``common.cuh`` can
    never leave a stale module to be run and timed (issue 12)."""
    kdir = kernel_dir or resource_dir("kernels")
    seen: set[str] = set()

    def expand(name: str) -> str:
        text = _PRAGMA_ONCE.sub("", (kdir / name).read_text())  # inlined once anyway
        out, last, line = [f'#line 1 "{name}"\n'], 0, 1
        for match in _INCLUDE.finditer(text):
            header = match.group(1)
            if not (kdir / header).is_file():
                continue  # a system or toolkit header: left to the compiler
            out.append(text[last : match.start()])
            line += text.count("\n", last, match.end())
            if header not in seen:
                seen.add(header)
                out.append(expand(header))
            out.append(f'\n#line {line + 1} "{name}"')
            last = match.end()
        out.append(text[last:])
        return "".join(out)

    return expand(f"{family}.cu")


def compile_count() -> int:
    """Kernel modules compiled (or loaded) by this process so far: a timed region that changes
    it had compilation inside it."""
    return _module.cache_info().misses


Defines = tuple[tuple[str, int], ...]  # (NAME, value) pairs, passed as -DNAME=value


def define_options(defines: Defines) -> tuple[str, ...]:
    """``-DNAME=value`` for each define; a negative value in parentheses, as a header writes it."""
    return tuple(f"-D{k}={v}" if v >= 0 else f"-D{k}=({v})" for k, v in defines)


def compile_options(defines: Defines = ()) -> tuple[str, ...]:
    """NVRTC options for this device: C++17, its own architecture, the ``-D`` defines."""
    return (
        "-std=c++17",
        f"-arch=sm_{device_facts().compute_capability}",
        *define_options(defines),
    )


# The constants a kernel family shares with Python, passed to each of its compiles as -D
# defines: one Python definition, the kernel's ``#ifndef NAME / #define NAME <default>`` only
# for a compile without them (CI's nvcc -ptx), and tests/algorithms/gpu/test_kernel_constants.py
# checks those defaults against these values. COMMON_DEFINES are common.cuh's, for every family.
SLOT_WIDTH = 2  # ints per slot of a round's counters (gpu/slots.py, GCB_SLOT_WIDTH)
COMMON_DEFINES: dict[str, int] = {"GCB_UNCOLORED": UNCOLORED, "GCB_SLOT_WIDTH": SLOT_WIDTH}
_COMMON: Defines = tuple(sorted(COMMON_DEFINES.items()))
_SHARED: dict[str, Defines] = {}


def share(family: str, **constants: int) -> None:
    """Make ``constants`` part of every compile of ``kernels/<family>.cu`` (and so of its
    module's cache keys, in this process and in CuPy's disk cache), beside
    :data:`COMMON_DEFINES`. The launcher calls it once, where it defines them; a name shared
    twice must keep its value."""
    mine = dict(shared_defines(family))
    for name, value in constants.items():
        value = int(value)
        if mine.get(name, value) != value:
            raise ValueError(f"{family}: {name} shared as {mine[name]} and as {value}")
        mine[name] = value
    _SHARED[family] = tuple(sorted(mine.items()))


def shared_defines(family: str) -> dict[str, int]:
    """The defines every compile of ``kernels/<family>.cu`` gets (:func:`share`)."""
    return dict(_SHARED.get(family, _COMMON))


def slot_defines(prefix: str, slots: type[enum.IntEnum]) -> dict[str, int]:
    """``{prefix + NAME: slot}`` for each member of ``slots``: an array's named slots as
    defines (the enum is their one definition)."""
    return {prefix + member.name: int(member) for member in slots}


@functools.cache
def _module(family: str, defines: Defines) -> Any:
    names = [name for name, _ in defines]
    if len(set(names)) != len(names):
        raise ValueError(f"{family}: a define is given twice in {names} (see runtime.share)")
    cp = cupy()
    module = cp.RawModule(code=kernel_source(family), options=compile_options(defines))
    module.compile()
    return module


def kernel(family: str, name: str, **defines: int) -> Any:
    """The ``extern "C"`` kernel ``name`` of ``kernels/<family>.cu``, compiled once per process
    for each set of compile-time ``defines`` (passed as ``-DNAME=value``, after the family's
    shared constants, :func:`share`)."""
    shared = _SHARED.get(family, _COMMON)
    key = shared + tuple(sorted(defines.items())) if defines else shared
    return _module(family, key).get_function(name)


_LINE_COMMENT = re.compile(r"//[^\n]*")
_SIGNATURE = re.compile(
    r'extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?'
    r"(\w+)\s*\(([^)]*)\)"
)


@functools.cache
def kernel_params(family: str, name: str) -> tuple[str, ...]:
    """The parameter names of the kernel ``name`` of ``kernels/<family>.cu``, in order (read
    from its source)."""
    source = _LINE_COMMENT.sub("", kernel_source(family))
    for match in _SIGNATURE.finditer(source):
        if match.group(1) == name:
            pieces = [p.strip() for p in match.group(2).split(",")]
            return tuple(re.findall(r"\w+", p)[-1] for p in pieces if p and p != "void")
    raise KeyError(f"kernels/{family}.cu has no kernel {name}")


def kernel_args(family: str, name: str, /, **args: Any) -> tuple[Any, ...]:
    """A launch's argument tuple built from named pieces: ``args`` in the order of the kernel's
    parameters (:func:`kernel_params`), every one of them named, no other. For launches built
    once (a captured graph, a loop's fixed arguments): it costs a few µs, not for a hot loop."""
    params = kernel_params(family, name)
    if len(args) == len(params):
        try:
            return tuple([args[p] for p in params])
        except KeyError:
            pass
    missing = [p for p in params if p not in args]
    unknown = [a for a in args if a not in params]
    raise TypeError(f"{family}.{name}({', '.join(params)}): missing {missing}, unknown {unknown}")


@dataclass
class DeviceGraph:
    """A graph resident on the GPU as int32 CSR, plus per-graph extras built once.

    ``extras`` holds structures an algorithm builds once per graph in its setup (e.g. an edge
    list); the runner gives each algorithm a :meth:`fresh` view and times its setup as
    ``setup_ms``.
    """

    host: Graph
    indptr: Any
    indices: Any
    max_degree: int  # known at the upload, from the host's offsets (auto's feature)
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.host.n

    @property
    def nnz(self) -> int:
        return self.host.nnz

    @property
    def name(self) -> str:
        return self.host.name

    def fresh(self) -> DeviceGraph:
        """The same device arrays with no extras: what an algorithm's setup starts from, so its
        ``setup_ms`` never depends on which algorithm ran before it on this graph."""
        return DeviceGraph(self.host, self.indptr, self.indices, self.max_degree)

    def extra(self, key: str, build: Callable[[DeviceGraph], Any]) -> Any:
        """The extra called ``key``, built by ``build(self)`` the first time it is asked for."""
        if key not in self.extras:
            self.extras[key] = build(self)
        return self.extras[key]


def to_device(graph: Graph, max_degree: int | None = None) -> DeviceGraph:
    """Copy ``graph`` to the device as int32 CSR (refusing graphs that do not fit int32), with
    the host's largest degree (``max_degree``, else ``graph.max_degree``: the GPU backend's
    upload passes it, found before its timer starts, so the copy's time holds no host pass)."""
    check_gpu_size(graph)
    cp = cupy()
    indptr = cp.asarray(graph.indptr.astype(np.int32))
    indices = cp.asarray(graph.indices)
    largest = graph.max_degree if max_degree is None else max_degree
    return DeviceGraph(graph, indptr, indices, largest)


@dataclass
class DevicePattern:
    """A matrix pattern resident on the GPU (docs/distance2.md): the rows' int32 CSR
    (``row_ptr``, ``row_cols``: each net's columns) and the columns' (``col_ptr``,
    ``col_rows``: each column's nets), the same arrays for a symmetric pattern (d2's A + I),
    plus per-pattern extras built once, as :class:`DeviceGraph`'s."""

    host: Pattern
    row_ptr: Any
    row_cols: Any
    col_ptr: Any
    col_rows: Any
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """The columns, the objects a coloring colors."""
        return self.host.n_cols

    @property
    def n_rows(self) -> int:
        return self.host.n_rows

    @property
    def nnz(self) -> int:
        return self.host.nnz

    @property
    def name(self) -> str:
        return self.host.name

    def fresh(self) -> DevicePattern:
        """The same device arrays with no extras (as :meth:`DeviceGraph.fresh`)."""
        return DevicePattern(self.host, self.row_ptr, self.row_cols, self.col_ptr, self.col_rows)

    def extra(self, key: str, build: Callable[[DevicePattern], Any]) -> Any:
        """The extra called ``key``, built by ``build(self)`` the first time it is asked for."""
        if key not in self.extras:
            self.extras[key] = build(self)
        return self.extras[key]


def pattern_to_device(pattern: Pattern) -> DevicePattern:
    """Copy ``pattern``'s row and column CSR to the device as int32 (one copy for a symmetric
    pattern), refusing one whose offsets do not fit int32. The column view is built on the
    host first (:attr:`Pattern.columns`); the caller times the copy after it."""
    patterns.check_gpu_size(pattern)
    cp = cupy()
    col_ptr, col_rows = pattern.columns
    row_ptr = cp.asarray(pattern.indptr.astype(np.int32))
    row_cols = cp.asarray(pattern.indices)
    if pattern.symmetric:
        return DevicePattern(pattern, row_ptr, row_cols, row_ptr, row_cols)
    return DevicePattern(
        pattern, row_ptr, row_cols, cp.asarray(col_ptr.astype(np.int32)), cp.asarray(col_rows)
    )


def device_free_bytes() -> int:
    """The device's free memory as an allocation can use it: the driver's free bytes plus what
    CuPy's pool holds unused (as the GPU backend's upload reads it)."""
    cp = cupy()
    return int(cp.cuda.runtime.memGetInfo()[0] + cp.get_default_memory_pool().free_bytes())


def require_device(needed_bytes: int, what: str) -> None:
    """Refuse (InsufficientMemoryError: ``oom``, one line) device work of ``needed_bytes`` that
    the free memory or ``GCBENCH_MAX_GPU_MEMORY`` cannot hold, before allocating it."""
    memory.check_device(needed_bytes, device_free_bytes(), what)


def grid_for(items: int, block_size: int) -> int:
    """Blocks for one thread per item (at least one)."""
    return max(1, (items + block_size - 1) // block_size)


def device_threads() -> int:
    """Threads resident at once when the device is full: multiprocessors × max per SM."""
    facts = device_facts()
    return facts.multiprocessors * facts.max_threads_per_sm


def persistent_grid(block_size: int) -> int:
    """Blocks that fill the device once: per multiprocessor, as many as its threads hold, but
    no more than it can keep resident (32 on Hopper: blocks of under 64 threads are limited by
    their count, not their threads), times the multiprocessors."""
    facts = device_facts()
    per_sm = min(facts.max_threads_per_sm // block_size, facts.max_blocks_per_sm)
    return max(1, per_sm * facts.multiprocessors)


def resident_per_sm(kernel: Any, block_size: int, shared: int = 0) -> int:
    """Blocks of ``kernel`` (a compiled :func:`kernel`) resident at once on one multiprocessor
    with ``shared`` bytes of dynamic shared memory: the occupancy the driver reports. A grid of
    at most this times the multiprocessors is all resident, as a kernel whose blocks wait for
    each other needs."""
    per_sm = cupy().cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
        kernel.kernel.ptr, block_size, shared
    )
    return max(1, per_sm)


class EventClock:
    """Marks on the current stream's timeline as CUDA events: an event is stamped when the
    device reaches it, so host work between two marks counts when the device waits for it.
    The one device clock of gcbench's timings (docs/architecture.md, "Timing protocol")."""

    def __init__(self) -> None:
        self.marks: list[Any] = []

    def mark(self) -> None:
        event = cupy().cuda.Event()
        event.record()
        self.marks.append(event)

    def ms(self, first: int = 0, last: int = -1) -> float:
        """Milliseconds from mark ``first`` to mark ``last`` (waits for ``last``)."""
        begin, end = self.marks[first], self.marks[last]
        end.synchronize()
        return float(cupy().cuda.get_elapsed_time(begin, end))


class RoundTrip:
    """The host's part of one round that reads a result back: a one-element kernel and the
    copy of its 4 bytes to the host, timed on the host. Algorithms that read back every round
    pay it every round; it moves with the host (docs/statistics.md, "Causes found")."""

    SAMPLES = 3

    def __init__(self) -> None:
        self.one = cupy().zeros(1, dtype=np.int32)

    def us(self) -> float:
        """The median of :data:`SAMPLES` round trips, in µs."""
        times = []
        for _ in range(self.SAMPLES):
            start = time.perf_counter()
            self.one += 1
            int(self.one[0])
            times.append((time.perf_counter() - start) * 1e6)
        return sorted(times)[len(times) // 2]


class HostWatch:
    """The host's blocking reads during one timed call, and the device idle time they caused:
    each :func:`read_back` is bracketed by two events, the first stamped when the device has run
    out of work, the second when the host enqueues again after the read (docs/decisions.md,
    "Rounds without the host")."""

    def __init__(self) -> None:
        self.syncs: int | None = 0  # None: the call made waits it could not count
        self.gaps: list[tuple[Any, Any]] = []

    def idle_ms(self) -> float | None:
        """The device's idle time inside the gaps (call once the timed region has ended); None
        where the waits were not all counted."""
        if self.syncs is None:
            return None
        elapsed = cupy().cuda.get_elapsed_time
        return float(sum(elapsed(pause, resume) for pause, resume in self.gaps))

    def count(self, gap: tuple[Any, Any] | None) -> None:
        if self.syncs is not None:
            self.syncs += 1
            if gap is not None:
                self.gaps.append(gap)


_WATCHES: list[HostWatch] = []


@contextlib.contextmanager
def watch() -> Iterator[HostWatch]:
    """Count the blocking reads (and their idle gaps) made inside the ``with`` block."""
    watching = HostWatch()
    _WATCHES.append(watching)
    try:
        yield watching
    finally:
        _WATCHES.remove(watching)


HOLD_TIMEOUT_MS = 2.0  # the longest a hold waits for its go (the host's queueing of a call)


class Hold:
    """One process's hold on its stream (kernels/hold.cu): :meth:`start` launches a kernel that
    spins until :meth:`release` or :data:`HOLD_TIMEOUT_MS`; :meth:`timed_out` says, once the
    stream has passed it, which ended it. Its go and outcome words are pinned host memory."""

    def __init__(self) -> None:
        import cupyx

        self._words = cupyx.empty_pinned(2, dtype=np.int64)  # go, outcome
        self._words[:] = 0
        self._ticket = 0

    def start(self) -> None:
        self._ticket += 1
        go = self._words.ctypes.data
        kernel("hold", "hold_stream")(
            (1,), (1,),
            (go, go + 8, np.int64(self._ticket), np.uint64(HOLD_TIMEOUT_MS * 1e6)),
        )  # fmt: skip

    def release(self) -> None:
        self._words[0] = self._ticket

    def timed_out(self) -> bool:
        return int(self._words[1]) == -self._ticket


_HOLDS: list[Hold] = []


@functools.cache
def _hold() -> Hold:
    return Hold()


@contextlib.contextmanager
def held() -> Iterator[Hold]:
    """Hold the current stream for the ``with`` block (docs/decisions.md, "The device held
    until the call is queued"): work queued inside it starts when the block ends, or at the
    block's first counted wait for the device (:func:`synced`, :func:`count_wait`,
    :func:`uncounted`), whichever comes first."""
    hold = _hold()
    hold.start()
    _HOLDS.append(hold)
    try:
        yield hold
    finally:
        _HOLDS.remove(hold)
        hold.release()


def hold_timed_out() -> bool:
    """Whether the latest :func:`held` block's hold ran out of time instead of being let go (a
    call inside it waited for the device without saying so); read once the stream passed it."""
    return _hold().timed_out()


def _let_go() -> None:
    """Release every hold: the host is about to wait for the device."""
    for hold in _HOLDS:
        hold.release()


T = TypeVar("T")


def synced(call: Callable[[], T], *, enqueues: bool = False) -> T:
    """``call()``, a step that waits for the device (a read back, a library call that returns a
    count to the host, a CuPy operation whose result's size the host must learn): how GPU code
    inside a coloring makes one, so that the timing protocol counts it (``host_syncs``) and
    takes the device's idle time out of ``device_ms``. A call that ``enqueues`` device work of
    its own before it waits is counted with no gap: events around it would hold that work, so
    its wait's idle time stays in ``device_ms`` (the method's stated error)."""
    _let_go()
    if not _WATCHES:
        return call()
    if enqueues:
        result = call()
        _WATCHES[-1].count(None)
        return result
    cp = cupy()
    pause, resume = cp.cuda.Event(), cp.cuda.Event()
    pause.record()
    result = call()
    resume.record()
    _WATCHES[-1].count((pause, resume))
    return result


def read_back(array: Any) -> np.ndarray:
    """``array`` on the host, waiting for the device (:func:`synced`)."""
    return synced(array.get)


def count_wait() -> None:
    """Count one blocking wait that leaves the device busy (a spin on host memory the device
    writes while later work is queued): a host sync with no idle gap."""
    _let_go()
    if _WATCHES:
        _WATCHES[-1].count(None)


def uncounted() -> None:
    """Say that the call waits for the device in ways it does not count (host-planned passes
    over CuPy operations that read sizes back): its ``host_syncs`` and ``device_ms`` are left
    unmeasured rather than wrong."""
    _let_go()
    if _WATCHES:
        _WATCHES[-1].syncs = None


@contextlib.contextmanager
def timed() -> Iterator[EventClock]:
    """An EventClock marked on entry and on exit: ``with timed() as clock: ...``, then
    ``clock.ms()``."""
    clock = EventClock()
    clock.mark()
    yield clock
    clock.mark()


def uncolored(n: int) -> Any:
    """int32[n] of UNCOLORED on the device: the colors every GPU algorithm starts from (the
    host twin: registry.empty_coloring)."""
    return cupy().full(n, UNCOLORED, dtype=np.int32)


def scalar_counter() -> Any:
    """A one-element int32 device counter (zeroed)."""
    return cupy().zeros(1, dtype=np.int32)


@enum.unique
class Sum(enum.IntEnum):
    """The slots of validate.cu's ``out`` array (``GCB_SUM_<NAME>`` there)."""

    ENTRIES = 0  # CSR entries whose endpoints share a color (2 per edge)
    UNCOLORED = 1  # uncolored vertices
    BIG = 2  # colors >= n
    CLASSES = 3  # non-empty classes below n
    SQUARES = 4  # the sum of their squared sizes
    SMALLEST = 5  # the smallest of them (starts at the largest uint64)
    LARGEST = 6  # the largest


share("validate", **slot_defines("GCB_SUM_", Sum))


def validate_device(dgraph: DeviceGraph, colors: Any, *, block_size: int = 256) -> Validation:
    """The Validation of the device coloring ``colors``, balance columns included, from one
    pass over the graph on the device (kernels/validate.cu: ``validate_coloring`` counts the
    class sizes as it checks the edges, ``class_sums`` sums the classes); only seven counts
    and the largest color come back to the host."""
    cp = cupy()
    start = np.zeros(len(Sum), dtype=np.uint64)
    start[Sum.SMALLEST] = np.iinfo(np.uint64).max
    out = cp.asarray(start)
    top = cp.full(1, -1, dtype=np.int32)
    if dgraph.n:
        n = np.int32(dgraph.n)
        size = cp.zeros(dgraph.n, dtype=np.uint32)
        grid = grid_for(dgraph.n, block_size)
        kernel("validate", "validate_coloring")(
            (grid,), (block_size,), (n, dgraph.indptr, dgraph.indices, colors, size, out, top)
        )
        kernel("validate", "class_sums")(
            (min(grid, persistent_grid(block_size)),), (block_size,), (n, size, top, out)
        )
    sums = [int(x) for x in out.get()]
    if sums[Sum.BIG]:  # colors >= n: rare enough to count the classes on the host
        return summarise(sums[Sum.ENTRIES], cp.asnumpy(colors))
    classes = ClassSizes(
        sums[Sum.CLASSES],
        dgraph.n - sums[Sum.UNCOLORED],
        sums[Sum.SQUARES],
        sums[Sum.SMALLEST] if sums[Sum.CLASSES] else 0,
        sums[Sum.LARGEST],
    )
    return from_counts(sums[Sum.ENTRIES] // 2, sums[Sum.UNCOLORED], int(top.get()[0]), classes)
