"""Misuses of the command line end quickly with one ``error:`` line and exit 2, leaving no
file in the data cache or the output directory (issue 14, the CLI side). Each runs in a
subprocess under an address-space limit (tests/conftest.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

RGG = "gen:rgg?scale=10"
CPU = ["--device", "cpu", "--quiet"]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["color", RGG, "--algo", "greedy", "--out", "/proc/nope/c.txt"],
         "cannot write the colors file /proc/nope/c.txt: No such file or directory"),
        (["run", "--graph", RGG, "--algo", "greedy", *CPU, "--out", "/proc/nope/x.csv"],
         "--out /proc/nope/x.csv: /proc/nope does not exist"),
    ],
)  # fmt: skip
def test_unwritable_outputs_as_in_the_issue(run_limited, args, fragment):
    done = run_limited(*args)
    done.one_error(fragment)
    assert run_limited.leftovers() == []


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["color", RGG, "--algo", "greedy", "--out", "afile/c.txt"],
         "cannot write the colors file afile/c.txt: Not a directory"),
        (["run", "--graph", RGG, "--algo", "greedy", *CPU, "--out", "afile/x.csv"],
         "--out afile/x.csv: afile is not a directory"),
        (["run", "--graph", RGG, "--algo", "greedy", *CPU, "--trace", "--out", "adir/x.csv"],
         "cannot write the trace file adir/x.trace.csv: Is a directory"),
    ],
)  # fmt: skip
def test_unwritable_outputs_leave_nothing(run_limited, args, fragment):
    """Under a path that is a file, or a trace file name taken by a directory: refused
    before any graph is built, and the results file of the run is not left behind."""
    afile = run_limited.out / "afile"
    afile.write_text("not a directory\n")
    (run_limited.out / "adir" / "x.trace.csv").mkdir(parents=True)
    done = run_limited(*args)
    done.one_error(fragment)
    assert run_limited.leftovers(afile) == []


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        # block sizes: the device's limits, 1..1024, in both commands
        (["color", RGG, "--algo", "greedy", "--block-size", "0"], "--block-size: 0 must be in"),
        (["color", RGG, "--algo", "greedy", "--block-size", "-32"], "--block-size: -32 must be"),
        (["color", RGG, "--algo", "greedy", "--block-size", "100000"], "100000 must be in"),
        (["run", "--graph", RGG, "--algo", "greedy", *CPU, "--block-size", "0"], ": 0 must be"),
        (["run", "--graph", RGG, "--algo", "greedy", *CPU, "--block-size", "64,,128"],
         "--block-size '64,,128': empty item in a comma list"),
        # a parameter given twice
        (["color", RGG, "--algo", "greedy", "--param", "order=ldf", "--param", "order=ff"],
         "--param order: given twice; list its values once, order=v1,v2"),
        (["run", "--graph", RGG, "--algo", "greedy", *CPU, "--param", "order=ldf", "--param",
          "order=ff"], "--param order: given twice"),
        # repetitions, warm-up, timeouts
        (["color", RGG, "--algo", "greedy", "--reps", "0"], "--reps: 0 must be ≥ 1"),
        (["color", RGG, "--algo", "greedy", "--warmup", "-1"], "--warmup: -1 must be ≥ 0"),
        (["run", "--graph", RGG, "--algo", "greedy", *CPU, "--timeout", "0"],
         "--timeout: 0 must be a finite number > 0"),
        # a graph file that does not exist: refused before anything runs
        (["run", "--graph", "nonexistent.mtx", "--algo", "greedy", *CPU, "--out", "n.csv"],
         "graph file nonexistent.mtx not found"),
        # color colors one configuration
        (["color", RGG, "--algo", "greedy,gm-async"], "--algo: 2 values (greedy,gm-async)"),
        # usage
        (["color", RGG, "--algo", "greedy", "--bogus"], "No such option '--bogus'"),
    ],
)  # fmt: skip
def test_option_misuse(run_limited, args, fragment):
    done = run_limited(*args)
    done.one_error(fragment)
    assert run_limited.leftovers() == []


def test_suite_file_limits_are_the_options(run_limited):
    suite = run_limited.out / "s.toml"
    suite.write_text(f'graphs = ["{RGG}"]\nblock_sizes = [0]\n[[algorithms]]\nname = "greedy"\n')
    done = run_limited("run", "--suite", "s.toml", *CPU)
    done.one_error("suite s.toml: block_sizes: 0 must be in [1, 1024]")
    suite.write_text(f'graphs = ["{RGG}"]\ntimeout_s = 5\n[[algorithms]]\nname = "greedy"\n')
    done = run_limited("run", "--suite", "s.toml", *CPU)
    done.one_error("key timeout_s is now timeout (named like --timeout)")
    assert run_limited.leftovers(suite) == []


NO_CUPY = importlib.util.find_spec("cupy") is None


@pytest.mark.skipif(not NO_CUPY, reason="the hint for a machine without CuPy")
def test_gpu_algorithm_without_gpu_names_cpu_algorithms_not_options(run_limited):
    done = run_limited("color", RGG, "--algo", "jpl")
    line = done.one_error("jpl runs on the GPU: ")
    assert "CPU algorithms: " in line and "greedy" in line
    assert "--device" not in line and "--offline" not in line
    assert run_limited.leftovers() == []


@pytest.mark.skipif(not NO_CUPY, reason="the hint for a machine without CuPy")
def test_run_on_a_missing_gpu_names_its_own_option(run_limited):
    done = run_limited("run", "--graph", RGG, "--algo", "greedy", "--device", "gpu")
    done.one_error("--device gpu, but no GPU is usable: ")
    assert done.error_lines[0].endswith("; --device cpu runs the CPU algorithms")


class _StopsOnNaming:
    """A descriptor whose ``__set_name__`` is where a signal lands, as it can in a class that
    numba makes while it imports."""

    def __set_name__(self, owner: type, name: str) -> None:
        from gcbench.cli import Stopped

        raise Stopped


def test_a_stop_that_python_wraps_is_still_a_stop():
    """A stop raised inside class creation reaches the command's caller wrapped (Python 3.11:
    RuntimeError "Error calling __set_name__"): it is an interrupt (exit 130), not a bug."""
    from gcbench.cli import Stopped, _stopped_inside

    with pytest.raises(BaseException) as caught:  # noqa: PT011 -- wrapped or not, by version
        type("Made", (), {"field": _StopsOnNaming()})
    assert _stopped_inside(caught.value) or isinstance(caught.value, Stopped)
    assert not _stopped_inside(RuntimeError("a real bug"))
    try:
        try:
            raise ValueError("first")
        except ValueError as first:
            raise RuntimeError("second") from first
    except RuntimeError as chained:
        assert not _stopped_inside(chained)
