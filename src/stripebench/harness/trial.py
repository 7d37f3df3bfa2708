"""One trial: the phases (phases.py) composed around our agent loop -- set-up, the
agent's room, the agent, grading in the sealed room, teardown -- and its record.

Every outcome is a status, never a silent score (the table and what each status does to
the means: stripebench/rundir/statuses.py). The record is rundir's TrialRecord, written
last as result.json through rundir.
"""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rundir import (
    RETRYABLE,
    SCORED,
    Transcript,
    new_record,
    write_json_atomic,
    write_result,
)
from ..sandbox.disk import DiskUnavailable, WorkdirDisk, release_leftover
from ..sandbox.limits import DEFAULT_LIMITS, LIMIT_BREACHED, Limits
from . import phases
from .agents.base import Agent, AgentContext, AgentOutcome
from .emulator import Emulator, EmulatorDown
from .evidence import limits_record, note_sandbox_end
from .interventions import Interventions
from .phases import agent_env, run_setup, save_requests, setup_accounts
from .prompt import task_prompt
from .sandbox import Sandbox
from .services import route_webhooks, service_env, service_ports, start_services
from .submission import submission_changes
from .task import Task
from .tools import Toolbox
from .tools.browser import launch_options

# what other modules and tests import from here (the phases live in phases.py)
__all__ = ["RETRYABLE", "SCORED", "TrialConfig", "agent_env", "run_setup", "run_trial",
           "route_webhooks", "save_requests", "service_env", "service_ports",
           "setup_accounts", "start_services", "submission_changes", "write_json_atomic"]
AGENT_GRACE_SECONDS = 15


@dataclass
class TrialConfig:
    run_id: str
    agent_name: str
    model: str | None
    sandbox: str = "local"
    agent_timeout: float | None = None  # overrides the task's
    max_turns: int | None = None
    interventions: Interventions | None = None  # the arm's changes (run.json)
    limits: Limits = DEFAULT_LIMITS  # each sandbox's processes, memory, tmpfs; the workdir


def note_disk(record: dict[str, Any], phase: str, disk: WorkdirDisk | None) -> None:
    full = disk.full() if disk is not None else None
    limits = limits_record(record)
    if full and not any(b["limit"] == full for b in limits["breached"]):
        limits["breached"].append({"phase": phase, "limit": full})


def apply_breaches(record: dict[str, Any]) -> None:
    """A trial whose sandbox hit a limit is `limit_breached`: no reward, never retried."""
    breached = record.get("limits", {}).get("breached")
    if not breached:
        return
    if record.get("reward") is not None:
        record["notes"].append(f"the grader's reward {record['reward']} is void: a limit "
                               "was hit")
    what = "; ".join(f"{b['phase']}: {b['limit']}" for b in breached)
    record.update(status=LIMIT_BREACHED, reward=None,
                  error=f"the trial hit its limits ({what})"
                  + (f"; earlier error: {record['error']}" if record.get("error") else ""))


def _browser_launch(sandbox: Sandbox, emulator: Emulator) -> dict[str, Any] | None:
    """Chromium inside the routing, so Stripe's real host names reach the emulator."""

    try:
        return launch_options(sandbox, emulator.base)
    except Exception:  # noqa: BLE001 - routing unavailable: plain Chromium still works
        return None


