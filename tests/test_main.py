"""``python -m gcbench``'s own handling of a stop that comes while it loads."""

from __future__ import annotations

import subprocess
import sys

# A weakref callback is where importlib's module locks are released: an exception raised in
# one (here, by the stop's handler) cannot propagate and would be printed and dropped.
SWALLOWING = """
import signal, sys, time, weakref
from gcbench import __main__ as entry
sys.unraisablehook = entry._swallowed
signal.signal(signal.SIGINT, entry._early)
class Held: pass
held = Held()
ref = weakref.ref(held, lambda _: signal.raise_signal(signal.SIGINT))
try:
    del held
    for _ in range(100):  # the command going on for a second
        time.sleep(0.01)
    print("ran on")
except SystemExit as stop:
    print("stopped", stop.code)
"""


def test_a_stop_a_callback_swallowed_is_delivered_again():
    done = subprocess.run([sys.executable, "-c", SWALLOWING], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.stdout.split() == ["stopped", "130"], (done.stdout, done.stderr)
    assert done.stderr == "interrupted\n"  # once, and no "Exception ignored" traceback


def test_without_the_hook_the_stop_is_lost():
    """What the hook is for: Python's own hook prints the exception and the code runs on."""
    plain = SWALLOWING.replace("sys.unraisablehook = entry._swallowed\n", "")
    done = subprocess.run([sys.executable, "-c", plain], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.stdout.split() == ["ran", "on"]
    assert "Exception ignored" in done.stderr and "SystemExit" in done.stderr
