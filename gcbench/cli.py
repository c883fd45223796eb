"""The ``gcbench`` command line: thin commands that parse, call the library, and print.

Every failure is one line (``error: ...``) and an exit code from one table for every command
(:data:`EXIT_CODES`, docs/cli.md); ``--debug``, anywhere on the line, shows tracebacks.
Option values are read by :mod:`gcbench.grammar`, the parsers the library and suite files
use, so an option means the same in every command that has it.
"""

from __future__ import annotations

import shlex
import signal
import sys
import traceback
import warnings
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gcbench import grammar
from gcbench.errors import GcbenchError, SpecError, os_reason, shown
from gcbench.memory import out_of_memory
from gcbench.report import DPI as REPORT_DPI
from gcbench.report import FORMATS as REPORT_FORMATS

if TYPE_CHECKING:
    from gcbench.api import PatternStats

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BUG, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CODES = """\b
Exit status (the same for every command):
  0    all done, every result ok
  1    done, but some results failed: a run's rows that are not ok (invalid,
       error, timeout, oom, unsupported), an invalid coloring, graphs not fetched,
       cases compare --fail-on names
  2    bad input or usage, or a file that cannot be read or written: one
       error line, nothing (more) written
  3    a bug in gcbench: one error line; --debug shows the traceback
  130  interrupted (Ctrl-C or SIGTERM); a run keeps its finished cases: finish it
       with gcbench run --resume FILE"""


