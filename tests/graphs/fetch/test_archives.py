"""SNAP graphs published inside archives: the member is found, and unsafe zips are refused."""

from __future__ import annotations

import gzip
import io
import stat
import zipfile

import numpy as np
import pytest

from gcbench.errors import FetchError
from gcbench.graphs.fetch import load_remote, remote


def zipped(members: dict[str, bytes], links: tuple[str, ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, payload in members.items():
            zf.writestr(name, payload)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return buffer.getvalue()


@pytest.fixture
def archive_entries(monkeypatch):
    monkeypatch.setitem(remote.SNAP_FILES, "zipped", remote.SnapFile("zipped.zip", "edges.txt"))
    monkeypatch.setitem(remote.SNAP_FILES, "tarred", remote.SnapFile("t.tar.gz", "edges.txt"))


def test_member_of_a_zip_is_read(server, make, data_dir, archive_entries, leftovers):
    matrix = make.random_matrix(40, 150, 4)
    text = make.edge_list_gz(matrix)
    server.put(
        "snap/zipped.zip", zipped({"data/README": b"hi", "data/edges.txt": gzip.decompress(text)})
    )
    graph = load_remote("snap:zipped", data_dir=data_dir, offline=False)
    indptr, indices = make.expected_csr(matrix)
    np.testing.assert_array_equal(graph.indptr, indptr)
    np.testing.assert_array_equal(graph.indices, indices)
    assert [p.name for p in leftovers(data_dir) if p.is_file()] == ["zipped.npz"]


def test_member_of_a_tarball_is_found_by_base_name(server, make, data_dir, archive_entries):
    matrix = make.random_matrix(20, 60, 5)
    body = gzip.decompress(make.edge_list_gz(matrix))
    server.put("snap/t.tar.gz", make.tarball([("deep/dir/edges.txt", body)]))
    graph = load_remote("snap:tarred", data_dir=data_dir, offline=False)
    np.testing.assert_array_equal(graph.indices, make.expected_csr(matrix)[1])


@pytest.mark.parametrize("evil", ["../edges.txt", "/abs/edges.txt", "link"])
def test_unsafe_zip_is_refused(server, data_dir, archive_entries, leftovers, evil):
    members = {"edges.txt": b"0 1\n"}
    links: tuple[str, ...] = ()
    if evil == "link":
        links = ("data/link",)
    else:
        members[evil] = b"0 1\n"
    server.put("snap/zipped.zip", zipped(members, links))
    with pytest.raises(FetchError, match="refused: member"):
        load_remote("snap:zipped", data_dir=data_dir, offline=False)
    assert leftovers(data_dir) == []
