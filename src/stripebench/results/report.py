"""Reports: terminal table, Markdown, CSV (Stripe's published columns)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..docs.log import unhelpful_queries as judge
from ..rundir import describe, tamper
from ..rundir.transcript import read
from . import reliability as rel
from .aggregate import RunSummary
from .store import Run, warnings

CSV_COLUMNS = ["eval name", "model", "run ID", "score", "turn count"]
TRIAL_COLUMNS = ["run", "task", "category", "attempt", "model", "status", "reward",
                 "subscores", "turns", "input_tokens", "output_tokens", "cost_usd",
                 "wall_seconds"]


def pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def turn_range(low: int | None, high: int | None) -> str:
    if low is None or high is None:
        return "—"
    return str(low) if low == high else f"{low}–{high}"


def csv_text(summaries: list[RunSummary]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for summary in summaries:
        for task in summary.tasks:
            writer.writerow([task.task, summary.run.model, summary.run.run_id,
                             "" if task.score is None else f"{task.score:.4f}",
                             "" if task.turns is None else task.turns])
    return out.getvalue()


def _attempts(task: Any) -> str:
    return f"{task.valid}/{task.attempts}"


def interventions(summaries: list[RunSummary]) -> list[str]:
    """What each run changed from the defaults (run --label, --tools, ...), one line each."""
    out = []
    for s in summaries:
        about = describe(s.run.meta)
        about.pop("label", None)
        if about:
            out.append(f"{s.run.label}: " + "; ".join(f"{k}: {v}" for k, v in about.items()))
    return out


def markdown(summaries: list[RunSummary]) -> str:
    lines = [f"**{line}**" for line in warnings([s.run for s in summaries])]
    lines += ["# stripebench results", ""]
    changed = interventions(summaries)
    if changed:
        lines += ["## Interventions", ""] + [f"- {line}" for line in changed] + [""]
    lines += ["## By category", "", "| Run | Category | Mean score | Tasks | Turns |",
              "|---|---|---:|---:|---|"]
    for s in summaries:
        for c in s.categories:
            lines.append(f"| {s.run.label} | {c.category} | {pct(c.mean)} | "
                         f"{c.scored}/{c.tasks} | {turn_range(c.turn_min, c.turn_max)} |")
        lines.append(f"| {s.run.label} | **all** | **{pct(s.mean)}** | "
                     f"{sum(c.scored for c in s.categories)}/"
                     f"{sum(c.tasks for c in s.categories)} | |")
    lines += ["", "## By task (best of N)", "",
              "| Run | Task | Category | Score | Turns | Valid attempts | Sub-problems |",
              "|---|---|---|---:|---:|---:|---|"]
    for s in summaries:
        for t in s.tasks:
            parts = ", ".join(f"{k} {pct(v)}" for k, v in t.parts.items())
            lines.append(f"| {s.run.label} | {t.task} | {t.category} | {pct(t.score)} | "
                         f"{'—' if t.turns is None else t.turns} | {_attempts(t)} | {parts} |")
    lines += reliability_markdown(summaries)
    left_out = [(s, t) for s in summaries for t in s.tasks if t.left_out]
    if left_out:
        lines += ["", "## Tasks not measured (every attempt left out: not in the means)", ""]
        lines += [f"- {s.run.label}: {t.task} ({', '.join(sorted(t.statuses))})"
                  for s, t in left_out]
    unfinished = [(s, u) for s in summaries for u in s.run.unfinished]
    if unfinished:
        lines += ["", "## Trials not finished (not in the scores)", ""]
        lines += [f"- {s.run.label}: {u}" for s, u in unfinished]
    errors = [(s, e) for s in summaries for e in s.errors]
    if errors:
        lines += ["", "## Trials that ended in an error (not scored; a task with no scored "
                  "attempt counts 0 in the means)", "",
                  "| Run | Task | Attempt | Status | Error |", "|---|---|---:|---|---|"]
        for s, e in errors:
            message = (e.get("error") or "").splitlines()[0:1]
            lines.append(f"| {s.run.label} | {e['task']} | {e['attempt']} | {e['status']} | "
                         f"{(message[0] if message else '')[:120].replace('|', '/')} |")
    retried = setup_retry_lines(summaries)
    if retried:
        lines += ["", "## Trials whose set-up was retried (setup.log in the trial folder)",
                  ""] + [f"- {line}" for line in retried]
    evidence = tamper_lines(summaries)
    if evidence:
        lines += ["", "## Tamper evidence (the walls held; the agent tried)", ""]
        lines += [f"- {line}" for line in evidence]
    queries = unhelpful_queries([s.run for s in summaries])
    if queries:
        lines += ["", "## Documentation searches that found nothing useful", ""]
        lines += [f"- `{q['query']}`: {q['reason']}, asked {q['count']}x ({q['where']})"
                  for q in queries]
    return "\n".join(lines) + "\n"


def terminal(summaries: list[RunSummary]) -> None:
    console = Console()
    for line in warnings([s.run for s in summaries]):
        console.print(f"[b red]{line}[/b red]")
    for line in interventions(summaries):
        console.print(f"Intervention: {line}", markup=False)
    for s in summaries:
        table = Table(title=f"{s.run.label} — run {s.run.run_id}")
        for column in ("Task", "Category", "Score", "Turns", "Valid", "Sub-problems"):
            table.add_column(column, justify="right" if column in ("Score", "Turns", "Valid")
                             else "left")
        for t in s.tasks:
            table.add_row(t.task, t.category, pct(t.score),
                          "—" if t.turns is None else str(t.turns), _attempts(t),
                          ", ".join(f"{k} {pct(v)}" for k, v in t.parts.items()))
        console.print(table)
        cats = Table(title="By category")
        for column in ("Category", "Mean", "Tasks scored", "Turn range"):
            cats.add_column(column)
        for c in s.categories:
            cats.add_row(c.category, pct(c.mean), f"{c.scored}/{c.tasks}",
                         turn_range(c.turn_min, c.turn_max))
        cats.add_row("[b]all[/b]", f"[b]{pct(s.mean)}[/b]", "", "")
        console.print(cats)
        console.print(reliability_table(s))
        for e in s.errors:
            first = (e.get("error") or "").splitlines()[:1]
            console.print(f"[red]{e['task']} #{e['attempt']}: {e['status']}[/red] "
                          f"{first[0][:150] if first else ''}")
        if s.run.unfinished:
            console.print(f"[yellow]{len(s.run.unfinished)} trial(s) not finished "
                          f"({', '.join(s.run.unfinished[:5])}"
                          f"{', ...' if len(s.run.unfinished) > 5 else ''}): "
                          f"stripebench run --resume --out {s.run.path}[/yellow]",
                          markup=True)
    for line in setup_retry_lines(summaries):
        console.print(f"[yellow]{escape(line)}[/yellow]")
    for line in tamper_lines(summaries):
        console.print(f"[b yellow]tamper evidence:[/b yellow] {escape(line)}")
    queries = unhelpful_queries([s.run for s in summaries])
    if queries:
        console.print("[b]Documentation searches that found nothing useful[/b]")
        for q in queries:
            console.print(f"  {q['query']!r}: {q['reason']}, asked {q['count']}x "
                          f"({q['where']})", markup=False)


def tamper_lines(summaries: list[RunSummary]) -> list[str]:
    """One line per trial with flagged tamper evidence (rundir/tamper.py)."""
    lines = []
    for s in summaries:
        for trial in s.run.trials:
            found = tamper.flagged(trial)
            if found:
                lines.append(f"{s.run.label}: {trial['task']} #{trial['attempt']}: "
                             f"{tamper.describe(found)}")
    return lines


def setup_retry_lines(summaries: list[RunSummary]) -> list[str]:
    """One line per trial whose set-up had to be retried (its record's `setup_retries`),
    with the note saying why: no status, but worth a look at the task's set-up."""
    lines = []
    for s in summaries:
        for trial in sorted(s.run.trials, key=lambda t: (t["task"], t["attempt"])):
            retries = int(trial.get("setup_retries") or 0)
            if retries:
                why = next((n.removeprefix("set-up retried: ")
                            for n in trial.get("notes") or []
                            if n.startswith("set-up retried")), "")
                lines.append(f"{s.run.label}: {trial['task']} #{trial['attempt']}: set-up "
                             f"retried {retries}x, then {trial.get('status')}"
                             + (f" ({why.splitlines()[0][:300]})" if why else ""))
    return lines


def search_records(runs: list[Run]) -> list[dict[str, Any]]:
    """Every documentation search in the runs' transcripts, with where it was made."""
    records = []
    for run in runs:
        for trial in run.trials:
            for event in read(run.trial_dir(trial) / "transcript.jsonl"):
                if event.get("type") == "docs_search":
                    records.append({**event, "where": f"{trial['task']} #{trial['attempt']} "
                                                      f"({run.label})"})
    return records


def unhelpful_queries(runs: list[Run]) -> list[dict[str, Any]]:
    """Docs searches with no or weak hits (Stripe found documentation bugs this way)."""
    records = search_records(runs)
    where: dict[str, list[str]] = {}
    for r in records:
        where.setdefault(" ".join(str(r.get("query", "")).lower().split()), []).append(
            r["where"])
    return [{"query": u.query, "reason": u.reason, "count": u.count,
             "where": ", ".join(sorted(set(where.get(" ".join(u.query.lower().split()), []))))}
            for u in judge(records)]


def reliability_table(summary: RunSummary) -> Table:
    """Every measured attempt, not only the best: mean ± se, strict rate, pass@k, pass^k."""
    ks = rel.ks_for(summary)
    tasks, groups = rel.reliability(summary)
    table = Table(title="Every attempt (strict: reward exactly 1.0)")
    table.add_column("Task / category")
    for column in rel.columns(ks):
        table.add_column(column, justify="right")
    for row in tasks:
        table.add_row(row.name, *rel.cells(row, ks))
    for row in groups:
        table.add_row(f"[b]{row.name}[/b]", *rel.cells(row, ks))
    return table


def reliability_markdown(summaries: list[RunSummary]) -> list[str]:
    lines = ["", "## Every attempt (mean ± standard error, strict = reward exactly 1.0)", ""]
    for s in summaries:
        ks = rel.ks_for(s)
        head = ["Run", "Task / category", *rel.columns(ks)]
        lines += ["| " + " | ".join(head) + " |",
                  "|---|---|" + "---:|" * (len(head) - 2)]
        tasks, groups = rel.reliability(s)
        for row in tasks:
            lines.append(f"| {s.run.label} | {row.name} | " + " | ".join(rel.cells(row, ks))
                         + " |")
        for row in groups:
            lines.append(f"| {s.run.label} | **{row.name}** | "
                         + " | ".join(rel.cells(row, ks)) + " |")
        lines.append("")
    return lines


def trials_csv(summaries: list[RunSummary]) -> str:
    """One row a trial: every attempt of every run, whatever its status."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(TRIAL_COLUMNS)
    for s in summaries:
        for t in sorted(s.run.trials, key=lambda t: (t["task"], t["attempt"])):
            reward = t.get("reward")
            writer.writerow([
                s.run.label, t["task"], t.get("category", ""), t["attempt"],
                t.get("model") or s.run.model, t.get("status", ""),
                "" if reward is None else f"{float(reward):.4f}",
                json.dumps(t.get("subscores") or {}, sort_keys=True), t.get("turns", ""),
                t.get("input_tokens", ""), t.get("output_tokens", ""),
                "" if t.get("cost_usd") is None else t["cost_usd"],
                t.get("wall_seconds", "")])
    return out.getvalue()


def as_json(summaries: list[RunSummary]) -> dict[str, Any]:
    """What `report --json` prints: each run's scores (best of N and every attempt)."""
    runs = []
    for s in summaries:
        tasks, groups = rel.reliability(s)
        attempts = {row.name: row for row in tasks}
        runs.append({
            "run": str(s.run.path), "run_id": s.run.run_id, "label": s.run.label,
            "agent": s.run.meta.get("agent"), "model": s.run.meta.get("model"),
            "mean": s.mean, "unsealed": s.run.unsealed,
            "categories": [{"category": c.category, "mean": c.mean, "tasks": c.tasks,
                            "scored": c.scored} for c in s.categories],
            "tasks": [{"task": t.task, "category": t.category, "best": t.score,
                       "turns": t.turns, "attempts": t.attempts, "valid": t.valid,
                       "left_out": t.left_out, "statuses": t.statuses,
                       **({"every_attempt": rel.as_dict(attempts[t.task])}
                          if t.task in attempts else {})} for t in s.tasks],
            "every_attempt": [rel.as_dict(row) for row in groups],
            "errors": [{"task": e["task"], "attempt": e["attempt"], "status": e["status"]}
                       for e in s.errors],
            "setup_retried": [{"task": t["task"], "attempt": t["attempt"],
                               "setup_retries": t["setup_retries"], "status": t["status"]}
                              for t in s.run.trials if t.get("setup_retries")],
            "unfinished": s.run.unfinished})
    return {"warnings": warnings([s.run for s in summaries]), "runs": runs}
