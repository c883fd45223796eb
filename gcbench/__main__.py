"""``python -m gcbench`` and the ``gcbench`` command: the CLI, with an interrupt that comes
while it loads already a quiet exit 130 (docs/cli.md)."""

import signal
import sys


def _early(signum: int, frame: object) -> None:
    sys.stderr.write("interrupted\n")
    raise SystemExit(130)


def run() -> None:
    """Take SIGINT and SIGTERM before anything loads, hand over to the CLI (which takes them
    over itself), and ignore them once it is done: a late one must not print a traceback
    while the interpreter shuts down."""
    stops = (signal.SIGINT, signal.SIGTERM)
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
