"""``python -m gcbench`` and the ``gcbench`` command: the CLI, with an interrupt that comes
while it loads already a quiet exit 130 (docs/cli.md)."""

import signal
import sys


def _early(signum: int, frame: object) -> None:
    sys.stderr.write("interrupted\n")
    raise SystemExit(130)


def run() -> None:
    """Take SIGINT and SIGTERM before anything loads, then hand over to the CLI (which takes
    them over itself)."""
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, _early)
    from gcbench.cli import main

    main()


if __name__ == "__main__":
    run()
