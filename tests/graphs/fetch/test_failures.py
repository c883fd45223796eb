"""Failures leave nothing in the cache and say what happened in one line."""

from __future__ import annotations

import tarfile

import pytest

from gcbench.errors import FetchError
from gcbench.graphs.fetch import load_remote


def one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text
    return text


def test_404_leaves_nothing_and_names_the_url(server, data_dir, leftovers):
    with pytest.raises(FetchError) as info:
        load_remote("ss:Test/missing", data_dir=data_dir, offline=False)
    text = one_line(info)
    assert "HTTP 404" in text and f"{server.url}/MM/Test/missing.tar.gz" in text
    assert leftovers(data_dir) == []


def test_html_page_with_status_200_is_refused(server, data_dir, leftovers):
    page = "<!DOCTYPE html><html><body>Matrix not found</body></html>"
    server.put("MM/Test/tiny.tar.gz", page)
    server.put("snap/page.txt.gz", page)
    for spec in ("ss:Test/tiny", "snap:page"):
        with pytest.raises(FetchError, match="returned an HTML page") as info:
            load_remote(spec, data_dir=data_dir, offline=False)
        one_line(info)
    assert leftovers(data_dir) == []


def test_unreachable_host_message(monkeypatch, data_dir, leftovers, closed_port):
    port = closed_port.rsplit(":", 1)[1]
    monkeypatch.setenv("GCBENCH_SUITESPARSE_URL", closed_port)
    with pytest.raises(FetchError) as info:
        load_remote("ss:Test/tiny", data_dir=data_dir, offline=False)
    assert one_line(info) == (
        f"ss:Test/tiny: cannot reach 127.0.0.1:{port} (connection refused); check the network "
        "connection, or use a local path or a gen: spec"
    )
    assert "--" not in one_line(info)  # names no option: info, color and run share it
    assert leftovers(data_dir) == []


def _link(name: str, kind: bytes, target: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def _fifo(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.FIFOTYPE
    return info


@pytest.mark.parametrize(
    "evil",
    [
        "dotdot",
        "absolute",
        "symlink",
        "hardlink",
        "fifo",
    ],
)
def test_unsafe_tarballs_are_refused(server, make, data_dir, tmp_path, leftovers, evil):
    outside = tmp_path / "outside" / "planted.txt"
    outside.parent.mkdir()
    members = {
        "dotdot": ("tiny/../../../outside/planted.txt", b"pwned"),
        "absolute": (str(outside), b"pwned"),
        "symlink": _link("tiny/escape", tarfile.SYMTYPE, str(outside.parent)),
        "hardlink": _link("tiny/escape", tarfile.LNKTYPE, "/etc/passwd"),
        "fifo": _fifo("tiny/pipe"),
    }
    good = ("tiny/tiny.mtx", make.mtx_text(make.random_matrix(10, 30, 0)))
    # the unsafe member comes after the wanted one: it must still poison the archive
    server.put("MM/Test/tiny.tar.gz", make.tarball([good, members[evil]]))
    with pytest.raises(FetchError, match="refused: member") as info:
        load_remote("ss:Test/tiny", data_dir=data_dir, offline=False)
    one_line(info)
    assert not outside.exists()
    assert list(outside.parent.iterdir()) == []
    assert leftovers(data_dir) == []


def test_truncated_tarball_is_refused(server, make, data_dir, leftovers):
    tar = make.tarball([("tiny/tiny.mtx", make.mtx_text(make.random_matrix(200, 4000, 0)))])
    server.put("MM/Test/tiny.tar.gz", tar[: len(tar) // 2])
    with pytest.raises(FetchError, match="corrupt or truncated") as info:
        load_remote("ss:Test/tiny", data_dir=data_dir, offline=False)
    one_line(info)
    assert leftovers(data_dir) == []


def test_archive_without_the_matrix_is_refused(server, make, data_dir, leftovers):
    server.put("MM/Test/tiny.tar.gz", make.tarball([("tiny/README", b"no matrix here")]))
    with pytest.raises(FetchError, match="no member tiny/tiny.mtx"):
        load_remote("ss:Test/tiny", data_dir=data_dir, offline=False)
    assert leftovers(data_dir) == []


def test_unreadable_matrix_is_a_fetch_error(server, make, data_dir, leftovers):
    server.put("MM/Test/tiny.tar.gz", make.tarball([("tiny/tiny.mtx", b"not a matrix\n")]))
    with pytest.raises(FetchError, match="cannot read it") as info:
        load_remote("ss:Test/tiny", data_dir=data_dir, offline=False)
    one_line(info)
    assert leftovers(data_dir) == []


def test_failed_refresh_keeps_the_cached_graph(server, make, data_dir):
    tar = make.tarball([("tiny/tiny.mtx", make.mtx_text(make.random_matrix(10, 30, 0)))])
    server.put("MM/Test/tiny.tar.gz", tar)
    first = load_remote("ss:Test/tiny", data_dir=data_dir, offline=False)
    server.status["/MM/Test/tiny.tar.gz"] = 404
    with pytest.raises(FetchError):
        load_remote("ss:Test/tiny", data_dir=data_dir, offline=False, refresh=True)
    kept = load_remote("ss:Test/tiny", data_dir=data_dir, offline=True)
    assert kept.m == first.m


def test_unreadable_format_is_refused_before_downloading(server, data_dir, monkeypatch):
    from gcbench.graphs.fetch import remote

    monkeypatch.setitem(remote.SNAP_FILES, "odd", remote.SnapFile("odd.zip", "edges.parquet"))
    with pytest.raises(FetchError, match="a format gcbench cannot read yet") as info:
        load_remote("snap:odd", data_dir=data_dir, offline=False)
    one_line(info)
    assert server.requests == []


def test_unwritable_cache_is_a_fetch_error_naming_the_graph(server, make, tmp_path):
    server.put("MM/Test/tiny.tar.gz", make.tarball([("tiny/tiny.mtx", b"x")]))
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("a file where the data directory should be")
    with pytest.raises(FetchError) as info:
        load_remote("ss:Test/tiny", data_dir=not_a_dir, offline=False)
    message = one_line(info)
    assert message.startswith(f"ss:Test/tiny: cannot write to the data cache {not_a_dir} (")
    assert message.endswith("free some space or set GCBENCH_DATA to another directory")
