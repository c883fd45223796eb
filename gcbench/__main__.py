"""``python -m gcbench`` and the ``gcbench`` command: the CLI, with an interrupt that comes
while it loads already a quiet exit 130 (docs/cli.md)."""

import signal
import sys

_TOLD: list[bool] = []  # "interrupted" written (a stop delivered again writes it once)


def _early(signum: int, frame: object) -> None:
    if not _TOLD:
        _TOLD.append(True)
        sys.stderr.write("interrupted\n")
    raise SystemExit(130)


def _swallowed(unraisable: "sys.UnraisableHookArgs") -> None:
    """A stop raised where Python cannot let it propagate (the signal handler ran inside a
    weakref callback of the import machinery, which prints the exception and goes on): the
    signal is sent again from a short-lived thread, after this hook has returned, so the
    handler runs on a line that can raise rather than the command running on. Anything else
    goes to Python's own hook."""
    stop = unraisable.exc_type is not None and (
        issubclass(unraisable.exc_type, SystemExit) or unraisable.exc_type.__name__ == "Stopped"
    )
    if stop and signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, signal.SIG_DFL):
        import threading

        threading.Timer(0.001, signal.raise_signal, (signal.SIGINT,)).start()
        return
    sys.__unraisablehook__(unraisable)


def run() -> None:
    """Take SIGINT and SIGTERM before anything loads, hand over to the CLI (which takes them
    over itself), and ignore them once it is done: a late one must not print a traceback
    while the interpreter shuts down."""
    stops = (signal.SIGINT, signal.SIGTERM)
    sys.unraisablehook = _swallowed
    for stop in stops:
        signal.signal(stop, _early)
    try:
        from gcbench.cli import main

        main()
    finally:
        for stop in stops:
            signal.signal(stop, signal.SIG_IGN)


if __name__ == "__main__":
    run()
