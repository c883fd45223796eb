"""The parent's handle on one worker process: spawn, send a job, wait with a deadline, kill.

The parent never imports CuPy; every CUDA call happens in the spawned worker
(:mod:`gcbench.bench.worker`), which runs in its own process group so a kill takes
whatever it started with it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)  # the parent's to act on, never a worker's
if getattr(multiprocessing.current_process(), "_inheriting", False):
    # This process is a worker being spawned (multiprocessing unpickles its target, which
    # lives here, so this module loads first): the stop signals are the parent's, before the
    # heavy imports below can be cut. A worker started from the main thread was born
    # ignoring them already (:func:`stop_signals_ignored`).
    for _stop in STOP_SIGNALS:
        signal.signal(_stop, signal.SIG_IGN)

from gcbench.bench import worker  # noqa: E402 (after the worker's signals are settled)

POLL_S = 0.2  # how often a wait checks for an interrupt
STOP_GRACE_S = 5.0
LOG_TAIL = 16384  # bytes of the worker's log read after a crash


@contextlib.contextmanager
def stop_signals_ignored() -> Iterator[None]:
    """On the main thread, SIGINT and SIGTERM ignored for the block: processes started in it
    are born ignoring them (an ignored disposition survives exec; a handler or a blocked mask
    does not), so an interrupt sent to the process group while they start up is the parent's
    alone. A signal that lands inside the block is lost: keep it to the few ms of a start.
    Elsewhere, nothing (only the main thread may change dispositions)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {stop: signal.signal(stop, signal.SIG_IGN) for stop in STOP_SIGNALS}
    try:
        yield
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)


class _Starts:
    """Worker starts that other threads (``--gpus`` slots) hand to the main thread, so that
    every worker is born ignoring the stop signals (:func:`starts_on_main_thread`)."""

    def __init__(self) -> None:
        self.pending: queue.SimpleQueue[tuple[Any, threading.Event, list[BaseException]]] = (
            queue.SimpleQueue()
        )
        self.serving = False

    def serve(self) -> None:
        """Start every process asked for so far (the main thread calls this often)."""
        while True:
            try:
                proc, done, errors = self.pending.get_nowait()
            except queue.Empty:
                return
            try:
                with stop_signals_ignored():
                    proc.start()
            except BaseException as exc:  # the asking thread raises it
                errors.append(exc)
            done.set()


_STARTS = _Starts()


@contextlib.contextmanager
def starts_on_main_thread() -> Iterator[Callable[[], None]]:
    """While the block runs, workers started from other threads are started by the main
    thread, which must call the yielded function often (it starts what was asked)."""
    _STARTS.serving = True
    try:
        yield _STARTS.serve
    finally:
        _STARTS.serving = False
        _STARTS.serve()


class WorkerLost(Exception):
    """The worker died or overran its deadline; ``status`` is error or timeout."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Interrupted(Exception):
    """The run was asked to stop (SIGINT)."""


def _main(env: Mapping[str, str], *args: Any) -> None:
    """The spawned child: its extra environment (e.g. the GPU it is pinned to, set before
    anything can initialise CUDA), then the worker."""
    os.environ.update(env)
    worker.main(*args)


class WorkerProcess:
    """One spawned worker and the pipe to it; ``env`` is added to the worker's environment."""

    def __init__(
        self, interrupted: Callable[[], bool], env: Mapping[str, str] | None = None
    ) -> None:
        self._interrupted = interrupted
        # The worker writes its output here and unlinks the name at once; the parent keeps
        # this descriptor to read the last line after a crash.
        self._log_fd, log = tempfile.mkstemp(prefix="gcbench-worker-", suffix=".log")
        self.log = Path(log)
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(
            target=_main, args=(dict(env or {}), child, os.getpid(), str(self.log)), daemon=True
        )
        self._start()
        child.close()

    def _start(self) -> None:
        """Start the child born ignoring the stop signals (:func:`stop_signals_ignored`): on
        the main thread, or handed to it while it serves starts (``--gpus``); a thread
        without one (a Dask task's) starts it itself, and the child ignores them from the
        import of this module on."""
        if threading.current_thread() is threading.main_thread() or not _STARTS.serving:
            with stop_signals_ignored():
                self.proc.start()
            return
        done, errors = threading.Event(), []
        _STARTS.pending.put((self.proc, done, errors))
        done.wait()  # the main thread serves it, at the latest when it stops serving
        if errors:
            raise errors[0]

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
        """The worker's last line of output, or for a fatal signal faulthandler's headline
        and innermost frame (its last line only lists extension modules)."""
        size = os.fstat(self._log_fd).st_size
        tail = os.pread(self._log_fd, min(size, LOG_TAIL), max(0, size - LOG_TAIL))
        lines = [line.strip() for line in tail.decode(errors="replace").splitlines()]
        lines = [line for line in lines if line]
        fatal = [i for i, line in enumerate(lines) if line.startswith("Fatal Python error")]
        if fatal:
            frames = [line for line in lines[fatal[-1] :] if line.startswith("File ")]
            return worker.one_line(" ".join([lines[fatal[-1]], *frames[:1]]))
        return worker.one_line(lines[-1]) if lines else ""

    def stop(self) -> None:
        """Ask the worker to finish, then make sure it is gone."""
        with contextlib.suppress(OSError):
            self.conn.send(None)
            self.proc.join(STOP_GRACE_S)
        self.kill()

    def kill(self) -> None:
        """Kill the worker's whole process group (and the worker itself) and clean up; safe
        to call again."""
        if self.proc.exitcode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.kill()
            self.proc.join()
        self.conn.close()
        if self._log_fd >= 0:
            os.close(self._log_fd)
            self._log_fd = -1
            self.log.unlink(missing_ok=True)  # if the worker never got to it
