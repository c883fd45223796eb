"""The ``gcbench`` command line: thin commands that parse, call the library, and print.

Errors are one line (``error: ...``) with a non-zero exit code; ``--debug`` shows tracebacks.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click
import numpy as np

from gcbench.errors import GcbenchError
from gcbench.report import DPI as REPORT_DPI
from gcbench.report import FORMATS as REPORT_FORMATS


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
    import gcbench

    stats = gcbench.info(spec)
    norm = stats.normalisation
    click.echo(f"graph        {stats.name}")
    click.echo(f"source       {stats.source}")
    click.echo(f"vertices     {stats.n}")
    click.echo(f"edges        {stats.m}")
    click.echo(f"max degree   {stats.max_degree}")
    click.echo(f"avg degree   {stats.avg_degree:.3f}")
    click.echo(f"min degree   {stats.min_degree}")
    click.echo(f"isolated     {stats.isolated}")
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
@click.option("--warmup", type=int, default=1, show_default=True,
              help="Unrecorded runs before the timed ones.")  # fmt: skip
@click.option("--reps", type=int, default=1, show_default=True,
              help="Timed runs (each validated); the median is printed.")  # fmt: skip
@click.option("--count-setup", is_flag=True,
              help="Include the algorithm's per-graph setup in the time.")  # fmt: skip
@click.option("--device", type=click.Choice(["gpu", "cpu", "auto"]), default="auto",
              show_default=True, help="For --algo auto: which backend's algorithms it picks "
              "from (auto: the GPU if usable).")  # fmt: skip
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write one color per line, in vertex order.")  # fmt: skip
def color(spec: str, algorithm: str, params: tuple[str, ...], block_size: int | None,
          warmup: int, reps: int, count_setup: bool, device: str,
          out: Path | None) -> None:  # fmt: skip
    """Color SPEC with ALGO, validate, and print colors, time and validity.

    Compilation is never timed; the time is the median of --reps runs after --warmup ones.
    """
    import gcbench
    from gcbench.algorithms import canonical_params

    result = gcbench.color(spec, algorithm, block_size=block_size, warmup=warmup, reps=reps,
                           count_setup=count_setup, device=device,
                           **parse_param_options(params))  # fmt: skip
    v = result.validation
    if out is not None:
        np.savetxt(out, result.colors, fmt="%d")
    runs = "1 run" if reps == 1 else f"median of {reps} runs"
    setup = (f"setup {result.setup_ms:.3f} ms included" if count_setup
             else f"+ {result.setup_ms:.3f} ms setup")  # fmt: skip
    click.echo(f"algorithm    {algorithm}")
    click.echo(f"params       {canonical_params(result.params)}")
    click.echo(f"colors       {v.colors} (max color {v.max_color})")
    click.echo(f"iterations   {'' if result.iterations is None else result.iterations}")
    click.echo(f"time         {result.time_ms:.3f} ms ({runs} after {warmup} warm-up; "
               f"{setup}; + {result.transfer_ms:.3f} ms transfer)")  # fmt: skip
    click.echo(f"valid        {'yes' if v.valid else 'NO'}"
               f" ({v.conflicts} conflicts, {v.uncolored} uncolored)")  # fmt: skip
    if not v.valid:
        sys.exit(1)


@main.command(name="run")
@click.option("--suite", default=None, help="Suite file or name in configs/ (default: quick).")
@click.option("--graph", "graphs", multiple=True, help="Graph spec; replaces the suite's graphs.")
@click.option(
    "--algo",
    "algorithms",
    multiple=True,
    help="Algorithm, or 'all' for every one of the device; replaces the suite's.",
)
@click.option(
    "--param",
    "params",
    multiple=True,
    help="k=v1,v2: an axis for every algorithm that has k (repeatable).",
)
@click.option(
    "--block-size",
    "block_sizes",
    default=None,
    help="32,64,... or 'sweep' (1..1024 where block size matters).",
)
@click.option("--reps", type=int, default=None, help="Recorded repetitions per case.")
@click.option("--warmup", type=int, default=None, help="Unrecorded runs before them.")
@click.option("--timeout", type=float, default=None, help="Wall-clock seconds per run.")
@click.option(
    "--device",
    type=click.Choice(["gpu", "cpu", "auto"]),
    default="auto",
    show_default=True,
    help="auto: the GPU if one is usable, else the CPU.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Results CSV (default results/<UTC time>-<suite>.csv).",
)
@click.option(
    "--resume",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Append to FILE, skipping the repetitions it already records.",
)
@click.option("--count-setup", is_flag=True, default=None,
              help="Fold each algorithm's per-graph setup into time_ms (for references that "
              "build it inside their call).")  # fmt: skip
@click.option("--trace", is_flag=True, help="Also write per-round traces to <out>.trace.csv.")
@click.option("--offline", is_flag=True, help="No downloads: use stand-ins where suites name them.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--gpus",
    default=None,
    help="0,1 or 'all': one worker per GPU, graphs from one queue (docs/cluster.md).",
)
@click.option(
    "--cluster",
    default=None,
    help="Dask scheduler ADDRESS, or 'local' (one worker per GPU); needs [cluster].",
)
@click.option(
    "--shard",
    default=None,
    help="K/N: run share K of N of the graphs (cost-balanced); join with merge.",
)
def run_(suite: str | None, graphs: tuple[str, ...], algorithms: tuple[str, ...],
         params: tuple[str, ...], block_sizes: str | None, reps: int | None,
         warmup: int | None, timeout: float | None, device: str, out: Path | None,
         resume: Path | None, count_setup: bool | None, trace: bool, offline: bool,
         quiet: bool, gpus: str | None, cluster: str | None,
         shard: str | None) -> None:  # fmt: skip
    """Benchmark a suite: every case validated, one CSV row per repetition.

    Exits 1 if any row is invalid, error or timeout; 130 if interrupted (rerun the same
    command with --resume FILE to finish).
    """
    from gcbench.bench import runner
    from gcbench.bench.options import RunOptions
    from gcbench.bench.results import STATUSES

    options = RunOptions(
        suite=suite, graphs=graphs, algorithms=algorithms, params=parse_param_options(params),
        block_sizes=block_sizes, reps=reps, warmup=warmup, timeout=timeout, device=device,
        out=out, resume=resume, trace=trace, offline=offline, progress=not quiet, gpus=gpus,
        cluster=cluster, shard=shard, count_setup=count_setup, command=_command_line(),
    )  # fmt: skip
    choice = runner.choose_device(device, remote=options.remote_cluster)
    click.echo(choice.message)
    summary = runner.run(options, choice=choice)
    if not summary.notes_shown:
        for note in summary.notes:
            click.echo(f"note: {note}")
    counts = ", ".join(f"{summary.counts[s]} {s}" for s in STATUSES if summary.counts[s])
    click.echo(f"{summary.written} rows written to {summary.path} (file: {counts or 'no rows'})")
    if summary.trace_path is not None:
        click.echo(f"traces in {summary.trace_path}")
    if summary.interrupted:
        click.echo(f"interrupted; to finish, run: {_resume_command(summary.path)}", err=True)
    sys.exit(summary.exit_code)


def _command_line() -> str:
    """This gcbench invocation as a shell line (the CSV ``command`` column)."""
    return shlex.join(["gcbench", *sys.argv[1:]])


def _resume_command(path: Path) -> str:
    """This command line with --out/--resume replaced by ``--resume path``."""
    args, skip = [], False
    for arg in sys.argv[1:]:
        if skip or arg.startswith(("--out=", "--resume=")):
            skip = False
        elif arg in ("--out", "--resume"):
            skip = True
        else:
            args.append(arg)
    return shlex.join(["gcbench", *args, "--resume", str(path)])


@main.command(name="merge")
@click.argument(
    "csvs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The merged CSV (must not exist yet).")  # fmt: skip
def merge_(csvs: tuple[Path, ...], out: Path) -> None:
    """Join result CSVs of shards (--shard K/N) into one, refusing mixed schemas and
    overlapping rows."""
    from gcbench.bench.merge import merge

    rows = merge(csvs, out)
    click.echo(f"{rows} rows from {len(csvs)} files written to {out}")


@main.group(name="list")
def list_() -> None:
    """List algorithms, suites or cached graphs."""


@list_.command(name="algorithms")
def list_algorithms() -> None:
    """Every algorithm: usable here or why not, backend, family and paper, parameters with
    their choices and defaults, block size, what `iterations` counts, and where its code is."""
    from gcbench import algorithms
    from gcbench.algorithms.availability import code_files, unusable
    from gcbench.bench.runner import probe_gpu

    usable, detail = probe_gpu()
    gpu_problem = None if usable else detail
    for spec in algorithms.all_specs():
        why = unusable(spec, gpu_problem)
        state = "usable here" if why is None else f"NOT usable here: {why.reason}"
        click.echo(f"{spec.name:16} {spec.backend + (' peer' if spec.peer else ''):9} {state}")
        if spec.description:
            click.echo(f"{'':4}{spec.description}")
        rows = [("family", spec.family)]
        rows += [("param" if i == 0 else "", _param_text(p)) for i, p in enumerate(spec.params)]
        if spec.block_size_matters:
            rows.append(("block size", f"a parameter (default {spec.default_block_size or 256})"))
        elif spec.default_block_size is not None:
            rows.append(("block size", f"{spec.default_block_size}"))
        rows.append(("iterations", spec.iterations_meaning))
        rows.append(("code", ", ".join(_shown_path(f) for f in code_files(spec))))
        for label, text in rows:
            click.echo(f"{'':4}{label:11} {text}")


def _shown_path(name: str) -> str:
    """A file below the working directory relative to it; other names as they are."""
    path = Path(name)
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else name


def _param_text(p) -> str:  # type: ignore[no-untyped-def]
    """``name=default`` with the allowed values (choices or range) and the help text."""
    if p.choices:
        allowed = "|".join(map(str, p.choices))
    elif p.low is not None or p.high is not None:
        allowed = f"{p.kind.__name__} in [{p.low}, {p.high}]"
    else:
        allowed = p.kind.__name__
    return f"{p.name}={p.default} ({allowed})" + (f": {p.help}" if p.help else "")


@list_.command(name="suites")
def list_suites() -> None:
    """Every suite in configs/ with its description."""
    from gcbench.bench.suite import list_suites as suites

    for name, description in suites():
        click.echo(f"{name:16} {description}")


@main.command()
@click.argument("specs", nargs=-1)
@click.option("--suite", default=None, help="Fetch every ss:/snap: graph of a suite (file/name).")
@click.option("--force", is_flag=True, help="Download again even when cached.")
def fetch(specs: tuple[str, ...], suite: str | None, force: bool) -> None:
    """Download ss:GROUP/NAME and snap:NAME graphs (or a suite's) into the cache.

    Failures are reported at the end, one error line per cause with the graphs it hit.
    Exits 1 if any graph could not be fetched, 2 on bad usage.
    """
    from gcbench.bench.suite import remote_specs
    from gcbench.fetch import failure_lines, fetch_all

    if not specs and not suite:
        raise click.UsageError("give graph specs (ss:GROUP/NAME, snap:NAME) or --suite NAME")
    wanted = [*specs, *(remote_specs(suite) if suite else [])]

    def report(r) -> None:
        if r.status != "failed":
            click.echo(f"{r.status:10} {r.spec}  n={r.n} m={r.m}  {r.cache}")

    results = fetch_all(wanted, force=force, on_result=report)
    for line in failure_lines(results):
        click.echo(f"error: {line}", err=True)
    failed = sum(r.status == "failed" for r in results)
    if failed:
        click.echo(f"{failed} of {len(results)} graphs could not be fetched", err=True)
        sys.exit(1)


@list_.command(name="graphs")
def list_graphs() -> None:
    """Cached graphs: spec, vertices, edges, size on disk and where they came from."""
    from gcbench.fetch import cached_graphs
    from gcbench.resources import data_dir

    graphs = cached_graphs()
    if not graphs:
        click.echo(f"no cached graphs in {data_dir()} (gcbench fetch SPEC adds some)")
        return
    click.echo(f"{'spec':40} {'vertices':>12} {'edges':>13} {'size':>9}  source")
    for g in graphs:
        stale = " (stale: rebuilt on next use)" if g.stale else ""
        click.echo(f"{g.spec:40} {g.n:>12} {g.m:>13} {_size(g.bytes):>9}  {g.source}{stale}")


def _size(count: int) -> str:
    """Bytes in binary units for people: 512 B, 3.4 MiB, 1.2 GiB."""
    exponent = min(4, max(0, (count.bit_length() - 1) // 10))
    if exponent == 0:
        return f"{count} B"
    return f"{count / 1024**exponent:.1f} {('KiB', 'MiB', 'GiB', 'TiB')[exponent - 1]}"


@main.command(name="report")
@click.argument("csvs", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--baseline", default=None,
              help="Algorithm (or configuration) speedups are relative to [default: cusparse "
                   "if present, else the slowest algorithm common to all graphs].")  # fmt: skip
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory for summary.csv, summary.md and the figures.")  # fmt: skip
@click.option("--format", "fmt", type=click.Choice(REPORT_FORMATS),
              default="table", show_default=True, help="How to print the report.")  # fmt: skip
@click.option("--plot-format", "plot_formats", multiple=True, default=("png",),
              show_default=True,
              help="Figure formats with --out: png,svg,pdf (comma list, or repeated).")  # fmt: skip
@click.option("--dpi", type=int, default=REPORT_DPI, show_default=True,
              help="Resolution of PNG figures.")  # fmt: skip
def report_(
    csvs: tuple[Path, ...],
    baseline: str | None,
    out: Path | None,
    fmt: str,
    plot_formats: tuple[str, ...],
    dpi: int,
) -> None:
    """Tables, speedups and plots from result CSVs (default: the newest in results/)."""
    from rich.console import Console

    from gcbench.report import report

    rep = report(csvs, baseline=baseline, out=out, format=fmt, plot_formats=plot_formats,
                 dpi=dpi)  # fmt: skip
    rendered = rep.render()
    if isinstance(rendered, str):
        click.echo(rendered, nl=False)
    else:
        Console().print(rendered)
    if fmt == "csv":
        for note in rep.notes:
            click.echo(f"note: {note}", err=True)
    for path in rep.written:
        click.echo(f"wrote {path}", err=True)
    for note in rep.plot_notes:
        click.echo(f"note: {note}", err=True)
