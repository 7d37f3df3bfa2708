"""`stripebench compare` output: terminal lines, Markdown, and one self-contained HTML page
with a forest plot (inline SVG) of the per-task and overall differences."""

from __future__ import annotations

from html import escape

from ..rundir import describe
from . import stats
from .compare import DESCRIPTIVE_RESAMPLES, METRICS, Comparison, arm_label, fmt, interval
from .html import STYLE
from .store import Run, warnings

PLOT_WIDTH = 420


def _p(value: float | None) -> str:
    return "—" if value is None else f"{value:.3g}"


def _unsealed(comparisons: list[Comparison]) -> list[str]:
    runs: list[Run] = []
    for c in comparisons:
        runs += [run for run in (c.a, c.b) if all(run is not seen for seen in runs)]
    return warnings(runs)


def _arms(c: Comparison) -> list[str]:
    lines = []
    for name, run in (("A", c.a), ("B", c.b)):
        about = describe(run.meta)
        about.pop("label", None)
        what = "; ".join(f"{k}: {v}" for k, v in about.items()) or "defaults"
        model = f" {run.meta.get('model')}" if run.meta.get("model") else ""
        lines.append(f"{name} = {arm_label(run)} (run {run.run_id}, agent "
                     f"{run.meta.get('agent')}{model}; {what})")
    return lines


def _metric_rows(c: Comparison) -> list[tuple[str, str, str, str, str, str]]:
    rows = []
    for name, (what, _) in METRICS.items():
        e = c.metrics[name]
        rows.append((what, fmt(name, e.mean_a), fmt(name, e.mean_b),
                     fmt(name, e.diff, True), interval(name, e), _p(e.p_value)))
    return rows


def _docs_lines(c: Comparison) -> list[str]:
    d = c.docs
    groups = [("unhelpful in A, helpful in B", d.fixed), ("helpful in A, unhelpful in B",
                                                         d.broken),
              ("unhelpful in both", d.still), ("unhelpful in A, not asked in B", d.only_a),
              ("unhelpful in B, not asked in A", d.only_b)]
    if d.replayed is not None:
        groups += [("A's unhelpful queries searched in B's docs: now helpful", d.replayed[0]),
                   ("A's unhelpful queries searched in B's docs: still unhelpful",
                    d.replayed[1])]
    return [f"{title} ({len(queries)}): " + (", ".join(f"`{q}`" for q in queries) or "none")
            for title, queries in groups]


