"""Agents without a model: oracle (the reference solution), noop, scripted (replay)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from .base import AgentContext, AgentOutcome

SOLUTION_IN_WORKDIR = ".stripebench/solution"


# A task's mutants and alternatives (solution/mutants, solution/alternatives) are proofs
# of its grader, never part of the reference solution the oracle runs.
NOT_SOLUTION = ("mutants", "alternatives")


class OracleAgent:
    """Runs the task's solution/solve.sh in the workdir: proves the task can be solved.

    `solution`: another solution folder to run instead of the task's (a mutant or an
    alternative built by stripebench.harness.proof)."""

    name = "oracle"
    model: str | None = None

    def __init__(self, solution: Path | None = None) -> None:
        self.solution = solution

    def run(self, ctx: AgentContext) -> AgentOutcome:
        solution = self.solution or ctx.task.solution
        script = solution / "solve.sh"
        if not script.is_file():
            return AgentOutcome(status="error", error=f"no solve.sh in {solution}")
        # The sandbox may not see the task directory, so the solution travels in with the
        # workdir for the oracle's run only and leaves with it.
        target = ctx.sandbox.workdir / SOLUTION_IN_WORKDIR

        def ignore(folder: str, names: list[str]) -> set[str]:
            return set(NOT_SOLUTION) & set(names) if Path(folder) == solution else set()

        shutil.copytree(solution, target, dirs_exist_ok=True, ignore=ignore)
        try:
            result = ctx.toolbox.call("bash", {"command": f"bash {SOLUTION_IN_WORKDIR}/solve.sh",
                                               "timeout": max(1, ctx.time_left())},
                                      call_id="oracle")
        finally:
            shutil.rmtree(target, ignore_errors=True)
        if ctx.time_left() <= 0:
            return AgentOutcome(status="timeout", turns=1, error="solve.sh ran out of time")
        if result.is_error:
            return AgentOutcome(status="error", turns=1,
                                error=f"solve.sh failed: {result.text[-2000:]}")
        return AgentOutcome(turns=1)


class NoopAgent:
    """Does nothing: a grader must give it 0."""

    name = "noop"
    model: str | None = None

    def run(self, ctx: AgentContext) -> AgentOutcome:
        return AgentOutcome(turns=0)


class ScriptedAgent:
    """Replays a recorded list of tool calls, one turn each.

    A script is a JSON list of steps, or an object mapping task ids to lists. A step is
    {"tool": NAME, "args": {...}}, {"sleep": SECONDS} (a model thinking) or
    {"crash": MESSAGE} (the agent failing). This is how CI runs the whole loop without
    a model.
    """

    name = "scripted"
    model: str | None = None

    def __init__(self, script: Path | list[Any] | dict[str, Any]) -> None:
        self.script = json.loads(Path(script).read_text()) if isinstance(script, str | Path) \
            else script

    def steps_for(self, task_id: str) -> list[dict[str, Any]]:
        if isinstance(self.script, dict):
            return list(self.script.get(task_id, []))
        return list(self.script)

    def run(self, ctx: AgentContext) -> AgentOutcome:
        turns = 0
        for step in self.steps_for(ctx.task.id):
            if ctx.time_left() <= 0:
                return AgentOutcome(status="timeout", turns=turns)
            if turns >= ctx.max_turns:
                return AgentOutcome(status="turn_limit", turns=turns)
            turns += 1
            ctx.transcript.add("turn", n=turns)
            if "crash" in step:
                raise RuntimeError(str(step["crash"]))
            if "sleep" in step:
                time.sleep(max(0.0, min(float(step["sleep"]), ctx.time_left())))
                continue
            result = ctx.toolbox.call(step["tool"], step.get("args", {}), call_id=f"s{turns}")
            if result.done:
                break
        if ctx.time_left() <= 0:
            return AgentOutcome(status="timeout", turns=turns)
        return AgentOutcome(turns=turns)