class _Command(click.Command):
    """A command whose help ends with the exit-code table."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("epilog", EXIT_CODES)
        super().__init__(*args, **kwargs)


class _Group(click.Group):
    """The root group: ``--debug`` anywhere on the line, and every failure one ``error:``
    line with the exit code of :data:`EXIT_CODES` (with ``--debug``, the traceback too)."""

    command_class = _Command
    group_class = type  # subgroups (``list``) are _Groups, so their commands are _Commands

    def main(self, args: Sequence[str] | None = None, *pos: Any, **kwargs: Any) -> Any:
        stops = (signal.SIGINT, signal.SIGTERM)  # Ctrl-C, a batch scheduler's stop
        previous = {stop: signal.signal(stop, _stop) for stop in stops}
        given = list(sys.argv[1:] if args is None else args)
        end = given.index("--") if "--" in given else len(given)
        debug = "--debug" in given[:end]
        given = [a for a in given[:end] if a != "--debug"] + given[end:]
        kwargs["standalone_mode"] = False
        warnings.formatwarning = _warning_line
        try:
            code = super().main([*(["--debug"] if debug else []), *given], *pos, **kwargs)
        except SystemExit as exc:  # a command's own exit code
            code = exc.code
        except (Stopped, click.Abort):
            code = _interrupted()
        except click.exceptions.NoArgsIsHelpError as exc:
            exc.show()
            code = exc.exit_code
        except click.ClickException as exc:
            code = _fail(exc.format_message(), exc.exit_code, False, hint=_help_hint(exc))
        except GcbenchError as exc:
            code = _fail(str(exc), EXIT_USAGE, debug)
        except MemoryError as exc:
            code = _fail(out_of_memory(f"running {_doing(given)}", exc), EXIT_USAGE, debug)
        except OSError as exc:
            code = _fail(f"{_doing(given)}: {os_reason(exc)}", EXIT_USAGE, debug)
        except Exception as exc:
            if _stopped_inside(exc):  # a stop Python wrapped (it landed in a class being made)
                code = _interrupted()
            else:
                code = _fail(
                    f"internal error in {_doing(given)}: {type(exc).__name__}: {exc}"
                    + ("" if debug else " (a bug: rerun with --debug and report the traceback)"),
                    EXIT_BUG, debug,
                )  # fmt: skip
        for stop, handler in previous.items():  # the caller's again (gcbench.__main__: ignored)
            signal.signal(stop, handler)
        sys.exit(code if isinstance(code, int) else EXIT_OK)


class Stopped(BaseException):
    """SIGINT or SIGTERM stopped a command: one line, exit 130. Not a KeyboardInterrupt, which
    click turns into a blank line and libraries may catch; a BaseException, so that no
    ``except Exception`` on the way takes it for a failure."""


def _stop(signum: int, frame: Any) -> None:
    raise Stopped


def _stopped_inside(exc: BaseException) -> bool:
    """Whether ``exc`` was caused by a stop: a signal that lands while Python makes a class
    (``__set_name__``, as numba's do on import) reaches the caller as a RuntimeError whose
    cause is the Stopped."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:  # bounded: each link seen once
        if isinstance(cause, Stopped):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def _interrupted() -> int:
    """Say that a stop ended the command; its exit code."""
    click.echo("interrupted", err=True)
    return EXIT_INTERRUPTED


def _warning_line(message: Warning | str, *args: Any, **kwargs: Any) -> str:
    """A library warning as one ``warning:`` line (without the source line Python adds)."""
    return f"warning: {' '.join(str(message).split())}\n"


def _fail(message: str, code: int, debug: bool, hint: str = "") -> int:
    """Print one error line (and, with ``--debug``, the traceback first); return ``code``."""
    if debug:
        traceback.print_exc()
    click.echo(f"error: {' '.join(message.split())}{hint}", err=True)
    return code


def _help_hint(exc: click.ClickException) -> str:
    ctx = getattr(exc, "ctx", None)
    return f" (see {ctx.command_path} --help)" if ctx is not None else ""


def _doing(args: Sequence[str]) -> str:
    """What the command line asked for, for messages: ``gcbench`` and its words up to the
    first option (``gcbench color gen:rgg?scale=10``), escaped."""
    words = []
    for arg in args:
        if arg.startswith("-") or len(words) == 3:
            break
        words.append(shown(arg, 80))
    return " ".join(["gcbench", *words])


@click.group(cls=_Group)
@click.option(
    "--debug", is_flag=True, help="Show full tracebacks on errors (also after the command)."
)
@click.version_option(package_name="gcbench")
def main(debug: bool) -> None:
    """Benchmark parallel graph-coloring algorithms on GPUs and CPUs."""


# ------------------------------------------------------ options shared by several commands
# One definition each, so an option is accepted identically wherever it appears (docs/cli.md).


def _parsed(parse: Callable[..., Any], what: str) -> Callable[[click.Context, Any, Any], Any]:
    """A click callback reading an option's value(s) with a :mod:`gcbench.grammar` parser."""
    return lambda ctx, param, value: parse(value, what)


def _algo_option(help: str, required: bool = False) -> Callable[..., Any]:
    return click.option("--algo", "algorithms", multiple=True, required=required,
                        metavar="NAME[,NAME...]", callback=_parsed(grammar.names, "--algo"),
                        help=help)  # fmt: skip


def _param_option(help: str) -> Callable[..., Any]:
    return click.option("--param", "params", multiple=True, metavar="K=V[,V...]",
                        callback=_parsed(grammar.param_axes, "--param"), help=help)  # fmt: skip


def _block_size_option(help: str) -> Callable[..., Any]:
    return click.option("--block-size", "block_sizes", multiple=True, metavar="N[,N...]|sweep",
                        callback=_parsed(grammar.block_sizes, "--block-size"),
                        help=help)  # fmt: skip


def _reps_option(
    default: int | None, help: str, parse: Callable[..., Any] = grammar.reps
) -> Callable[..., Any]:
    metavar = "N|auto" if parse is grammar.reps else "N"
    return click.option("--reps", type=str, default=default, metavar=metavar,
                        show_default=default is not None,
                        callback=_parsed(parse, "--reps"), help=help)  # fmt: skip


def _warmup_option(
    default: int | None, help: str, parse: Callable[..., Any] = grammar.warmup
) -> Callable[..., Any]:
    metavar = "N|auto" if parse is grammar.warmup else "N"
    return click.option("--warmup", type=str, default=default, metavar=metavar,
                        show_default=default is not None,
                        callback=_parsed(parse, "--warmup"), help=help)  # fmt: skip


def _device_option(help: str) -> Callable[..., Any]:
    return click.option("--device", type=click.Choice(grammar.DEVICES), default="auto",
                        show_default=True, help=help)  # fmt: skip


def _count_setup_option(default: bool | None, help: str) -> Callable[..., Any]:
    return click.option("--count-setup", is_flag=True, default=default, help=help)


def _problem_option(help: str, default: tuple[str, ...]) -> Callable[..., Any]:
    return click.option("--problem", "problems", multiple=True, default=default,
                        metavar="|".join(grammar.PROBLEMS), callback=_parsed(grammar.problems,
                        "--problem"), help=help)  # fmt: skip


def _out_option(help: str) -> Callable[..., Any]:
    return click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        help=help)  # fmt: skip


def _one_configuration(
    algorithms: tuple[str, ...], params: dict[str, tuple[str, ...]],
    block_sizes: grammar.BlockSizes | None, why: str,
) -> tuple[str, dict[str, Any], int | None]:  # fmt: skip
    """The one algorithm, parameter values and block size of a command that colors once;
    ``why`` ends the error when an option gives more than one."""
    from gcbench.api import one_block_size

    algorithm = grammar.one_value(algorithms, "--algo", why)
    chosen = {k: grammar.one_value(v, f"--param {k}", why) for k, v in params.items()}
    return algorithm, chosen, one_block_size(block_sizes, "--block-size")


@main.command()
@click.argument("spec")
@_problem_option("d1: describe the graph; d2: the pattern of its A + I; pd2 / pd2-rows: the "
                 "matrix whose columns / rows are colored (docs/distance2.md).",
                 (grammar.DEFAULT_PROBLEM,))  # fmt: skip
