"""gcbench/algorithms/sampling.py: when the warm-up ends, when repetitions stop, which flags a
case earns (docs/statistics.md)."""

from __future__ import annotations

from gcbench.algorithms.sampling import (
    CLOCK_SHARE,
    LONG_RUN_MS,
    MAX_PASSES,
    MIN_PASSES,
    MIN_REPS,
    MIN_VISIT_REPS,
    MIN_WARMUP,
    WARMUP_TIME_S,
    Sampling,
)

AUTO = Sampling()


def test_fixed_counts_are_exact():
    fixed = Sampling.of(3, 2)
    assert fixed == Sampling(3, 2)
    assert [fixed.warming([1.0] * k, 99.0) for k in range(4)] == [True, True, False, False]
    visit = fixed.visit()
    assert [visit.more([1.0] * k, 99.0) for k in range(5)] == [True] * 3 + [False] * 2
    assert fixed.finished([1.0] * 3, 0.0, 1)  # one visit
    assert Sampling.of("auto", None) == Sampling()


def test_auto_warmup_waits_for_the_clock_and_for_times_to_stop_falling():
    assert AUTO.warming([], 0.0) and AUTO.warming([1.0] * (MIN_WARMUP - 1), 0.0)
    assert not AUTO.warming([1.0, 1.0], 0.01)  # steady on the CPU: no clock
    assert AUTO.warming([1.0, 0.9], 0.01)  # a new low by 10 %: still falling
    assert not AUTO.warming([1.0, 0.99], 0.01)  # within the tolerance
    assert AUTO.warming([1.0, 1.0], 0.01, clock_mhz=345, target_mhz=1980)  # idle clock
    assert not AUTO.warming([1.0, 1.0], 0.01, clock_mhz=CLOCK_SHARE * 1980, target_mhz=1980)
    assert not AUTO.warming([1.0, 0.5], WARMUP_TIME_S, clock_mhz=345, target_mhz=1980)  # bound
    assert not AUTO.warming([LONG_RUN_MS], 0.01)  # a long run warms itself


def test_auto_visits_stop_when_sure_or_out_of_their_share_of_time():
    quiet = [20.0 + 0.01 * (i % 3) for i in range(MIN_REPS + 1)]
    first = AUTO.visit()
    assert all(first.more(quiet[:k], 0.0) for k in range(MIN_VISIT_REPS))  # each visit's minimum
    assert first.more(quiet[:MIN_REPS], 0.0)  # no interval at 5 yet: one more
    assert not first.more(quiet, 0.0)  # within 1 %
    share = AUTO.case_time_s / MIN_PASSES
    assert not first.more(quiet[:MIN_REPS], share)  # this visit's share of the time is spent
    later = AUTO.visit(history=quiet, spent_s=0.5, index=1)
    assert later.more([], 0.0) and later.more(quiet[:1], 0.0)
    assert not later.more(quiet[:MIN_VISIT_REPS], 0.0)  # sure with the history
    assert not AUTO.visit([10.0, 30.0] * 10, AUTO.case_time_s, 2).more([10.0, 30.0], 0.01)
    noisy = [10.0, 30.0] * 10
    assert AUTO.visit(noisy, 0.1, 1).more(noisy[:4], 0.01)


def test_an_auto_case_finishes_after_its_passes_when_sure_or_out_of_time():
    quiet, noisy = [20.0] * 10, [10.0, 30.0] * 10
    assert not AUTO.finished(quiet, 0.1, MIN_PASSES - 1)  # sure, but not spread over passes
    assert AUTO.finished(quiet, 0.1, MIN_PASSES)
    assert not AUTO.finished(noisy, 0.1, MIN_PASSES)  # time left: another pass
    assert AUTO.finished(noisy, AUTO.case_time_s, MIN_PASSES)
    assert AUTO.finished(noisy, 0.1, MAX_PASSES)


def test_flags_of_a_case():
    assert AUTO.flags([20.0] * 10) == ()
    assert AUTO.flags([10.0, 30.0] * 10) == ("noisy",)
    assert AUTO.flags([2.0 * 1.1**i for i in range(10)]) == ("drift", "noisy")
    assert Sampling(3).flags([10.0, 30.0, 20.0]) == ()  # too few for an interval: not judged
    assert AUTO.flags([10.0, 30.0, 20.0]) == ("noisy",)  # auto always judges
