"""One self-contained HTML page: charts (inline SVG), per-trial sub-scores, transcripts.

Nothing is loaded from the network: styles are inline, screenshots are data: URIs.
"""

from __future__ import annotations

import base64
import json
from html import escape
from pathlib import Path
from typing import Any

from ..rundir import counts
from ..rundir.transcript import read
from . import reliability as rel
from .aggregate import RunSummary
from .report import (
    interventions,
    pct,
    setup_retry_lines,
    tamper_lines,
    turn_range,
    unhelpful_queries,
)
from .store import warnings

COLORS = ["#635bff", "#00a67e", "#f5a623", "#e5424d", "#0a84ff", "#8e44ad"]
STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#1a1f36}
h1,h2,h3{color:#0a2540} table{border-collapse:collapse;margin:.5rem 0 1.5rem}
td,th{border:1px solid #e3e8ee;padding:.3rem .6rem;text-align:left;vertical-align:top}
th{background:#f6f9fc} .num{text-align:right} .err{color:#c0123c}
details{border:1px solid #e3e8ee;border-radius:6px;margin:.4rem 0;padding:.3rem .6rem}
summary{cursor:pointer;font-weight:600} pre{white-space:pre-wrap;background:#f6f9fc;
padding:.5rem;border-radius:4px;max-height:28rem;overflow:auto;font-size:12px}
.ev{margin:.4rem 0}.role{font-weight:600;color:#635bff}.tool{font-weight:600;color:#00a67e}
img.shot{max-width:100%;border:1px solid #ccc}
"""


def bar_chart(title: str, groups: list[str], series: list[tuple[str, list[float | None]]]
              ) -> str:
    """Grouped horizontal bars, values in [0, 1]."""
    row, bar, left, width = 22, 16, 170, 520
    height = 40 + len(groups) * (len(series) * row + 10) + 20 * len(series)
    parts = [f'<svg width="{left + width + 80}" '
             f'height="{height}" role="img" aria-label="{escape(title)}">',
             f'<text x="0" y="16" font-weight="600">{escape(title)}</text>']
    y = 30
    for g, group in enumerate(groups):
        parts.append(f'<text x="0" y="{y + row * len(series) / 2 + 4}" '
                     f'font-size="12">{escape(group)}</text>')
        for s, (_, values) in enumerate(series):
            value = values[g]
            w = 0 if value is None else max(1, value * width)
            parts.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar}" '
                         f'fill="{COLORS[s % len(COLORS)]}"/>')
            parts.append(f'<text x="{left + w + 4:.1f}" y="{y + 12}" font-size="11">'
                         f'{pct(value)}</text>')
            y += row
        y += 10
    for s, (name, _) in enumerate(series):
        parts.append(f'<rect x="{left}" y="{y}" width="10" height="10" '
                     f'fill="{COLORS[s % len(COLORS)]}"/><text x="{left + 14}" y="{y + 9}" '
                     f'font-size="11">{escape(name)}</text>')
        y += 18
    parts.append("</svg>")
    return "".join(parts)


def _image(folder: Path, rel: str) -> str:
    try:
        data = base64.b64encode((folder / rel).read_bytes()).decode()
    except OSError:
        return f"<em>missing screenshot {escape(rel)}</em>"
    return f'<img class="shot" alt="screenshot" src="data:image/png;base64,{data}">'


def transcript_html(folder: Path) -> str:
    out = []
    for event in read(folder / "transcript.jsonl"):
        kind = event.get("type")
        if kind == "start":
            out.append(f"<details><summary>Prompt</summary><pre>"
                       f"{escape(str(event.get('prompt', '')))}</pre></details>")
        elif kind == "message":
            out.append(f'<div class="ev"><span class="role">{escape(str(event.get("role")))}'
                       f"</span><pre>{escape(str(event.get('text', '')))}</pre></div>")
        elif kind == "tool_call":
            args = json.dumps(event.get("args", {}), indent=1, ensure_ascii=False)
            out.append(f'<div class="ev"><span class="tool">→ {escape(str(event.get("name")))}'
                       f"</span><pre>{escape(args[:4000])}</pre></div>")
        elif kind == "tool_result":
            cls = ' class="err"' if event.get("is_error") else ""
            images = "".join(_image(folder, rel) for rel in event.get("images", []))
            out.append(f'<div class="ev"><span{cls}>← {escape(str(event.get("name")))} '
                       f"({event.get('seconds', '?')}s)</span><pre>"
                       f"{escape(str(event.get('text', ''))[:6000])}</pre>{images}</div>")
        elif kind == "docs_search":
            hits = event.get("results")
            count = len(hits) if isinstance(hits, list) else hits
            out.append(f"<div class='ev'>docs search {escape(repr(event.get('query')))}: "
                       f"{count or 0} result(s)</div>")
        elif kind == "context_elided":
            out.append(f"<div class='ev'><i>context budget: elided {event.get('tool_results')} "
                       f"tool output(s), {event.get('images')} screenshot(s), "
                       f"{event.get('arguments')} argument(s) ({event.get('chars', 0):,} "
                       f"characters) before turn {event.get('turn')}</i></div>")
        elif kind == "end":
            out.append(f"<div class='ev'><b>end: {escape(str(event.get('status')))}</b></div>")
    return "\n".join(out) or "<em>no transcript</em>"


def page(summaries: list[RunSummary]) -> str:
    body = [f"<p class=err><b>{escape(line)}</b></p>"
            for line in warnings([s.run for s in summaries])]
    body.append("<h1>stripebench results</h1>")
    changed = interventions(summaries)
    if changed:
        body.append("<h2>Interventions</h2><ul>" + "".join(
            f"<li>{escape(line)}</li>" for line in changed) + "</ul>")
    categories = sorted({c.category for s in summaries for c in s.categories})
    series = [(s.run.label, [next((c.mean for c in s.categories if c.category == cat), None)
                             for cat in categories]) for s in summaries]
    body.append(bar_chart("Mean score by category (best of N per task)", categories, series))
    tasks = sorted({t.task for s in summaries for t in s.tasks})
    body.append(bar_chart("Score by task", tasks, [
        (s.run.label, [next((t.score for t in s.tasks if t.task == name), None)
                       for name in tasks]) for s in summaries]))
    body.append("<h2>By category</h2><table><tr><th>Run</th><th>Category</th><th>Mean</th>"
                "<th>Tasks scored</th><th>Turn range</th></tr>")
    for s in summaries:
        for c in s.categories:
            body.append(f"<tr><td>{escape(s.run.label)}</td><td>{escape(c.category)}</td>"
                        f"<td class=num>{pct(c.mean)}</td><td class=num>{c.scored}/{c.tasks}"
                        f"</td><td>{turn_range(c.turn_min, c.turn_max)}</td></tr>")
        body.append(f"<tr><td>{escape(s.run.label)}</td><td><b>all</b></td>"
                    f"<td class=num><b>{pct(s.mean)}</b></td><td></td><td></td></tr>")
    body.append("</table>")
    for s in summaries:
        body.append(_run_section(s))
    retried = setup_retry_lines(summaries)
    if retried:
        body.append("<h2>Trials whose set-up was retried (setup.log in the trial folder)"
                    "</h2><ul>" + "".join(f"<li>{escape(line)}</li>" for line in retried)
                    + "</ul>")
    evidence = tamper_lines(summaries)
    if evidence:
        body.append("<h2>Tamper evidence (the walls held; the agent tried)</h2><ul class=err>"
                    + "".join(f"<li>{escape(line)}</li>" for line in evidence) + "</ul>")
    queries = unhelpful_queries([s.run for s in summaries])
    body.append("<h2>Documentation searches that found nothing useful</h2>")
    body.append("<ul>" + "".join(f"<li><code>{escape(q['query'])}</code> — "
                                 f"{escape(q['reason'])}, asked {q['count']}x "
                                 f"({escape(q['where'])})</li>" for q in queries)
                + "</ul>" if queries else "<p>None.</p>")
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>stripebench "
            f"results</title><style>{STYLE}</style></head><body>{''.join(body)}</body></html>")


def _run_section(s: RunSummary) -> str:
    run = s.run
    out = [f"<h2>{escape(run.label)} <small>(run {escape(run.run_id)})</small></h2>",
           "<table><tr><th>Task</th><th>Category</th><th>Best score</th><th>Turns</th>"
           "<th>Valid attempts</th><th>Sub-problems</th></tr>"]
    for t in s.tasks:
        parts = ", ".join(f"{escape(k)} {pct(v)}" for k, v in t.parts.items())
        out.append(f"<tr><td>{escape(t.task)}</td><td>{escape(t.category)}</td>"
                   f"<td class=num>{pct(t.score)}</td><td class=num>"
                   f"{'—' if t.turns is None else t.turns}</td><td class=num>{t.valid}/"
                   f"{t.attempts}</td><td>{parts}</td></tr>")
    out.append("</table>")
    out.append(reliability_section(s))
    out.append("<h3>Trials</h3>")
    for trial in run.trials:
        out.append(_trial(run.trial_dir(trial), trial))
    return "".join(out)


def reliability_section(s: RunSummary) -> str:
    """Every measured attempt, not only the best (results/reliability.py): per task, then
    per category and overall, mean ± standard error, strict rate, pass@k and pass^k."""
    ks = rel.ks_for(s)
    tasks, groups = rel.reliability(s)
    head = "".join(f"<th>{escape(c)}</th>" for c in ["Task / category", *rel.columns(ks)])
    out = ["<h3>Every attempt (mean ± standard error, strict = reward exactly 1.0)</h3>",
           f"<table class=attempts><tr>{head}</tr>"]
    for row in tasks + groups:
        name = escape(row.name) if row in tasks else f"<b>{escape(row.name)}</b>"
        out.append(f"<tr><td>{name}</td>" + "".join(
            f"<td class=num>{escape(cell)}</td>" for cell in rel.cells(row, ks)) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _trial(folder: Path, trial: dict[str, Any]) -> str:
    status = escape(str(trial["status"]))
    cls = "" if counts(trial) else " class=err"
    subs = "".join(f"<tr><td>{escape(k)}</td><td class=num>{v:.2f}</td></tr>"
                   for k, v in (trial.get("subscores") or {}).items())
    cost = trial.get("cost_usd")
    shown_cost = "—" if cost is None else f"${cost:.4f}"
    facts = (f"turns {trial.get('turns')}, tool calls {trial.get('tool_calls')}, tokens "
             f"{trial.get('input_tokens')}/{trial.get('output_tokens')}, cost "
             f"{shown_cost}, "
             f"wall {trial.get('wall_seconds')}s")
    elided = (trial.get("agent_extra") or {}).get("context_elided")
    if elided:  # the built-in loop shortened old tool output to fit its context budget
        facts += (f"; context budget {elided['budget']:,} tokens: {elided['times']} "
                  f"elision(s), {elided['tool_results']} tool output(s), {elided['images']} "
                  f"screenshot(s), {elided['arguments']} argument(s), "
                  f"{elided['chars']:,} characters")
    error = f"<pre class=err>{escape(str(trial['error'])[:3000])}</pre>" \
        if trial.get("error") else ""
    grader = ""
    if (folder / "grader.log").exists():
        grader = (f"<details><summary>Grader output</summary><pre>"
                  f"{escape((folder / 'grader.log').read_text()[-8000:])}</pre></details>")
    agent_log = ""
    if (folder / "agent.log").exists():  # an external CLI's own output
        agent_log = (f"<details><summary>Agent output (agent.log)</summary><pre>"
                     f"{escape((folder / 'agent.log').read_text(errors='replace')[-20000:])}"
                     f"</pre></details>")
    return (f"<details><summary>{escape(trial['task'])} #{trial['attempt']} — <span{cls}>"
            f"{status}</span> — reward {pct(trial.get('reward'))}</summary><p>{facts}</p>"
            f"{error}<table>{subs}</table>{grader}<details><summary>Transcript</summary>"
            f"{transcript_html(folder)}</details>{agent_log}</details>")
