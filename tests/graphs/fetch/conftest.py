"""A local HTTP server on 127.0.0.1 for the fetch tests, with the misbehaviours they need.

It serves files the tests create under ``server.root``, honours ``Range`` requests (206 with
``Content-Range``), counts every request, and can be told to cut a response after N bytes or
to ignore ``Range``. It runs in a thread and is shut down after each test.
"""

from __future__ import annotations

import gzip
import io
import socket
import sys
import tarfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp


@dataclass
class Server:
    root: Path
    url: str = ""
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    drop_after: dict[str, tuple[int, int]] = field(default_factory=dict)
    """path → (bytes to send before closing, how many requests to cut)."""
    ignore_range: bool = False
    status: dict[str, int] = field(default_factory=dict)
    """path → status to answer instead of the file (e.g. 503)."""
    stall: dict[str, float] = field(default_factory=dict)
    """path → seconds to wait before answering (a hung server)."""

    def count(self, path: str) -> int:
        return sum(1 for p, _ in self.requests if p == path)

    def put(self, path: str, payload: bytes | str) -> str:
        """Serve ``payload`` at ``path`` (relative to the server root); returns its URL."""
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(payload.encode() if isinstance(payload, str) else payload)
        return f"{self.url}/{path}"


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 5
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # keep pytest output clean
            pass

        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            path = self.path.split("?", 1)[0]
            rng = self.headers.get("Range")
            server.requests.append((path, rng))
            time.sleep(server.stall.get(path, 0.0))
            if path in server.status:
                self._send_status(server.status[path])
                return
            file = server.root / path.lstrip("/")
            if ".." in Path(path).parts or not file.is_file():
                self._send_status(404)
                return
            body = file.read_bytes()
            start = 0
            if rng and not server.ignore_range:
                start = int(rng.removeprefix("bytes=").split("-")[0])
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(body) - start))
            self.send_header("Content-Type", "application/octet-stream")
            self.end_headers()
            payload = body[start:]
            cut, times = server.drop_after.get(path, (None, 0))
            if cut is not None and times > 0:
                server.drop_after[path] = (cut, times - 1)
                self.wfile.write(payload[:cut])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(payload)

        def _send_status(self, code: int) -> None:
            text = f"<html><body>status {code}</body></html>".encode()
            self.send_response(code)
            self.send_header("Content-Length", str(len(text)))
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(text)

    return Handler


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        """Clients that hang up early (after an error status, say) are expected here."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture
def server(tmp_path, monkeypatch):
    """A running server; GCBENCH_SUITESPARSE_URL, GCBENCH_SNAP_URL (``/snap``) and
    GCBENCH_DIMACS_URL (``/dimacs``) point at it."""
    state = Server(root=tmp_path / "www")
    state.root.mkdir()
    httpd = _Quiet(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    monkeypatch.setenv("GCBENCH_SUITESPARSE_URL", state.url)
    monkeypatch.setenv("GCBENCH_SNAP_URL", state.url + "/snap")
    monkeypatch.setenv("GCBENCH_DIMACS_URL", state.url + "/dimacs")
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


class Make:
    """Builders for the files the tests serve (exposed through the ``make`` fixture)."""

    @staticmethod
    def random_matrix(n: int, entries: int, seed: int) -> sp.coo_matrix:
        """A directed matrix with duplicates and diagonal entries, like real collection data."""
        rng = np.random.default_rng(seed)
        rows = rng.integers(0, n, entries)
        cols = rng.integers(0, n, entries)
        rows[: n - 1], cols[: n - 1] = np.arange(n - 1), np.arange(1, n)  # every vertex used
        return sp.coo_matrix((rng.integers(1, 9, entries), (rows, cols)), shape=(n, n))

    @staticmethod
    def expected_csr(matrix: sp.coo_matrix) -> tuple[np.ndarray, np.ndarray]:
        """The oracle: pattern of A + Aᵀ without the diagonal, as sorted CSR."""
        pattern = (abs(matrix) + abs(matrix).T).tocsr()
        pattern.setdiag(0)
        pattern.eliminate_zeros()
        pattern.sort_indices()
        return pattern.indptr.astype(np.int64), pattern.indices.astype(np.int32)

    @staticmethod
    def mtx_text(matrix: sp.coo_matrix) -> bytes:
        """A SuiteSparse-style ``integer general`` Matrix Market file (1-based, values kept)."""
        lines = [
            "%%MatrixMarket matrix coordinate integer general",
            "% test matrix",
            f"{matrix.shape[0]} {matrix.shape[1]} {matrix.nnz}",
        ]
        lines += [
            f"{r + 1} {c + 1} {v}"
            for r, c, v in zip(matrix.row, matrix.col, matrix.data, strict=True)
        ]
        return ("\n".join(lines) + "\n").encode()

    @staticmethod
    def edge_list_gz(matrix: sp.coo_matrix) -> bytes:
        """A SNAP-style gzipped edge list of the matrix's entries."""
        lines = ["# Directed graph: test", "# FromNodeId\tToNodeId"]
        lines += [f"{r}\t{c}" for r, c in zip(matrix.row, matrix.col, strict=True)]
        return gzip.compress(("\n".join(lines) + "\n").encode())

    @staticmethod
    def tarball(members: list[tarfile.TarInfo | tuple[str, bytes]]) -> bytes:
        """A tar.gz of (name, bytes) files and raw TarInfo entries (links, devices, ...)."""
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            for member in members:
                if isinstance(member, tarfile.TarInfo):
                    tar.addfile(member)
                else:
                    name, payload = member
                    info = tarfile.TarInfo(name)
                    info.size = len(payload)
                    tar.addfile(info, io.BytesIO(payload))
        return buffer.getvalue()

    @staticmethod
    def ssstats(rows: list[tuple[str, str, int, int, int]]) -> str:
        """An ssstats.csv: count, date, then group,name,rows,cols,nnz,... rows."""
        body = [str(len(rows)), "31-Oct-2023 12:00:00"]
        body += [f"{g},{n},{r},{c},{z},0,1,0,0,1,1,undirected graph,{z}" for g, n, r, c, z in rows]
        return "\n".join(body) + "\n"


@pytest.fixture
def make() -> type[Make]:
    return Make


def files_under(path: Path) -> list[Path]:
    """Every file and directory left under ``path`` (empty when nothing was written)."""
    return sorted(path.rglob("*")) if path.exists() else []


@pytest.fixture
def leftovers():
    return files_under


@pytest.fixture
def closed_port() -> str:
    """``http://127.0.0.1:PORT`` where nobody listens (a port bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"
