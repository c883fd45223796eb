"""The .npz caches of graphs and patterns: round trip, atomic writes, and never trusting a
bad file."""

from __future__ import annotations

import dataclasses
import os
import struct
import zipfile

import numpy as np
import pytest

from gcbench.graphs.bounds import Bounds
from gcbench.graphs.formats import FORMAT_VERSION, load_cache, read_graph, save_cache
from gcbench.graphs.formats.npz import PATTERN_FORMAT, load_pattern_cache, save_pattern_cache
from gcbench.graphs.graph import Normalisation, from_edges
from gcbench.graphs.pattern import Pattern, check_pattern, from_entries

SPEC = "gen:test?seed=1"


@pytest.fixture
def cached(tmp_path, connected_graph):
    path = tmp_path / "cache" / "g.npz"
    save_cache(connected_graph, path, spec=SPEC)
    return path


def test_round_trip_keeps_everything(tmp_path, assert_same_csr):
    graph = from_edges(5, [0, 1, 1, 2, 3], [1, 0, 1, 4, 2], name="n", source="src.mtx")
    path = tmp_path / "g.npz"
    save_cache(graph, path, spec=SPEC)
    for spec in (SPEC, None):
        got = load_cache(path, spec=spec)
        assert got is not None
        assert_same_csr(got, graph)
        assert (got.name, got.source) == ("n", "src.mtx")
        assert got.normalisation == graph.normalisation
        assert got.normalisation != Normalisation()


def test_save_is_atomic_and_leaves_no_temporary(cached, connected_graph, isolated_graph):
    save_cache(isolated_graph, cached, spec="other")
    assert [p.name for p in cached.parent.iterdir()] == ["g.npz"]
    assert load_cache(cached, spec="other").n == isolated_graph.n


def test_failed_save_keeps_old_file(cached, connected_graph):
    class Broken:
        name, source, normalisation = "b", "", Normalisation()
        indptr = np.zeros(3, dtype=np.int64)
        bounds = Bounds(1, 0)

        @property
        def indices(self):
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        save_cache(Broken(), cached, spec="x")
    assert [p.name for p in cached.parent.iterdir()] == ["g.npz"]
    assert load_cache(cached, spec=SPEC).n == connected_graph.n


def test_other_spec_is_rebuilt(cached):
    assert load_cache(cached, spec="gen:test?seed=2") is None


def test_missing_file_is_rebuilt(tmp_path):
    assert load_cache(tmp_path / "absent.npz", spec=SPEC) is None


def _rewrite(path, **changes):
    with np.load(path, allow_pickle=False) as npz:
        arrays = {key: npz[key] for key in npz.files}
    arrays.update(changes)
    for key in [key for key, value in changes.items() if value is None]:
        del arrays[key]
    with open(path, "wb") as out:
        np.savez(out, **arrays)


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"format_version": np.int64(FORMAT_VERSION + 1)}, "cache format"),
        ({"format_version": np.int64(0)}, "cache format"),
        ({"indices": None}, "not a gcbench graph cache"),
        ({"normalisation_directed": None}, "not a gcbench graph cache"),
        ({"indptr": np.array([0, 1, 5], dtype=np.int64)}, "malformed"),
        ({"indptr": np.array([0, 2, 1, 3], dtype=np.int64)}, "malformed"),
        ({"indices": np.array([1, 0, 9], dtype=np.int32)}, "malformed"),
        ({"indices": np.array([1, 0, 1], dtype=np.int64)}, "malformed"),
        ({"name": np.array([object()], dtype=object)}, "not a readable npz"),
    ],
)
def test_stale_foreign_or_malformed(tmp_path, input_error, changes, fragment):
    path = tmp_path / "g.npz"
    save_cache(from_edges(3, [0], [1], name="g"), path, spec=SPEC)
    _rewrite(path, **changes)
    assert load_cache(path, spec=SPEC) is None
    with input_error(path, fragment):
        read_graph(path)


