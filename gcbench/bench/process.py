"""The parent's handle on one worker process: spawn, send a job, wait with a deadline, kill.

The parent never imports CuPy; every CUDA call happens in the spawned worker
(:mod:`gcbench.bench.worker`), which runs in its own process group so a kill takes
whatever it started with it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import tempfile
import time
from collections.abc import Callable
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from gcbench.bench import worker

POLL_S = 0.2  # how often a wait checks for an interrupt
STOP_GRACE_S = 5.0


class WorkerLost(Exception):
    """The worker died or overran its deadline; ``status`` is error or timeout."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Interrupted(Exception):
    """The run was asked to stop (SIGINT)."""


class WorkerProcess:
    """One spawned worker and the pipe to it."""

    def __init__(self, interrupted: Callable[[], bool]) -> None:
        self._interrupted = interrupted
        fd, log = tempfile.mkstemp(prefix="gcbench-worker-", suffix=".log")
        os.close(fd)
        self.log = Path(log)
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(
            target=worker.main, args=(child, os.getpid(), str(self.log)), daemon=True
        )
        self.proc.start()
        child.close()

    def send(self, job: Any) -> None:
        try:
            self.conn.send(job)
        except OSError:
            raise self._lost_by_exit() from None

    def receive(self, timeout_s: float, what: str) -> tuple[Any, ...]:
        """The next message, or WorkerLost if the worker dies or ``timeout_s`` passes first;
        ``what`` names the work for the timeout message."""
        deadline = time.monotonic() + timeout_s
        while True:
            if self._interrupted():
                raise Interrupted
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerLost(
                    "timeout", f"{what} exceeded the {timeout_s:g} s wall-clock timeout; "
                    "worker killed (raise --timeout to allow more)"
                )  # fmt: skip
            ready = wait([self.conn, self.proc.sentinel], timeout=min(left, POLL_S))
            if self.conn in ready or (ready and self.conn.poll()):
                try:
                    return self.conn.recv()
                except (EOFError, OSError):
                    raise self._lost_by_exit() from None
            if ready:
                raise self._lost_by_exit()

    def _lost_by_exit(self) -> WorkerLost:
        self.proc.join(STOP_GRACE_S)
        code = self.proc.exitcode
        if code is not None and code < 0:
            how = f"was killed by {signal.Signals(-code).name}"
        else:
            how = f"exited with code {code}"
        tail = self._log_tail()
        return WorkerLost("error", f"worker {how}" + (f"; last output: {tail}" if tail else ""))

    def _log_tail(self) -> str:
        try:
            lines = self.log.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return worker.one_line(lines[-1]) if lines else ""

    def stop(self) -> None:
        """Ask the worker to finish, then make sure it is gone."""
        with contextlib.suppress(OSError):
            self.conn.send(None)
            self.proc.join(STOP_GRACE_S)
        self.kill()

    def kill(self) -> None:
        """Kill the worker's whole process group (and the worker itself) and clean up."""
        if self.proc.exitcode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.kill()
            self.proc.join()
        self.conn.close()
        self.log.unlink(missing_ok=True)