def info(spec: str, problems: tuple[str, ...]) -> None:
    """Graph statistics for SPEC (a path, gen:, ss:, snap: or dimacs: spec): size, degrees,
    what normalising changed, a lower bound on χ (a clique found), the degeneracy, and the χ
    its source publishes, if any. With --problem d2, pd2 or pd2-rows, the matrix that problem
    colors: rows, columns, entries, the largest row and column, and the problem's lower bound
    on the colors."""
    import gcbench
    from gcbench.api import PatternStats
    from gcbench.errors import MatrixInputError

    problem = grammar.one_value(problems, "--problem", "info describes one problem")
    try:
        stats = gcbench.info(spec, problem)
    except MatrixInputError as exc:  # a matrix for d1 or d2
        raise SpecError(
            f"{exc.what}: describe it with gcbench info {shown(shlex.quote(spec))} --problem pd2"
        ) from exc
    if isinstance(stats, PatternStats):
        _pattern_info(stats)
        return
    norm = stats.normalisation
    lines = [
        ("graph", stats.name),
        ("source", stats.source),
        ("vertices", stats.n),
        ("edges", stats.m),
        ("max degree", stats.max_degree),
        ("avg degree", f"{stats.avg_degree:.3f}"),
        ("min degree", stats.min_degree),
        ("isolated", stats.isolated),
        ("normalised", f"dropped {norm.self_loops} self loops, {norm.duplicates} duplicate "
                       f"entries; input {'directed' if norm.directed else 'undirected'}"
                       f" ({norm.asymmetric_added} reverse entries added)"),
        ("chi lower bound", f"{stats.chi_lower} (a clique found: χ ≥ {stats.chi_lower})"),
        ("degeneracy", f"{stats.degeneracy} (the smallest-last greedy needs at most "
                       f"{stats.degeneracy + 1 if stats.n else 0} colors)"),
    ]  # fmt: skip
    if stats.chi_known is not None:
        lines.append(("chi known", f"{stats.chi_known} (published by the graph's source)"))
    _print_fields(lines)


# Why a distance-2 problem's lower bound holds (``info --problem``).
_BOUND_WHY = {
    "d2": "Δ + 1, the largest row of A + I: a vertex and its neighbours all differ",
    "pd2": "the largest row: its columns all differ",
    "pd2-rows": "the largest column: its rows all differ",
}


def _pattern_info(stats: PatternStats) -> None:
    """``info --problem``'s lines: the matrix a distance-2 problem colors and its bound."""
    from gcbench.report.defaults import PROBLEM_TITLES

    _print_fields([
        ("matrix", stats.name), ("source", stats.source),
        ("problem", PROBLEM_TITLES[stats.problem]), ("rows", stats.rows),
        ("columns", stats.columns), ("entries", stats.entries),
        ("largest row", f"{stats.max_row} entries"),
        ("largest column", f"{stats.max_col} entries"),
        ("lower bound", f"{stats.lower} colors ({_BOUND_WHY[stats.problem]})"),
    ])  # fmt: skip


def _print_fields(lines: list[tuple[str, Any]]) -> None:
    """``info``'s output: a label and its value a line."""
    for label, value in lines:
        click.echo(f"{label:<16} {value}")


@main.command()
@click.argument("spec")
@_algo_option("Algorithm name (gcbench list algorithms).", required=True)
@_param_option("Parameter value, NAME=VALUE (repeatable; one value per parameter).")
@_block_size_option("GPU launch block size, 1..1024 (one).")
@_warmup_option(1, "Unrecorded runs before the timed ones.")
@_reps_option(1, "Timed runs (each validated); the median is printed.")
@_count_setup_option(False, "Include the algorithm's per-graph setup in the time.")
@_device_option("For --algo auto: which backend's algorithms it picks from (auto: the GPU "
                "if usable).")  # fmt: skip
@_problem_option("d1: color the vertices; d2: no two within distance 2 alike; pd2 / "
                 "pd2-rows: a matrix's columns / rows, none sharing a row / column alike "
                 "(docs/distance2.md).", (grammar.DEFAULT_PROBLEM,))  # fmt: skip
