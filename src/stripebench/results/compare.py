"""`stripebench compare`: did arm B (an intervention) do better than arm A on the same tasks?

Trials pair up by (task, attempt). A trial's score is its reward when it was scored
(completed, turn_limit); an agent-side failure (a status that counts 0: agent_timeout,
agent_error, limit_breached) is the agent's outcome and scores 0; any other status (a
harness error, or one left out: budget, provider, endpoint) says nothing about the agent,
so its pair is left out and listed. The table: rundir/statuses.py. Success is a reward of
1 (every check passed). Statistics: see stats.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..docs.index import corpus_index, get_index
from ..docs.log import make_record, unhelpful_queries
from ..rundir import counts, describe, is_zero
from . import stats
from .report import search_records
from .store import Run

SUCCESS = 1.0 - 1e-9


def arm_label(run: Run) -> str:
    return run.label


def trial_score(trial: dict[str, Any]) -> float | None:
    """The trial's score for comparison, or None when a harness error voids it."""
    if counts(trial):
        return float(trial["reward"])
    if is_zero(trial):
        return 0.0
    return None


def _tokens(trial: dict[str, Any]) -> float:
    return float((trial.get("input_tokens") or 0) + (trial.get("output_tokens") or 0))


def _cost(trial: dict[str, Any]) -> float | None:
    cost = trial.get("cost_usd")
    return None if cost is None else float(cost)


# name -> (what it measures, how to read it from a trial, unit shown)
METRICS: dict[str, tuple[str, Callable[[dict[str, Any]], float | None]]] = {
    "score": ("mean score", trial_score),
    "success": ("success rate (reward 1)", lambda t: None if trial_score(t) is None else
                float(trial_score(t) >= SUCCESS)),  # type: ignore[operator]
    "turns": ("turns", lambda t: float(t.get("turns") or 0)),
    "tokens": ("tokens (in + out)", _tokens),
    "cost": ("cost (USD)", _cost),
}
TESTED = ("score", "success")
DESCRIPTIVE_RESAMPLES = 2_000  # per task, and for turns, tokens and cost


@dataclass
class TaskComparison:
    task: str
    score: stats.Estimate
    success: stats.Estimate
    holm_p: float | None = None  # score p-value adjusted for testing every task


@dataclass
class DocsMovement:
    """How the documentation searches that found nothing useful moved from A to B."""

    fixed: list[str] = field(default_factory=list)  # unhelpful in A, helpful in B
    broken: list[str] = field(default_factory=list)  # helpful in A, unhelpful in B
    still: list[str] = field(default_factory=list)  # unhelpful in both
    only_a: list[str] = field(default_factory=list)  # unhelpful in A, not asked in B
    only_b: list[str] = field(default_factory=list)  # unhelpful in B, not asked in A
    searches: tuple[int, int] = (0, 0)
    # A's unhelpful queries searched again in B's corpus, when the arms' corpora differ
    # (None: same corpus, or B's could not be rebuilt): now helpful / still unhelpful
    replayed: tuple[list[str], list[str]] | None = None


@dataclass
class Comparison:
    a: Run
    b: Run
    alpha: float
    seed: int
    metrics: dict[str, stats.Estimate]
    tasks: list[TaskComparison]
    dropped: list[str]  # pairs left out, with the reason
    unmatched: list[str]  # trials with no partner in the other run
    docs: DocsMovement
    changed: list[str]  # what differs between the two runs' set-ups
    resamples: int = stats.RESAMPLES

    @property
    def verdict(self) -> list[str]:
        return [verdict_line(self, "score"), verdict_line(self, "success")]


def _pairs(a: Run, b: Run) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], list[str],
                                    list[str]]:
    mine = {(t["task"], t["attempt"]): t for t in a.trials}
    theirs = {(t["task"], t["attempt"]): t for t in b.trials}
    pairs, dropped = [], []
    for key in sorted(mine.keys() & theirs.keys()):
        ta, tb = mine[key], theirs[key]
        voided = [f"{label} {t['status']}" for label, t in (("A", ta), ("B", tb))
                  if trial_score(t) is None]
        if voided:
            dropped.append(f"{key[0]} #{key[1]}: {', '.join(voided)}")
        else:
            pairs.append((ta, tb))
    unmatched = [f"{t} #{n} (only in A)" for t, n in sorted(mine.keys() - theirs.keys())] + \
        [f"{t} #{n} (only in B)" for t, n in sorted(theirs.keys() - mine.keys())]
    return pairs, dropped, unmatched


def _estimate(pairs: list[tuple[dict[str, Any], dict[str, Any]]], metric: str,
              confidence: float, seed: int, resamples: int) -> stats.Estimate:
    read_value = METRICS[metric][1]
    values = [(ta["task"], read_value(ta), read_value(tb)) for ta, tb in pairs]
    usable = [(task, a, b) for task, a, b in values if a is not None and b is not None]
    return stats.paired(usable, confidence, resamples, seed,  # type: ignore[arg-type]
                        test=metric in TESTED)


def compare_runs(a: Run, b: Run, alpha: float = 0.05, seed: int = 0,
                 resamples: int = stats.RESAMPLES) -> Comparison:
    if not 0 < alpha < 1:
        raise ValueError("alpha must be between 0 and 1")
    pairs, dropped, unmatched = _pairs(a, b)
    confidence = 1 - alpha
    # the verdict's intervals get every resample; the descriptive ones fewer (time)
    fewer = min(resamples, DESCRIPTIVE_RESAMPLES)
    metrics = {name: _estimate(pairs, name, confidence, seed,
                               resamples if name in TESTED else fewer) for name in METRICS}
    tasks = []
    for task in sorted({ta["task"] for ta, _ in pairs}):
        mine = [(ta, tb) for ta, tb in pairs if ta["task"] == task]
        tasks.append(TaskComparison(task, _estimate(mine, "score", confidence, seed, fewer),
                                    _estimate(mine, "success", confidence, seed, fewer)))
    for task, adjusted in zip(tasks, stats.holm([t.score.p_value for t in tasks]), strict=True):
        task.holm_p = adjusted
    return Comparison(a, b, alpha, seed, metrics, tasks, dropped, unmatched,
                      docs_movement(a, b), changed_setup(a, b), resamples)


