"""The streaming client: resume after a dropped connection, retries, and their bounds."""

from __future__ import annotations

import os

import numpy as np
import pytest

from gcbench.errors import FetchError
from gcbench.graphs.fetch import http, load_remote

FAST = http.Policy(timeout=5.0, attempts=3, backoff=0.01, max_backoff=0.02, max_resumes=10)


@pytest.fixture
def payload(server):
    body = os.urandom(300_000)
    server.put("blob.bin", body)
    return body


def test_dropped_connection_is_resumed_with_range(server, payload, tmp_path):
    server.drop_after["/blob.bin"] = (100_000, 1)
    dest = http.download(f"{server.url}/blob.bin", tmp_path / "blob.bin", policy=FAST)
    assert dest.read_bytes() == payload
    assert server.requests == [("/blob.bin", None), ("/blob.bin", "bytes=100000-")]
    assert not (tmp_path / "blob.bin.part").exists()


def test_repeated_drops_each_resume_from_the_right_byte(server, payload, tmp_path):
    server.drop_after["/blob.bin"] = (70_000, 3)
    dest = http.download(f"{server.url}/blob.bin", tmp_path / "blob.bin", policy=FAST)
    assert dest.read_bytes() == payload
    ranges = [r for _, r in server.requests]
    assert ranges == [None, "bytes=70000-", "bytes=140000-", "bytes=210000-"]


def test_server_ignoring_range_restarts_from_zero(server, payload, tmp_path):
    server.drop_after["/blob.bin"] = (100_000, 1)
    server.ignore_range = True
    dest = http.download(f"{server.url}/blob.bin", tmp_path / "blob.bin", policy=FAST)
    assert dest.read_bytes() == payload
    assert len(server.requests) == 2


def test_drops_that_never_end_give_up_and_leave_nothing(server, payload, tmp_path):
    server.drop_after["/blob.bin"] = (0, 1000)
    with pytest.raises(FetchError, match=r"failed after 3 attempts \(connection closed"):
        http.download(f"{server.url}/blob.bin", tmp_path / "blob.bin", policy=FAST)
    assert len(server.requests) == 3
    assert list(tmp_path.glob("blob.bin*")) == []


def test_resumes_are_bounded_even_when_each_makes_progress(server, payload, tmp_path):
    server.drop_after["/blob.bin"] = (1000, 1000)
    with pytest.raises(FetchError, match="failed after 11 attempts"):
        http.download(f"{server.url}/blob.bin", tmp_path / "blob.bin", policy=FAST)
    assert list(tmp_path.glob("blob.bin*")) == []


def test_server_errors_are_retried_then_reported(server, tmp_path):
    server.status["/busy"] = 503
    with pytest.raises(FetchError, match=r"HTTP 503 .*/busy \(after 3 attempts\)"):
        http.download(f"{server.url}/busy", tmp_path / "busy", policy=FAST)
    assert server.count("/busy") == 3


def test_client_errors_are_not_retried(server, tmp_path):
    server.status["/gone"] = 410
    with pytest.raises(FetchError, match=r"HTTP 410 .*/gone"):
        http.download(f"{server.url}/gone", tmp_path / "gone", policy=FAST)
    assert server.count("/gone") == 1


def test_a_hung_server_times_out(server, tmp_path):
    server.stall["/slow"] = 1.0
    policy = http.Policy(timeout=0.2, attempts=2, backoff=0.01)
    with pytest.raises(FetchError, match=r"failed after 2 attempts \(timed out\)"):
        http.download(f"{server.url}/slow", tmp_path / "slow", policy=policy)
    assert list(tmp_path.glob("slow*")) == []


def test_load_remote_resumes_a_dropped_tarball(server, make, data_dir):
    matrix = make.random_matrix(300, 20_000, 3)
    tar = make.tarball([("tiny/tiny.mtx", make.mtx_text(matrix))])
    server.put("MM/Test/tiny.tar.gz", tar)
    server.drop_after["/MM/Test/tiny.tar.gz"] = (len(tar) // 3, 1)
    graph = load_remote("ss:Test/tiny", data_dir=data_dir, offline=False)
    assert server.requests[1] == ("/MM/Test/tiny.tar.gz", f"bytes={len(tar) // 3}-")
    indptr, indices = make.expected_csr(matrix)
    np.testing.assert_array_equal(graph.indptr, indptr)
    np.testing.assert_array_equal(graph.indices, indices)
