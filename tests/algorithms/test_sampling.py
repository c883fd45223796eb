"""gcbench/algorithms/sampling.py: when the warm-up ends, when repetitions stop, which flags a
case earns (docs/statistics.md)."""

from __future__ import annotations

import numpy as np

from gcbench.algorithms.sampling import (
    CAPPED_REPS,
    CLOCK_SHARE,
    DEFAULT_NOISE,
    DRIFT_SIZE,
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
    assert AUTO.flags([10.0, 30.0, 20.0]) == ("capped",)  # auto: out of time without one


def test_a_trend_smaller_than_a_change_that_counts_is_not_a_drift():
    """Drift's practical size is compare's threshold, not the noise target: a 2 % step half way
    through 200 steady repetitions is real (the test sees it) but is no drift; a 10 % one is."""
    rng = np.random.default_rng(3)
    base = 1 + 0.002 * rng.standard_normal(200)
    for step, drifts in ((1.02, False), (1.10, True)):
        times = np.concatenate([base[:100], base[100:] * step]).tolist()
        assert ("drift" in AUTO.flags(times)) is drifts, step
    assert DRIFT_SIZE == 2 * DEFAULT_NOISE == 0.05


def simulate(sampling: Sampling, draw, floor_ms: float, per_rep_s: float) -> tuple[list, float]:
    """An auto case run as the runner runs it, with repetitions drawn by ``draw()`` and each
    taking ``per_rep_s`` of wall time: its times and its flags."""
    times: list[float] = []
    spent, visits = 0.0, 0
    while True:
        visit, this = sampling.visit(times, spent, visits), []
        while visit.more(this, len(this) * per_rep_s, floor_ms):
            this.append(draw())
        times, spent, visits = [*times, *this], spent + len(this) * per_rep_s, visits + 1
        if sampling.finished(times, spent, visits, floor_ms):
            return times, sampling.flags(times, floor_ms)


def test_a_stream_at_the_harness_floor_stops_early_with_the_floor_flag():
    # 0.2 ms ± 40 % of host jitter, a 0.04 ms round trip: 1 % (0.002 ms) would take
    # thousands of repetitions
    rng = np.random.default_rng(0)

    def jittery() -> float:
        return 0.2 * (1 + 0.4 * (2 * rng.random() - 1))

    times, flags = simulate(AUTO, jittery, 0.04, 0.002)
    assert flags == ("floor",) and len(times) < 40, (len(times), flags)
    assert AUTO.at_floor(times, 0.04) and not AUTO.sure(times)
    # the same stream without a floor (the CPU) runs until its case time: noisy
    times, flags = simulate(AUTO, jittery, 0.0, 0.002)
    assert flags == ("noisy",) and len(times) * 0.002 >= AUTO.case_time_s, (len(times), flags)


def test_a_drifting_stream_is_still_drift_at_the_floor():
    steps = iter(range(10_000))
    times, flags = simulate(AUTO, lambda: 2.0 * 1.01 ** next(steps), 0.05, 0.01)
    assert "drift" in flags, flags


def test_a_clean_stream_reaches_the_noise_target_and_is_not_flagged():
    rng = np.random.default_rng(1)
    times, flags = simulate(AUTO, lambda: 5.0 * (1 + 0.005 * rng.random()), 0.03, 0.005)
    assert flags == () and AUTO.sure(times)
    assert MIN_PASSES * MIN_VISIT_REPS <= len(times) < 20


def test_a_case_slower_than_its_case_time_stops_at_three_repetitions_capped():
    slow = Sampling(case_time_s=0.5)
    times, flags = simulate(slow, lambda: 13_000.0, 0.0, 13.0)  # 13 s a run
    assert len(times) == CAPPED_REPS and flags == ("capped",)
    # one that fits a few runs in its time still gets its passes and an interval
    rng = np.random.default_rng(2)
    times, flags = simulate(slow, lambda: 50.0 * (1 + 0.001 * rng.random()), 0.0, 0.05)
    assert len(times) >= MIN_PASSES * MIN_VISIT_REPS and flags == ()
