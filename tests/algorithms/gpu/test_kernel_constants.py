"""The Python–CUDA contract (issue 34), checked without a GPU.

Every constant a kernel shares with Python is defined once in Python and passed to each of the
family's compiles as a ``-D`` define (:func:`runtime.share`); the kernel's guarded default
(``#ifndef NAME / #define NAME value / #endif``) serves only a compile without defines (CI's
``nvcc -ptx``), so it must equal the Python value. Kernel arguments built by name
(:func:`runtime.kernel_args`) follow the parameter lists read from the sources.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

import gcbench.algorithms  # noqa: F401  (imports every launcher: each shares its constants)
from gcbench.algorithms.gpu import cf, deveci, distance2, ecl_gc, gm_gpu, runtime
from gcbench.algorithms.registry import UNCOLORED
from gcbench.resources import resource_dir

FAMILIES = sorted(path.stem for path in resource_dir("kernels").glob("*.cu"))

# Defines a launcher passes per module (one module per value), not shared constants: their
# kernel defaults are the launcher's defaults where it has one (None: any value).
VARIANTS: dict[str, dict[str, int | None]] = {
    "ecl_gc": {
        "GCB_BLOCK": ecl_gc.BLOCK,
        "GCB_SHORTCUTS": ecl_gc.SHORTCUTS["both"],
        "GCB_MIN_BLOCKS": None,  # from the device's threads per SM
    },
    "deveci_eb": {
        "GCB_EB_WIDTH": deveci.TENTATIVE_WIDTH,
        "GCB_EB_TENTATIVE": 1,
        "GCB_EB_PAPER_RESET": 0,
        "GCB_EB_REMOVAL": 0,
    },
    "independent_set": {"GCB_KEY_HASH": 0},
}

_GUARDED = re.compile(
    r"^[ \t]*#[ \t]*ifndef[ \t]+(\w+)[ \t]*\n"
    r"[ \t]*#[ \t]*define[ \t]+\1[ \t]+(.+?)[ \t]*(?://.*)?\n"
    r"[ \t]*#[ \t]*endif",
    re.MULTILINE,
)


def _int(text: str) -> int:
    """A define's value as written in a kernel: ``32``, ``(-1)``, ``0x20u``."""
    return int(text.strip().strip("()").rstrip("uUlL"), 0)


def kernel_defaults(family: str) -> dict[str, int]:
    """The guarded defaults of ``kernels/<family>.cu`` and the headers it includes."""
    return {name: _int(value) for name, value in _GUARDED.findall(runtime.kernel_source(family))}


def test_every_family_is_a_kernel_file():
    assert {"ecl_gc", "cf", "gm_gpu", "validate"} <= set(FAMILIES)
    for family in runtime._SHARED:
        assert family in FAMILIES, family


@pytest.mark.parametrize("family", FAMILIES)
def test_shared_constants_equal_the_kernels_defaults(family):
    defaults = kernel_defaults(family)
    for name, value in runtime.shared_defines(family).items():
        assert name in defaults, f"kernels/{family}.cu has no #ifndef default for {name}"
        assert defaults[name] == value, f"{family}: {name} is {value} in Python"


@pytest.mark.parametrize("family", FAMILIES)
def test_every_kernel_default_is_shared_or_a_variant(family):
    """A guarded default nobody passes would be a constant kept by hand again."""
    shared, variants = runtime.shared_defines(family), VARIANTS.get(family, {})
    for name, value in kernel_defaults(family).items():
        assert name in shared or name in variants, f"{family}: {name} comes from nowhere"
        if variants.get(name) is not None:
            assert value == variants[name], f"{family}: {name}"


@pytest.mark.parametrize("family", FAMILIES)
def test_shared_constants_are_used(family):
    source = runtime.kernel_source(family)
    mine = set(runtime.shared_defines(family)) - set(runtime.COMMON_DEFINES)
    for name in mine:
        uses = len(re.findall(rf"\b{name}\b", source)) - 2  # the #ifndef and the #define
        assert uses > 0, f"kernels/{family}.cu never uses {name}"


