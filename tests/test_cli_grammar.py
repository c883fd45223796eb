"""One command-line grammar (issue 15): an option that ``color`` and ``run`` both have is read
identically by both; ``color`` refuses more than one value in one line; every command's help
ends with the one exit-code table; ``--debug`` is accepted anywhere."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from gcbench.cli import EXIT_CODES, main
from gcbench.errors import SpecError

COLOR, RUN = main.commands["color"], main.commands["run"]
COLOR_BASE = ["gen:cycle?n=5", "--algo", "greedy"]  # what color needs besides the option

# Values to try for every option both commands have: valid ones (parsed the same) and
# malformed ones (refused with the same message).
SAMPLES: dict[str, list[list[str]]] = {
    "--algo": [["greedy"], ["greedy,gm-async"], ["greedy", "--algo", "jpl"], ["greedy,"]],
    "--param": [["order=ldf"], ["order=ldf,ff"], ["order=ldf", "--param", "order=ff"],
                ["order="], ["order=ldf,,ff"], ["ldf"], ["order=ldf,seed=3"]],
    "--block-size": [["64"], ["64,128"], ["sweep"], ["0"], ["-32"], ["100000"], ["64,,128"],
                     ["x"], ["64", "--block-size", "128"]],
    "--reps": [["3"], ["0"], ["-1"], ["x"], ["2.5"]],
    "--warmup": [["0"], ["2"], ["-1"], ["y"]],
    "--device": [["gpu"], ["cpu"], ["auto"], ["tpu"]],
    "--count-setup": [[]],
    "--out": [["x.csv"]],
    "--problem": [["d2"], ["pd2,pd2-rows"], ["d1", "--problem", "d2"], ["d3"], ["d2,"]],
}  # fmt: skip


def _options(command: click.Command) -> dict[str, click.Option]:
    return {
        name: p
        for p in command.params
        if isinstance(p, click.Option)
        for name in p.opts
        if name != "--help"
    }


def _parse(command: click.Command, args: list[str]) -> tuple[str, object]:
    """("ok", the parsed params) or ("refused", the message)."""
    try:
        ctx = command.make_context(command.name, args, resilient_parsing=False)
    except (SpecError, click.UsageError) as exc:
        return "refused", getattr(exc, "message", str(exc))
    return "ok", ctx.params


def test_every_shared_option_has_samples():
    shared = set(_options(COLOR)) & set(_options(RUN))
    assert shared == set(SAMPLES), "add samples for a new option both commands have"


@pytest.mark.parametrize(
    ("option", "values"),
    [(option, values) for option, samples in SAMPLES.items() for values in samples],
)
def test_shared_options_are_read_identically(option, values):
    name = _options(COLOR)[option].name
    assert name == _options(RUN)[option].name
    base = ["gen:cycle?n=5"] if option == "--algo" else COLOR_BASE
    color = _parse(COLOR, [*base, option, *values])
    run = _parse(RUN, [option, *values])
    assert color[0] == run[0], (color, run)
    if color[0] == "ok":
        assert color[1][name] == run[1][name]
    else:
        assert color[1] == run[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--algo", "greedy,gm-async"], "--algo: 2 values (greedy,gm-async); color runs one"),
        (["--algo", "greedy", "--algo", "jpl"], "--algo: 2 values (greedy,jpl)"),
        (["--algo", "greedy", "--param", "order=ldf,ff"], "--param order: 2 values (ldf,ff)"),
        (["--algo", "greedy", "--block-size", "64,128"], "--block-size: 2 values (64,128)"),
        (["--algo", "greedy", "--block-size", "sweep"], "--block-size: 11 values"),
        (["--algo", "greedy", "--problem", "d2,pd2"], "--problem: 2 values (d2,pd2)"),
    ],
)
def test_color_refuses_more_than_one_value_in_one_line(args, message):
    done = CliRunner().invoke(main, ["color", "gen:cycle?n=5", *args])
    assert done.exit_code == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert "(gcbench run" in lines[0]


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            out += _commands(command, (*path, name))
        else:
            out.append((*path, name))
    return out


@pytest.mark.parametrize("path", _commands(main))
def test_every_command_help_ends_with_the_exit_codes(path):
    done = CliRunner().invoke(main, [*path, "--help"])
    assert done.exit_code == 0
    assert "Exit status (the same for every command):" in done.stdout
    for code in ("0 ", "1 ", "2 ", "130 "):
        assert f"\n    {code}" in done.stdout
    assert done.stdout.rstrip().endswith(EXIT_CODES.splitlines()[-1].strip())


@pytest.mark.parametrize(
    "args",
    [
        ["--debug", "info", "no/such/file.mtx"],
        ["info", "--debug", "no/such/file.mtx"],
        ["info", "no/such/file.mtx", "--debug"],
    ],
)
def test_debug_is_accepted_anywhere(args):
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2
    assert "Traceback" in done.stderr and done.stderr.splitlines()[-1].startswith("error: ")


def test_without_debug_one_line():
    done = CliRunner().invoke(main, ["info", "no/such/file.mtx"])
    assert done.exit_code == 2 and len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["color", "--bogus"], "No such option '--bogus'"),
        (["run", "--device", "tpu"], "Invalid value for '--device'"),
        (["color"], "Missing argument 'SPEC'"),
        (["nosuchcommand"], "No such command 'nosuchcommand'"),
    ],
)
def test_usage_errors_are_one_line_exit_2(args, message):
    done = CliRunner().invoke(main, args, prog_name="gcbench")
    assert done.exit_code == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert lines[0].endswith("--help)")


@pytest.mark.parametrize(
    ("raised", "code", "line"),
    [
        (OSError(28, "No space left on device", "/data/x.npz"), 2,
         "error: gcbench color gen:cycle?n=5: No space left on device (/data/x.npz)"),
        (MemoryError("Unable to allocate 7.45 GiB for an array"), 2,
         "error: out of memory while running gcbench color gen:cycle?n=5 (Unable to allocate "
         "7.45 GiB for an array); free some memory or use a smaller graph"),
        (KeyError("x"), 3,
         "error: internal error in gcbench color gen:cycle?n=5: KeyError: 'x' (a bug: rerun "
         "with --debug and report the traceback)"),
    ],
)  # fmt: skip
def test_any_failure_reaching_a_command_is_one_line(monkeypatch, raised, code, line):
    """OSError, MemoryError and bugs that no layer below turned into a typed error."""
    import gcbench.api

    def fail(*args, **kwargs):
        raise raised

    monkeypatch.setattr(gcbench.api, "load_instance", fail)
    done = CliRunner().invoke(main, ["color", "gen:cycle?n=5", "--algo", "greedy"])
    assert done.exit_code == code
    assert done.stderr.splitlines() == [line]
    done = CliRunner().invoke(main, ["color", "gen:cycle?n=5", "--algo", "greedy", "--debug"])
    assert done.exit_code == code and "Traceback" in done.stderr
