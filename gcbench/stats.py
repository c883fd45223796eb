"""How sure a timing is: intervals for a median and for a ratio of medians, and the tests the
runner, ``gcbench compare`` and the report share (docs/statistics.md says why these).

- :func:`median_ci`: the distribution-free interval of a median from two order statistics,
  exact for any continuous distribution (needs 6 values at 95 %);
- :func:`ratio_ci`: the ratio of two medians with the Hodges–Lehmann interval of the
  Mann–Whitney test on log times (a scale change), exact from 4 values a side;
- :func:`drifted`: whether a series' first and second halves differ beyond their noise;
- :func:`geomean_ci`: the geometric mean of ratios with a t interval over them.

Pure functions of numbers: no gcbench import, so every layer may use them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95
DRIFT_ALPHA = 0.01  # the Mann–Whitney test of the halves: rare on a steady series
# The smallest change that counts: compare's verdicts and a drift's practical size; a run aims
# at half of it (sampling.DEFAULT_NOISE), so two runs' medians, each within its interval, stay
# within it of each other (docs/statistics.md, "Flags that mean something").
CHANGE = 0.05
EXACT_MW = 24  # exact Mann–Whitney null distribution up to this many values a side
MAX_PAIRS = 1_000_000  # pairwise differences formed at most (larger samples are thinned)


def _sorted(values: Sequence[float]) -> np.ndarray:
    return np.sort(np.asarray(values, dtype=float))


@functools.cache
def median_rank(n: int, confidence: float = CONFIDENCE) -> int | None:
    """The 1-based rank k of :func:`median_ci`'s lower end, [x(k), x(n+1-k)]: the largest k
    whose coverage 1 - 2 P(B ≤ k-1), B ~ Binomial(n, 1/2), is at least ``confidence``;
    None when even [min, max] covers less (n < 6 at 95 %)."""
    below, k = 0.0, 0  # below = P(B ≤ k-1)
    while k < n // 2:
        nxt = below + math.comb(n, k) / 2.0**n
        if 1 - 2 * nxt < confidence:
            break
        below, k = nxt, k + 1
    return k if k >= 1 else None


def min_values(confidence: float = CONFIDENCE) -> int:
    """The fewest values :func:`median_ci` gives an interval for."""
    n = 1
    while median_rank(n, confidence) is None:
        n += 1
    return n


def median_ci(
    values: Sequence[float], confidence: float = CONFIDENCE
) -> tuple[float, float] | None:
    """The ``confidence`` interval of the median of ``values``' distribution, from their
    order statistics; None when there are too few values for it."""
    x = _sorted(values)
    k = median_rank(len(x), confidence)
    if k is None:
        return None
    return float(x[k - 1]), float(x[len(x) - k])


def relative_halfwidth(values: Sequence[float], confidence: float = CONFIDENCE) -> float | None:
    """How far the interval reaches from the median, as a share of the median (the larger
    side); None without an interval."""
    ci = median_ci(values, confidence)
    if ci is None:
        return None
    mid = float(np.median(values))
    if mid <= 0:
        return math.inf
    return max(mid - ci[0], ci[1] - mid) / mid


def drifted(values: Sequence[float], noise: float, alpha: float = DRIFT_ALPHA) -> bool:
    """Whether a series (in the order measured) trends: its first and second halves differ
    by the Mann–Whitney test at ``alpha`` *and* their medians by more than ``noise`` (a share),
    so a real but negligible shift does not count. Needs 3 values a half."""
    x = np.asarray(values, dtype=float)
    half = len(x) // 2
    if half < 3:
        return False
    first, second = x[:half], x[len(x) - half :]
    from scipy.stats import mannwhitneyu

    if mannwhitneyu(first, second, alternative="two-sided").pvalue >= alpha:
        return False
    return abs(float(np.median(second)) / float(np.median(first)) - 1) > noise


@functools.cache
def _mw_cdf(m: int, n: int) -> np.ndarray:
    """P(U ≤ u) for u = 0..mn under the null, by the recurrence on the counts of
    arrangements (exact integers as floats: fine up to EXACT_MW values a side)."""
    # counts[a][b] = the distribution of U for sizes (a, b); built row by row.
    prev = [np.ones(1) for _ in range(n + 1)]  # a = 0: U = 0 whatever b
    for a in range(1, m + 1):
        row = [np.ones(1)]  # b = 0
        for b in range(1, n + 1):
            size = a * b + 1
            counts = np.zeros(size)
            left = prev[b]  # one fewer of the first sample: U unchanged
            counts[: left.size] += left
            shifted = row[b - 1]  # one fewer of the second, below all of the first: U + a
            counts[a : a + shifted.size] += shifted
            row.append(counts)
        prev = row
    counts = prev[n]
    return np.cumsum(counts) / counts.sum()


def _mw_cut(m: int, n: int, confidence: float) -> int | None:
    """The rank C of the interval [d(C), d(mn+1-C)] of the ordered pairwise differences: the
    largest C whose coverage 1 - 2 P(U ≤ C-1) is at least ``confidence``, U the Mann–Whitney
    statistic of samples of m and n values (exact, or its normal approximation past
    EXACT_MW a side); None when even [d(1), d(mn)] covers less."""
    alpha = 1 - confidence
    if m <= EXACT_MW and n <= EXACT_MW:
        cdf = _mw_cdf(m, n)
        ok = np.nonzero(2 * cdf <= alpha)[0]
        return None if ok.size == 0 else int(ok[-1]) + 1
    from scipy.stats import norm

    mean, sd = m * n / 2, math.sqrt(m * n * (m + n + 1) / 12)
    cut = math.floor(mean - norm.ppf(1 - alpha / 2) * sd - 0.5) + 1
    return cut if cut >= 1 else None


def _thinned(x: np.ndarray, limit: int) -> np.ndarray:
    """At most ``limit`` values standing for ``x``: evenly spaced quantiles when it is larger."""
    if x.size <= limit:
        return x
    return np.quantile(x, (np.arange(limit) + 0.5) / limit)


@dataclass(frozen=True)
class Ratio:
    """``new`` over ``base``: the ratio of their medians and its interval."""

    ratio: float
    low: float
    high: float

    @property
    def contains_one(self) -> bool:
        return self.low <= 1.0 <= self.high


def ratio_ci(
    base: Sequence[float], new: Sequence[float], confidence: float = CONFIDENCE
) -> Ratio | None:
    """median(new) / median(base) with a ``confidence`` interval: the Hodges–Lehmann interval
    of the Mann–Whitney test for a shift of log times (a change of scale), from the ordered
    pairwise differences log new_i - log base_j. Exact for any continuous distribution that
    the change scales; widened, where needed, to hold the ratio of medians itself. None
    without enough values (4 a side at 95 %) or with a time that is not positive."""
    b, a = _sorted(base), _sorted(new)
    if b.size == 0 or a.size == 0 or b[0] <= 0 or a[0] <= 0:
        return None
    side = max(2, int(math.sqrt(MAX_PAIRS)))
    lb, la = np.log(_thinned(b, side)), np.log(_thinned(a, side))
    cut = _mw_cut(la.size, lb.size, confidence)
    if cut is None:
        return None
    diffs = np.sort((la[:, None] - lb[None, :]).ravel())
    low, high = math.exp(diffs[cut - 1]), math.exp(diffs[diffs.size - cut])
    point = float(np.median(a)) / float(np.median(b))
    return Ratio(point, min(low, point), max(high, point))


def verdict(ratio: Ratio | None, threshold: float) -> str:
    """``faster`` or ``slower`` (new against base) when the interval excludes 1 and the
    ratio moved by at least ``threshold`` (a share); else ``same``."""
    if ratio is None or ratio.contains_one or abs(ratio.ratio - 1) < threshold:
        return "same"
    return "faster" if ratio.ratio < 1 else "slower"


def geomean_ci(
    ratios: Sequence[float], confidence: float = CONFIDENCE
) -> tuple[float, float, float] | None:
    """The geometric mean of positive ``ratios`` with a t interval of the mean of their logs:
    how the ratio varies from case to case, not within one. None for no ratios; the interval
    is the point itself for one."""
    logs = np.log(np.asarray([r for r in ratios if r > 0 and math.isfinite(r)], dtype=float))
    if logs.size == 0:
        return None
    mean = float(logs.mean())
    if logs.size == 1:
        return math.exp(mean), math.exp(mean), math.exp(mean)
    from scipy.stats import t

    half = float(t.ppf((1 + confidence) / 2, logs.size - 1)) * float(logs.std(ddof=1))
    half /= math.sqrt(logs.size)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)
