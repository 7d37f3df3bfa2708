"""Paired statistics for comparing two runs: bootstrap intervals and an exact sign-flip test.

Two runs of the same tasks pair up by (task, attempt). Tasks are fixed (they are the
benchmark, not a sample of tasks), so the randomness being reasoned about is the agent's
from one attempt to the next; each task counts equally, however many attempts it has:

    effect = mean over tasks of (mean over that task's pairs of (B - A))

* Interval: stratified paired bootstrap. Each resample draws, within every task, as many
  pairs as it has (with replacement) and recomputes the effect; the interval is the
  central `confidence` share of the resampled effects (percentile method). Seeded, so the
  same inputs always give the same interval.
* Test: sign-flip (paired permutation) test of "A and B are exchangeable within each
  pair". Under that hypothesis every pair's difference is as likely to have either sign;
  the p-value is the probability that random signs give an effect at least as far from 0
  as the observed one (two-sided). It is computed exactly, by convolving the distribution
  of equal-sized differences (binomial counts of flipped signs); only when the exact
  distribution grows past `EXACT_LIMIT` support points does it fall back to seeded Monte
  Carlo sign flips, with the (hits + 1) / (draws + 1) estimate that keeps the test valid.

Pure Python (no numpy): a comparison has at most a few thousand pairs.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

EXACT_LIMIT = 200_000  # support points of the exact null distribution before Monte Carlo
EXACT_WORK = 4_000_000  # additions one convolution step may cost before Monte Carlo
MONTE_CARLO_DRAWS = 20_000
RESAMPLES = 10_000
ZERO = 1e-12


@dataclass(frozen=True)
class Estimate:
    """A paired difference B - A with its interval and test."""

    pairs: int  # pairs that entered
    tasks: int
    mean_a: float | None  # task-weighted means of each arm (None: no pairs)
    mean_b: float | None
    diff: float | None
    low: float | None  # confidence interval of diff
    high: float | None
    p_value: float | None  # two-sided sign-flip test; None: not tested
    test: str  # how the p-value was computed
    differing: int  # pairs whose difference is not 0 (the only ones the test can use)
    confidence: float

    @property
    def min_p(self) -> float:
        """The smallest p-value the test can give with this many differing pairs."""
        return 1.0 if self.differing == 0 else min(1.0, 2.0 ** (1 - self.differing))


def task_weighted_mean(groups: dict[str, list[float]]) -> float:
    """Mean over tasks of each task's mean (every task counts once)."""
    return math.fsum(math.fsum(v) / len(v) for v in groups.values()) / len(groups)


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (q in [0, 1])."""
    if not sorted_values:
        raise ValueError("no values")
    position = q * (len(sorted_values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    weight = position - low
    return sorted_values[low] * (1 - weight) + sorted_values[high] * weight


def bootstrap_interval(diffs: dict[str, list[float]], confidence: float = 0.95,
                       resamples: int = RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """Stratified paired bootstrap percentile interval of the task-weighted mean."""
    if not diffs or any(not v for v in diffs.values()):
        raise ValueError("every task needs at least one pair")
    draw = random.Random(seed).random
    groups = [v for _, v in sorted(diffs.items())]  # fixed order: the seed decides all
    # a task whose pairs all differ by the same amount resamples to itself
    fixed = math.fsum(v[0] for v in groups if len(set(v)) == 1)
    varying = [(v, len(v), range(len(v))) for v in groups if len(set(v)) > 1]
    effects = []
    for _ in range(resamples):
        total = fixed
        for values, n, slots in varying:
            total += sum([values[int(draw() * n)] for _ in slots]) / n
        effects.append(total / len(groups))
    effects.sort()
    tail = (1 - confidence) / 2
    return percentile(effects, tail), percentile(effects, 1 - tail)


def _weighted(diffs: dict[str, list[float]]) -> list[float]:
    """Each pair's contribution to the task-weighted mean."""
    return [d / (len(diffs) * len(v)) for _, v in sorted(diffs.items()) for d in v]