def test_foreign_npz(tmp_path, input_error):
    path = tmp_path / "foreign.npz"
    np.savez(path, a=np.arange(3))
    assert load_cache(path, spec=None) is None
    with input_error(path, "not a gcbench graph cache"):
        read_graph(path)


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty"])
def test_corrupt_file(cached, input_error, damage):
    data = bytearray(cached.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        # flip a byte inside the stored indices array: only its CRC can tell
        with zipfile.ZipFile(cached) as zf:
            info = zf.getinfo("indices.npy")
        local = info.header_offset  # local header: 30 bytes, then name and extra field
        name_len, extra_len = struct.unpack_from("<HH", data, local + 26)
        data[local + 30 + name_len + extra_len + info.file_size - 8] ^= 0xFF
    elif damage == "garbage":
        data = bytearray(b"not a zip at all" * 10)
    else:
        data = bytearray()
    cached.write_bytes(bytes(data))
    assert load_cache(cached, spec=SPEC) is None
    with input_error(cached):
        read_graph(cached)


def test_read_graph_names_by_file(cached):
    g = read_graph(cached)
    assert (g.name, g.source) == ("g", str(cached))
    assert read_graph(cached, name="custom").name == "custom"


def test_normalisation_fields_all_stored(cached):
    with np.load(cached) as npz:
        for field in dataclasses.fields(Normalisation):
            assert f"normalisation_{field.name}" in npz.files
        assert {"indptr", "indices", "name", "source", "spec", "format_version"} <= set(npz.files)


# --- the pattern cache (.pattern.npz) -------------------------------------------------------

PATTERN_SPEC = "ss:Test/m"


def _matrix(symmetric: bool = False) -> Pattern:
    """A 3 × 5 pattern (an empty row, an empty column), or the 4 × 4 pattern of a path."""
    if symmetric:
        return from_entries(4, 4, [0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2], symmetric=True)
    return from_entries(3, 5, [0, 0, 2, 2, 2], [4, 0, 1, 3, 0], source="src.mtx")


@pytest.fixture
def pattern_cache(tmp_path):
    path = tmp_path / "cache" / "m.pattern.npz"
    save_pattern_cache(_matrix(), path, spec=PATTERN_SPEC)
    return path


@pytest.mark.parametrize("symmetric", [False, True])
def test_pattern_round_trip_keeps_everything(tmp_path, symmetric):
    pattern = _matrix(symmetric)
    path = tmp_path / "m.pattern.npz"
    save_pattern_cache(pattern, path, spec=PATTERN_SPEC)
    got = load_pattern_cache(path, spec=PATTERN_SPEC)
    check_pattern(got)
    assert (got.name, got.source, got.symmetric) == (PATTERN_SPEC, pattern.source, symmetric)
    assert (got.n_rows, got.n_cols) == (pattern.n_rows, pattern.n_cols)
    np.testing.assert_array_equal(got.indptr, pattern.indptr)
    np.testing.assert_array_equal(got.indices, pattern.indices)
    assert [p.name for p in tmp_path.iterdir()] == ["m.pattern.npz"]  # no temporary left


def test_graph_and_pattern_caches_pass_each_other_by(cached, pattern_cache, input_error):
    assert load_pattern_cache(cached, spec=SPEC) is None
    with input_error(pattern_cache, "not a gcbench graph cache (no format_version"):
        read_graph(pattern_cache)


@pytest.mark.parametrize(
    "changes",
    [
        {"pattern_format": np.int64(PATTERN_FORMAT + 1)},
        {"pattern_spec": np.str_("ss:Test/other")},
        {"column_ids": None},
        {"shape": None},
        {"row_starts": np.array([0, 2, 1, 5], dtype=np.int64)},  # decreasing
        {"row_starts": np.array([0, 2, 2], dtype=np.int64)},  # a row short
        {"column_ids": np.array([0, 4, 0, 1, 5], dtype=np.int32)},  # column 5 of 5
        {"column_ids": np.array([0, 4, 0, 1, 3], dtype=np.int64)},  # wrong dtype
        {"shape": np.array([-1, 5], dtype=np.int64)},
        {"shape": np.array([3], dtype=np.int64)},
        {"symmetric": np.array([object()], dtype=object)},
    ],
)
def test_stale_foreign_or_malformed_pattern_cache_is_rebuilt(pattern_cache, changes):
    assert load_pattern_cache(pattern_cache, spec=PATTERN_SPEC) is not None
    _rewrite(pattern_cache, **changes)
    assert load_pattern_cache(pattern_cache, spec=PATTERN_SPEC) is None


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "missing"])
def test_corrupt_pattern_cache_is_rebuilt(pattern_cache, damage):
    data = pattern_cache.read_bytes()
    if damage == "missing":
        pattern_cache.unlink()
    else:
        pattern_cache.write_bytes({"truncate": data[: len(data) // 2], "garbage": b"x" * 99}
                                  .get(damage, b""))  # fmt: skip
    assert load_pattern_cache(pattern_cache, spec=PATTERN_SPEC) is None


def test_a_used_pattern_cache_is_marked_as_used(pattern_cache):
    os.utime(pattern_cache, (1_000_000, 1_000_000))
    assert load_pattern_cache(pattern_cache, spec=PATTERN_SPEC) is not None
    assert pattern_cache.stat().st_mtime > 1_000_000
    os.utime(pattern_cache, (1_000_000, 1_000_000))
    assert load_pattern_cache(pattern_cache, spec="ss:Test/other") is None
    assert pattern_cache.stat().st_mtime == 1_000_000  # not used: left as it was
