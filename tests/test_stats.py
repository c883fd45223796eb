"""gcbench/stats.py: the intervals cover what they claim, on the distributions the test
plugins draw from, and the drift test and the verdicts decide as documented."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gcbench import stats

TRIALS = 100


def drawn_ms(median_ms: float, noise: float, rng: np.random.Generator) -> float:
    """The distribution of the runner tests' test-draw plugin (tests/bench/test_stability.py):
    uniform on median × [1 - noise, 1 + noise]."""
    return median_ms * (1 + noise * (2 * rng.random() - 1))


def test_the_median_rank_is_the_binomial_one():
    assert [stats.median_rank(n) for n in range(1, 6)] == [None] * 5  # [min, max] < 95 % there
    assert stats.min_values() == 6
    assert stats.median_rank(6) == 1 and stats.median_rank(9) == 2 and stats.median_rank(12) == 3
    for n in range(6, 60):  # the rank keeps the coverage and the next one would not
        k = stats.median_rank(n)
        below = sum(math.comb(n, i) for i in range(k)) / 2**n
        further = below + math.comb(n, k) / 2**n
        assert 1 - 2 * below >= 0.95 > 1 - 2 * further


@pytest.mark.parametrize("reps", [6, 10, 30])
def test_median_intervals_cover_the_true_median(reps):
    """20 ms ± 2 % (test-draw's distribution): the true median is 20 ms."""
    covered = 0
    for seed in range(TRIALS):
        rng = np.random.default_rng(seed)
        low, high = stats.median_ci([drawn_ms(20.0, 0.02, rng) for _ in range(reps)])
        covered += low <= 20.0 <= high
    assert covered >= 0.9 * TRIALS


def test_the_interval_narrows_as_values_come():
    rng = np.random.default_rng(1)
    times = [drawn_ms(20.0, 0.02, rng) for _ in range(200)]
    widths = [stats.relative_halfwidth(times[:n]) for n in (6, 20, 200)]
    assert widths[0] > widths[1] > widths[2] and widths[2] < 0.01
    assert stats.relative_halfwidth(times[:5]) is None


def test_ratio_intervals_cover_the_true_ratio():
    covered = 0
    for seed in range(TRIALS):
        rng = np.random.default_rng(seed)
        base = [drawn_ms(20.0, 0.02, rng) for _ in range(8)]
        new = [drawn_ms(22.0, 0.02, rng) for _ in range(8)]
        ratio = stats.ratio_ci(base, new)
        assert ratio.low <= ratio.ratio <= ratio.high
        covered += ratio.low <= 1.1 <= ratio.high
    assert covered >= 0.9 * TRIALS


def test_ratio_needs_four_positive_values_a_side():
    assert stats.ratio_ci([1.0, 1.1, 1.2], [1.0, 1.1, 1.2]) is None
    assert stats.ratio_ci([1.0, 1.1, 1.2, 1.3], [0.0, 1.1, 1.2, 1.3]) is None
    assert stats.ratio_ci([1.0, 1.1, 1.2, 1.3], [1.0, 1.1, 1.2, 1.3]).contains_one
    many = stats.ratio_ci(np.linspace(1, 2, 3000), np.linspace(2, 4, 3000))  # thinned, normal
    assert many.low < 2.0 < many.high and many.high / many.low < 1.1


def test_the_exact_and_normal_cuts_meet():
    exact = stats._mw_cut(stats.EXACT_MW, stats.EXACT_MW, 0.95)
    normal = stats._mw_cut(stats.EXACT_MW + 1, stats.EXACT_MW + 1, 0.95)
    assert exact < normal < exact + 2 * stats.EXACT_MW + 2  # one more value a side: a few more
    assert stats._mw_cut(3, 3, 0.95) is None and stats._mw_cut(4, 4, 0.95) == 1


def test_verdicts():
    assert stats.verdict(stats.Ratio(1.10, 1.05, 1.15), 0.05) == "slower"
    assert stats.verdict(stats.Ratio(0.80, 0.75, 0.85), 0.05) == "faster"
    assert stats.verdict(stats.Ratio(1.10, 0.99, 1.20), 0.05) == "same"  # the interval holds 1
    assert stats.verdict(stats.Ratio(1.03, 1.02, 1.04), 0.05) == "same"  # under the threshold
    assert stats.verdict(None, 0.05) == "same"


def test_drift_is_a_trend_not_noise():
    assert stats.drifted([2.0 * 1.1**i for i in range(10)], 0.01)
    assert not stats.drifted([2.0 * 1.1**i for i in range(5)], 0.01)  # too few to tell
    assert not stats.drifted([1.0, 1.001, 1.002, 1.003, 1.004, 1.005], 0.01)  # under the noise
    flagged = 0
    for seed in range(TRIALS):
        rng = np.random.default_rng(seed)
        flagged += stats.drifted([drawn_ms(20.0, 0.02, rng) for _ in range(30)], 0.01)
    assert flagged <= 5


def test_geometric_mean_interval():
    g, low, high = stats.geomean_ci([1.0, 1.1, 0.9, 1.05])
    assert low < g < high and g == pytest.approx(math.prod([1.0, 1.1, 0.9, 1.05]) ** 0.25)
    assert stats.geomean_ci([1.2]) == (pytest.approx(1.2),) * 3
    assert stats.geomean_ci([]) is None
