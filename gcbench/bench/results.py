"""The result row schema (docs/architecture.md, "CSV schema"): the only module that knows the
CSV columns.

It captures the environment columns (host side here, GPU side in the worker through
:func:`device_columns`), formats rows, and appends them to the CSV one flushed line at a
time, so an interrupted run always leaves a file that parses and can be resumed.
"""

from __future__ import annotations

import csv
import io
import math
import os
import shlex
import socket
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gcbench import stats
from gcbench.errors import InputError, OutputError, os_reason
from gcbench.grammar import DEFAULT_PROBLEM, parse_param_string, varying_keys
from gcbench.outputs import make_parent, replaced

if TYPE_CHECKING:
    from gcbench.algorithms.execute import Repetition

SCHEMA_VERSION = 6

# Every coloring's class balance (gcbench/algorithms/validation.py, docs/balance-levels.md).
BALANCE_COLUMNS: tuple[str, ...] = ("min_class", "max_class", "class_cv")
CLASS_SIZE_SERIES = "class_size"  # trace series: class sizes, largest first (not per round)
# What ``--metrics levels`` adds to a row (gcbench/algorithms/levels.py, docs/balance-levels.md).
LEVEL_COLUMNS: tuple[str, ...] = (
    "levels_natural", "levels_colored", "trsv_natural_ms", "trsv_colored_ms",
)  # fmt: skip

# What each repetition ran under (schema v3, docs/statistics.md): the GPU's throttle reasons
# (NVML, empty when none), the host's round trip to the GPU in µs, the 1-minute load over the
# usable cores, the CPU time the process got over wall time × its threads (CPU rows), the
# share of the repetition its threads waited for a CPU, and the flags of FLAGS the row or its
# case earned.
CONDITION_COLUMNS: tuple[str, ...] = (
    "throttle", "round_trip_us", "load_avg", "cpu_util", "cpu_wait", "flags",
)  # fmt: skip
# What the graph allows (schema v4, docs/architecture.md, "The graph"): the size of a clique
# found by a bounded greedy search (a lower bound on the chromatic number χ), the graph's
# degeneracy (the degeneracy-order greedy uses at most one more color), and the χ its source
# publishes (empty when it publishes none).
BOUND_COLUMNS: tuple[str, ...] = ("chi_lower", "degeneracy", "chi_known")
# The problem a row solved (schema v5, docs/distance2.md): d1, d2, pd2 or pd2-rows; the rows
# (nets) of the matrix a distance-2 row colored the columns of (empty for d1); whether the
# compressed product B = J·S of its seed matrix recovered every nonzero (empty for d1).
PROBLEM_COLUMNS: tuple[str, ...] = ("problem", "nets", "recovered")
# How much of a GPU repetition was the host (schema v6, docs/architecture.md, "Timing
# protocol"): the blocking reads the host made during the timed call, and the time the device
# spent on the call's work (time_ms less the device's idle time those reads caused); empty on
# CPU rows.
HOST_COLUMNS: tuple[str, ...] = ("host_syncs", "device_ms")
# Flags, in the order a row lists them: the GPU slowed itself (throttled), another process
# took CPU time the case wanted or ran on its GPU (contended), the case's repetitions trend
# (drift), its interval stayed wider than --noise (noisy), its runs outlasted --case-time
# before it had an interval (capped); these make its times suspect. Milder: its interval is
# wider than --noise but within the harness's own resolution (floor), its timed calls waited
# for the device, so its times move with the host's speed (host: docs/statistics.md).
SUSPECT_FLAGS: tuple[str, ...] = ("throttled", "contended", "drift", "noisy", "capped")
FLAGS: tuple[str, ...] = (*SUSPECT_FLAGS, "floor", "host")
FLOOR_CAUSE = (
    "stopped at their noise floor: their median's interval is wider than --noise but within "
    "what the harness can resolve (one host round trip where their calls wait for the device)"
)
HOST_CAUSE = (
    "waited for the device inside their timed calls (blocking reads: column host_syncs), so "
    "their times move with the host's speed from run to run (column round_trip_us)"
)


def is_suspect(flags: str) -> bool:
    """Whether a ";"-joined flag list makes its times suspect (any flag but ``floor`` and
    ``host``)."""
    return any(flag in SUSPECT_FLAGS for flag in flags.split(";"))


