"""`stripebench report` and `stripebench compare` (registered in stripebench/cli.py), and
the report `stripebench run` writes into a finished run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from . import html as html_page
from . import report
from .aggregate import summarize
from .compare import compare_runs
from .compare_report import markdown as compare_markdown
from .compare_report import page as compare_page
from .compare_report import terminal as compare_terminal
from .store import RunNotFound, load_run


def _fail(message: str) -> typer.Exit:
    typer.echo(f"stripebench: {message}", err=True)
    return typer.Exit(2)


def write_reports(out: Path) -> None:
    """The run's report on the terminal, and as report.md and report.html in the run."""
    summaries = [summarize(load_run(out))]
    report.terminal(summaries)
    (out / "report.md").write_text(report.markdown(summaries))
    (out / "report.html").write_text(html_page.page(summaries))


def run_summary(out: Path) -> dict[str, Any]:
    """A finished run in `report --json`'s shape (what `run --json` prints)."""
    return report.as_json([summarize(load_run(out))])


def report_command(
    runs: list[Path] = typer.Argument(..., help="Run directories."),
    markdown: Path | None = typer.Option(None, "--markdown", help="Write Markdown here."),
    csv: Path | None = typer.Option(None, "--csv", help="Write CSV here (Stripe's "
                                    "published columns: one row a task, best of N)."),
    trials_csv: Path | None = typer.Option(None, "--trials-csv", help="Write one row a "
                                           "trial here (task, attempt, model, reward, "
                                           "subscores, turns, tokens, cost, time, status)."),
    html: Path | None = typer.Option(None, "--html", help="Write the HTML page here."),
    quiet: bool = typer.Option(False, help="No terminal table."),
    as_json: bool = typer.Option(False, "--json", help="Print the scores as JSON (no "
                                 "table; files are still written, named on stderr)."),
) -> None:
    """Best-of-N per task, category means and turn ranges; every attempt's mean ± standard
    error, strict rate (reward exactly 1.0), pass@k and pass^k; as tables, CSV and HTML."""
    try:
        summaries = [summarize(load_run(r)) for r in runs]
    except RunNotFound as exc:
        raise _fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(report.as_json(summaries), indent=2))
    elif not quiet:
        report.terminal(summaries)
    for target, text in ((markdown, lambda: report.markdown(summaries)),
                         (csv, lambda: report.csv_text(summaries)),
                         (trials_csv, lambda: report.trials_csv(summaries)),
                         (html, lambda: html_page.page(summaries))):
        if target is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text())
            typer.echo(f"wrote {target}", err=as_json)


def compare_command(
    runs: list[Path] = typer.Argument(..., help="Run A (the baseline), then run B (and "
                                      "more: each is compared with A)."),
    alpha: float = typer.Option(0.05, help="Significance level; intervals are 1 - alpha."),
    seed: int = typer.Option(0, help="Seed of the bootstrap (same seed, same numbers)."),
    resamples: int = typer.Option(10_000, min=100, help="Bootstrap resamples."),
    markdown: Path | None = typer.Option(None, "--markdown", help="Write Markdown here."),
    html: Path | None = typer.Option(None, "--html", help="Write the HTML page here."),
    quiet: bool = typer.Option(False, help="No terminal output."),
) -> None:
    """Paired comparison by task and attempt: B - A in score, success, turns, tokens and
    cost, with bootstrap intervals, an exact sign-flip test and a verdict."""
    if len(runs) < 2:
        raise _fail("compare needs two runs or more: RUN_A RUN_B [...]")
    if not 0 < alpha < 0.5:
        raise _fail("--alpha must be between 0 and 0.5")
    try:
        loaded = [load_run(r) for r in runs]
    except RunNotFound as exc:
        raise _fail(str(exc)) from None
    comparisons = [compare_runs(loaded[0], b, alpha=alpha, seed=seed, resamples=resamples)
                   for b in loaded[1:]]
    if not quiet:
        typer.echo(compare_terminal(comparisons))
    for target, text in ((markdown, lambda: compare_markdown(comparisons)),
                         (html, lambda: compare_page(comparisons))):
        if target is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text())
            typer.echo(f"wrote {target}")
