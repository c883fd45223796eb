"""Typed errors. Every message is one line: what went wrong, with which input, what to do."""

from __future__ import annotations


class GcbenchError(Exception):
    """Base of every error gcbench raises on purpose; the CLI prints it as one line."""


class InputError(GcbenchError):
    """A graph file or spec that cannot be read as given."""


class SpecError(InputError):
    """A graph spec, algorithm name or parameter that gcbench does not know."""


class GraphTooLargeError(GcbenchError):
    """The graph does not fit the representation an algorithm needs (e.g. int32 on the GPU)."""


class GpuUnavailableError(GcbenchError):
    """No usable CUDA device or CuPy installation."""


class UnsupportedError(GcbenchError):
    """The algorithm cannot run this case (missing optional package, too many colors, ...)."""


class RoundCapError(GcbenchError):
    """An algorithm reached its round cap; the runner records ``status=timeout``.

    ``coloring`` holds what was colored when it stopped, for diagnostics.
    """

    def __init__(self, message: str, coloring: object | None = None) -> None:
        super().__init__(message)
        self.coloring = coloring


class FetchError(GcbenchError):
    """A download or catalogue look-up that failed."""