# Schema v1's columns, then the ones each schema version added at the end (docs/architecture.md,
# "CSV schema").
COLUMNS: tuple[str, ...] = (
    "run_id", "timestamp", "gcbench_version", "git_commit", "host",
    "device", "device_name", "driver_version", "cuda_runtime", "cupy_version",
    "graph", "n", "m", "max_degree", "avg_degree",
    "algorithm", "backend", "params", "block_size", "rep",
    "status", "error",
    "time_ms", "transfer_ms", "total_ms",
    "iterations", "colors", "max_color", "conflicts", "uncolored",
    # v2 (docs/runner.md)
    "setup_ms", "count_setup", "compute_capability", "sm_clock_mhz", "command",
    "gpu_index",  # the GPU of the worker that ran the row; empty on a CPU run
    *BALANCE_COLUMNS,  # color-class balance (docs/balance-levels.md)
    *LEVEL_COLUMNS,  # --metrics levels; empty without it
    # v3: what each repetition ran under (docs/statistics.md)
    *CONDITION_COLUMNS,
    # v4: what the graph allows (docs/architecture.md, "The graph")
    *BOUND_COLUMNS,
    # v5: the problem (docs/distance2.md)
    *PROBLEM_COLUMNS,
    # v6: how much of a GPU repetition was the host (docs/architecture.md, "Timing protocol")
    *HOST_COLUMNS,
    "schema_version",
)  # fmt: skip
# The columns of each earlier schema, for the files they wrote (read by report and compare).
COLUMNS_V5: tuple[str, ...] = tuple(c for c in COLUMNS if c not in HOST_COLUMNS)
COLUMNS_V4: tuple[str, ...] = tuple(c for c in COLUMNS_V5 if c not in PROBLEM_COLUMNS)
COLUMNS_V3: tuple[str, ...] = tuple(c for c in COLUMNS_V4 if c not in BOUND_COLUMNS)
COLUMNS_V2: tuple[str, ...] = tuple(c for c in COLUMNS_V3 if c not in CONDITION_COLUMNS)
COLUMNS_V1: tuple[str, ...] = COLUMNS[: COLUMNS.index("setup_ms")]

STATUSES: tuple[str, ...] = ("ok", "invalid", "error", "timeout", "oom", "unsupported")
# Every status but ok is a failure: `gcbench run` exits 1 when any row has one (docs/cli.md).
FAILING: frozenset[str] = frozenset(STATUSES) - {"ok"}
FAILURE_LINES = 20  # at most this many lines summarise the failures at the end of a run
_ERROR_CHARS = 160

TRACE_COLUMNS: tuple[str, ...] = (
    "run_id", "graph", "problem", "algorithm", "params", "block_size", "rep", "round", "series",
    "active",
)  # fmt: skip

KEY_COLUMNS: tuple[str, ...] = ("graph", "problem", "algorithm", "params", "block_size", "rep")
DEVICE_COLUMNS: tuple[str, ...] = (
    "device_name", "driver_version", "cuda_runtime", "cupy_version", "compute_capability",
)  # fmt: skip

Key = tuple[str, ...]


@dataclass(frozen=True)
class Environment:
    """The columns that are the same for every row of one run."""

    run_id: str
    gcbench_version: str
    git_commit: str
    host: str
    command: str

    def columns(self) -> dict[str, str | int]:
        return {
            "run_id": self.run_id,
            "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "gcbench_version": self.gcbench_version,
            "git_commit": self.git_commit,
            "host": self.host,
            "command": self.command,
            "schema_version": SCHEMA_VERSION,
        }


def capture_environment(command: str | None = None) -> Environment:
    """A fresh run id plus version, source commit, host name and the command that ran
    (default: this process's command line), host side only."""
    from gcbench._version import __version__

    return Environment(
        uuid.uuid4().hex,
        __version__,
        git_commit(),
        socket.gethostname(),
        command if command is not None else shlex.join(sys.argv),
    )


def git_commit(root: Path | None = None) -> str:
    """``git rev-parse HEAD`` of the source tree gcbench runs from (``root``), with "+dirty"
    when tracked files differ from that commit (the rows were then not made by it), "" if
    not a checkout."""
    root = root or Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return ""

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10
        )

    try:
        head = git("rev-parse", "HEAD")
        if head.returncode:
            return ""
        changed = git("diff", "--quiet", "HEAD", "--").returncode
    except (OSError, subprocess.SubprocessError):
        return ""
    return head.stdout.strip() + ("+dirty" if changed else "")


