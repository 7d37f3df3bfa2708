"""stripebench as an Inspect AI task.

    inspect eval stripebench/stripebench --model openai/gpt-5 -T tasks=webhook-fulfillment
    inspect eval stripebench/stripebench --model mockllm/model -T category=backend --epochs 3

Each sample is one of our tasks, and its sandbox is ours: Inspect's sandbox environment
`stripebench` (`inspect_sandbox.TrialSandbox`) sets the sample's trial up per sample and
epoch (the epoch is the attempt) with the harness's own steps (`standing.open_trial`: an
emulator of its own, the trial's account with its fixtures, the hidden setup, the
services) in a bubblewrap room, and every command Inspect runs through `sandbox()` runs
in that room. The model gets our tools (bash, files, browser, docs search, submit)
through Inspect's MCP support from `stripebench mcp --config`, the same server external
agents use, attached to the same room; or (`tools=inspect`) Inspect's own `bash()` and
`python()` tools, which run through the sandbox provider, and a `submit` tool. The
scorer runs our hidden grader in the sealed grading room (`standing.grade_trial`): the
reward's total is the score, its sub-scores, the trial's status and whether it was sealed
are metadata.

Task arguments (`-T name=value`): tasks (ids, comma-separated), category, tasks_dir
(default: $STRIPEBENCH_TASKS or ./tasks), trials_dir (where trial records are kept;
default: a temporary folder), max_messages (overrides the task's turn limit), sandbox
(`bwrap`, the default, refused where bubblewrap cannot make its namespaces; `local`:
unsealed, the commands run directly on this machine and the metadata says so), tools
(`stripebench` or `inspect`).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio.to_thread
from inspect_ai import Task as InspectTask
from inspect_ai import task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, bash, mcp_server_stdio, python, tool
from inspect_ai.util import SandboxEnvironmentSpec, apply_limits, message_limit, sandbox, time_limit

from ..harness.prompt import system_prompt
from ..harness.sandbox import bwrap_available
from ..harness.task import discover, select
from ..rundir import SCORED
from .inspect_sandbox import PROVIDER, TrialSandbox, TrialSandboxConfig, bwrap_missing_message
from .standing import StandingTrial, TrialSetupError, grade_trial

# Inspect counts tokens with tiktoken, which downloads its ranks; `scripts/setup.sh` puts
# them in .cache/tiktoken (see scripts/tiktoken_offline.py) so this works offline.
_TIKTOKEN = Path(__file__).resolve().parents[3] / ".cache" / "tiktoken"
if _TIKTOKEN.is_dir():
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(_TIKTOKEN))

TOOLSETS = ("stripebench", "inspect")


@task
def stripebench(tasks: str | list[str] | None = None, category: str | None = None,
                tasks_dir: str | None = None, trials_dir: str | None = None,
                max_messages: int | None = None, sandbox: str = "bwrap",
                tools: str = "stripebench") -> InspectTask:
    """Our tasks as samples: the trial's room as their sandbox, our tools (or Inspect's),
    our grader."""
    if sandbox not in ("bwrap", "local"):
        raise ValueError(f"sandbox must be bwrap or local, not {sandbox!r}")
    if sandbox == "bwrap" and not bwrap_available():
        raise ValueError(bwrap_missing_message())
    if tools not in TOOLSETS:
        raise ValueError(f"tools must be one of {', '.join(TOOLSETS)}, not {tools!r}")
    root = Path(tasks_dir or os.environ.get("STRIPEBENCH_TASKS", "tasks"))
    ids = [t for value in ([tasks] if isinstance(tasks, str) else tasks or [])
           for t in str(value).split(",") if t]
    chosen = select(discover(root), ids or None, category)
    if not chosen:
        raise ValueError(f"no stripebench tasks under {root.resolve()}"
                         + (f" in category {category}" if category else ""))
    keep = Path(trials_dir) if trials_dir else Path(tempfile.mkdtemp(
        prefix="stripebench-inspect-"))
    room = SandboxEnvironmentSpec(PROVIDER, TrialSandboxConfig(
        sandbox="bwrap" if sandbox == "bwrap" else "local", trials_dir=str(keep.absolute())))
    samples = [Sample(id=t.id, input=t.instruction, sandbox=room,
                      metadata={"task_dir": str(t.path), "category": t.category,
                                "title": t.title, "sandbox": sandbox,
                                "sealed": sandbox == "bwrap"})
               for t in chosen]
    return InspectTask(dataset=samples, setup=trial_setup(), solver=mcp_agent(
        max_messages, tools), scorer=stripebench_grader(), name="stripebench",
        metadata={"tasks_dir": str(root.resolve()), "sandbox": sandbox, "tools": tools})


def current_trial() -> StandingTrial:
    """The running sample's trial: its sandbox environment holds it."""
    return sandbox().as_type(TrialSandbox).trial


