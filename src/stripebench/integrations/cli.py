"""`stripebench export`: our tasks in other frameworks' formats (registered in
stripebench/cli.py)."""

from __future__ import annotations

import os
from pathlib import Path

import typer

export_app = typer.Typer(no_args_is_help=True, help="Export tasks (and runs) to other "
                         "frameworks.")


@export_app.command("harbor")
def export_harbor(
    out: Path = typer.Option(..., help="Where the Harbor tasks go (one folder per task)."),
    tasks: list[str] = typer.Option([], "--tasks", "-t", help="Task ids (default: all); "
                                    "--tasks a,b or --tasks a --tasks b."),
    category: str | None = typer.Option(None, help="backend, full-stack or gym."),
    tasks_dir: Path | None = typer.Option(None, help="Where tasks live (default tasks/)."),
) -> None:
    """Write Harbor tasks: Dockerfile (stripebench, the emulator, the starter repo and
    services), tests/test.sh (our grader, Harbor's reward), instruction and solution."""
    # loaded when the command runs: `stripebench --help` stays quick
    from ..harness.task import TaskError, discover, select
    from .harbor_export import ExportError, export_tasks

    root = tasks_dir or Path(os.environ.get("STRIPEBENCH_TASKS", "tasks"))
    ids = [t for value in tasks for t in value.split(",") if t]
    try:
        chosen = select(discover(root), ids or None, category)
        if not chosen:
            raise TaskError(f"no tasks found under {root}")
        written = export_tasks(chosen, out)
    except (TaskError, ExportError) as exc:
        typer.echo(f"stripebench: {exc}", err=True)
        raise typer.Exit(2) from None
    for path in written:
        typer.echo(f"wrote {path}")
    typer.echo(f"{len(written)} Harbor task(s) in {out} (check: harbor lint {out}/*)")


@export_app.command("inspect")
def export_inspect(
    runs: list[Path] = typer.Argument(..., help="Run directories (of stripebench run)."),
    out: Path = typer.Option(Path("logs"), help="Where the eval logs go (a folder "
                             "`inspect view --log-dir` opens)."),
) -> None:
    """Write each run as an Inspect eval log: one sample a trial (the prompt, the
    transcript's messages and tool calls, the reward, status and sub-scores, turns,
    tokens, cost), so that `inspect view --log-dir OUT` shows it."""
    # loaded when the command runs: inspect_ai is heavy, `stripebench --help` stays quick
    from ..rundir import RunNotFound
    from .inspect_log import export_run

    written = []
    for run in runs:
        try:
            written.append(export_run(run, out))
        except RunNotFound as exc:
            typer.echo(f"stripebench: {exc}", err=True)
            raise typer.Exit(2) from None
    for path in written:
        typer.echo(f"wrote {path}")
    typer.echo(f"{len(written)} eval log(s) in {out} (open them: inspect view --log-dir "
               f"{out})")
