"""The system prompt (in the repo, versioned with the benchmark) and the task prompt."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .interventions import system_text
from .task import Task

if TYPE_CHECKING:
    from .interventions import Interventions

PROMPTS = Path(__file__).parent / "prompts"


def system_prompt(arm: Interventions | None = None) -> str:
    """The built-in agents' system prompt; an experiment's arm may replace it, append to
    it, or offer fewer tools (see harness/interventions.py)."""
    text = (PROMPTS / "system.md").read_text()
    if arm is None:
        return text

    return system_text(text, arm)


def task_prompt(task: Task, workdir: Path, env: dict[str, str],
                ports: dict[str, int] | None = None) -> str:
    ports = ports or {}
    services = "\n".join(
        f"- `{s.name}`: `{s.command}`"
        + (f" (listening on http://127.0.0.1:{ports[s.name]}, port in $PORT)"
           if s.name in ports and s.port is not None else "")  # a port-less one serves none
        for s in task.services) or "- none"
    keys = ", ".join(f"`{k}`" for k in sorted(env))
    return (f"{task.instruction.rstrip()}\n\n---\n\n"
            f"Working directory: `{workdir}` (your commands run there).\n"
            f"Environment variables set for you: {keys}.\n"
            f"Services already running from the working directory:\n{services}\n"
            "Restart a service yourself after changing its code if you need to try it; "
            "after you finish, the services are restarted from your working directory "
            "and your work is checked.\n")
