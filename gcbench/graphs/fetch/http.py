"""gcbench's own streaming HTTP client for graph downloads (docs/architecture.md, "Downloads").

Why not ssgetpy's downloader: it sleeps 0.1 s per 4 KB chunk and saves HTTP error pages as data.
This client streams without throttling into ``<dest>.part``, checks the status and the byte count
against Content-Length, resumes a dropped connection with a ``Range`` request, retries a bounded
number of times with timeouts and backoff, and renames the file into place only when complete.
Nothing half-written survives a failure: the ``.part`` file is removed on any error.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path
from urllib.parse import urlsplit

from gcbench.errors import FetchError

CHUNK = 1 << 20
USER_AGENT = "gcbench (graph-coloring benchmark; https://pypi.org/project/gcbench)"
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


@dataclass(frozen=True)
class Policy:
    """Timeouts and retry bounds.

    ``attempts`` bounds consecutive failures that brought no new bytes (with exponential
    ``backoff`` seconds between them, capped at ``max_backoff``); ``max_resumes`` bounds the
    total number of reconnections, so no server can keep a download going forever.
    """

    timeout: float = 30.0
    attempts: int = 5
    backoff: float = 1.0
    max_backoff: float = 16.0
    max_resumes: int = 100


DEFAULT_POLICY = Policy()


def host_of(url: str) -> str:
    return urlsplit(url).netloc or url


def unreachable(url: str, reason: object) -> FetchError:
    """The one-line error for a network that cannot be reached (docs/architecture.md,
    "Downloads")."""
    return FetchError(
        f"cannot reach {host_of(url)} ({_reason_text(reason)}); check the network connection, "
        "or use a local path or a gen: spec",
        host=host_of(url),
    )


def download(
    url: str,
    dest: Path,
    *,
    progress: bool | None = None,
    policy: Policy = DEFAULT_POLICY,
) -> Path:
    """Stream ``url`` into ``dest`` (via ``dest.part``) and return ``dest``.

    ``progress`` shows a rich progress bar on stderr (None: only when stderr is a terminal).
    Raises :class:`FetchError` (one line, naming the URL) on HTTP errors, an unreachable host,
    a body shorter or longer than announced, or when the retries run out.
    """
    dest = Path(dest)
    part = dest.with_name(dest.name + ".part")
    part.unlink(missing_ok=True)
    try:
        with _progress_bar(progress, dest.name) as advance, open(part, "wb") as out:
            _stream(url, out, advance, policy)
        os.replace(part, dest)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return dest


def _stream(url: str, out, advance: Callable[[int, int | None], None], policy: Policy) -> None:
    """Fill ``out`` with the body of ``url``, resuming with Range requests after drops."""
    offset = 0
    total: int | None = None
    stalled = 0
    resumes = 0
    while True:
        headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
        if offset:
            headers["Range"] = f"bytes={offset}-"
        before = offset
        try:
            with urllib.request.urlopen(
                urllib.request.Request(url, headers=headers), timeout=policy.timeout
            ) as resp:
                start, length = _body_range(resp, url, offset)
                if start == 0 and offset:
                    out.seek(0)
                    out.truncate()
                    offset = 0
                if length is not None:
                    total = length
                advance(offset, total)
                while chunk := resp.read(CHUNK):
                    out.write(chunk)
                    offset += len(chunk)
                    advance(offset, total)
            if total is None or offset == total:
                return
            if offset > total:
                raise FetchError(
                    f"{url} sent {offset} bytes but announced {total}; try again later"
                )
            error: object = f"connection closed after {offset} of {total} bytes"
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code == 416 and offset:
                out.seek(0)
                out.truncate()
                offset, total = 0, None
                error = exc
            elif exc.code not in RETRY_STATUSES:
                raise FetchError(_http_message(url, exc)) from None
            else:
                error = exc
        except urllib.error.URLError as exc:
            if _is_unreachable(exc.reason):
                raise unreachable(url, exc.reason) from None
            error = exc.reason
        except (OSError, HTTPException) as exc:
            if _is_unreachable(exc):
                raise unreachable(url, exc) from None
            error = exc
        out.flush()
        resumes += 1
        stalled = 0 if offset > before else stalled + 1
        if stalled >= policy.attempts or resumes > policy.max_resumes:
            if isinstance(error, urllib.error.HTTPError):
                raise FetchError(_http_message(url, error, resumes))
            raise FetchError(
                f"download of {url} failed after {resumes} attempts "
                f"({_reason_text(error)}); try again later"
            )
        if stalled:
            time.sleep(min(policy.backoff * 2 ** (stalled - 1), policy.max_backoff))


def _body_range(resp, url: str, offset: int) -> tuple[int, int | None]:
    """(first byte of this body, full length or None) from a 200 or 206 response."""
    if resp.status == 206:
        match = _CONTENT_RANGE.fullmatch(resp.headers.get("Content-Range", "").strip())
        if not match or int(match.group(1)) != offset:
            raise FetchError(
                f"{url} answered a resume request with an unexpected range "
                f"({resp.headers.get('Content-Range')!r}); try again later"
            )
        return offset, None if match.group(3) == "*" else int(match.group(3))
    length = resp.headers.get("Content-Length")
    return 0, int(length) if length and length.isdigit() else None


def _http_message(url: str, exc: urllib.error.HTTPError, attempts: int = 1) -> str:
    hint = (
        "check the graph name (gcbench fetch validates it against the catalogue)"
        if exc.code == 404
        else "check the URL or try again later"
    )
    tries = f" (after {attempts} attempts)" if attempts > 1 else ""
    return f"HTTP {exc.code} {exc.reason} for {url}{tries}; {hint}"


def _is_unreachable(reason: object) -> bool:
    """DNS failures and refused connections: retrying will not help."""
    return isinstance(reason, socket.gaierror | ConnectionRefusedError) or (
        isinstance(reason, OSError) and reason.errno in {101, 113}  # ENETUNREACH, EHOSTUNREACH
    )


def _reason_text(reason: object) -> str:
    if isinstance(reason, socket.gaierror):
        return "DNS lookup failed"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, TimeoutError | socket.timeout):
        return "timed out"
    text = str(getattr(reason, "strerror", None) or reason).strip()
    return " ".join(text.split()) or type(reason).__name__


@contextlib.contextmanager
def _progress_bar(enabled: bool | None, label: str) -> Iterator[Callable[[int, int | None], None]]:
    """A rich download bar on stderr, or a no-op when disabled / not a terminal."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)
