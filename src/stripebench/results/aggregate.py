"""Best-of-N per task (ties: fewest turns), sub-problems coalesced, category means.

A task with sub-problems (task.toml `[[subproblems]]`, each naming sub-scores) is scored
per sub-problem: each sub-problem takes its best attempt, and the task's score is the
mean of those bests. Only trials with a scored status count (the table of statuses:
rundir/statuses.py); a task with none has no score of its own (shown as such), counts 0
in the category and overall means — an agent cannot drop a task from the means by
breaking its trials — and its errored trials are listed. The exception: a task whose
every attempt is `left_out` (the run's budget, the model provider or its endpoint failed,
nothing the agent did) is left out of the means and listed as not measured.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..rundir import counts, is_left_out
from .store import Run

CATEGORY_ORDER = ("backend", "full-stack", "gym")


@dataclass
class TaskScore:
    task: str
    category: str
    score: float | None
    turns: int | None  # turns of the chosen attempt (mean over sub-problems' choices)
    attempts: int
    valid: int
    chosen: list[int] = field(default_factory=list)  # attempt numbers picked
    parts: dict[str, float] = field(default_factory=dict)  # sub-problem -> best score
    statuses: dict[str, int] = field(default_factory=dict)
    left_out: bool = False  # every attempt left out (statuses.TABLE): not in the means


@dataclass
class CategoryScore:
    category: str
    mean: float | None
    tasks: int
    scored: int
    turn_min: int | None
    turn_max: int | None


@dataclass
class RunSummary:
    run: Run
    tasks: list[TaskScore]
    categories: list[CategoryScore]
    mean: float | None
    errors: list[dict[str, Any]]


def _pick(trials: list[dict[str, Any]], score_of: Any) -> dict[str, Any]:
    return max(trials, key=lambda t: (score_of(t), -int(t.get("turns") or 0), -t["attempt"]))


def _part_score(trial: dict[str, Any], names: list[str]) -> float:
    subscores = trial.get("subscores") or {}
    return sum(float(subscores.get(n, 0.0)) for n in names) / len(names)


def score_task(task: str, trials: list[dict[str, Any]]) -> TaskScore:
    valid = [t for t in trials if counts(t)]
    statuses: dict[str, int] = {}
    for t in trials:
        statuses[t["status"]] = statuses.get(t["status"], 0) + 1
    category = trials[0].get("category", "?")
    result = TaskScore(task, category, None, None, len(trials), len(valid), statuses=statuses,
                       left_out=all(is_left_out(t) for t in trials))
    if not valid:
        return result
    subproblems: dict[str, list[str]] = valid[0].get("subproblems") or {}
    if not subproblems:
        best = _pick(valid, lambda t: float(t["reward"]))
        result.score, result.turns, result.chosen = float(best["reward"]), best["turns"], \
            [best["attempt"]]
        return result
    chosen = []
    for name, names in subproblems.items():
        best = _pick(valid, lambda t, n=names: _part_score(t, n))  # type: ignore[misc]
        result.parts[name] = _part_score(best, names)
        chosen.append(best)
    result.score = sum(result.parts.values()) / len(result.parts)
    result.turns = round(sum(int(t["turns"] or 0) for t in chosen) / len(chosen))
    result.chosen = sorted({t["attempt"] for t in chosen})
    return result


def summarize(run: Run) -> RunSummary:
    by_task: dict[str, list[dict[str, Any]]] = {}
    for trial in run.trials:
        by_task.setdefault(trial["task"], []).append(trial)
    tasks = [score_task(task, trials) for task, trials in sorted(by_task.items())]
    categories = []
    names = sorted({t.category for t in tasks},
                   key=lambda c: (CATEGORY_ORDER.index(c) if c in CATEGORY_ORDER else 99, c))
    for category in names:
        members = [t for t in tasks if t.category == category and not t.left_out]
        scored = [t for t in members if t.score is not None]
        turns = [t.turns for t in scored if t.turns is not None]
        categories.append(CategoryScore(
            category, _mean(members), len(members), len(scored),
            min(turns) if turns else None, max(turns) if turns else None))
    errors = [t for t in run.trials if not counts(t)]
    return RunSummary(run, tasks, categories, _mean(tasks), errors)


def _mean(tasks: list[TaskScore]) -> float | None:
    """Every measured task counts; one with no scored attempt counts 0."""
    tasks = [t for t in tasks if not t.left_out]
    return sum(t.score or 0.0 for t in tasks) / len(tasks) if tasks else None