@solver
def trial_setup() -> Solver:
    """Give the model our built-in agents' system prompt and the trial's prompt (the
    instruction plus its working directory, keys, services); the trial itself was set
    up with the sample's sandbox."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        trial = current_trial()
        state.metadata["trial_dir"] = str(trial.trial_dir)
        state.messages = [ChatMessageSystem(content=system_prompt()),
                          ChatMessageUser(content=trial.prompt)]
        return state

    return solve


@tool
def submit() -> Tool:
    async def execute(summary: str) -> str:
        """Submit your work when you are done; your work is checked after this.

        Args:
          summary: What you did, in a few sentences.
        """
        return "Submitted. Your work will be checked now."

    return execute


@solver
def mcp_agent(max_messages: int | None = None, tools: str = "stripebench") -> Solver:
    """The model with our tools over MCP (`stripebench mcp --config` for this trial,
    attached to its room) or, with `tools="inspect"`, Inspect's `bash()` and `python()`
    (run by the sample's sandbox, the same room) and `submit`, within the task's time
    limit and turn limit (a turn: one reply and its tool results). As in `stripebench
    run`, running out of turns is scored (`turn_limit`), running out of time is graded
    for information only (`agent_timeout`)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        trial = current_trial()
        limit = max_messages or 2 * trial.task.max_turns + 1
        limits = [time_limit(trial.agent_timeout), message_limit(len(state.messages) + limit)]
        if tools == "inspect":
            state.tools = [bash(), python(), submit()]
            state, scope = await _loop(state, generate, limits)
        else:
            server = mcp_server_stdio(name="stripebench", command=sys.executable,
                                      args=["-m", "stripebench.cli", "mcp", "--config",
                                            str(trial.mcp_config)])
            async with server:
                state.tools = list(await server.tools())
                state, scope = await _loop(state, generate, limits)
        if scope.limit_error is not None:
            trial.record["status"] = "agent_timeout" if scope.limit_error.source is \
                limits[0] else "turn_limit"
        return state

    return solve


async def _loop(state: TaskState, generate: Generate, limits: list[Any]
                ) -> tuple[TaskState, Any]:
    """One reply and its tool calls at a time: the agent ends when it answers without a
    tool call or calls `submit`, as our built-in loop does. Returns the state and the
    limits' scope (which limit, if any, ended it)."""
    with apply_limits(limits, catch_errors=True) as scope:
        while True:
            state = await generate(state, tool_calls="single")
            calls = state.output.message.tool_calls or []
            if not calls or any(c.function == "submit" for c in calls):
                break
    return state, scope


@scorer(metrics=[mean(), stderr()])
def stripebench_grader() -> Any:
    """Our hidden grader, in the sealed grading room: the reward's total is the score."""

    async def score(state: TaskState, target: Target) -> Score:
        try:
            trial = current_trial()
        except (ProcessLookupError, TypeError):
            return Score(value=0.0, explanation="the trial was never set up (the sample "
                         f"has no {PROVIDER} sandbox)", metadata={"status": "setup_error"})
        record = await anyio.to_thread.run_sync(grade_trial, trial)
        reward = record.get("reward")
        explanation = f"status {record['status']}" + (
            f": {record['error']}" if record.get("error") else "") + (
            "" if record["sealed"] else " (unsealed: the agent's commands ran directly on "
            "this machine)")
        # an unscored trial (timeout, grader error) counts 0, as in our reports
        value = float(reward) if reward is not None and record["status"] in SCORED else 0.0
        return Score(value=value,
                     answer=", ".join(record.get("submission", {}).get("modified", [])),
                     explanation=explanation,
                     metadata={"status": record["status"], "reward": reward,
                               "subscores": record.get("subscores", {}),
                               "subproblems": {s.name: list(s.subscores)
                                               for s in trial.task.subproblems},
                               "sealed": record["sealed"], "sandbox": trial.sandbox_kind,
                               "trial_dir": str(trial.trial_dir)})

    return score


__all__ = ["stripebench", "trial_setup", "mcp_agent", "stripebench_grader", "submit",
           "current_trial", "TrialSetupError"]
