"""The result row schema (DESIGN §5): the only module that knows the CSV columns."""

from __future__ import annotations

SCHEMA_VERSION = 1

COLUMNS: tuple[str, ...] = (
    "run_id", "timestamp", "gcbench_version", "git_commit", "host",
    "device", "device_name", "driver_version", "cuda_runtime", "cupy_version",
    "graph", "n", "m", "max_degree", "avg_degree",
    "algorithm", "backend", "params", "block_size", "rep",
    "status", "error",
    "time_ms", "transfer_ms", "total_ms",
    "iterations", "colors", "max_color", "conflicts", "uncolored",
)  # fmt: skip

STATUSES: tuple[str, ...] = ("ok", "invalid", "error", "timeout", "oom", "unsupported")

TRACE_COLUMNS: tuple[str, ...] = (
    "run_id", "graph", "algorithm", "params", "block_size", "rep", "round", "active",
)  # fmt: skip