def device_columns(backend: str) -> dict[str, str]:
    """``device`` and the GPU's facts (empty for CPU rows); called in the worker, where
    CUDA may be initialised."""
    from gcbench.algorithms import devices

    return {"device": backend, **dict.fromkeys(DEVICE_COLUMNS, ""),
            **devices.get(backend).facts()}  # fmt: skip


def repetition_fields(
    run: Repetition, *, rep: int, transfer_ms: float, count_setup: bool
) -> dict[str, Any]:
    """The measured columns of one repetition (:class:`gcbench.algorithms.execute.Repetition`,
    what ``execute.measure`` and ``execute.repetitions`` give): its status, times, counts,
    class balance, conditions and how much of it was the host (``host_syncs``, ``device_ms``,
    as the timing protocol set them on its Coloring: None, an empty cell, on the CPU).
    ``transfer_ms`` is the graph's upload; the copy back is added. ``total_ms`` adds the
    setup outside the timed call (none with ``count_setup``). An ``auto`` row records the
    choice it made in ``params``."""
    from gcbench.grammar import canonical_params

    v = run.validation
    transfer = transfer_ms + run.copy_ms
    outside = 0.0 if count_setup else run.setup_ms  # else inside time_ms
    fields: dict[str, Any] = {
        **run.conditions,
        "rep": rep,
        "status": "ok" if v.valid else "invalid",
        "error": "" if v.valid else f"{v.conflicts} conflicts, {v.uncolored} uncolored",
        "time_ms": run.time_ms,
        "setup_ms": run.setup_ms,
        "transfer_ms": transfer,
        "total_ms": run.time_ms + transfer + outside,
        "iterations": run.coloring.iterations,
        "colors": v.colors,
        "max_color": v.max_color,
        "conflicts": v.conflicts,
        "uncolored": v.uncolored,
        "min_class": v.min_class,
        "max_class": v.max_class,
        "class_cv": v.class_cv,
        "count_setup": count_setup,
        "recovered": v.recovered,
        "host_syncs": run.coloring.host_syncs,
        "device_ms": run.coloring.device_ms,
    }
    if run.coloring.params is not None:  # auto: the choice it made
        fields["params"] = canonical_params(run.coloring.params)
    return fields


def format_value(value: Any) -> str:
    """CSV text of one value: "" for None, the shortest round-tripping text for floats."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def row_key(row: Mapping[str, Any]) -> Key:
    """(graph, problem, algorithm, params, block_size, rep) as CSV text: what --resume skips
    (a row without a problem, which only an old schema writes, solved d1). The
    params are those the case asked for (without the choice an ``auto`` row records)."""
    from gcbench.grammar import requested_params

    def text(column: str) -> str:
        value = format_value(row.get(column))
        if column == "params":
            return requested_params(value)
        return value or DEFAULT_PROBLEM if column == "problem" else value

    return tuple(text(c) for c in KEY_COLUMNS)


class Failures:
    """Rows that are not ok, grouped by (graph, algorithm with its problem when not d1, status)
    in the order first met:
    how many rows each group has and the first line of its first error (``gcbench run``
    prints them at the end, so a run says why without opening the CSV)."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str, str], tuple[int, str]] = {}
        self.unloaded: dict[str, str] = {}  # graph -> why it did not load

    def add(self, row: Mapping[str, Any], *, loaded: bool = True) -> None:
        """Count ``row``; ``loaded=False``: its graph never loaded (that graph's failure is
        said once, :meth:`load_lines`, rather than in a group per algorithm)."""
        status = format_value(row.get("status"))
        if status not in FAILING:
            return
        if not loaded:
            graph = format_value(row.get("graph"))
            self.unloaded.setdefault(graph, _first_line(format_value(row.get("error"))))
            return
        problem = format_value(row.get("problem")) or DEFAULT_PROBLEM
        algorithm = format_value(row.get("algorithm"))
        if problem != DEFAULT_PROBLEM:  # greedy of d1 and greedy of d2 are two groups
            algorithm = f"{algorithm} ({problem})"
        key = (format_value(row.get("graph")), algorithm, status)
        count, error = self.groups.get(key, (0, _first_line(format_value(row.get("error")))))
        self.groups[key] = (count + 1, error)

    def load_lines(self) -> list[str]:
        """One line per graph that did not load: why, naming the graph."""
        return [
            error if graph in error else f"{graph}: {error}"
            for graph, error in self.unloaded.items()
        ]

    def lines(self, limit: int = FAILURE_LINES) -> list[str]:
        """A heading and one line per group, at most ``limit`` lines in all (the last says
        how many are not shown); no lines when every row is ok. Groups of one graph that
        failed alike (same status, same first error: a graph that did not load) share a line
        naming their algorithms."""
        if not self.groups:
            return []
        alike: dict[tuple[str, str, str], tuple[list[str], int]] = {}
        for (graph, algorithm, status), (count, error) in self.groups.items():
            names, rows = alike.setdefault((graph, status, error), ([], 0))
            names.append(algorithm)
            alike[graph, status, error] = (names, rows + count)
        total = sum(count for count, _ in self.groups.values())
        shown = list(alike.items())
        if len(shown) > limit - 1:
            shown = shown[: limit - 2]
        out = [f"{total} rows not ok (graph, algorithm: status × rows: first error):"]
        for (graph, status, error), (names, rows) in shown:
            algorithms = ", ".join(names[:4]) + (
                f" and {len(names) - 4} more" if len(names) > 4 else ""
            )
            out.append(
                f"  {graph}  {algorithms}: {status} ×{rows}" + (f": {error}" if error else "")
            )
        if len(shown) < len(alike):
            out.append(f"  ... and {len(alike) - len(shown)} more (see the error column)")
        return out


