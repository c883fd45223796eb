"""``cusparse``: the vendor's Cohen-Castonguay coloring, ``cusparseScsrcolor``, run as a peer.

CuPy does not wrap csrcolor (deprecated in CUDA 12/13 but still exported), so it is called
through ctypes on the libcusparse that CuPy itself loaded (nvidia-blog-csrcolor-ilu). The
handle is created once per process and destroyed at exit; the matrix descriptor, the color
info and the float32 values array of ones are built once per graph by ``setup``
(``setup_ms``). By default the reordering argument is NULL: csrcolor only colors, as the
nvidia-blog seed calls it to color; ``reorder=true`` also asks for the permutation that
groups the vertices by color (what an ILU0 reordering needs), inside the timed call.
``iterations`` is empty: the library does not report its rounds. The count it reports is the
largest color + 1 (its colors can have gaps), kept in the trace as ``reported_colors``.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import functools
import weakref
from pathlib import Path
from typing import Any

import numpy as np

from gcbench.algorithms.gpu import runtime
from gcbench.algorithms.registry import AlgorithmSpec, Coloring, Param, register
from gcbench.errors import GcbenchError, UnsupportedError

_SONAMES = ("libcusparse.so.12", "libcusparse.so.13", "libcusparse.so.11", "libcusparse.so")
_STATUS = {
    1: "NOT_INITIALIZED", 2: "ALLOC_FAILED", 3: "INVALID_VALUE", 4: "ARCH_MISMATCH",
    6: "EXECUTION_FAILED", 7: "INTERNAL_ERROR", 8: "MATRIX_TYPE_NOT_SUPPORTED",
    10: "NOT_SUPPORTED", 11: "INSUFFICIENT_RESOURCES",
}  # fmt: skip


def _loaded_path() -> str | None:
    """The libcusparse this process already mapped (CuPy's), if any."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    for line in maps.splitlines():
        path = line.split()[-1]
        if "libcusparse.so" in path:
            return path
    return None


@functools.cache
def _library() -> ctypes.CDLL:
    runtime.cupy()
    # Make CuPy load its own libcusparse first, so ctypes binds to the same copy.
    with contextlib.suppress(Exception):
        import cupy_backends.cuda.libs.cusparse  # noqa: F401
    candidates = [p for p in (_loaded_path(), ctypes.util.find_library("cusparse")) if p]
    for name in (*candidates, *_SONAMES):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        if hasattr(lib, "cusparseScsrcolor"):
            return lib
    raise UnsupportedError(
        "cusparse: no libcusparse exporting cusparseScsrcolor was found; install the CUDA "
        "toolkit's cuSPARSE (csrcolor is deprecated and may be absent in future releases)"
    )


def _check(status: int, call: str) -> None:
    if status != 0:
        name = _STATUS.get(status, str(status))
        raise GcbenchError(f"cusparse: {call} returned CUSPARSE_STATUS_{name}")


@functools.cache
def _handle() -> ctypes.c_void_p:
    lib = _library()
    handle = ctypes.c_void_p()
    _check(lib.cusparseCreate(ctypes.byref(handle)), "cusparseCreate")
    atexit.register(lib.cusparseDestroy, handle)
    return handle


class _PerGraph:
    """What one graph's csrcolor calls reuse: the values array of ones, one matrix descriptor
    and one color info (the library lets a handle color many matrices, and nothing in a
    descriptor or info depends on a call's output), and a reordering buffer written only when
    ``reorder`` asks for the permutation. Descriptor and info are destroyed with the graph."""

    def __init__(self, dgraph: runtime.DeviceGraph) -> None:
        cp = runtime.cupy()
        lib = _library()
        self.ones = cp.ones(max(dgraph.nnz, 1), dtype=np.float32)
        self.reordering = cp.full(max(dgraph.n, 1), -1, dtype=np.int32)
        self.descr, self.info = ctypes.c_void_p(), ctypes.c_void_p()
        _check(lib.cusparseCreateMatDescr(ctypes.byref(self.descr)), "cusparseCreateMatDescr")
        weakref.finalize(self, lib.cusparseDestroyMatDescr, self.descr)
        _check(lib.cusparseCreateColorInfo(ctypes.byref(self.info)), "cusparseCreateColorInfo")
        weakref.finalize(self, lib.cusparseDestroyColorInfo, self.info)


def _setup(dgraph: runtime.DeviceGraph) -> _PerGraph:
    _handle()
    return dgraph.extra("cusparse", _PerGraph)


def _run(dgraph: runtime.DeviceGraph, *, block_size: int, reorder: bool = False) -> Coloring:
    """One call of cusparseScsrcolor with fraction 1.0 (color every vertex); with ``reorder``
    it also computes the permutation that groups vertices by color (the ILU0 use of the
    nvidia-blog seed), otherwise it gets a NULL reordering and only colors."""
    cp = runtime.cupy()
    colors = runtime.uncolored(dgraph.n)
    if dgraph.n == 0:
        return Coloring(colors, None)
    per = _setup(dgraph)
    lib = _library()
    handle = _handle()
    _check(
        lib.cusparseSetStream(handle, ctypes.c_void_p(cp.cuda.get_current_stream().ptr)),
        "cusparseSetStream",
    )
    fraction = ctypes.c_float(1.0)
    ncolors = ctypes.c_int(0)
    # csrcolor returns its color count to host memory, so it waits for its own work: one sync
    runtime.synced(enqueues=True, call=lambda: _check(
        lib.cusparseScsrcolor(
            handle,
            ctypes.c_int(dgraph.n),
            ctypes.c_int(dgraph.nnz),
            per.descr,
            _ptr(per.ones),
            _ptr(dgraph.indptr),
            _ptr(dgraph.indices),
            ctypes.byref(fraction),
            ctypes.byref(ncolors),
            _ptr(colors),
            _ptr(per.reordering) if reorder else ctypes.c_void_p(None),
            per.info,
        ),
        "cusparseScsrcolor",
    ))  # fmt: skip
    if ncolors.value == 0:
        # Seen with CUDA 13 on graphs without edges: the routine returns success, colors
        # nothing and reports 0 colors. Report that, rather than color them on its behalf.
        raise UnsupportedError(
            f"cusparse: csrcolor colored none of the {dgraph.n} vertices of {dgraph.name} "
            f"(it does so when the graph has no edges: nnz = {dgraph.nnz})"
        )
    return Coloring(colors, None, {"reported_colors": [float(ncolors.value)]})


def reordering(dgraph: runtime.DeviceGraph) -> Any:
    """The permutation the last ``reorder=true`` call wrote (all -1 until one did)."""
    return _setup(dgraph).reordering


def _ptr(array: Any) -> ctypes.c_void_p:
    return ctypes.c_void_p(array.data.ptr)


register(
    AlgorithmSpec(
        name="cusparse",
        backend="gpu",
        family="Cohen-Castonguay multi-hash as shipped in cuSPARSE csrcolor (nvidia-blog)",
        run=_run,
        setup=_setup,
        params=(
            Param(
                "reorder",
                False,
                bool,
                help="also compute the color-ordered permutation inside the call (ILU0 use)",
            ),
        ),
        deterministic=True,
        peer=True,
        iterations_meaning="not reported by the library",
        description="cuSPARSE cusparseScsrcolor through ctypes, fraction to color 1.0, "
        "coloring only unless reorder=true",
    )
)
