"""The shared grammar of option values (gcbench/grammar.py): one parser per option, the same
for ``color``, ``run``, the library and suite files."""

from __future__ import annotations

import pytest

from gcbench import grammar
from gcbench.bench.suite import parse_suite
from gcbench.errors import SpecError


@pytest.mark.parametrize(
    ("value", "sizes"),
    [
        ("64", (64,)),
        ("32, 64,32", (32, 64)),
        (("64", "128,256"), (64, 128, 256)),  # a repeated option, one item a comma list
        ([1, 1024], (1, 1024)),
        (512, (512,)),
        (" sweep", "sweep"),
        (("sweep",), "sweep"),
        ((), None),  # the option not given
        (None, None),
    ],
)
def test_block_sizes_accepted(value, sizes):
    assert grammar.block_sizes(value) == sizes


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "--block-size: 0 must be in [1, 1024]"),
        ("-32", "--block-size: -32 must be in [1, 1024]"),
        ("100000", "--block-size: 100000 must be in [1, 1024]"),
        ([2048], "--block-size: 2048 must be in [1, 1024]"),
        ("64,,128", "--block-size '64,,128': empty item in a comma list"),
        ("64,", "--block-size '64,': empty item"),
        (("64", ""), "--block-size '': empty item"),
        ("32,x", "--block-size: 'x' is not an integer"),
        ("64.5", "--block-size: '64.5' is not an integer"),
        ([True], "--block-size: True is not an integer"),
        ("sweep,64", "'sweep' stands alone"),
        ([], "no block sizes given"),
    ],
)
def test_block_sizes_refused(value, message):
    with pytest.raises(SpecError) as caught:
        grammar.block_sizes(value)
    assert message in str(caught.value)


def test_param_axes_from_the_command_line():
    assert grammar.param_axes(("order=ldf,ff", "seed=1")) == {
        "order": ("ldf", "ff"),
        "seed": ("1",),
    }
    # within one item a piece with = starts the next parameter
    assert grammar.param_axes(("order=ldf,ff,seed=1,2",)) == {
        "order": ("ldf", "ff"),
        "seed": ("1", "2"),
    }
    assert grammar.param_axes(()) == {} and grammar.param_axes(None) == {}


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (("order=ldf", "order=ff"), "--param order: given twice; list its values once"),
        (("order=ldf,order=ff",), "--param order: given twice"),
        (("order=",), "empty value for order"),
        (("order=ldf,,ff",), "empty value for order"),
        (("=ldf",), "a parameter name must come before ="),
        (("ldf",), "expected name=value or name=v1,v2"),
    ],
)
def test_param_axes_refused(items, message):
    with pytest.raises(SpecError, match=message):
        grammar.param_axes(items)


def test_param_axes_from_python_and_suites():
    assert grammar.param_axes({"order": ["ldf", "ff"], "seed": 3, "x": "a,b"}) == {
        "order": ("ldf", "ff"),
        "seed": (3,),
        "x": ("a", "b"),
    }
    with pytest.raises(SpecError, match="an empty list of values"):
        grammar.param_axes({"order": []})


@pytest.mark.parametrize(
    ("parse", "value", "expected"),
    [
        (grammar.reps, "3", 3),
        (grammar.reps, 3.0, 3),
        (grammar.warmup, "0", 0),
        (grammar.timeout, "2.5", 2.5),
        (grammar.timeout, 60, 60.0),
        (grammar.reps, None, None),
    ],
)
def test_numbers_accepted(parse, value, expected):
    assert parse(value) == expected


@pytest.mark.parametrize(
    ("parse", "value", "message"),
    [
        (grammar.reps, "0", "--reps: 0 must be ≥ 1"),
        (grammar.reps, "-1", "--reps: -1 must be ≥ 1"),
        (grammar.reps, "1.5", "--reps: '1.5' is not an integer"),
        (grammar.reps, "x", "--reps: 'x' is not an integer"),
        (grammar.reps, "1e999", "--reps: '1e999' is not an integer"),
        (grammar.warmup, "-1", "--warmup: -1 must be ≥ 0"),
        (grammar.timeout, "0", "--timeout: 0 must be a finite number > 0"),
        (grammar.timeout, "-5", "must be a finite number > 0"),
        (grammar.timeout, "inf", "must be a finite number > 0"),
        (grammar.timeout, "nan", "must be a finite number > 0"),
        (grammar.timeout, "soon", "--timeout: 'soon' is not a number"),
        (grammar.timeout, True, "is not a number"),
    ],
)
def test_numbers_refused(parse, value, message):
    with pytest.raises(SpecError) as caught:
        parse(value)
    assert message in str(caught.value)


def test_names_take_comma_lists_and_repeats():
    assert grammar.names(("greedy,gm-async", "jpl", "greedy"), "--algo") == (
        "greedy",
        "gm-async",
        "jpl",
    )
    with pytest.raises(SpecError, match="empty item"):
        grammar.names(("greedy,",), "--algo")


def test_graph_specs_split_on_commas_except_an_existing_file(tmp_path):
    odd = tmp_path / "a,b.el"
    odd.write_text("1 2\n")
    assert grammar.graph_specs(("gen:cycle?n=5,gen:cycle?n=7", str(odd))) == (
        "gen:cycle?n=5",
        "gen:cycle?n=7",
        str(odd),
    )


def test_one_value_says_why():
    assert grammar.one_value(("greedy",), "--algo", "why") == "greedy"
    with pytest.raises(SpecError, match=r"--algo: 2 values \(greedy,jpl\); one only"):
        grammar.one_value(("greedy", "jpl"), "--algo", "one only")


@pytest.mark.parametrize(
    ("key", "value", "option", "cli_value"),
    [
        ("block_sizes", [0], "--block-size", "0"),
        ("block_sizes", "64,,128", "--block-size", "64,,128"),
        ("reps", 0, "--reps", "0"),
        ("warmup", -1, "--warmup", "-1"),
        ("timeout", -5, "--timeout", "-5"),
    ],
)
def test_suite_files_are_checked_like_the_options(key, value, option, cli_value):
    """The message after "what" is the same for a suite key and the option's value."""
    data = {"graphs": ["gen:cycle?n=5"], "algorithms": [{"name": "greedy"}], key: value}
    with pytest.raises(SpecError) as from_suite:
        parse_suite(data, default_name="t")
    parse = {"--block-size": grammar.block_sizes, "--reps": grammar.reps,
             "--warmup": grammar.warmup, "--timeout": grammar.timeout}[option]  # fmt: skip
    with pytest.raises(SpecError) as from_option:
        parse(cli_value)
    tail = str(from_option.value).split(option, 1)[1]
    assert str(from_suite.value).startswith(f"suite t: {key}")
    assert str(from_suite.value).endswith(tail.replace(repr(cli_value), repr(value)))


def test_canonical_params_round_trip():
    text = grammar.canonical_params({"b": 2, "a": "x"})
    assert text == "a=x;b=2"
    assert grammar.parse_param_string(text) == {"a": "x", "b": "2"}
    assert grammar.canonical_params({}) == ""
    with pytest.raises(SpecError):
        grammar.parse_param_string("novalue")