# What the line at the end of a run says of the cases with each suspect flag, and what to do
# about them (docs/statistics.md); a ``floor`` case is as sure as the harness can be, a
# ``host`` case is what its algorithm does: no line.
FLAG_CAUSES: dict[str, tuple[str, str]] = {
    "throttled": ("ran while the GPU slowed itself (a power or thermal limit: column throttle)",
                  "let the GPU cool, or check its power and cooling, and rerun them"),
    "contended": ("ran while another process used the CPU cores or the GPU",
                  "close other programs and rerun them"),
    "drift": ("drifted: their first and second halves of repetitions differ beyond the noise",
              "rerun them on a quiet machine, or give each case longer (--case-time)"),
    "noisy": ("stayed noisier than the target: their median's interval is wider than --noise",
              "give each case longer (--case-time) or accept a wider --noise"),
    "capped": ("outlasted --case-time before their median had an interval",
               "give each case longer (--case-time) to get one"),
}  # fmt: skip
WORST_NAMED = 3  # cases a flag's line names, the least sure first


ROUND_TRIP_SPREAD = 1.5  # a run whose host round trips' p95 / p5 exceed this says so


class Flagged:
    """The cases whose rows carry each flag, their times, and the host round trips the rows
    recorded (``gcbench run`` says at the end, for the rows it measured, one line per kind of
    problem, naming the least sure cases and what to do)."""

    def __init__(self) -> None:
        self.cases: dict[str, set[Key]] = {flag: set() for flag in FLAGS}
        self.times: dict[Key, list[float]] = {}
        self.round_trips: list[float] = []

    def add(self, row: Mapping[str, Any]) -> None:
        key = row_key(row)[:-1]
        text = format_value(row.get("flags"))
        for flag in filter(None, text.split(";")):
            if flag in self.cases:
                self.cases[flag].add(key)
        try:
            self.times.setdefault(key, []).append(float(row.get("time_ms") or "nan"))
            self.round_trips.append(float(row.get("round_trip_us") or "nan"))
        except ValueError:
            return

    def _unsure(self, key: Key) -> float:
        """How far the case's median may be off, as a share (infinite without an interval)."""
        times = [t for t in self.times.get(key, []) if t == t]
        width = stats.relative_halfwidth(times) if times else None
        return math.inf if width is None else width

    def _name(self, key: Key) -> str:
        """graph algorithm[k=v,...], with only the parameters that differ between the
        algorithm's measured configurations (as the report names them)."""
        graph, problem, algorithm, params = key[:4]
        settings = [parse_param_string(k[3]) for k in self.times if k[2] == algorithm]
        mine = parse_param_string(params)
        shown = ",".join(f"{k}={mine[k]}" for k in varying_keys(settings) if k in mine)
        solved = "" if problem == DEFAULT_PROBLEM else f" ({problem})"
        return f"{graph} {algorithm}{solved}" + (f"[{shown}]" if shown else "")

    def _named(self, keys: set[Key]) -> str:
        """The :data:`WORST_NAMED` least sure of ``keys``, named by :meth:`_name`."""
        worst = sorted(keys, key=lambda k: (-self._unsure(k), k))[:WORST_NAMED]
        names = [self._name(k) for k in worst]
        more = f" and {len(keys) - len(worst)} more" if len(keys) > len(worst) else ""
        return ", ".join(names) + more

    def lines(self) -> list[str]:
        """One line per suspect flag that some case has, in :data:`FLAGS` order (its cause,
        the least sure cases, what to do), then one on the host round trip when it moved by
        more than :data:`ROUND_TRIP_SPREAD` over the rows; none when all is normal."""
        out = []
        for flag, (cause, action) in FLAG_CAUSES.items():
            keys = self.cases[flag]
            if keys:
                cases = "1 case" if len(keys) == 1 else f"{len(keys)} cases"
                out.append(f"{cases} {cause} ({flag}: {self._named(keys)}): {action}")
        trips = sorted(t for t in self.round_trips if t == t)  # NaN: not a GPU row
        if len(trips) >= 20:
            low, high = trips[len(trips) // 20], trips[-(len(trips) // 20) - 1]
            if high > ROUND_TRIP_SPREAD * low:
                out.append(
                    f"the host's round trip to the GPU ranged {low:.0f}-{high:.0f} us (5th to "
                    "95th percentile of the rows): times of algorithms that read a result back "
                    "every round move with it (column round_trip_us)"
                )
        return out


def _first_line(text: str) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return line if len(line) <= _ERROR_CHARS else line[: _ERROR_CHARS - 3] + "..."


class _Appender:
    """A CSV file opened for appending whole, flushed lines under a fixed header; ``what``
    names it in the one-line OutputError a failure to create or write it becomes."""

    def __init__(self, path: Path, columns: tuple[str, ...], what: str) -> None:
        self.path = path
        self.columns = columns
        self.what = what
        make_parent(path, what)
        try:
            fresh = not path.exists() or path.stat().st_size == 0
            self._file = open(path, "a", newline="", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise OutputError(f"cannot write {what} {path}: {os_reason(exc, path)}") from None
        if fresh:
            self._write(columns)

    def _write(self, values: Iterable[str]) -> None:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(values)
        try:
            self._file.write(buffer.getvalue())  # one write call per line
            self._file.flush()
        except OSError as exc:
            raise OutputError(
                f"cannot write {self.what} {self.path}: {os_reason(exc, self.path)}"
            ) from None

    def append(self, row: Mapping[str, Any]) -> None:
        self._write(format_value(row.get(c)) for c in self.columns)

    def close(self) -> None:
        self._file.close()


def refuse_existing(path: Path) -> None:
    """A results file that holds rows is never written over: resume it or name another."""
    if path.exists() and path.stat().st_size:
        raise InputError(f"{path} already exists; pass --resume {path} or another --out")


class ResultsFile(_Appender):
    """The results CSV of a run. With ``resume``, an existing file is checked, a partial last
    line (from a killed run) is cut off, and its rows' keys and statuses are read."""

    def __init__(self, path: Path, *, resume: bool = False) -> None:
        self.recorded: set[Key] = set()
        self.cases: set[Key] = set()  # the recorded keys without rep: cases with any row
        self.previous: Counter[str] = Counter()
        self.failures = Failures()  # of the rows already in a resumed file
        if resume:
            self._read_existing(path)
        else:
            refuse_existing(path)
        super().__init__(path, COLUMNS, "the results file")

    def _read_existing(self, path: Path) -> None:
        with _resumable(path) as reader:
            for row in reader:
                key = row_key(row)
                self.recorded.add(key)
                self.cases.add(key[:-1])
                self.previous[row["status"]] += 1
                self.failures.add(row)


RETRYABLE: tuple[str, ...] = ("error", "timeout", "oom", "invalid", "unsupported")


@contextmanager
def _resumable(path: Path) -> Iterator[csv.DictReader]:
    """The rows of the results file ``path``, its last line made whole first; one-line
    InputErrors for a missing file or one of another schema."""
    if not path.is_file():
        raise InputError(f"--resume {path}: no such file; start a new run with --out {path}")
    repair_last_line(path)
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is not None and tuple(reader.fieldnames) != COLUMNS:
            raise InputError(f"--resume {path}: {schema_mismatch(reader.fieldnames)}")
        yield reader


def recorded_command(path: Path) -> str:
    """The ``command`` of the first row of the results file ``path`` (the run that started
    it); "" when it has no row. One-line InputErrors for a missing or foreign file."""
    with _resumable(path) as reader:
        first = next(reader, None)
    return "" if first is None else first["command"]


def drop_cases(path: Path, statuses: Iterable[str], cases: set[Key]) -> int:
    """Remove from the results file ``path`` (and its trace file) every row of each case of
    ``cases`` (keys without rep: those the run will run) that has a row of one of
    ``statuses`` (``--retry``: those cases run again, whole). Each file is rewritten beside
    itself and renamed over it, the trace file first (a stop between the two leaves the
    results whole and the case to run again), so neither is ever half-rewritten. Returns the
    result rows removed."""
    wanted = set(statuses)
    with _resumable(path) as reader:  # a file of this schema, its last line whole
        rows = list(reader)
    failed = {row_key(row)[:-1] for row in rows if row["status"] in wanted} & cases
    if not failed:
        return 0
    traces = trace_path(path)
    if traces.is_file():
        with open(traces, newline="", encoding="utf-8") as handle:
            trace = list(csv.DictReader(handle))
        _write_without(traces, TRACE_COLUMNS, trace, failed)
    return _write_without(path, COLUMNS, rows, failed)


def _write_without(
    path: Path, columns: tuple[str, ...], rows: list[dict[str, str]], cases: set[Key]
) -> int:
    """Write ``rows`` but those of ``cases`` (keys without rep) to ``path``, renamed into
    place; returns how many were left out."""
    kept = [row for row in rows if row_key(row)[:-1] not in cases]
    try:
        with replaced(path) as partial, open(partial, "w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(kept)
    except OSError as exc:
        raise OutputError(f"--retry: cannot rewrite {path}: {os_reason(exc, path)}") from None
    return len(rows) - len(kept)


class TraceFile(_Appender):
    """The sibling ``<stem>.trace.csv``: one row per round and trace series."""

    def __init__(self, results_path: Path, *, resume: bool = False) -> None:
        path = trace_path(results_path)
        if resume and path.is_file():
            repair_last_line(path)
        super().__init__(path, TRACE_COLUMNS, "the trace file")


def schema_version_of(columns: Iterable[str]) -> int | None:
    """The result schema a header belongs to: its version, 1 for the original
    columns, None for a file gcbench did not write."""
    names = tuple(columns)
    known = {COLUMNS: SCHEMA_VERSION, COLUMNS_V5: 5, COLUMNS_V4: 4, COLUMNS_V3: 3,
             COLUMNS_V2: 2, COLUMNS_V1: 1}  # fmt: skip
    return known.get(names)


def schema_mismatch(columns: Iterable[str]) -> str:
    """One line on why a CSV with these columns cannot be appended to (``--resume``)."""
    version = schema_version_of(columns)
    if version is None:
        return (
            f"its columns are not gcbench's result schema v{SCHEMA_VERSION}; resume only "
            "files written by gcbench run"
        )
    added = f"the host's share ({', '.join(HOST_COLUMNS)})"
    if version <= 4:
        added = f"the problem columns ({', '.join(PROBLEM_COLUMNS)}), then {added}"
    if version <= 3:
        added = f"the graph's bounds ({', '.join(BOUND_COLUMNS)}), then {added}"
    if version <= 2:
        added = f"the conditions of each repetition ({', '.join(CONDITION_COLUMNS)}), then {added}"
    if version == 1:
        added = (
            "setup_ms, count_setup, compute_capability, sm_clock_mhz, command, gpu_index, "
            f"class balance and level columns, schema_version, then {added}"
        )
    return (
        f"written with result schema v{version}, this gcbench writes v{SCHEMA_VERSION} "
        f"({added}); finish it with the gcbench that wrote it, or start a new file with --out "
        "(gcbench report and compare read every version)"
    )


def trace_path(results_path: Path) -> Path:
    """``results/x.csv`` → ``results/x.trace.csv``."""
    return results_path.with_name(f"{results_path.stem}.trace.csv")


def trace_rows(
    key: Mapping[str, Any], trace: Mapping[str, Iterable[float]]
) -> Iterable[dict[str, Any]]:
    """One row per (series, round) of a Coloring.trace; ``key`` holds the identifying columns."""
    for series, values in trace.items():
        for rnd, value in enumerate(values):
            yield {**key, "round": rnd, "series": series, "active": float(value)}


def repair_last_line(path: Path) -> None:
    """Truncate a file after its last newline (drops a line cut short by a killed writer)."""
    with open(path, "rb+") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        if size == 0:
            return
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return
        step = 1 << 16
        pos = size
        while pos > 0:
            start = max(0, pos - step)
            handle.seek(start)
            cut = handle.read(pos - start).rfind(b"\n")
            if cut >= 0:
                handle.truncate(start + cut + 1)
                return
            pos = start
        handle.truncate(0)
