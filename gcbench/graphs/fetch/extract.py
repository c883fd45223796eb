"""Safe archive handling for downloads (docs/architecture.md, "Downloads"): the tar
path-traversal class of bugs.

Every member of an archive is checked before anything is written: absolute paths, ``..``
components, symbolic and hard links, devices and fifos make the whole archive refused (an
archive that carries one is not trusted for its other members either). Only the one member
gcbench needs is written, under its base name, into a directory the caller owns (a temporary
directory inside the cache that is removed whatever happens).
"""

from __future__ import annotations

import shutil
import stat
import tarfile
import zipfile
from pathlib import Path, PurePosixPath, PureWindowsPath

from gcbench.errors import FetchError

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"


def sniff(path: Path) -> str:
    """``"gzip"``, ``"zip"``, ``"html"`` or ``"unknown"`` from the first bytes of a file."""
    with open(path, "rb") as f:
        head = f.read(512)
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(ZIP_MAGIC):
        return "zip"
    text = head.lstrip().lower()
    if text.startswith((b"<!doctype", b"<html", b"<?xml", b"<head", b"<body")):
        return "html"
    return "unknown"


def require(path: Path, expected: str, url: str) -> None:
    """Refuse a body that is not ``expected`` (e.g. an error page served with status 200)."""
    found = sniff(path)
    if found != expected:
        raise _wrong_type(url, found, expected)


def require_plain(path: Path, url: str) -> None:
    """Refuse an HTML page where a plain (uncompressed, unarchived) graph file is expected; the
    reader judges the rest."""
    found = sniff(path)
    if found == "html":
        raise _wrong_type(url, found, "graph")


def _wrong_type(url: str, found: str, expected: str) -> FetchError:
    what = "an HTML page" if found == "html" else "data that is not " + expected
    return FetchError(
        f"{url} returned {what} instead of a {expected} file (an error page from the server "
        "or a proxy?); check the name and the base URL"
    )


def extract_member(archive: Path, wanted: str, dest_dir: Path, *, url: str) -> Path:
    """Check every member of the tar.gz or zip ``archive`` and write ``wanted`` into ``dest_dir``.

    ``wanted`` is a relative path inside the archive, or a bare file name matched anywhere.

    Returns the path written (``dest_dir / basename(wanted)``). Raises :class:`FetchError` if
    any member is unsafe, if the archive is corrupt, or if ``wanted`` is missing.
    """
    kind = sniff(archive)
    if kind not in ("gzip", "zip"):
        raise _wrong_type(url, kind, "gzip or zip")
    target = Path(dest_dir) / PurePosixPath(wanted).name
    extract = _extract_tar if kind == "gzip" else _extract_zip
    try:
        found = extract(archive, wanted, target, url)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
        target.unlink(missing_ok=True)
        raise FetchError(f"archive from {url} is corrupt or truncated ({exc}); try again") from None
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    if not found:
        raise FetchError(f"archive from {url} has no member {wanted}; check the name")
    return target


def unsafe_reason(name: str) -> str | None:
    """Why a member name must not be extracted, or None when it is a plain relative path."""
    if not name or "\x00" in name:
        return "an empty or NUL-containing name"
    if name.startswith(("/", "\\")) or PureWindowsPath(name).drive:
        return "an absolute path"
    if ".." in PurePosixPath(name.replace("\\", "/")).parts:
        return "a '..' component"
    return None


def _refuse(url: str, name: str, reason: str) -> FetchError:
    return FetchError(
        f"archive from {url} refused: member {name!r} is {reason}; nothing was extracted"
    )


def _extract_tar(archive: Path, wanted: str, target: Path, url: str) -> bool:
    found = False
    with tarfile.open(archive, mode="r|gz") as tar:
        for member in tar:
            reason = unsafe_reason(member.name)
            if reason is None and (member.issym() or member.islnk()):
                reason = f"a link (to {member.linkname!r})"
            elif reason is None and not (member.isfile() or member.isdir()):
                reason = "a device, fifo or other special file"
            if reason:
                raise _refuse(url, member.name, reason)
            if member.isfile() and _same(member.name, wanted):
                source = tar.extractfile(member)
                with source, open(target, "xb") as out:
                    shutil.copyfileobj(source, out, 1 << 20)
                found = True
    return found


def _extract_zip(archive: Path, wanted: str, target: Path, url: str) -> bool:
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        for info in infos:
            reason = unsafe_reason(info.filename)
            kind = stat.S_IFMT(info.external_attr >> 16)  # 0: no Unix type recorded
            if reason is None and kind == stat.S_IFLNK:
                reason = "a link"
            elif reason is None and kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                reason = "a device, fifo or other special file"
            if reason:
                raise _refuse(url, info.filename, reason)
        for info in infos:
            if not info.is_dir() and _same(info.filename, wanted):
                with zf.open(info) as source, open(target, "xb") as out:
                    shutil.copyfileobj(source, out, 1 << 20)
                return True
    return False


def _same(name: str, wanted: str) -> bool:
    """Exact relative path, or the base name alone when ``wanted`` names no directory."""
    path = PurePosixPath(name)
    return path == PurePosixPath(wanted) or ("/" not in wanted and path.name == wanted)