@_out_option("Write one color per line, in vertex (column) order.")
def color(spec: str, algorithms: tuple[str, ...], params: dict[str, tuple[str, ...]],
          block_sizes: grammar.BlockSizes | None, warmup: int, reps: int, count_setup: bool,
          device: str, problems: tuple[str, ...], out: Path | None) -> None:  # fmt: skip
    """Color SPEC with ALGO, validate, and print colors, time and validity.

    Compilation is never timed; the time is the median of --reps runs after --warmup ones.
    Options take the values they take in gcbench run; one configuration is colored, so
    each takes one value here.
    """
    from gcbench.algorithms import canonical_params, devices
    from gcbench.api import color_instance, configure, instance
    from gcbench.bench.plugins import load_plugins
    from gcbench.bench.worker import classify
    from gcbench.outputs import OutputFile

    algorithm, chosen, block_size = _one_configuration(
        algorithms, params, block_sizes, "color runs one configuration (gcbench run runs several)"
    )
    problem = grammar.one_value(
        problems, "--problem", "color solves one problem (gcbench run runs several)"
    )
    load_plugins()  # GCBENCH_PLUGINS' algorithms, as in gcbench run
    # a usage error before the graph loads
    chosen_spec, resolved = configure(algorithm, device, chosen, problem)
    launched = devices.get(chosen_spec.backend).takes_block_size
    if block_size is not None and not (launched or chosen_spec.block_size_matters):
        raise SpecError(f"--block-size: {algorithm} has no block size (it runs on the CPU)")
    colors_file = None if out is None else OutputFile(out, "the colors file")  # before the work
    with colors_file or nullcontext():
        graph = instance(spec, problem)
        try:
            result = color_instance(graph, chosen_spec, resolved, block_size=block_size,
                                    warmup=warmup, reps=reps, count_setup=count_setup)  # fmt: skip
        except (GcbenchError, MemoryError) as exc:
            status, message = classify(exc)
            if status == "error":
                raise
            # the algorithm stopped: the status a run's row would have, and exit 1 as there
            click.echo(f"error: {algorithm} on {graph.name}: {status}: {message}", err=True)
            sys.exit(EXIT_FAILED)
        if colors_file is not None:
            colors_file.write_lines(result.colors)
    v = result.validation
    count = len(result.times_ms)
    runs = "1 run" if count == 1 else f"median of {count} runs"
    warm = "a warm-up until steady" if warmup == grammar.AUTO else f"{warmup} warm-up"
    setup = (f"setup {result.setup_ms:.3f} ms included" if count_setup
             else f"+ {result.setup_ms:.3f} ms setup")  # fmt: skip
    click.echo(f"{'graph':<12} {graph.name} ({_size(graph, problem)})")
    if problem != grammar.DEFAULT_PROBLEM:
        click.echo(f"{'problem':<12} {problem}")
    click.echo(f"algorithm    {algorithm}")
    click.echo(f"params       {canonical_params(result.params)}")
    click.echo(f"colors       {v.colors} (max color {v.max_color})")
    if result.iterations is not None:  # algorithms that count none print no line
        click.echo(f"iterations   {result.iterations}")
    click.echo(f"time         {result.time_ms:.3f} ms ({runs} after {warm}; "
               f"{setup}; + {result.transfer_ms:.3f} ms transfer)")  # fmt: skip
    click.echo(f"valid        {'yes' if v.valid else 'NO'}"
               f" ({v.conflicts} conflicts, {v.uncolored} uncolored)")  # fmt: skip
    if v.recovered is not None:
        click.echo(f"recovered    {'yes' if v.recovered else 'NO'} (B = J·S gives back every "
                   f"nonzero; {graph.n / max(v.colors, 1):.2f} columns per color)")  # fmt: skip
    if not v.valid:
        sys.exit(EXIT_FAILED)


def _size(graph: Any, problem: str) -> str:
    """``color``'s size line: a graph's n and m, a matrix's rows × columns and nonzeros."""
    if problem == grammar.DEFAULT_PROBLEM:
        return f"n = {graph.n:,}, m = {graph.m:,}"
    if problem == "d2":
        return f"n = {graph.n:,}, m = {(graph.nnz - graph.n) // 2:,}; colored as A + I"
    return f"{graph.n_rows:,} × {graph.n_cols:,}, {graph.nnz:,} nonzeros; columns colored"


@main.command(name="run")
@click.option("--suite", default=None, help="Suite file or name in configs/ (default: quick).")
@click.option("--graph", "graphs", multiple=True, metavar="SPEC[,SPEC...]",
              help="Graph spec (repeatable); replaces the suite's graphs.")  # fmt: skip
@_algo_option("Algorithm, or 'all' for every one of the device (repeatable); replaces the "
              "suite's.")  # fmt: skip
@_param_option("NAME=V1,V2: an axis for every algorithm that has NAME (repeatable).")
@_block_size_option("Block sizes, 1..1024, or 'sweep' (1, 2, 4, ..., 1024 where block size "
                    "matters).")  # fmt: skip
@_reps_option(None, "Recorded repetitions per case, or 'auto': until the median's 95 % interval "
              "is within --noise [default: the suite's, else auto].")  # fmt: skip
@_warmup_option(None, "Unrecorded runs before them, or 'auto': until the device is steady "
                "[default: the suite's, else auto].")  # fmt: skip
@click.option("--noise", default=None, metavar="SHARE",
              callback=_parsed(grammar.share, "--noise"),
              help="--reps auto's target: the median's interval within this share of it, "
                   "e.g. 1% or 0.01 [default: the suite's, else 1%].")  # fmt: skip
