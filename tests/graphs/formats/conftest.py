"""Fixtures shared by the format tests: small graphs and a checker for one-line input errors."""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import numpy as np
import pytest

from gcbench.errors import InputError
from gcbench.graphs.graph import Graph, from_edges


@pytest.fixture
def connected_graph() -> Graph:
    """60 vertices, random edges plus a Hamiltonian path (so no vertex is isolated)."""
    rng = np.random.default_rng(7)
    n = 60
    path = np.arange(n - 1)
    rows = np.concatenate((rng.integers(0, n, 300), path))
    cols = np.concatenate((rng.integers(0, n, 300), path + 1))
    return from_edges(n, rows, cols, name="connected")


@pytest.fixture
def isolated_graph() -> Graph:
    """Vertices 3 and 7 have no edges: formats that keep ids must keep them."""
    rows = np.array([0, 0, 1, 4, 5, 2])
    cols = np.array([1, 2, 2, 5, 6, 6])
    return from_edges(8, rows, cols, name="isolated")


@pytest.fixture
def write_file(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write text to tmp_path/name, gzip-compressed when the name ends in .gz."""

    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        data = text.encode()
        path.write_bytes(gzip.compress(data) if name.lower().endswith(".gz") else data)
        return path

    return write


@pytest.fixture
def input_error() -> Callable[..., AbstractContextManager[pytest.ExceptionInfo[InputError]]]:
    """``with input_error(path, "fragment"):`` expects a one-line InputError naming ``path``."""

    @contextmanager
    def expect(path: Path, fragment: str = "") -> Iterator[pytest.ExceptionInfo[InputError]]:
        with pytest.raises(InputError) as info:
            yield info
        message = str(info.value)
        assert str(path) in message
        assert "\n" not in message
        assert fragment in message

    return expect


@pytest.fixture
def assert_same_csr() -> Callable[[Graph, Graph], None]:
    """Assert two graphs have identical CSR arrays (values and dtypes)."""

    def check(got: Graph, want: Graph) -> None:
        assert got.indptr.dtype == np.int64 and got.indices.dtype == np.int32
        np.testing.assert_array_equal(got.indptr, want.indptr)
        np.testing.assert_array_equal(got.indices, want.indices)

    return check