def _run_agent(agent: Agent, ctx: AgentContext, timeout: float) -> AgentOutcome:
    """Run the agent in a thread; a hung agent is abandoned (its processes are killed)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["outcome"] = agent.run(ctx)
        except Exception as exc:  # noqa: BLE001 - the agent crashed: record it as such
            box["error"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"

    thread = threading.Thread(target=target, name=f"agent-{ctx.task.id}", daemon=True)
    thread.start()
    thread.join(timeout + AGENT_GRACE_SECONDS)
    if thread.is_alive():
        ctx.sandbox.stop()  # unblocks a tool call stuck in the sandbox
        thread.join(5)
        return AgentOutcome(status="timeout", error=f"the agent did not stop within "
                                                    f"{timeout:g}s")
    if "error" in box:
        return AgentOutcome(status="error", error=box["error"])
    outcome: AgentOutcome = box["outcome"]
    return outcome


def processes_in(folder: Path) -> list[int]:
    """Processes whose working directory is inside `folder` (Linux /proc)."""
    root = str(folder.resolve())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd == root or cwd.startswith(root + os.sep):
            found.append(int(entry.name))
    return found


def kill_leftovers(trial_dir: Path) -> None:
    """Services and commands of a trial whose harness was killed outlive it in a local
    sandbox (their own sessions); they all run inside the trial's directory."""
    for pid in processes_in(trial_dir):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def run_trial(task: Task, attempt: int, trial_dir: Path, agent: Agent, emulator: Emulator,
              config: TrialConfig) -> dict[str, Any]:
    """One trial, the phases (harness/phases.py) composed around our agent loop."""
    if trial_dir.exists():  # an unfinished earlier try (kill -9): start over, identically
        kill_leftovers(trial_dir)
        release_leftover(trial_dir / "workdir")
        shutil.rmtree(trial_dir)
    trial_dir.mkdir(parents=True)
    started = time.time()
    clock = time.monotonic()
    record: dict[str, Any] = {**new_record(
        task=task.id, task_version=task.version, category=task.category, attempt=attempt,
        run_id=config.run_id, agent=config.agent_name, model=config.model,
        sealed=config.sandbox != "local", started=started,
        subproblems={s.name: list(s.subscores) for s in task.subproblems})}
    generation = emulator.generation
    transcript = Transcript(trial_dir / "transcript.jsonl")
    workdir = trial_dir / "workdir"
    sandbox: Sandbox | None = None
    toolbox: Toolbox | None = None
    prepared: phases.Prepared | None = None
    requests: dict[str, int] = {}  # trial phase -> the first seq of its requests
    timings: dict[str, float] = {}
    arm = config.interventions or Interventions()
    disk: WorkdirDisk | None = None
    phase = "agent"    # whose processes write the workdir now (for a breach's record)
    limits_record(record)["applied"] = config.limits.describe()
    try:
        # ---------------------------------------------------------------- set-up
        try:  # the workdir's disk quota: a filesystem of its own
            disk = WorkdirDisk.create(workdir, config.limits)
        except DiskUnavailable as exc:
            limits_record(record)["unbounded"].append(f"workdir: no disk quota ({exc})")
        prepared = phases.prepare(task, attempt, trial_dir, workdir, emulator,
                                  config.sandbox, phases=requests, record=record)
        record["account"] = prepared.account.id
        record["ports"] = prepared.ports
        skills = arm.install_skills(workdir)
        sandbox = phases.open_room(prepared, emulator, limits=config.limits)
        agent_timeout = config.agent_timeout or task.agent_timeout
        deadline = time.monotonic() + agent_timeout
        toolbox = Toolbox(sandbox, transcript, deadline=deadline,
                          browser_launch=_browser_launch(sandbox, emulator),
                          **arm.toolbox_options())
        prompt = task_prompt(task, sandbox.workdir, prepared.env, prepared.ports) + \
            arm.prompt_note(workdir, sandbox.workdir, skills)
        (trial_dir / "prompt.md").write_text(prompt)
        mcp_config = phases.write_mcp_config(prepared, sandbox, time.time() + agent_timeout,
                                             **arm.toolbox_options())
        ctx = AgentContext(task=task, sandbox=sandbox, toolbox=toolbox, transcript=transcript,
                           prompt=prompt, deadline=deadline,
                           max_turns=config.max_turns or task.max_turns, env=prepared.env,
                           trial_dir=trial_dir, mcp_config=mcp_config)
        timings["setup_seconds"] = time.monotonic() - clock

        # ---------------------------------------------------------------- agent
        clock = time.monotonic()
        transcript.add("start", task=task.id, attempt=attempt, agent=config.agent_name,
                       model=config.model, prompt=prompt)
        outcome = _run_agent(agent, ctx, agent_timeout)
        timings["agent_seconds"] = time.monotonic() - clock
        record.update(turns=outcome.turns, input_tokens=outcome.input_tokens,
                      output_tokens=outcome.output_tokens, cost_usd=outcome.cost_usd,
                      error=outcome.error, agent_extra=outcome.extra)
        if outcome.model:  # what the agent used, when the run did not name a model
            record["model"] = record["model"] or outcome.model
            record["agent_extra"]["model_used"] = outcome.model
        record["status"] = {"completed": "completed", "turn_limit": "turn_limit",
                            "timeout": "agent_timeout", "endpoint_unreachable":
                            "endpoint_unreachable", "provider_refused": "provider_refused"
                            }.get(outcome.status, "agent_error")
        transcript.add("end", status=record["status"], error=outcome.error)
        toolbox.close()
        sandbox.stop()  # the agent's leftover processes die here, before grading
        note_sandbox_end(record, "agent", sandbox)
        note_disk(record, "agent", disk)
        sandbox = None  # stopped and noted; grading makes its own

        # ---------------------------------------------------------------- grade
        clock = time.monotonic()
        phase = "grading"
        phases.keep_submission(prepared, emulator, record, requests)
        phases.grade(prepared, emulator, record, limits=config.limits)
        note_disk(record, "grading", disk)
        timings["grader_seconds"] = time.monotonic() - clock
    except phases.TrialStop as stop:
        record["error"] = str(stop)
        if stop.status:
            record["status"] = stop.status
    except Exception as exc:  # noqa: BLE001 - a harness failure is recorded, not raised
        record["error"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"
    finally:
        clock = time.monotonic()
        if toolbox is not None:
            toolbox.close()
        if sandbox is not None:
            sandbox.stop()
            note_sandbox_end(record, "agent", sandbox)
        note_disk(record, phase, disk)
        if prepared is not None:  # every sandbox is gone: nothing can set them again
            phases.release(prepared, emulator, record, requests)
        else:
            phases.clear_privileged(workdir, record)
        if disk is not None:  # the quota's files become a plain folder at the same path
            disk.release()
        timings["teardown_seconds"] = time.monotonic() - clock
    apply_breaches(record)
    account_errors(record, emulator, generation)
    events = [line for line in (trial_dir / "transcript.jsonl").read_text().splitlines()
              if '"type": "tool_call"' in line] if (trial_dir / "transcript.jsonl").exists() \
        else []
    record["tool_calls"] = len(events)
    record.update({k: round(v, 3) for k, v in timings.items()})
    record["finished"] = time.time()
    record["wall_seconds"] = round(record["finished"] - started, 3)
    write_result(trial_dir, record)
    return record


def account_errors(record: dict[str, Any], emulator: Emulator, generation: int) -> None:
    """No trial ends scored without a reward: a trial the emulator died under is an
    `emulator_error`, one the harness could not grade a `harness_error`. Both are errors
    reports list, count 0 in the means, and `--retry-errors` redoes."""
    try:
        emulator.ensure_running()
        died = emulator.generation != generation
        why = f"the emulator died during the trial (exit codes {emulator.exit_codes}) " \
              "and was restarted"
    except EmulatorDown as exc:
        died, why = True, str(exc)
    if died:
        record["notes"].append(f"emulator error; earlier error: {record.get('error')}"[:2000])
        record.update(status="emulator_error", reward=None, subscores={}, error=why)
    elif record["status"] in SCORED and record["reward"] is None:
        record["status"] = "harness_error"
        record["error"] = "the agent finished but the trial could not be graded: " + \
            (record.get("error") or "no reward was recorded")