@click.option("--case-time", "case_time", default=None, metavar="SECONDS",
              callback=_parsed(grammar.timeout, "--case-time"),
              help="--reps auto stops a case after this long, sure or not "
                   "[default: the suite's, else 1.5].")  # fmt: skip
@click.option("--timeout", default=None, metavar="SECONDS",
              callback=_parsed(grammar.timeout, "--timeout"),
              help="Wall-clock seconds per run [default: the suite's].")  # fmt: skip
@_device_option("auto: the GPU if one is usable, else the CPU.")
@_out_option("Results CSV (default results/<UTC time>-<suite>.csv).")
@click.option(
    "--resume",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Finish FILE: run what it records (its command) that it does not hold yet.",
)
@_count_setup_option(None, "Fold each algorithm's per-graph setup into time_ms (for references "
                     "that build it inside their call).")  # fmt: skip
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
@click.option("--metrics", default="",
              help="levels: add level-scheduling columns to every valid row "
              "(docs/balance-levels.md).")  # fmt: skip
@click.option("--retry", default="", metavar="STATUS[,STATUS...]",
              help="With --resume: run again the cases with rows of these statuses (error, "
                   "timeout, oom, invalid, unsupported); their old rows are removed.")  # fmt: skip
@_problem_option("Problems to run (repeatable, or a comma list): d1, d2, pd2, pd2-rows "
                 "(docs/distance2.md) [default: the suite's, else d1].", ())  # fmt: skip
def run_(suite: str | None, graphs: tuple[str, ...], algorithms: tuple[str, ...],
         params: dict[str, tuple[str, ...]], block_sizes: grammar.BlockSizes | None,
         reps: int | str | None, warmup: int | str | None, noise: float | None,
         case_time: float | None, timeout: float | None, device: str,
         out: Path | None, resume: Path | None, count_setup: bool | None, trace: bool,
         offline: bool, quiet: bool, gpus: str | None, cluster: str | None,
         shard: str | None, metrics: str, retry: str,
         problems: tuple[str, ...]) -> None:  # fmt: skip
    """Benchmark a suite: every case validated, one CSV row per repetition.

    At the end, the rows that are not ok are summarised by graph, algorithm and status with
    their first error; finish an interrupted run with --resume FILE alone (it runs what FILE
    records).
    """
    from gcbench.bench import runner
    from gcbench.bench.options import RunOptions
    from gcbench.bench.results import STATUSES

    values, command = _resumed(click.get_current_context(), resume)
    options = RunOptions(
        suite=values["suite"], graphs=values["graphs"], algorithms=values["algorithms"],
        params=values["params"], block_sizes=values["block_sizes"], reps=values["reps"],
        warmup=values["warmup"], noise=values["noise"], case_time=values["case_time"],
        timeout=values["timeout"], device=values["device"], out=out, resume=resume,
        trace=values["trace"], offline=values["offline"], progress=not quiet,
        gpus=values["gpus"], cluster=values["cluster"], shard=values["shard"],
        count_setup=values["count_setup"], command=command, metrics=values["metrics"],
        retry=retry, problems=values["problems"],
    ).checked()  # fmt: skip
    choice = runner.choose_device(options.device, remote=options.remote_cluster)
    planned = runner.plan(options, choice=choice)  # a usage error is one line, before this:
    click.echo(choice.message)
    summary = runner.run(options, choice=choice, planned=planned)
    if not summary.notes_shown:
        for note in summary.notes:
            click.echo(f"note: {note}")
    for line in summary.flag_lines():
        click.echo(f"warning: {line}")
    for line in summary.load_failure_lines():
        click.echo(f"error: {line}", err=True)
    for line in summary.failure_lines():
        click.echo(line)
    counts = ", ".join(f"{summary.counts[s]} {s}" for s in STATUSES if summary.counts[s])
    cases, rows = len(summary.measured), summary.written
    click.echo(f"{cases} case{'' if cases == 1 else 's'} ({rows} row{'' if rows == 1 else 's'}) "
               f"written to {summary.path} (file: {counts or 'no rows'})")  # fmt: skip
    if summary.trace_path is not None:
        click.echo(f"traces in {summary.trace_path}")
    if summary.cached_note is not None:
        click.echo(f"note: {summary.cached_note}")
    if summary.interrupted:
        rows = sum(summary.counts.values())
        click.echo(f"interrupted; to finish, run: {_resume_command(summary.path, rows, command)}",
                   err=True)  # fmt: skip
    elif summary.counts["ok"]:
        click.echo(f"next: {shlex.join(['gcbench', 'report', str(summary.path)])}")
    sys.exit(summary.exit_code)


