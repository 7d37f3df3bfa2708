"""`stripebench export`: our tasks in other frameworks' formats (registered in
stripebench/cli.py)."""

from __future__ import annotations

import os
from pathlib import Path

import typer

export_app = typer.Typer(no_args_is_help=True, help="Export tasks to other frameworks.")


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
