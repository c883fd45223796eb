"""Where the CUDA kernels and suite configs live: the source tree, or inside the wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """``kernels`` or ``configs``: the wheel's ``gcbench/_data/<name>``, else the repo's."""
    packaged = _PACKAGE / "_data" / name
    return packaged if packaged.is_dir() else _PACKAGE.parent / name