def _binomial(n: int) -> list[float]:
    """P(k of n fair coins land heads), k = 0..n, without overflow."""
    log_half = n * math.log(0.5)
    return [math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                     + log_half) for k in range(n + 1)]


def _exact_null(magnitudes: Counter[float]) -> dict[float, float] | None:
    """Distribution of sum(sign_i * m_i) under random signs, or None if too large."""
    dist = {0.0: 1.0}
    for magnitude, count in sorted(magnitudes.items()):
        if len(dist) * (count + 1) > EXACT_WORK:
            return None
        coins = _binomial(count)
        steps = [(magnitude * (2 * k - count), p) for k, p in enumerate(coins)]
        grown: dict[float, float] = {}
        for value, prob in dist.items():
            for step, p in steps:
                key = round(value + step, 9)
                grown[key] = grown.get(key, 0.0) + prob * p
        if len(grown) > EXACT_LIMIT:
            return None
        dist = grown
    return dist


def sign_flip_test(diffs: dict[str, list[float]], seed: int = 0) -> tuple[float, str]:
    """Two-sided p-value of the task-weighted mean difference, and how it was computed."""
    contributions = [c for c in _weighted(diffs) if abs(c) > ZERO]
    if not contributions:
        return 1.0, "no pair differs"
    observed = abs(math.fsum(contributions))
    tolerance = 1e-9 * max(1.0, observed)
    magnitudes = Counter(round(abs(c), 12) for c in contributions)
    dist = _exact_null(magnitudes)
    if dist is not None:
        p = math.fsum(prob for value, prob in dist.items() if abs(value) >= observed - tolerance)
        return min(1.0, p), f"exact sign-flip test over {len(contributions)} differing pair(s)"
    rng = random.Random(seed)
    hits = 0
    for _ in range(MONTE_CARLO_DRAWS):
        flipped = math.fsum(c if rng.random() < 0.5 else -c for c in contributions)
        hits += abs(flipped) >= observed - tolerance
    return (hits + 1) / (MONTE_CARLO_DRAWS + 1), (
        f"sign-flip test, {MONTE_CARLO_DRAWS:,} seeded random flips of "
        f"{len(contributions)} differing pairs")


def paired(pairs: Iterable[tuple[str, float, float]], confidence: float = 0.95,
           resamples: int = RESAMPLES, seed: int = 0, test: bool = True) -> Estimate:
    """Compare (task, a, b) pairs: task-weighted means, B - A, interval and p-value."""
    by_task: dict[str, list[tuple[float, float]]] = {}
    for task, a, b in pairs:
        by_task.setdefault(task, []).append((float(a), float(b)))
    if not by_task:
        return Estimate(0, 0, None, None, None, None, None, None, "no pairs", 0, confidence)
    a_means = {t: [a for a, _ in v] for t, v in by_task.items()}
    b_means = {t: [b for _, b in v] for t, v in by_task.items()}
    diffs = {t: [b - a for a, b in v] for t, v in by_task.items()}
    low, high = bootstrap_interval(diffs, confidence, resamples, seed)
    p_value, method = sign_flip_test(diffs, seed) if test else (None, "not tested")
    differing = sum(1 for v in diffs.values() for d in v if abs(d) > ZERO)
    n = sum(len(v) for v in diffs.values())
    return Estimate(n, len(diffs), task_weighted_mean(a_means), task_weighted_mean(b_means),
                    task_weighted_mean(diffs), low, high, p_value, method, differing,
                    confidence)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-Bonferroni adjusted p-values (None stays None), for per-task tests."""
    indexed = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    m = len(indexed)
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def significant(estimate: Estimate, alpha: float) -> bool:
    """Both the test rejects at alpha and the interval leaves out 0 (they rarely
    disagree; when they do, the difference is not called significant)."""
    if estimate.p_value is None or estimate.low is None or estimate.high is None:
        return False
    return estimate.p_value < alpha and (estimate.low > 0 or estimate.high < 0)