def _command_line() -> str:
    """This gcbench invocation as a shell line (the CSV ``command`` column), without
    ``--debug`` (how it reports, not what it runs: a resume must not inherit it)."""
    return shlex.join(["gcbench", *(arg for arg in sys.argv[1:] if arg != "--debug")])


def _resume_command(path: Path, rows: int, command: str) -> str:
    """How to finish ``path``: ``--resume`` alone once it holds rows (they record the
    command, docs/runner.md "Resume"), else the run's ``command`` with ``--resume``."""
    if rows:
        return shlex.join(["gcbench", "run", "--resume", str(path)])
    words = shlex.split(command)
    args = _without_invocation(words[2:]) if words[:2] == ["gcbench", "run"] else []
    return shlex.join(["gcbench", "run", *args, "--resume", str(path)])


# Options of `run` that say how this invocation behaves, not what the run is: a resumed run
# takes them from the command line, everything else from the command its file records.
_PER_INVOCATION = frozenset({"resume", "out", "quiet", "retry"})


def _resumed(ctx: click.Context, resume: Path | None) -> tuple[dict[str, Any], str]:
    """The values of `run`'s options, and the command to record in the rows. With
    ``--resume FILE`` whose rows record a `gcbench run` command, that command's values: an
    option also given here must agree with it (else one line, exit 2)."""
    values = dict(ctx.params)
    if resume is None:
        return values, _command_line()
    from gcbench.bench.results import recorded_command

    recorded = recorded_command(resume)
    given = {
        name for name in values
        if name not in _PER_INVOCATION
        and ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
    }  # fmt: skip
    if not recorded:
        if not given:
            raise SpecError(
                f"--resume {resume}: it holds no row yet, so it does not say what to run; "
                "give the run's options with --resume"
            )
        return values, _command_line()  # no row yet: the options given here say what to run
    words = shlex.split(recorded)
    if words[:2] != ["gcbench", "run"]:
        if given:
            return values, _command_line()  # a Python run: its options repeated here
        raise SpecError(
            f"--resume {resume}: its rows were written by `{shown(recorded, None)}`, not by "
            "gcbench run; give the run's options with --resume"
        )
    original = run_.make_context("run", _without_invocation(words[2:]))
    options = {param.name: param for param in run_.params if isinstance(param, click.Option)}
    for name in sorted(given):
        if values[name] != original.params[name]:
            flag = options[name].opts[0]
            there = _option_words(words[2:], options[name]) or f"no {flag}"
            raise SpecError(
                f"{flag} contradicts the command {resume} records, which has {there} "
                f"({shown(recorded, None)}); drop {flag} to finish that run, or start a new "
                "--out"
            )
    return {**original.params, **{n: values[n] for n in _PER_INVOCATION}}, recorded


def _option_words(args: list[str], option: click.Option) -> str:
    """How the `run` arguments ``args`` give ``option``, as they give it (``--reps 2``,
    ``--graph a --graph b``, ``--trace``), or "" where they do not: what a resume-conflict
    message quotes of the recorded command."""
    takes_value = {
        name: not param.is_flag
        for param in run_.params if isinstance(param, click.Option)
        for name in param.opts
    }  # fmt: skip
    found, i = [], 0
    while i < len(args):
        name = args[i].split("=", 1)[0]
        width = 2 if takes_value.get(name) and "=" not in args[i] else 1
        if name in option.opts:
            found.append(shlex.join(args[i : i + width]))
        i += width
    return " ".join(found)