def test_the_launchers_definitions_are_what_is_shared():
    assert runtime.COMMON_DEFINES == {
        "GCB_UNCOLORED": UNCOLORED,
        "GCB_SLOT_WIDTH": runtime.SLOT_WIDTH,
    }
    eclgc = runtime.shared_defines("ecl_gc")
    assert {k: v for k, v in eclgc.items() if k.startswith("GCB_C_")} == {
        f"GCB_C_{slot.name}": int(slot) for slot in ecl_gc.Counter
    }
    assert max(ecl_gc.Counter) < eclgc["GCB_COUNTERS"] == ecl_gc.COUNTERS
    assert eclgc["GCB_HIGH_DEGREE"] == ecl_gc.HIGH_DEGREE
    assert eclgc["GCB_TRACE_COPIES"] == ecl_gc.TRACE_COPIES
    assert runtime.shared_defines("cf")["GCB_CF_TILE_BYTES"] == cf.TILE_BYTES
    gm = runtime.shared_defines("gm_gpu")
    assert (gm["GCB_S_BUCKET"], gm["GCB_S_COUNT"], gm["GCB_S_PASSES"], gm["GCB_S_TRACE"]) == (
        gm_gpu.S_BUCKET,
        gm_gpu.S_COUNT,
        gm_gpu.S_PASSES,
        gm_gpu.S_TRACE,
    )
    eb = runtime.shared_defines("deveci_eb")
    assert max(deveci.Counter) < runtime.SLOT_WIDTH == eb["GCB_SLOT_WIDTH"]
    d2 = runtime.shared_defines("distance2")
    assert {k: v for k, v in d2.items() if k.startswith("GCB_D2_S_")} == {
        f"GCB_D2_S_{slot.name}": int(slot) for slot in distance2.State
    }
    assert min(distance2.State) == len(distance2.Slot)  # the state follows the two counts
    assert runtime.shared_defines("validate")["GCB_SUM_SMALLEST"] == runtime.Sum.SMALLEST
    for family in FAMILIES:  # common.cuh's, in every family
        assert runtime.shared_defines(family)["GCB_UNCOLORED"] == UNCOLORED


def test_the_cache_key_holds_the_shared_constants_and_the_variant(monkeypatch):
    keys = []

    class Module:
        def get_function(self, name):
            return name

    def module(family, defines):
        keys.append((family, defines))
        return Module()

    monkeypatch.setattr(runtime, "_module", module)
    assert runtime.kernel("ecl_gc", "ecl_low", GCB_SHORTCUTS=1, GCB_BLOCK=256) == "ecl_low"
    runtime.kernel("rounds", "round_step")
    (family, key), (_, plain) = keys
    assert family == "ecl_gc"
    assert dict(key) == {**runtime.shared_defines("ecl_gc"), "GCB_BLOCK": 256, "GCB_SHORTCUTS": 1}
    assert len(key) == len(dict(key))  # each name once
    assert dict(plain) == runtime.COMMON_DEFINES  # a family that shares nothing of its own


def test_sharing_a_name_twice_needs_the_same_value(monkeypatch):
    monkeypatch.setattr(runtime, "_SHARED", {})
    runtime.share("probe", GCB_PROBE=3)
    runtime.share("probe", GCB_PROBE=3, GCB_OTHER=-4)
    assert runtime.shared_defines("probe") == {**runtime.COMMON_DEFINES, "GCB_PROBE": 3,
                                               "GCB_OTHER": -4}  # fmt: skip
    with pytest.raises(ValueError, match="GCB_PROBE shared as 3 and as 4"):
        runtime.share("probe", GCB_PROBE=4)
    with pytest.raises(ValueError, match="GCB_UNCOLORED"):
        runtime.share("probe", GCB_UNCOLORED=0)


def test_a_define_given_twice_is_refused_before_compiling():
    with pytest.raises(ValueError, match="given twice"):
        runtime._module.__wrapped__("ecl_gc", (("GCB_BLOCK", 256), ("GCB_BLOCK", 512)))


def test_define_options_write_negative_values_as_the_headers_do():
    assert runtime.define_options((("A", 3), ("B", -1), ("C", 0))) == (
        "-DA=3",
        "-DB=(-1)",
        "-DC=0",
    )


_KERNEL_NAME = re.compile(
    r'extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s*)?(\w+)'
)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_kernel_signature_is_read(family):
    names = _KERNEL_NAME.findall(runtime.kernel_source(family))
    assert names
    for name in names:
        params = runtime.kernel_params(family, name)
        assert params and all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in params), (name, params)
        assert len(set(params)) == len(params)


def test_kernel_params_of_the_ecl_gc_launches():
    assert runtime.kernel_params("ecl_gc", "ecl_init") == (
        "n", "indptr", "indices", "posscol", "pending", "worklist", "colors", "counters",
        "core_degree",
    )  # fmt: skip
    assert runtime.kernel_params("ecl_gc", "ecl_dag") == (
        "n", "indptr", "indices", "dag", "posscol", "pending", "hstate", "hbits", "worklist",
        "colors", "counters",
    )  # fmt: skip
    assert runtime.kernel_params("ecl_gc", "ecl_high") == (
        "n", "indptr", "dag", "posscol", "pending", "hstate", "hbits", "worklist", "colors",
        "counters", "trace", "cap", "trace_len",
    )  # fmt: skip
    assert runtime.kernel_params("ecl_gc", "ecl_low") == (
        "n", "indptr", "indices", "posscol", "pending", "waiting", "colors", "counters", "trace",
        "cap", "trace_len", "ordered",
    )  # fmt: skip
    with pytest.raises(KeyError, match="no kernel ecl_nothing"):
        runtime.kernel_params("ecl_gc", "ecl_nothing")


