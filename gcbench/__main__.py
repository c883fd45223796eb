"""``python -m gcbench``."""

from gcbench.cli import main

main()
