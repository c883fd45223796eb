"""Files a command writes on request (``--out``): opened before the work that fills them, so
an unwritable place is refused before anything runs, and renamed into place only when
complete, so a failure leaves nothing behind (issue 14). Failures are one-line OutputErrors.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

import numpy as np

from gcbench.errors import OutputError, os_reason

_LINES_PER_WRITE = 1 << 20


@contextmanager
def replaced(path: Path) -> Iterator[Path]:
    """A temporary name beside ``path`` to write to; renamed to ``path`` when the block ends
    normally, removed otherwise (an interrupt included): ``path`` is whole or untouched."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        yield temporary
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def require_parent(path: Path, option: str = "--out") -> None:
    """Refuse, in one line, a path whose directory does not exist: an ``--out`` never creates
    directories above what it names (``--out /nonexistent/dir/x.csv`` once made
    ``/nonexistent/dir`` at the root; issue 32, docs/cli.md)."""
    parent = Path(path).parent
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise OutputError(f"{option} {path}: {parent} {what}; create it first, or pick another")


def make_parent(path: Path, what: str) -> None:
    """Create the directory ``path`` goes in (and its parents), or say in one line why not."""
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OutputError(f"cannot write {what} {path}: {parent} is not a directory")
            break
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot write {what} {path}: {os_reason(exc, path)}") from None


class OutputFile:
    """A text file written beside ``path`` and renamed to it on :meth:`commit`; used as a
    context manager it commits when the block ends normally and is removed otherwise.
    ``what`` names it in messages ("the colors file")."""

    def __init__(self, path: Path | str, what: str) -> None:
        self.path = Path(path)
        self.what = what
        if self.path.is_dir():
            raise OutputError(f"cannot write {what} {self.path}: it is a directory")
        self._temporary = self.path.with_name(
            f".{self.path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        )
        try:
            self._file = open(self._temporary, "x", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise self._error(exc) from None

    def write(self, text: str) -> None:
        try:
            self._file.write(text)
        except OSError as exc:
            raise self._error(exc) from None

    def write_lines(self, values: Iterable[object] | np.ndarray) -> None:
        """One value per line (an array is written in slices, never as one big string)."""
        array = np.asarray(values)
        for start in range(0, len(array), _LINES_PER_WRITE):
            chunk = array[start : start + _LINES_PER_WRITE]
            self.write("".join(f"{v}\n" for v in chunk.tolist()))

    def commit(self) -> None:
        try:
            self._file.close()
            os.replace(self._temporary, self.path)
        except OSError as exc:
            self.discard()
            raise self._error(exc) from None

    def discard(self) -> None:
        self._file.close()
        self._temporary.unlink(missing_ok=True)

    def __enter__(self) -> OutputFile:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()

    def _error(self, exc: OSError) -> OutputError:
        return OutputError(
            f"cannot write {self.what} {self.path}: {os_reason(exc, self._temporary)}"
        )
