"""One grammar for option values, shared by the command line, the library and suite files
(issues 14 and 15; docs/cli.md).

Every check of a value that more than one place accepts lives here once: block sizes,
repetitions, warm-up runs, timeouts, ``--param`` axes, comma lists of names. Each parser takes
the value as a command line gives it (a string, or the tuple of a repeated option), as Python
gives it (an int, a list) or as TOML gives it, and ``what`` names the option or suite key for
its one-line :class:`~gcbench.errors.SpecError`, so ``gcbench color --block-size 0``,
``gcbench run --block-size 0`` and ``block_sizes = [0]`` in a suite are refused by the same
code with the same words. ``None`` means "not given" and passes through.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gcbench.errors import SpecError, excerpt, shown

DEVICES = ("gpu", "cpu", "auto")
MAX_BLOCK_SIZE = 1024  # threads per block on every CUDA device gcbench supports
SWEEP: tuple[int, ...] = tuple(2**i for i in range(11))  # 1, 2, 4, ..., 1024

BlockSizes = tuple[int, ...] | str  # a tuple of sizes, or "sweep"

# The coloring problems (docs/distance2.md): distance-1 (a graph's vertices), distance-2 (a
# graph's vertices, no two within distance 2 alike), partial distance-2 on a matrix's columns
# (no two sharing a row alike) and on its rows. The last three color a Pattern.
PROBLEMS: tuple[str, ...] = ("d1", "d2", "pd2", "pd2-rows")
PATTERN_PROBLEMS: tuple[str, ...] = PROBLEMS[1:]
MATRIX_PROBLEMS: tuple[str, ...] = ("pd2", "pd2-rows")  # they color a spec's matrix pattern
GRAPH_PROBLEMS: tuple[str, ...] = tuple(p for p in PROBLEMS if p not in MATRIX_PROBLEMS)
DEFAULT_PROBLEM = "d1"


def items(value: str | Iterable[Any], what: str) -> list[Any]:
    """The items of a comma list or of a repeated option (``("a,b", "c")`` → a, b, c); text
    items are stripped, and an empty one (``64,,128``, a trailing comma) is an error."""
    given = [value] if isinstance(value, str) else list(value)
    out: list[Any] = []
    for item in given:
        if not isinstance(item, str):
            out.append(item)
            continue
        pieces = [p.strip() for p in item.split(",")]
        if "" in pieces:
            raise SpecError(f"{what} {excerpt(item)}: empty item in a comma list")
        out.extend(pieces)
    return out


def names(value: str | Iterable[str], what: str) -> tuple[str, ...]:
    """Algorithm names from ``--algo a,b --algo c`` (or a list), in order, duplicates dropped."""
    return tuple(dict.fromkeys(items(value, what)))


def problems(value: str | Iterable[str], what: str = "--problem") -> tuple[str, ...]:
    """Problem names from ``--problem d2,pd2`` (or a list), in order, each checked."""
    out = names(value, what)
    wrong = [p for p in out if p not in PROBLEMS]
    if wrong:
        raise SpecError(f"{what} {', '.join(wrong)}: choose from {', '.join(PROBLEMS)}")
    return out


def graph_specs(value: str | Iterable[str], what: str = "--graph") -> tuple[str, ...]:
    """Graph specs from ``--graph A,B --graph C``. A value that names an existing file is one
    spec even if its name has a comma (specs themselves never contain one)."""
    given = [value] if isinstance(value, str) else list(value)
    out: list[str] = []
    for item in given:
        out.extend([item.strip()] if Path(item).is_file() else items(item, what))
    return tuple(dict.fromkeys(out))


def integer(value: Any, what: str, *, low: int, high: int | None = None) -> int:
    """An integer in ``[low, high]`` (``"3"``, 3 and 3.0 are 3; ``"3.5"``, True are not)."""
    try:
        out = int(value)
        if isinstance(value, bool) or out != float(value):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise SpecError(f"{what}: {_echo(value)} is not an integer") from None
    if out < low or (high is not None and out > high):
        bound = f"≥ {low}" if high is None else f"in [{low}, {high}]"
        raise SpecError(f"{what}: {out} must be {bound}")
    return out


def positive(value: Any, what: str) -> float:
    """A finite number > 0 (seconds, for timeouts)."""
    try:
        if isinstance(value, bool):
            raise ValueError
        out = float(value)
    except (TypeError, ValueError):
        raise SpecError(f"{what}: {_echo(value)} is not a number") from None
    if not (out > 0 and math.isfinite(out)):
        raise SpecError(f"{what}: {out:g} must be a finite number > 0")
    return out


def boolean(value: Any, what: str) -> bool:
    """``true``/``false`` of a suite file (flags on the command line are booleans already)."""
    if not isinstance(value, bool):
        raise SpecError(f"{what}: {_echo(value)} is not true or false")
    return value


AUTO = "auto"  # --reps auto, --warmup auto: the protocol decides (docs/statistics.md)
Count = int | str  # a count, or AUTO


def _auto_or(value: Any, what: str, low: int) -> Count | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() == AUTO:
        return AUTO
    try:
        return integer(value, what, low=low)
    except SpecError as exc:
        raise SpecError(f"{exc} (or {AUTO})") from None


def reps(value: Any, what: str = "--reps") -> Count | None:
    """Recorded (timed) repetitions per case: an integer ≥ 1, or ``auto`` (until the median's
    interval is within the noise target)."""
    return _auto_or(value, what, 1)


def count(value: Any, what: str) -> int | None:
    """A fixed count of repetitions (an integer ≥ 1), where ``auto`` has no meaning."""
    return None if value is None else integer(value, what, low=1)


def warmup(value: Any, what: str = "--warmup") -> Count | None:
    """Unrecorded runs before the timed ones: an integer ≥ 0, or ``auto`` (until the device
    is steady)."""
    return _auto_or(value, what, 0)


def solve_warmup(value: Any, what: str) -> int | None:
    """A fixed count of unrecorded runs (an integer ≥ 0), where ``auto`` has no meaning."""
    return None if value is None else integer(value, what, low=0)


def share(value: Any, what: str) -> float | None:
    """A share in (0, 1), given as ``0.01`` or ``1%``: a noise target, a threshold."""
    if value is None:
        return None
    text = str(value).strip() if not isinstance(value, bool) else ""
    percent = text.endswith("%")
    try:
        out = float(text[:-1] if percent else text) / (100 if percent else 1)
    except ValueError:
        raise SpecError(f"{what}: {_echo(value)} is not a share such as 0.01 or 1%") from None
    if not 0 < out < 1:
        raise SpecError(f"{what}: {_echo(value)} must lie between 0 and 1 (0 % and 100 %)")
    return out


def timeout(value: Any, what: str = "--timeout") -> float | None:
    """Wall-clock seconds per run: a finite number > 0."""
    return None if value is None else positive(value, what)


def block_sizes(value: Any, what: str = "--block-size") -> BlockSizes | None:
    """``"sweep"``, ``"32,64"``, a repeated option's tuple, a list of ints or one int → sizes
    in [1, MAX_BLOCK_SIZE] (duplicates dropped), or "sweep". An empty tuple (the option not
    given) is None; an empty list written on purpose is an error."""
    if value is None or (isinstance(value, tuple) and not value):
        return None
    if isinstance(value, str) or not isinstance(value, Iterable):
        value = [value]
    given = items(value, what)
    if any(isinstance(v, str) and v == "sweep" for v in given):
        if len(given) > 1:
            raise SpecError(f"{what}: 'sweep' stands alone (it is every size 1, 2, 4, ..., 1024)")
        return "sweep"
    if not given:
        raise SpecError(f"{what}: no block sizes given; list some (e.g. 128,256) or 'sweep'")
    sizes = (integer(v, what, low=1, high=MAX_BLOCK_SIZE) for v in given)
    return tuple(dict.fromkeys(sizes))


def param_axes(
    value: Mapping[str, Any] | Sequence[str] | None, what: str = "--param"
) -> dict[str, tuple[Any, ...]]:
    """Parameter axes, name → values.

    From the command line, a sequence of ``k=v1,v2`` items (a repeated ``--param``); within
    one item a piece with ``=`` starts the next name, so ``order=ldf,ff,seed=2`` is two axes.
    A name given twice is an error (``--param order=ldf --param order=ff``: write
    ``order=ldf,ff``). From Python or a suite, a mapping whose values are a list (an axis), a
    scalar (one value) or a ``"v1,v2"`` string.
    """
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return {str(k): _axis(v, f"{what} {k}") for k, v in value.items()}
    if isinstance(value, str):
        value = [value]
    out: dict[str, list[str]] = {}
    for item in value:
        key = None
        for piece in (p.strip() for p in item.split(",")):
            name, sep, rest = piece.partition("=")
            if sep:
                key = name.strip()
                if not key:
                    raise SpecError(f"{what} {excerpt(item)}: a parameter name must come before =")
                if key in out:
                    raise SpecError(
                        f"{what} {shown(key)}: given twice; list its values once, {key}=v1,v2"
                    )
                out[key], piece = [], rest.strip()
            elif key is None:
                raise SpecError(f"{what} {excerpt(item)}: expected name=value or name=v1,v2")
            if not piece:
                raise SpecError(f"{what} {excerpt(item)}: empty value for {shown(key)}")
            out[key].append(piece)
    return {k: tuple(v) for k, v in out.items()}


def _axis(value: Any, what: str) -> tuple[Any, ...]:
    values = items(value, what) if isinstance(value, str | list | tuple) else [value]
    if not values:
        raise SpecError(f"{what}: an empty list of values")
    return tuple(values)


def one_value(values: Sequence[Any], what: str, why: str) -> Any:
    """The single value of a list that must have one (``color`` runs one configuration)."""
    if len(values) != 1:
        listed = shown(",".join(str(v) for v in values), 60)
        raise SpecError(f"{what}: {len(values)} values ({listed}); {why}")
    return values[0]


def _echo(value: Any) -> str:
    """A value in a message: text quoted and escaped, anything else as Python writes it."""
    return excerpt(value) if isinstance(value, str) else shown(repr(value))


# ---------------------------------------------------------------- the params column


def canonical_params(params: Mapping[str, Any]) -> str:
    """``k=v;k=v`` sorted by key: the CSV ``params`` column (docs/architecture.md, "CSV schema")."""
    return ";".join(f"{k}={params[k]}" for k in sorted(params))


CHOICE = "choice"  # the key, and the prefix of the keys, a chooser adds to its recorded params


def requested_params(text: str) -> str:
    """A recorded ``params`` text without the ``choice`` keys a chooser adds: the text of
    the case that wrote the row."""
    kept = {k: v for k, v in parse_param_string(text).items() if k.split(".")[0] != CHOICE}
    return canonical_params(kept)


def varying_keys(settings: Sequence[Mapping[str, str]]) -> list[str]:
    """The keys, sorted, whose value differs between ``settings`` (one mapping per
    configuration of an algorithm): what a short name of each configuration must show."""
    keys = sorted(set().union(*settings)) if settings else []
    return [k for k in keys if len({s.get(k) for s in settings}) > 1]


def parse_param_string(text: str) -> dict[str, str]:
    """Inverse of :func:`canonical_params` (values stay strings)."""
    out: dict[str, str] = {}
    for part in filter(None, text.split(";")):
        key, sep, value = part.partition("=")
        if not sep:
            raise SpecError(f"malformed parameter {part!r}: expected k=v")
        out[key.strip()] = value.strip()
    return out