def changed_setup(a: Run, b: Run) -> list[str]:
    """The run.json settings that differ between the arms (what the comparison tests)."""
    keys = ("agent", "model", "sandbox", "context_budget")
    out = [f"{k}: {a.meta.get(k)} → {b.meta.get(k)}" for k in keys
           if a.meta.get(k) != b.meta.get(k)]
    mine, theirs = describe(a.meta), describe(b.meta)
    for name in sorted((mine.keys() | theirs.keys()) - {"label"}):  # a name is no change
        if mine.get(name) != theirs.get(name):
            out.append(f"{name}: {mine.get(name, 'default')} → {theirs.get(name, 'default')}")
    return out


def _normal(query: str) -> str:
    return " ".join(query.lower().split())


def docs_movement(a: Run, b: Run) -> DocsMovement:
    asked: list[set[str]] = []
    bad: list[set[str]] = []
    shown: dict[str, str] = {}
    for run in (a, b):
        records = search_records([run])
        for r in records:
            shown.setdefault(_normal(str(r.get("query", ""))), str(r.get("query", "")))
        asked.append({_normal(str(r.get("query", ""))) for r in records})
        bad.append({_normal(u.query) for u in unhelpful_queries(records)})
    helpful = [asked[0] - bad[0], asked[1] - bad[1]]

    def named(keys: set[str]) -> list[str]:
        return sorted(shown[k] for k in keys)

    return DocsMovement(fixed=named(bad[0] & helpful[1]), broken=named(helpful[0] & bad[1]),
                        still=named(bad[0] & bad[1]), only_a=named(bad[0] - asked[1]),
                        only_b=named(bad[1] - asked[0]),
                        searches=(len(search_records([a])), len(search_records([b]))),
                        replayed=replay(named(bad[0]), a, b))


def corpus(run: Run) -> tuple[str, str] | None:
    """The run's own documentation corpus (its copy of --docs and the mode), or None for
    the packaged one."""
    record = (run.meta.get("interventions") or {}).get("docs")
    return None if not record else (str(run.path / "interventions" / "docs"),
                                    str(record["mode"]))


def replay(queries: list[str], a: Run, b: Run) -> tuple[list[str], list[str]] | None:
    """Search `queries` (A's unhelpful ones) in B's corpus: would B's docs answer them?
    The search is deterministic, so this is what B's agent would have got."""
    mine, theirs = corpus(a), corpus(b)
    if not queries or mine == theirs or (mine and theirs and mine[1:] == theirs[1:]
                                         and _same_files(Path(mine[0]), Path(theirs[0]))):
        return None
    try:
        index = get_index(corpus_index(Path(theirs[0]), theirs[1]) if theirs else None)
    except (ValueError, OSError):  # B's guides do not make a corpus (or are gone)
        return None
    records = [make_record(q, index.search(q, 5), 5) for q in queries]
    still = {_normal(u.query) for u in unhelpful_queries(records)}
    return ([q for q in queries if _normal(q) not in still],
            [q for q in queries if _normal(q) in still])


def _same_files(one: Path, other: Path) -> bool:
    def contents(folder: Path) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in folder.glob("*.md")}

    return contents(one) == contents(other)


def fmt(metric: str, value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    sign = "+" if signed and value > 0 else ""
    if metric in ("score", "success"):
        return f"{sign}{value * 100:.1f}" + (" pts" if signed else "%")
    if metric == "cost":
        return f"{sign}${value:.4f}" if not signed or value >= 0 else f"-${-value:.4f}"
    return f"{sign}{value:,.1f}"


def interval(metric: str, e: stats.Estimate) -> str:
    if e.low is None:
        return "—"
    return f"{fmt(metric, e.low, True)} to {fmt(metric, e.high, True)}"


def verdict_line(c: Comparison, metric: str) -> str:
    """One sentence; a difference is called significant only when the test rejects at
    alpha and the interval leaves out zero."""
    e = c.metrics[metric]
    what = METRICS[metric][0]
    a, b = arm_label(c.a), arm_label(c.b)
    if e.pairs == 0:
        return f"{what}: no comparable pairs (no task and attempt scored in both runs)."
    level = f"{e.confidence * 100:g}% CI"
    facts = (f"B − A = {fmt(metric, e.diff, True)} ({level} {interval(metric, e)}; "
             f"p = {e.p_value:.3g}, {e.test}; {e.pairs} pairs in {e.tasks} task(s))")
    if stats.significant(e, c.alpha):
        better = b if (e.diff or 0) > 0 else a
        return f"{what}: {better} is better, significant at α = {c.alpha:g}: {facts}."
    reason = ""
    if e.differing == 0:
        reason = " The arms did equally well in every pair."
    elif e.min_p >= c.alpha:
        reason = (f" With {e.differing} differing pair(s) the test cannot go below "
                  f"p = {e.min_p:.3g}: run more attempts or tasks.")
    elif e.p_value is not None and e.p_value < c.alpha:
        reason = " The test and the interval disagree, so it is not called significant."
    return f"{what}: no significant difference between {a} and {b} at α = {c.alpha:g}: " \
           f"{facts}.{reason}"
