"""`stripebench tasks check`: every task valid, oracle scores 1.0, noop scores 0.0."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from ..rundir import has_meta
from .agents import make_agent
from .emulator import Emulator
from .runner import RunPlan, execute
from .task import Task, problems


def check_tasks(tasks: list[Task], out: Path, sandbox: str = "local",
                echo: Callable[[str], None] = print) -> list[str]:
    failures = []
    emulator = Emulator.start()
    try:
        for task in tasks:
            issues = problems(task)
            if issues:
                echo(f"FAIL {task.id}: " + "; ".join(issues))
                failures.append(task.id)
                continue
            ok = True
            for agent, wanted in (("oracle", 1.0), ("noop", 0.0)):
                target = out / agent / task.id
                if has_meta(target):  # an earlier check: prove the task anew
                    shutil.rmtree(target)
                plan = RunPlan(out=target, tasks=[task], agent_name=agent, model=None,
                               sandbox=sandbox)
                results = execute(plan, lambda a=agent: make_agent(a),  # type: ignore[misc]
                                  emulator=emulator)
                result = results[0] if results else None
                reward = None if result is None else result["reward"]
                good = result is not None and result["status"] == "completed" \
                    and reward == wanted
                if not good:
                    ok = False
                    detail = "no result" if result is None else \
                        f"status {result['status']}, reward {reward}, " \
                        f"error {(result.get('error') or '').splitlines()[:1]}"
                    echo(f"FAIL {task.id}: {agent} should score {wanted}: {detail}")
            if ok:
                echo(f"ok   {task.id}: oracle 1.0, noop 0.0")
            else:
                failures.append(task.id)
    finally:
        emulator.stop()
    return failures
