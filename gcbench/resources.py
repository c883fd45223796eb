"""Where gcbench's files live: the CUDA kernels and suite configs it ships, and the data
directory that caches graphs. A leaf module, so that ``sources`` and ``fetch`` both depend on
it rather than on each other."""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
DATA_ENV = "GCBENCH_DATA"


def resource_dir(name: str) -> Path:
    """``kernels`` or ``configs``: the wheel's ``gcbench/_data/<name>``, else the repo's."""
    packaged = _PACKAGE / "_data" / name
    return packaged if packaged.is_dir() else _PACKAGE.parent / name


def data_dir() -> Path:
    """The data directory: ``$GCBENCH_DATA``, default ``~/.cache/gcbench``."""
    return Path(os.environ.get(DATA_ENV) or "~/.cache/gcbench").expanduser()
