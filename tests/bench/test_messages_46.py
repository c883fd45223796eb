"""Messages of ``gcbench run`` (issue 46): a resume that contradicts its file quotes the
recorded option and the recorded command whole, once and unquoted; a run left with no
algorithm says why in a sentence, for one skipped algorithm or several."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from gcbench.algorithms.availability import Unusable, skip_notes, skip_reasons

# Two graphs with 19-digit seeds: the recorded command is longer than the 160 characters it
# was once cut at, with two worker start-ups rather than eight (each case starts a worker).
GRAPHS = ",".join(f"gen:rgg?scale=5&seed={seed}" for seed in (9 * 10**18, 9 * 10**18 + 1))
ARGS = ["--device", "cpu", "--graph", GRAPHS, "--algo", "greedy", "--reps", "2",
        "--warmup", "0", "--quiet"]  # fmt: skip


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """(the results file of a finished run, the command its rows record): one run for the
    module's resumes, none of which writes to it."""
    here = tmp_path_factory.mktemp("finished")
    out = here / "r.csv"
    done = subprocess.run([sys.executable, "-m", "gcbench", "run", *ARGS, "--out", str(out)],
                          capture_output=True, text=True, cwd=here, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    command = shlex.join(["gcbench", "run", *ARGS, "--out", str(out)])
    assert len(command) > 160
    assert len(command) - len(str(out)) > 160  # whatever the temporary directory's length
    return out, command


@pytest.mark.parametrize(
    ("given", "recorded"),
    [(["--reps", "3"], "--reps 2"), (["--trace"], "no --trace"),
     (["--graph", "gen:cycle?n=9"], f"--graph {shlex.quote(GRAPHS)}")],
)  # fmt: skip
def test_a_resume_conflict_quotes_the_recorded_option_and_the_whole_command(
    cli, tmp_path, finished, given, recorded
):
    out, command = finished
    wrong = cli("run", "--resume", str(out), *given, cwd=tmp_path)
    assert wrong.returncode == 2
    flag = given[0]
    assert wrong.stderr == (
        f"error: {flag} contradicts the command {out} records, which has {recorded} "
        f"({command}); drop {flag} to finish that run, or start a new --out\n"
    )


def test_a_run_left_with_no_algorithm_says_why_in_a_sentence(cli, tmp_path):
    def error(algorithms: str) -> str:
        run = cli("run", "--device", "cpu", "--algo", algorithms, "--graph", "gen:cycle?n=9",
                  cwd=tmp_path)  # fmt: skip
        assert run.returncode == 2
        return run.stderr

    assert error("jpl") == (
        "error: suite custom: no algorithm can run here: jpl needs a GPU (this run uses "
        "--device cpu)\n"
    )
    assert error("jpl,ecl-gc") == (
        "error: suite custom: no algorithm can run here: jpl, ecl-gc need a GPU (this run uses "
        "--device cpu)\n"
    )


def test_skipped_algorithms_read_as_sentences_for_one_or_many():
    gpu = [Unusable("jpl", device="--device cpu"), Unusable("ecl-gc", device="--device cpu")]
    probe = [Unusable("cf", device="CuPy is not installed")]
    peers = [Unusable("nx-greedy", ("networkx",), "peers")]
    assert skip_reasons(gpu[:1]) == "jpl needs a GPU (this run uses --device cpu)"
    assert skip_reasons(gpu + peers) == (
        "jpl, ecl-gc need a GPU (this run uses --device cpu); nx-greedy needs networkx (not "
        "installed; pip install 'gcbench[peers]')"
    )
    assert skip_notes(gpu[:1] + probe) == [
        "skipped jpl: it needs a GPU (this run uses --device cpu)",
        "skipped cf: it needs a GPU (CuPy is not installed)",
    ]
    assert skip_notes(gpu) == ["skipped jpl, ecl-gc: they need a GPU (this run uses --device cpu)"]