def _without_invocation(args: list[str]) -> list[str]:
    """``args`` without the options of :data:`_PER_INVOCATION` (and their values)."""
    flags = {f"--{name}" for name in _PER_INVOCATION}
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg.split("=", 1)[0] in flags:
            skip = "=" not in arg and arg != "--quiet"
        else:
            out.append(arg)
    return out


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
    """Every algorithm: usable here or why not, backend, family and paper, the problems it
    solves, parameters with their choices and defaults, block size, what `iterations`
    counts, and where its code is (a name that solves d1 and distance-2 problems with two
    implementations, greedy, is listed once for each)."""
    from gcbench import algorithms
    from gcbench.algorithms.availability import code_files, unusable
    from gcbench.bench.runner import probe_gpu

    usable, detail = probe_gpu()
    gpu_problem = None if usable else detail
    for spec in algorithms.all_specs(problem=None):
        why = unusable(spec, gpu_problem)
        state = "usable here" if why is None else f"NOT usable here: {why.reason}"
        click.echo(f"{spec.name:16} {spec.backend + (' peer' if spec.peer else ''):9} {state}")
        if spec.description:
            click.echo(f"{'':4}{spec.description}")
        rows = [("family", spec.family), ("problems", ", ".join(spec.problems))]
        rows += [("param" if i == 0 else "", _param_text(p)) for i, p in enumerate(spec.params)]
        if spec.block_size_matters:
            step = f", multiples of {spec.block_size_step}" if spec.block_size_step > 1 else ""
            rows.append(
                ("block size", f"a parameter (default {spec.default_block_size or 256}{step})")
            )
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
@click.option("--suite", default=None, help="Fetch every remote graph of a suite (file/name).")
@click.option("--force", is_flag=True, help="Download again even when cached.")
def fetch(specs: tuple[str, ...], suite: str | None, force: bool) -> None:
    """Download ss:GROUP/NAME, snap:NAME and dimacs:NAME graphs (or a suite's) into the cache.

    Failures are reported at the end, one error line per cause with the graphs it hit.
    Exits 1 if any graph could not be fetched, 2 on bad usage.
    """
    from gcbench.bench.suite import remote_specs
    from gcbench.graphs.fetch import failure_lines, fetch_all

    if not specs and not suite:
        raise click.UsageError(
            "give graph specs (ss:GROUP/NAME, snap:NAME, dimacs:NAME) or --suite NAME"
        )
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
    """Cached graphs: spec, vertices, edges, size on disk and where they came from (a matrix
    pattern cached for a distance-2 problem is labelled so; its vertices and edges are its rows
    and nonzeros)."""
    from gcbench.graphs.fetch import cached_graphs
    from gcbench.memory import format_bytes
    from gcbench.resources import data_dir

    graphs = cached_graphs()
    if not graphs:
        click.echo(f"no cached graphs in {data_dir()} (gcbench fetch SPEC adds some)")
        return
    click.echo(f"{'spec':40} {'vertices':>12} {'edges':>13} {'size':>9}  source")
    for g in graphs:
        stale = " (stale: rebuilt on next use)" if g.stale else ""
        size = format_bytes(g.bytes)
        click.echo(f"{g.label:40} {g.n:>12} {g.m:>13} {size:>9}  {g.source}{stale}")


@main.command(name="cache")
@click.argument("specs", nargs=-1)
@click.option("--clear", is_flag=True, help="Remove the cached graphs (all, or the SPECs named).")
@click.option("--older-than", "older_than", type=float, default=None, metavar="DAYS",
              help="Remove the cached graphs not built or loaded for DAYS days.")  # fmt: skip
def cache_(specs: tuple[str, ...], clear: bool, older_than: float | None) -> None:
    """The graphs cached in the data directory ($GCBENCH_DATA, default ~/.cache/gcbench):
    list them (all, or the SPECs named) with their sizes and when they were last used, or
    remove them (docs/fetch.md)."""
    import time

    from gcbench.graphs.fetch import cached_graphs
    from gcbench.graphs.fetch.listing import last_used, remove
    from gcbench.graphs.sources import canonical_spec
    from gcbench.memory import format_bytes
    from gcbench.resources import data_dir

    graphs = cached_graphs()
    if specs:
        wanted = {canonical_spec(spec) for spec in specs}
        unknown = sorted(wanted - {g.spec for g in graphs})
        if unknown:
            raise SpecError(f"not in the cache {data_dir()}: {', '.join(unknown)}")
        graphs = [g for g in graphs if g.spec in wanted]
    if older_than is not None:
        if older_than < 0:
            raise SpecError(f"--older-than {older_than:g}: a number of days ≥ 0")
        cutoff = time.time() - older_than * 86400
        graphs = [g for g in graphs if last_used(g) < cutoff]
    if clear or older_than is not None:
        freed = remove(graphs)
        click.echo(f"removed {len(graphs)} cached graphs ({format_bytes(freed)}) from {data_dir()}")
        return
    if not graphs:
        click.echo(f"no cached graphs in {data_dir()} (gcbench fetch SPEC adds some)")
        return
    click.echo(f"{'spec':48} {'size':>9}  last used")
    for g in graphs:
        used = time.strftime("%Y-%m-%d %H:%M", time.localtime(last_used(g)))
        click.echo(f"{g.label:48} {format_bytes(g.path.stat().st_size):>9}  {used}")
    total = sum(g.path.stat().st_size for g in graphs)
    click.echo(f"{len(graphs)} graphs, {format_bytes(total)} in {data_dir()}")


@main.command(name="report")
@click.argument("csvs", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--baseline", default=None,
              help="Algorithm, configuration (ALGO[k=v]) or group label speedups are relative "
                   "to [default: cusparse for results with GPU rows, greedy[order=ldf] for "
                   "CPU-only ones; no speedups where it is absent].")  # fmt: skip
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory for summary.csv, summary.md, figures and index.html.")  # fmt: skip
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
    from gcbench.report import report
    from gcbench.report.tables import console

    rep = report(csvs, baseline=baseline, out=out, format=fmt, plot_formats=plot_formats,
                 dpi=dpi)  # fmt: skip
    rendered = rep.render()
    if isinstance(rendered, str):
        click.echo(rendered, nl=False)
    else:
        console().print(rendered)
    if fmt == "csv":
        for note in rep.notes:
            click.echo(f"note: {note}", err=True)
    for path in rep.written:
        click.echo(f"wrote {path}", err=True)
    for note in rep.plot_notes:
        click.echo(f"note: {note}", err=True)


