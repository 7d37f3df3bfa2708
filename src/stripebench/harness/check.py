"""`stripebench tasks check`: every task valid, its requirement table complete, oracle
1.0 and noop 0.0; with variants, every mutant loses exactly its checks and every
alternative scores 1.0 (see stripebench.harness.proof)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .emulator import Emulator
from .proof.prove import prove_task
from .proof.table import render, summary
from .task import Task


def check_tasks(tasks: list[Task], out: Path, sandbox: str = "local",
                echo: Callable[[str], None] = print, variants: bool = False,
                repeat: int = 1, parallel: int = 1) -> list[str]:
    """The ids of the tasks that fail; each task's table goes to `echo`."""
    failures = []
    emulator = Emulator.start()
    try:
        for task in tasks:
            proof = prove_task(task, out / task.id, emulator, sandbox, variants=variants,
                               repeat=repeat, parallel=parallel)
            echo(render(proof))
            echo(summary(proof))
            if not proof.ok:
                failures.append(task.id)
    finally:
        emulator.stop()
    return failures
