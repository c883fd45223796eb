"""``gcbench merge A.csv B.csv ... --out all.csv``: join the results of shards (``--shard K/N``)
or of any runs that split a benchmark between them into one results CSV.

Refused, with one line saying which files and what to do: files whose columns differ (written
by different schemas), rows of different ``schema_version`` values, a repetition key
(graph, algorithm, params, block_size, rep) present twice (overlapping shards, or a file given
twice), a last line cut short by a killed run, and an output file that already has content.
Rows are copied as they are (text for text), file by file, in order; the output is written
to a temporary name and renamed into place, so a failed merge leaves nothing behind.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from pathlib import Path

from gcbench.bench.results import KEY_COLUMNS
from gcbench.errors import InputError
from gcbench.outputs import require_parent

VERSION_COLUMN = "schema_version"


def merge(paths: Sequence[Path | str], out: Path | str) -> int:
    """Merge the results CSVs ``paths`` into ``out``; returns the number of rows written."""
    out = Path(out)
    if out.exists() and out.stat().st_size:
        raise InputError(f"--out {out} already exists; merge into a new file")
    inputs = [Path(p) for p in paths]
    if not inputs:
        raise InputError("merge: give the results CSVs to join")
    if any(p.resolve() == out.resolve() for p in inputs):
        raise InputError(f"--out {out} is also an input; merge into a new file")
    header: list[str] | None = None
    seen: dict[tuple[str, ...], str] = {}
    rows: list[list[str]] = []
    versions: dict[str, str] = {}
    for path in inputs:
        fields, body = _read(path)
        if header is None:
            header = fields
        elif fields != header:
            raise InputError(_schema_message(path, fields, inputs[0], header))
        named = [c for c in KEY_COLUMNS if c in header]  # a file before v5 has no problem
        keys = [header.index(c) for c in named]
        version = header.index(VERSION_COLUMN) if VERSION_COLUMN in header else None
        for line, row in body:
            where = f"{path} line {line}"
            if len(row) != len(header):
                raise InputError(f"{where} has {len(row)} fields, the header {len(header)}")
            key = tuple(row[i] for i in keys)
            if key in seen:
                case = ", ".join(f"{c}={v}" for c, v in zip(named, key, strict=True))
                raise InputError(
                    f"{where} and {seen[key]} hold the same repetition ({case}); the files "
                    "overlap (the same shard run twice, or a file given twice?)"
                )
            seen[key] = where
            if version is not None:
                versions.setdefault(row[version], where)
                if len(versions) > 1:
                    (a, first), (b, second) = list(versions.items())[:2]
                    raise InputError(
                        f"{first} has schema_version {a} but {second} has {b}; merge only "
                        "files of one schema version"
                    )
            rows.append(row)
    assert header is not None
    _write(out, header, rows)
    return len(rows)


def _read(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the numbered rows of one results CSV, checked to be complete."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - 1))
        complete = size == 0 or handle.read(1) == b"\n"
    if not complete:
        raise InputError(
            f"{path}: its last line is cut short (a killed run); finish it with "
            f"gcbench run ... --resume {path}, then merge"
        )
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        fields = next(reader, None)
        missing = [c for c in KEY_COLUMNS if c != "problem" and (fields is None or c not in fields)]
        if fields is None or missing:
            raise InputError(f"{path}: not a gcbench results file (no {', '.join(missing)} column)")
        return fields, [(reader.line_num, row) for row in reader]


def _schema_message(path: Path, fields: list[str], first: Path, header: list[str]) -> str:
    only_here = [c for c in fields if c not in header]
    only_first = [c for c in header if c not in fields]
    if only_here or only_first:
        what = "; ".join(
            filter(
                None,
                [
                    only_here and f"only {path} has {', '.join(only_here)}",
                    only_first and f"only {first} has {', '.join(only_first)}",
                ],
            )
        )
    else:
        what = "the same columns in another order"
    return (
        f"{path} and {first} have different columns ({what}): written by different gcbench "
        "schemas; merge only files of one schema"
    )


def _write(out: Path, header: list[str], rows: list[list[str]]) -> None:
    require_parent(out)
    temporary = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
        os.replace(temporary, out)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
