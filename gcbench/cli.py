"""The ``gcbench`` command line: thin commands that parse, call the library, and print.

Errors are one line (``error: ...``) with a non-zero exit code; ``--debug`` shows tracebacks.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
import numpy as np

from gcbench.errors import GcbenchError


class _Group(click.Group):
    """Turns gcbench's typed errors into one line on stderr unless --debug is given."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except GcbenchError as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)


@click.group(cls=_Group)
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.version_option(package_name="gcbench")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """Benchmark parallel graph-coloring algorithms on GPUs and CPUs."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def parse_param_options(values: tuple[str, ...]) -> dict[str, str]:
    """``--param k=v`` options as a dict (values stay strings; the registry checks them)."""
    out: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r} is not k=v", param_hint="--param")
        out[key.strip()] = value.strip()
    return out


@main.command()
@click.argument("spec")
def info(spec: str) -> None:
    """Graph statistics for SPEC (a path, gen:, ss: or snap: spec)."""
    from gcbench.sources import load_graph

    g = load_graph(spec)
    norm = g.normalisation
    degrees = g.degrees
    click.echo(f"graph        {g.name}")
    click.echo(f"source       {g.source}")
    click.echo(f"vertices     {g.n}")
    click.echo(f"edges        {g.m}")
    click.echo(f"max degree   {g.max_degree}")
    click.echo(f"avg degree   {g.avg_degree:.3f}")
    click.echo(f"min degree   {int(degrees.min()) if g.n else 0}")
    click.echo(f"isolated     {int(np.count_nonzero(degrees == 0))}")
    click.echo(
        f"normalised   dropped {norm.self_loops} self loops, {norm.duplicates} duplicate "
        f"entries; input {'directed' if norm.directed else 'undirected'}"
        f" ({norm.asymmetric_added} reverse entries added)"
    )


@main.command()
@click.argument("spec")
@click.option(
    "--algo", "algorithm", required=True, help="Algorithm name (gcbench list algorithms)."
)
@click.option("--param", "params", multiple=True, help="k=v, repeatable.")
@click.option("--block-size", type=int, default=None, help="GPU launch block size.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write one color per line, in vertex order.")  # fmt: skip
def color(spec: str, algorithm: str, params: tuple[str, ...], block_size: int | None,
          out: Path | None) -> None:  # fmt: skip
    """Color SPEC once with ALGO, validate, and print colors, time and validity."""
    import gcbench

    result = gcbench.color(spec, algorithm, block_size=block_size, **parse_param_options(params))
    v = result.validation
    if out is not None:
        np.savetxt(out, result.colors, fmt="%d")
    click.echo(f"algorithm    {algorithm}")
    click.echo(f"colors       {v.colors} (max color {v.max_color})")
    click.echo(f"iterations   {'' if result.iterations is None else result.iterations}")
    click.echo(f"time         {result.time_ms:.3f} ms (+ {result.transfer_ms:.3f} ms transfer)")
    click.echo(f"valid        {'yes' if v.valid else 'NO'}"
               f" ({v.conflicts} conflicts, {v.uncolored} uncolored)")  # fmt: skip
    if not v.valid:
        sys.exit(1)


@main.group(name="list")
def list_() -> None:
    """List algorithms, suites or cached graphs."""


@list_.command(name="algorithms")
def list_algorithms() -> None:
    """Every registered algorithm with its backend, parameters and source."""
    from gcbench import algorithms

    for spec in algorithms.all_specs():
        params = " ".join(
            f"{p.name}={p.default}" + (f"[{'|'.join(map(str, p.choices))}]" if p.choices else "")
            for p in spec.params
        )
        tags = spec.backend + (" peer" if spec.peer else "")
        click.echo(f"{spec.name:16} {tags:9} {params}")
        if spec.description:
            click.echo(f"{'':16} {spec.description} ({spec.family})")
