"""The .npz CSR cache: round trip, atomic writes, and never trusting a bad file."""

from __future__ import annotations

import dataclasses
import struct
import zipfile

import numpy as np
import pytest

from gcbench.graphs.bounds import Bounds
from gcbench.graphs.formats import FORMAT_VERSION, load_cache, read_graph, save_cache
from gcbench.graphs.graph import Normalisation, from_edges

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