@main.command(name="levels")
@click.argument("matrix")
@_algo_option("Algorithm whose coloring reorders the matrix.", required=True)
@_param_option("Parameter value, NAME=VALUE (repeatable; one value per parameter).")
@_block_size_option("GPU launch block size, 1..1024 (one).")
@_device_option("For --algo auto: which backend it picks from.")
@click.option("--solve/--no-solve", default=None,
              help="Time the triangular solves [default: when a GPU is usable].")  # fmt: skip
@_reps_option(5, "Timed solves per ordering; the median is printed.", grammar.count)
@_warmup_option(1, "Untimed solves before them.", grammar.solve_warmup)
def levels_(matrix: str, algorithms: tuple[str, ...], params: dict[str, tuple[str, ...]],
            block_sizes: grammar.BlockSizes | None, device: str, solve: bool | None, reps: int,
            warmup: int) -> None:  # fmt: skip
    """Levels of a level-scheduled lower-triangular solve of MATRIX, natural vs reordered by
    ALGO's color classes, and (with a GPU) the time of cuSPARSE's solve on both."""
    from gcbench.algorithms import canonical_params
    from gcbench.api import levels as report
    from gcbench.bench.plugins import load_plugins

    algorithm, chosen, block_size = _one_configuration(
        algorithms, params, block_sizes, "levels reorders by one coloring"
    )
    load_plugins()  # GCBENCH_PLUGINS' algorithms, as in gcbench color and run
    rep = report(matrix, algorithm, block_size=block_size, device=device, solve=solve, reps=reps,
                 warmup=warmup, **chosen)  # fmt: skip
    m, g = rep.metrics, rep.graph
    click.echo(f"matrix       {g.name} (n = {g.n}, {g.m} entries below the diagonal)")
    click.echo(f"algorithm    {algorithm} ({canonical_params(rep.params)})")
    click.echo(f"colors       {rep.colors}")
    click.echo(f"levels       natural {m.levels_natural}, colored {m.levels_colored}")
    if rep.solve_note:
        click.echo(f"solve        {rep.solve_note}")
    else:
        click.echo(f"solve        natural {m.trsv_natural_ms:.3f} ms, colored "
                   f"{m.trsv_colored_ms:.3f} ms (spsolve_triangular, median of {rep.solve_reps} "
                   f"after {rep.solve_warmup} warm-up)")  # fmt: skip


@main.command(name="compare")
@click.argument("base", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("new", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--a", "a", default=None, metavar="CONFIG",
              help="With one file: the base configuration (an algorithm, configuration or group "
                   "label, as gcbench report names them).")  # fmt: skip
@click.option("--b", "b", default=None, metavar="CONFIG",
              help="With one file: the configuration compared against --a.")  # fmt: skip
@click.option("--threshold", default="5%", show_default=True, metavar="SHARE",
              callback=_parsed(grammar.share, "--threshold"),
              help="The smallest change that counts: a share (0.05) or a percentage "
                   "(5%).")  # fmt: skip
@click.option("--format", "fmt", type=click.Choice(("table", "csv")), default="table",
              show_default=True, help="A table with the summary, or the table as CSV.")  # fmt: skip
@click.option("--fail-on", type=click.Choice(("slower", "faster")), default=None,
              help="Exit 1 when any case is confidently slower (or faster).")  # fmt: skip
@click.option("--metric", type=click.Choice(("time", "device")), default="time",
              show_default=True,
              help="Compare time_ms, or device_ms: the GPU's time on the call's work, without "
                   "its idle time on the host's blocking reads.")  # fmt: skip
def compare_(base: Path, new: Path | None, a: str | None, b: str | None, threshold: float,
             fmt: str, fail_on: str | None, metric: str) -> None:  # fmt: skip
    """Median times of NEW over BASE per case, with 95 % intervals and verdicts.

    BASE NEW: two result files, cases matched by graph, algorithm, params and block size.
    FILE --a CONFIG --b CONFIG: two configurations of one file, matched per graph. With
    --fail-on, exit 1 when a case has that verdict (docs/compare.md).
    """
    from gcbench.report.compare import compare
    from gcbench.report.tables import console

    result = compare(base, new, a=a, b=b, threshold=threshold, metric=metric)
    rendered = result.render(fmt)
    if isinstance(rendered, str):
        click.echo(rendered, nl=False)
        for line in result.summary_lines():
            click.echo(line, err=True)
    else:
        console().print(rendered)
    hits = result.counts[fail_on] if fail_on else 0
    if hits:
        click.echo(f"--fail-on {fail_on}: {hits} case(s) {fail_on}", err=True)
        sys.exit(EXIT_FAILED)
