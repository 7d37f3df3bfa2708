"""stripebench as an Inspect AI task.

    inspect eval stripebench/stripebench --model openai/gpt-5 -T tasks=webhook-fulfillment
    inspect eval stripebench/stripebench --model mockllm/model -T category=backend --epochs 3

Each sample is one of our tasks. Per sample (and epoch: the epoch is the attempt) the
trial is set up by the harness's own steps (`standing.open_trial`) in the directory of
Inspect's `local` sandbox: an emulator of its own, the trial's account with its fixtures,
the hidden setup, the services. The model gets our tools (bash, files, browser, docs
search, submit) through Inspect's MCP support from `stripebench mcp --config`, the same
server external agents use. The scorer runs our hidden grader (`standing.grade_trial`):
the reward's total is the score, its sub-scores and the trial's status are metadata.

Task arguments (`-T name=value`): tasks (ids, comma-separated), category, tasks_dir
(default: $STRIPEBENCH_TASKS or ./tasks), trials_dir (where trial records are kept;
default: a temporary folder), max_messages (overrides the task's turn limit).
"""

from __future__ import annotations

import atexit
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import anyio.to_thread
from inspect_ai import Task as InspectTask
from inspect_ai import task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import mcp_server_stdio
from inspect_ai.util import apply_limits, message_limit, sandbox, time_limit

from ..harness.emulator import Emulator
from ..harness.prompt import system_prompt
from ..harness.task import Task, discover, load_task, select
from ..rundir import SCORED
from .standing import StandingTrial, TrialSetupError, close_trial, grade_trial, open_trial

# Inspect counts tokens with tiktoken, which downloads its ranks; `scripts/setup.sh` puts
# them in .cache/tiktoken (see scripts/tiktoken_offline.py) so this works offline.
_TIKTOKEN = Path(__file__).resolve().parents[3] / ".cache" / "tiktoken"
if _TIKTOKEN.is_dir():
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(_TIKTOKEN))

# Open trials by sample run (TaskState.uuid): emulator handles and sandboxes cannot
# live in Inspect's JSON store.
_TRIALS: dict[str, StandingTrial] = {}
_LOCK = threading.Lock()


@task
def stripebench(tasks: str | list[str] | None = None, category: str | None = None,
                tasks_dir: str | None = None, trials_dir: str | None = None,
                max_messages: int | None = None) -> InspectTask:
    """Our tasks as samples: trial set-up, our MCP tools, our grader."""
    root = Path(tasks_dir or os.environ.get("STRIPEBENCH_TASKS", "tasks"))
    ids = [t for value in ([tasks] if isinstance(tasks, str) else tasks or [])
           for t in str(value).split(",") if t]
    chosen = select(discover(root), ids or None, category)
    if not chosen:
        raise ValueError(f"no stripebench tasks under {root.resolve()}"
                         + (f" in category {category}" if category else ""))
    keep = Path(trials_dir) if trials_dir else Path(tempfile.mkdtemp(
        prefix="stripebench-inspect-"))
    samples = [Sample(id=t.id, input=t.instruction, sandbox="local",
                      metadata={"task_dir": str(t.path), "category": t.category,
                                "title": t.title})
               for t in chosen]
    return InspectTask(dataset=samples, setup=trial_setup(str(keep.absolute())),
                       solver=mcp_agent(max_messages), scorer=stripebench_grader(),
                       cleanup=_cleanup, name="stripebench",
                       metadata={"tasks_dir": str(root.resolve())})


