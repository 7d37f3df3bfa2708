"""Beyond best-of-N: how reliably an agent does a task, from every measured attempt.

A measured attempt is a trial whose reward counts (a scored status) or that is worth 0
(the agent's own timeout or crash); errors and left-out trials measure nothing and are
not in these numbers (reports list them).

- mean ± se: the mean reward over a task's measured attempts, with its standard error
  (sample standard deviation / √n; none with one attempt). A category's (and the run's)
  mean is the mean of its tasks' means, every task counting once; tasks are the
  benchmark, not a sample, so its standard error comes from the attempts only:
  √(Σ se_task²) / tasks.
- strict: the share of attempts at exactly 1.0. For a payment integration a mostly right
  one is a wrong one: this is the rate that matters.
- pass@k: the chance that at least one of k attempts is strict, pass^k: that all k are
  (the reliability view, as τ-bench reports it), both estimated without bias from a
  task's n attempts with c strict ones: pass@k = 1 − C(n−c, k)/C(n, k),
  pass^k = C(c, k)/C(n, k); k ≤ n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..rundir import counts, is_zero
from .aggregate import CATEGORY_ORDER, RunSummary

STRICT = 1.0


@dataclass(frozen=True)
class Reliability:
    name: str  # a task, a category, or "all"
    category: str
    trials: int  # measured attempts
    mean: float | None
    se: float | None
    strict: float | None
    pass_at: dict[int, float] = field(default_factory=dict)  # k -> pass@k
    pass_all: dict[int, float] = field(default_factory=dict)  # k -> pass^k


def measured_rewards(trials: list[dict[str, Any]]) -> list[float]:
    return [float(t["reward"]) if counts(t) else 0.0 for t in trials
            if counts(t) or is_zero(t)]


def pass_at_k(n: int, c: int, k: int) -> float:
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    return math.comb(c, k) / math.comb(n, k)


def for_task(task: str, category: str, trials: list[dict[str, Any]],
             ks: tuple[int, ...]) -> Reliability:
    rewards = measured_rewards(trials)
    n = len(rewards)
    if not n:
        return Reliability(task, category, 0, None, None, None)
    mean = math.fsum(rewards) / n
    se = (math.sqrt(math.fsum((r - mean) ** 2 for r in rewards) / (n - 1) / n)
          if n > 1 else None)
    c = sum(1 for r in rewards if r >= STRICT)
    return Reliability(task, category, n, mean, se, c / n,
                       {k: pass_at_k(n, c, k) for k in ks if k <= n},
                       {k: pass_hat_k(n, c, k) for k in ks if k <= n})


def _combine(name: str, category: str, rows: list[Reliability]) -> Reliability:
    rows = [r for r in rows if r.mean is not None]
    if not rows:
        return Reliability(name, category, 0, None, None, None)
    mean = math.fsum(r.mean or 0.0 for r in rows) / len(rows)
    se = (math.sqrt(math.fsum((r.se or 0.0) ** 2 for r in rows)) / len(rows)
          if all(r.se is not None for r in rows) else None)
    strict = math.fsum(r.strict or 0.0 for r in rows) / len(rows)
    ks = set.intersection(*(set(r.pass_at) for r in rows))
    return Reliability(name, category, sum(r.trials for r in rows), mean, se, strict,
                       {k: math.fsum(r.pass_at[k] for r in rows) / len(rows)
                        for k in sorted(ks)},
                       {k: math.fsum(r.pass_all[k] for r in rows) / len(rows)
                        for k in sorted(ks)})


def ks_for(summary: RunSummary) -> tuple[int, ...]:
    """1 and the run's attempts (the k worth reading), or just 1."""
    attempts = int(summary.run.meta.get("attempts") or 1)
    return (1,) if attempts <= 1 else (1, attempts)


def reliability(summary: RunSummary) -> tuple[list[Reliability], list[Reliability]]:
    """Per task, then per category and "all" (tasks every attempt of which is left out
    are in neither)."""
    ks = ks_for(summary)
    by_task: dict[str, list[dict[str, Any]]] = {}
    for trial in summary.run.trials:
        by_task.setdefault(trial["task"], []).append(trial)
    left_out = {t.task for t in summary.tasks if t.left_out}
    tasks = [for_task(task, str(trials[0].get("category", "?")), trials, ks)
             for task, trials in sorted(by_task.items()) if task not in left_out]
    names = sorted({t.category for t in tasks},
                   key=lambda c: (CATEGORY_ORDER.index(c) if c in CATEGORY_ORDER else 99, c))
    groups = [_combine(c, c, [t for t in tasks if t.category == c]) for c in names]
    return tasks, groups + [_combine("all", "", tasks)]


def mean_se(row: Reliability) -> str:
    if row.mean is None:
        return "—"
    return f"{row.mean * 100:.1f}%" + (f" ± {row.se * 100:.1f}" if row.se is not None else "")


def share(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def columns(ks: tuple[int, ...]) -> list[str]:
    return (["Trials", "Mean ± se", "Strict (=1.0)"] + [f"pass@{k}" for k in ks if k > 1]
            + [f"pass^{k}" for k in ks if k > 1])


def cells(row: Reliability, ks: tuple[int, ...]) -> list[str]:
    return ([str(row.trials), mean_se(row), share(row.strict)]
            + [share(row.pass_at.get(k)) for k in ks if k > 1]
            + [share(row.pass_all.get(k)) for k in ks if k > 1])


def as_dict(row: Reliability) -> dict[str, Any]:
    return {"name": row.name, "category": row.category, "trials": row.trials,
            "mean": row.mean, "se": row.se, "strict": row.strict,
            "pass_at_k": {str(k): v for k, v in row.pass_at.items()},
            "pass_hat_k": {str(k): v for k, v in row.pass_all.items()}}