def test_gm_gpu_varies_only_the_first_parameter():
    """gm_gpu.run builds each kernel's arguments once and puts the pass first (``[1:]``)."""
    for name in ("gm_color", "gm_check"):
        assert runtime.kernel_params("gm_gpu", name)[0] == "pass_index"


def test_kernel_args_orders_named_pieces_and_refuses_wrong_names():
    params = runtime.kernel_params("cf", "cf_pull_thread")
    assert params == ("count", "bucket", "indptr", "indices", "colors")
    named = {"colors": "c", "indices": "j", "count": 3, "bucket": "b", "indptr": "i"}
    assert runtime.kernel_args("cf", "cf_pull_thread", **named) == (3, "b", "i", "j", "c")
    del named["colors"]
    with pytest.raises(TypeError, match=r"missing \['colors'\], unknown \['color'\]"):
        runtime.kernel_args("cf", "cf_pull_thread", **named, color="c")
    with pytest.raises(TypeError, match=r"missing \['colors'\]"):
        runtime.kernel_args("cf", "cf_pull_thread", **named)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_compiles_with_its_shared_defines(family, tmp_path):
    """The source and -D options the runtime gives NVRTC, through nvcc: the kernels' own
    static_asserts check the Python values too."""
    source = tmp_path / f"{family}.cu"
    source.write_text(runtime.kernel_source(family))
    defines = tuple(sorted(runtime.shared_defines(family).items()))
    command = ["nvcc", "-ptx", "-arch=sm_90", "-std=c++17", *runtime.define_options(defines)]
    done = subprocess.run([*command, "-o", "/dev/null", str(source)], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_distance2_shares_its_window_and_counter_slots():
    from gcbench.algorithms.gpu import distance2

    shared = runtime.shared_defines("distance2")
    assert shared["GCB_D2_WIDTH"] == distance2.WIDTH == 64  # one 64-bit mask (static_assert)
    for block in (32, 128, 384, 512, 1024):  # a warp's window of colors in shared memory
        wide, size = distance2.wide_window(block)
        assert wide % 1024 == 0 and size == block // 32 * wide // 8 <= 48 * 1024
    assert distance2.wide_window(128)[0] == distance2.wide_window(384)[0] == 32 * 1024
    assert distance2.wide_window(1024)[0] == 12 * 1024
    assert {k: v for k, v in shared.items() if k.startswith("GCB_D2_C_")} == {
        f"GCB_D2_C_{slot.name}": int(slot) for slot in distance2.Slot
    }


def test_kernel_params_of_the_distance2_launches():
    """The argument tuples gcbench/algorithms/gpu/distance2.py and pattern_check.py build."""
    scan = ("col_ptr", "col_rows", "row_ptr", "row_cols")
    # the pass arguments of every kernel of a round (gcb_locate in common.cuh)
    gate = ("at", "p", "passes", "before", "left", "mirror")
    two = ("list0", "list1")  # vb-bit's and jp-d2's worklists, by the round's parity
    assert runtime.kernel_params("distance2", "vb_color") == (
        *two, *scan, "colors", "n_cols", "wide", *gate,
    )  # fmt: skip
    assert runtime.kernel_params("distance2", "vb_detect") == (*two, *scan, "colors", *gate)
    assert runtime.kernel_params("distance2", "jp_round") == (
        *two, *scan, "ranked", "place", "colors", "pending", "dense", "dense_bits", "dense_top",
        "words", "n_cols", "wide", *gate,
    )  # fmt: skip
    assert runtime.kernel_params("distance2", "d2_columns") == ("n", "list")
    rows = ("n_rows", "row_ptr", "row_cols", "colors")
    lists = ("lists0", "lists1", "lists2")
    assert runtime.kernel_params("distance2", "nb_refresh") == (*rows, "state", "forbidden", *gate)
    assert runtime.kernel_params("distance2", "nb_color") == (
        *lists, "col_ptr", "col_rows", "colors", "state", "forbidden", *gate,
    )  # fmt: skip
    assert runtime.kernel_params("distance2", "nb_conflicts") == (*rows, "state", *gate)
    assert runtime.kernel_params("distance2", "nb_compact") == (*lists, "colors", "state", *gate)
    assert runtime.kernel_params("distance2", "nb_advance") == ("state", *gate)
    assert runtime.kernel_params("distance2", "pattern_keys") == (*rows, "keys")
