"""Typed errors. Every message is one line: what went wrong, with which input, what to do."""

from __future__ import annotations


class GcbenchError(Exception):
    """Base of every error gcbench raises on purpose; the CLI prints it as one line."""


class InputError(GcbenchError):
    """A graph file or spec that cannot be read as given."""


class SpecError(InputError):
    """A graph spec, algorithm name or parameter that gcbench does not know."""


class MatrixInputError(SpecError):
    """A matrix given where a graph is needed (a matrix family, a rectangular matrix file):
    the partial distance-2 problems take it. ``what`` is the message without its remedy, for
    a command that offers its own (``gcbench info SPEC --problem pd2``)."""

    def __init__(self, what: str, remedy: str = "color it with --problem pd2 or pd2-rows"):
        super().__init__(f"{what}: {remedy}")
        self.what = what


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
    """A download or catalogue look-up that failed.

    ``cause`` is the message without the graph it concerned, the same text for every graph
    that failed the same way (``gcbench fetch`` prints it once with the graphs it hit);
    ``host`` is set when that host could not be reached at all (a batch then stops asking it).
    """

    def __init__(self, message: str, *, cause: str | None = None, host: str | None = None):
        super().__init__(message)
        self.cause = cause or message
        self.host = host

    def for_graph(self, spec: str) -> FetchError:
        """This error naming ``spec`` first (itself when it does already)."""
        if str(self).startswith(spec):
            return self
        return FetchError(f"{spec}: {self}", cause=self.cause, host=self.host)


class OutputError(GcbenchError):
    """A file or directory gcbench was asked to write and cannot (a missing or read-only
    directory, a full disk): one line naming the file and the system's reason."""


def os_reason(exc: OSError, path: object = None) -> str:
    """An OSError in words for a message: the system's reason, and the file it concerns when
    that is not ``path`` (``No such file or directory (/proc/nope)``)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    where = exc.filename
    if where is None or str(where) == str(path):
        return reason
    return f"{reason} ({where})"


class InsufficientMemoryError(GcbenchError, MemoryError):
    """Not enough host or GPU memory for what was asked (estimated before allocating, or a
    MemoryError caught on the way). A MemoryError too, so the runner records ``status=oom``."""


EXCERPT_CHARS = 40


def excerpt(data: bytes | str, limit: int = EXCERPT_CHARS) -> str:
    """A short, quoted, ASCII-only rendering of bad input for an error message.

    At most ``limit`` characters of ``data`` are shown, with control and non-ASCII characters
    escaped as in ``repr`` (``'\\x00\\xff...'``), so binary junk never reaches a terminal.
    """
    text = data.decode("latin-1") if isinstance(data, bytes) else data
    text = text.strip()
    return ascii(text[:limit]) + ("..." if len(text) > limit else "")


def shown(text: str, limit: int | None = 120) -> str:
    """``text`` as it is when it is printable ASCII no longer than ``limit`` (a spec, a
    value; None: any length, for a command line quoted whole), else its :func:`excerpt`:
    user input is echoed in messages, junk never is."""
    short = limit is None or len(text) <= limit
    if short and text.isascii() and text.isprintable():
        return text
    return excerpt(text, EXCERPT_CHARS)