@solver
def trial_setup(trials_dir: str) -> Solver:
    """Set the sample's trial up in the local sandbox's directory and give the model
    our built-in agents' system prompt and the trial's prompt (the instruction plus its
    working directory, keys, services)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        task_def = load_task(Path(state.metadata["task_dir"]))
        workdir = Path((await sandbox().exec(["pwd"])).stdout.strip())
        trial_dir = Path(trials_dir) / task_def.id / f"{state.epoch}-{state.uuid}"
        trial = await anyio.to_thread.run_sync(_open, task_def, state.epoch, trial_dir,
                                               workdir)
        with _LOCK:
            _TRIALS[state.uuid] = trial
        state.metadata["trial_dir"] = str(trial_dir)
        state.messages = [ChatMessageSystem(content=system_prompt()),
                          ChatMessageUser(content=trial.prompt)]
        return state

    return solve


def _open(task_def: Task, attempt: int, trial_dir: Path, workdir: Path) -> StandingTrial:
    emulator = Emulator.start(data=trial_dir / "emulator")
    _EMULATORS.add(emulator)
    try:
        return open_trial(task_def, emulator, trial_dir, workdir, attempt=attempt,
                          run_id="inspect")
    except BaseException:
        _stop_emulator(emulator)
        raise


@solver
def mcp_agent(max_messages: int | None = None) -> Solver:
    """The model with our tools over MCP (`stripebench mcp --config` for this trial),
    within the task's time limit and turn limit (a turn: one reply and its tool results).
    As in `stripebench run`, running out of turns is scored (`turn_limit`), running out
    of time is graded for information only (`agent_timeout`)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        trial = _TRIALS[state.uuid]
        server = mcp_server_stdio(name="stripebench", command=sys.executable,
                                  args=["-m", "stripebench.cli", "mcp", "--config",
                                        str(trial.mcp_config)])
        limit = max_messages or 2 * trial.task.max_turns + 1
        limits = [time_limit(trial.agent_timeout), message_limit(len(state.messages) + limit)]
        async with server:
            state.tools = list(await server.tools())
            with apply_limits(limits, catch_errors=True) as scope:
                # one reply and its tool calls at a time: the agent ends when it answers
                # without a tool call or calls `submit`, as our built-in loop does
                while True:
                    state = await generate(state, tool_calls="single")
                    calls = state.output.message.tool_calls or []
                    if not calls or any(c.function == "submit" for c in calls):
                        break
        if scope.limit_error is not None:
            trial.record["status"] = "agent_timeout" if scope.limit_error.source is \
                limits[0] else "turn_limit"
        return state

    return solve


@scorer(metrics=[mean(), stderr()])
def stripebench_grader() -> Any:
    """Our hidden grader: the reward's total is the score."""

    async def score(state: TaskState, target: Target) -> Score:
        trial = _TRIALS.get(state.uuid)
        if trial is None:
            return Score(value=0.0, explanation="the trial was never set up",
                         metadata={"status": "setup_error"})
        record = await anyio.to_thread.run_sync(grade_trial, trial)
        reward = record.get("reward")
        explanation = f"status {record['status']}" + (
            f": {record['error']}" if record.get("error") else "")
        # an unscored trial (timeout, grader error) counts 0, as in our reports
        value = float(reward) if reward is not None and record["status"] in SCORED else 0.0
        return Score(value=value,
                     answer=", ".join(record.get("submission", {}).get("modified", [])),
                     explanation=explanation,
                     metadata={"status": record["status"], "reward": reward,
                               "subscores": record.get("subscores", {}),
                               "subproblems": {s.name: list(s.subscores)
                                               for s in trial.task.subproblems},
                               "trial_dir": str(trial.trial_dir)})

    return score


async def _cleanup(state: TaskState) -> None:
    with _LOCK:
        trial = _TRIALS.pop(state.uuid, None)
    if trial is not None:
        await anyio.to_thread.run_sync(_close, trial)


def _close(trial: StandingTrial) -> None:
    try:
        close_trial(trial)
    finally:
        _stop_emulator(trial.emulator)


# Each sample's emulator is a child process: stopped by cleanup, and at exit whatever
# an interrupted eval left running.
_EMULATORS: set[Emulator] = set()


def _stop_emulator(emulator: Emulator) -> None:
    _EMULATORS.discard(emulator)
    emulator.stop()


@atexit.register
def _stop_all() -> None:
    for emulator in list(_EMULATORS):
        _stop_emulator(emulator)


__all__ = ["stripebench", "trial_setup", "mcp_agent", "stripebench_grader",
           "TrialSetupError"]