def markdown(comparisons: list[Comparison]) -> str:
    lines = [f"**{line}**" for line in _unsealed(comparisons)]
    lines += ["# stripebench comparison", ""]
    for c in comparisons:
        lines += [f"## {arm_label(c.b)} vs {arm_label(c.a)}", ""]
        lines += [f"- {line}" for line in _arms(c)]
        if c.changed:
            lines.append(f"- changed: {'; '.join(c.changed)}")
        lines += ["", "**Verdict**", ""] + [f"- {v}" for v in c.verdict] + [""]
        level = f"{(1 - c.alpha) * 100:g}% CI"
        lines += [f"| Measure | A | B | B − A | {level} | p |", "|---|---:|---:|---:|---|---:|"]
        lines += [f"| {' | '.join(row)} |" for row in _metric_rows(c)]
        lines += ["", "### By task (score)", "",
                  f"| Task | Pairs | A | B | B − A | {level} | p | p (Holm) | "
                  "Success A | Success B |", "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
        for t in c.tasks:
            e, s = t.score, t.success
            lines.append(f"| {t.task} | {e.pairs} | {fmt('score', e.mean_a)} | "
                         f"{fmt('score', e.mean_b)} | {fmt('score', e.diff, True)} | "
                         f"{interval('score', e)} | {_p(e.p_value)} | {_p(t.holm_p)} | "
                         f"{fmt('success', s.mean_a)} | {fmt('success', s.mean_b)} |")
        if c.dropped or c.unmatched:
            lines += ["", "### Not compared", ""]
            lines += [f"- {d} (says nothing about the agent)" for d in c.dropped]
            lines += [f"- {u}" for u in c.unmatched]
        lines += ["", "### Documentation searches that found nothing useful", "",
                  f"{c.docs.searches[0]} search(es) in A, {c.docs.searches[1]} in B.", ""]
        lines += [f"- {line}" for line in _docs_lines(c)]
        lines += ["", f"_Tasks weigh equally; stratified paired bootstrap "
                      f"({c.resamples:,} resamples, at most {DESCRIPTIVE_RESAMPLES:,} per task and "
                      f"for turns, tokens, cost; seed {c.seed}) and two-sided "
                      f"sign-flip test; significant only if p < {c.alpha:g} and the "
                      f"interval leaves out 0. Per-task p-values are not corrected for "
                      f"testing many tasks except in the Holm column._", ""]
    return "\n".join(lines)


def terminal(comparisons: list[Comparison]) -> str:
    out = _unsealed(comparisons)
    for c in comparisons:
        out += [f"{arm_label(c.b)} vs {arm_label(c.a)}"] + [f"  {line}" for line in _arms(c)]
        if c.changed:
            out.append(f"  changed: {'; '.join(c.changed)}")
        for row in _metric_rows(c):
            out.append(f"  {row[0]:26} A {row[1]:>10}  B {row[2]:>10}  B−A {row[3]:>11}  "
                       f"[{row[4]}]  p {row[5]}")
        docs = _docs_lines(c)  # moved ones, and A's replayed in B's docs, if any
        out += [f"  docs: {line}" for line in docs[:2] + docs[5:]]
        out += [f"  {v}" for v in c.verdict] + [""]
    return "\n".join(out)


def forest_plot(c: Comparison) -> str:
    """Per-task and overall score difference B − A with its interval, on −100..+100."""
    rows = [(t.task, t.score) for t in c.tasks] + [("overall", c.metrics["score"])]
    left, row, top = 200, 24, 34
    height = top + row * len(rows) + 30

    def x(value: float) -> float:
        return left + (max(-1.0, min(1.0, value)) + 1) / 2 * PLOT_WIDTH

    parts = [f'<svg width="{left + PLOT_WIDTH + 150}" height="{height}" role="img" '
             f'aria-label="score difference by task">',
             '<text x="0" y="16" font-weight="600">Score difference B − A (points), with '
             f'{(1 - c.alpha) * 100:g}% intervals</text>',
             f'<line x1="{x(0):.1f}" y1="{top - 6}" x2="{x(0):.1f}" '
             f'y2="{top + row * len(rows)}" stroke="#8792a2" stroke-dasharray="3,3"/>']
    for tick in (-1.0, -0.5, 0.0, 0.5, 1.0):
        parts.append(f'<text x="{x(tick):.1f}" y="{height - 8}" font-size="10" '
                     f'text-anchor="middle">{tick * 100:+.0f}</text>')
    for n, (name, e) in enumerate(rows):
        y = top + n * row + row / 2
        bold = ' font-weight="600"' if name == "overall" else ""
        parts.append(f'<text x="0" y="{y + 4:.1f}" font-size="12"{bold}>{escape(name)}</text>')
        if e.diff is None or e.low is None or e.high is None:
            parts.append(f'<text x="{left}" y="{y + 4:.1f}" font-size="11">no pairs</text>')
            continue
        color = "#00a67e" if stats.significant(e, c.alpha) and e.diff > 0 else \
            "#e5424d" if stats.significant(e, c.alpha) else "#635bff"
        parts.append(f'<line x1="{x(e.low):.1f}" y1="{y:.1f}" x2="{x(e.high):.1f}" '
                     f'y2="{y:.1f}" stroke="{color}" stroke-width="2"/>')
        shape = "rect" if name == "overall" else "circle"
        if shape == "rect":
            parts.append(f'<rect x="{x(e.diff) - 5:.1f}" y="{y - 5:.1f}" width="10" '
                         f'height="10" fill="{color}"/>')
        else:
            parts.append(f'<circle cx="{x(e.diff):.1f}" cy="{y:.1f}" r="4" fill="{color}"/>')
        parts.append(f'<text x="{left + PLOT_WIDTH + 8}" y="{y + 4:.1f}" font-size="11">'
                     f'{fmt("score", e.diff, True)} (p {_p(e.p_value)})</text>')
    parts.append("</svg>")
    return "".join(parts)


def page(comparisons: list[Comparison]) -> str:
    body = [f"<p class=err><b>{escape(line)}</b></p>" for line in _unsealed(comparisons)]
    body.append("<h1>stripebench comparison</h1>")
    for c in comparisons:
        body.append(f"<h2>{escape(arm_label(c.b))} vs {escape(arm_label(c.a))}</h2><ul>")
        body += [f"<li>{escape(line)}</li>" for line in _arms(c)]
        if c.changed:
            body.append(f"<li>changed: {escape('; '.join(c.changed))}</li>")
        body.append("</ul><h3>Verdict</h3><ul>")
        body += [f"<li>{escape(v)}</li>" for v in c.verdict]
        body.append("</ul>" + forest_plot(c))
        level = f"{(1 - c.alpha) * 100:g}% CI"
        body.append(f"<table><tr><th>Measure</th><th>A</th><th>B</th><th>B − A</th>"
                    f"<th>{level}</th><th>p</th></tr>")
        for row in _metric_rows(c):
            body.append("<tr><td>" + escape(row[0]) + "</td>" + "".join(
                f"<td class=num>{escape(v)}</td>" for v in row[1:]) + "</tr>")
        body.append("</table><h3>By task</h3><table><tr><th>Task</th><th>Pairs</th><th>A</th>"
                    f"<th>B</th><th>B − A</th><th>{level}</th><th>p</th><th>p (Holm)</th>"
                    "<th>Success A</th><th>Success B</th></tr>")
        for t in c.tasks:
            e, s = t.score, t.success
            cells = [str(e.pairs), fmt("score", e.mean_a), fmt("score", e.mean_b),
                     fmt("score", e.diff, True), interval("score", e), _p(e.p_value),
                     _p(t.holm_p), fmt("success", s.mean_a), fmt("success", s.mean_b)]
            body.append(f"<tr><td>{escape(t.task)}</td>" + "".join(
                f"<td class=num>{escape(v)}</td>" for v in cells) + "</tr>")
        body.append("</table>")
        if c.dropped or c.unmatched:
            body.append("<h3>Not compared</h3><ul>" + "".join(
                f"<li>{escape(d)} (harness error)</li>" for d in c.dropped) + "".join(
                f"<li>{escape(u)}</li>" for u in c.unmatched) + "</ul>")
        body.append("<h3>Documentation searches that found nothing useful</h3><ul>")
        body += [f"<li>{escape(line)}</li>" for line in _docs_lines(c)]
        body.append("</ul>")
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>stripebench "
            f"comparison</title><style>{STYLE}</style></head><body>{''.join(body)}"
            f"</body></html>")
