"""A trial that stands open while another framework runs the agent.

`stripebench run` owns its agent loop (`harness.trial.run_trial`). Inspect and Harbor
bring their own, so the trial's phases (harness/phases.py, the same functions run_trial
composes) are split at the agent: `open_trial` is set-up and the agent's room (workdir,
account, fixtures, the hidden setup, services, webhook routes, prompt and mcp.json),
`grade_trial` keeps the submission and grades it in the sealed room, `close_trial`
releases what is left.

The trial's room is a sandbox kind as `stripebench run --sandbox` takes it: `auto`
(bubblewrap wherever it can create namespaces), `bwrap` or `local`. The agent's commands
(Inspect's sandbox provider, our MCP server, which attaches to it) and the services run
in it, and the grading room is of the same kind. A local room may run the agent's code as
another user (`run_as`: a container's agent user, Harbor's), the grader staying root.
The record says whether the trial was `sealed`: the agent's code could not reach what
the grader reads (a bubblewrap room, or a user of its own); a plain local room is not.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..harness import phases
from ..harness.emulator import Account, Emulator
from ..harness.prompt import task_prompt
from ..harness.sandbox import RunAs, Sandbox, choose_kind
from ..harness.task import Task
from ..harness.trial import (
    apply_breaches,
    note_sandbox_end,
    processes_in,
)
from ..rundir import SCORED, new_record, write_result


class TrialSetupError(RuntimeError):
    """The trial could not be set up (fixtures, setup step or services failed)."""


@dataclass
class StandingTrial:
    task: Task
    attempt: int
    trial_dir: Path
    workdir: Path
    emulator: Emulator
    account: Account
    env: dict[str, str]
    ports: dict[str, int]
    prompt: str
    mcp_config: Path
    agent_timeout: float
    sandbox: Sandbox | None = None
    record: dict[str, Any] = field(default_factory=dict)
    sandbox_kind: str = "local"          # bwrap | local: the agent's room and the grader's
    run_as: RunAs | None = None          # a local room's user for the agent's code
    requests: dict[str, int] = field(default_factory=dict)  # phase -> its first request

    def prepared(self) -> phases.Prepared:
        """The set-up's result, as the phases take it."""
        return phases.Prepared(self.task, self.attempt, self.trial_dir, self.workdir,
                               self.account, self.env, self.ports, self.sandbox_kind)

    @property
    def sealed(self) -> bool:
        return is_sealed(self.sandbox_kind, self.run_as)

    def describe(self) -> dict[str, Any]:
        """What a later process needs to grade this trial (Harbor's test.sh)."""
        return {"task": self.task.id, "attempt": self.attempt,
                "trial_dir": str(self.trial_dir), "workdir": str(self.workdir),
                "emulator": self.emulator.base, "control_token": self.emulator.control_token,
                "account": self.account.__dict__, "env": self.env, "ports": self.ports,
                "agent_timeout": self.agent_timeout, "sandbox": self.sandbox_kind,
                "run_as": self.run_as.name if self.run_as else None,
                "run_id": self.record.get("run_id", "standing"),
                "agent": self.record.get("agent", "standing")}


def is_sealed(kind: str, run_as: RunAs | None) -> bool:
    """The agent's code could not reach what the grader reads: it ran in a bubblewrap
    room, or as a user of its own beside a root grader whose files are root-only."""
    return kind == "bwrap" or run_as is not None


def trial_record(task: Task, attempt: int, *, run_id: str, agent: str, sealed: bool,
                 account: str) -> dict[str, Any]:
    """The standing trial's record: rundir's TrialRecord, `completed` until the agent's
    framework or the grading says otherwise."""
    record: dict[str, Any] = {**new_record(
        task=task.id, task_version=task.version, category=task.category, attempt=attempt,
        run_id=run_id, agent=agent, model=None, sealed=sealed, status="completed",
        started=time.time(), subproblems={s.name: list(s.subscores)
                                          for s in task.subproblems})}
    record["account"] = account
    if not sealed:
        record["notes"].append("unsealed: the agent's commands ran in a local sandbox, "
                               "where they could reach what the grader reads")
    return record


def open_trial(task: Task, emulator: Emulator, trial_dir: Path, workdir: Path, *,
               attempt: int = 1, fixed_ports: bool = False, copy_environment: bool = True,
               run_id: str = "standing", agent: str = "standing", sandbox: str = "auto",
               run_as: RunAs | None = None) -> StandingTrial:
    """Set the trial up as `run_trial` does, up to the agent. `sandbox`: auto, bwrap or
    local (the room of the agent's commands, the services and the grading). `run_as`: a
    local room's commands run as that user. `fixed_ports`: the services keep their
    declared ports (a container of their own) instead of fresh ones. Raises
    TrialSetupError naming what failed."""
    kind = choose_kind(sandbox)
    if kind == "bwrap" and run_as is not None:
        raise ValueError("run_as is for a local room; a bubblewrap room has its own walls")
    trial_dir.mkdir(parents=True, exist_ok=True)
    requests: dict[str, int] = {}
    setup: dict[str, Any] = {"notes": [], "setup_retries": 0}  # a retried set-up says so
    try:
        prepared = phases.prepare(task, attempt, trial_dir, workdir, emulator, kind,
                                  copy_environment=copy_environment, fixed_ports=fixed_ports,
                                  phases=requests, record=setup)
    except phases.TrialStop as exc:
        raise TrialSetupError(str(exc)) from None
    try:
        room = phases.open_room(prepared, emulator, run_as=run_as)
    except Exception as exc:  # noqa: BLE001 - TrialStop: which service, its log
        phases.release(prepared, emulator, {"notes": []})
        what = str(exc) if isinstance(exc, phases.TrialStop) else \
            f"the trial's {kind} room could not be made: {exc}"
        raise TrialSetupError(f"the task's services did not start: {what}") from None
    prompt = task_prompt(task, room.workdir, prepared.env, prepared.ports)
    (trial_dir / "prompt.md").write_text(prompt)
    mcp_config = phases.write_mcp_config(prepared, room, time.time() + task.agent_timeout)
    record = trial_record(task, attempt, run_id=run_id, agent=agent,
                          sealed=is_sealed(kind, run_as), account=prepared.account.id)
    record["ports"] = prepared.ports
    record["setup_retries"] = setup["setup_retries"]
    record["notes"].extend(setup["notes"])
    return StandingTrial(task, attempt, trial_dir, room.workdir, emulator, prepared.account,
                         prepared.env, prepared.ports, prompt, mcp_config, task.agent_timeout,
                         room, record, sandbox_kind=kind, run_as=run_as, requests=requests)


def grade_trial(trial: StandingTrial, tests: Path | None = None) -> dict[str, Any]:
    """Grade the agent's work as `run_trial` does after the agent: every process it
    left in the workdir dies, the final snapshot and request log are saved, then the
    services restart and the hidden grader runs. `tests`: the grader's folder when it
    is not the task's own tests/ (Harbor uploads it to /tests at verification).
    Returns the record: status, reward, subscores, error."""
    record = trial.record
    if trial.sandbox is not None:
        trial.sandbox.stop()
        note_sandbox_end(record, "agent", trial.sandbox)
        trial.sandbox = None  # nothing of the agent's runs in it any more
    kill_processes_in(trial.workdir)  # services the agent restarted itself
    try:
        tests_task = None if tests is None else _with_tests(trial.task, tests, trial.trial_dir)
        prepared = trial.prepared()
        phases.keep_submission(prepared, trial.emulator, record, trial.requests)
        phases.grade(prepared, trial.emulator, record, run_as=trial.run_as,
                     tests_task=tests_task)
    except Exception as exc:  # noqa: BLE001 - recorded (harness_error), as run_trial does
        record["reward"] = None
        record["error"] = f"the trial could not be graded: {type(exc).__name__}: {exc}"
    phases.clear_privileged(trial.workdir, record)
    apply_breaches(record)
    if record["status"] in SCORED and record["reward"] is None:
        record["status"] = "harness_error"
        record["error"] = record.get("error") or "no reward was recorded"
    record["sealed"] = trial.sealed
    record["finished"] = time.time()
    write_result(trial.trial_dir, record)
    return record


def close_trial(trial: StandingTrial) -> None:
    """Stop the services and delete the trial's accounts (and any its setup made)."""
    if trial.sandbox is not None:
        trial.sandbox.stop()
    kill_processes_in(trial.workdir)
    phases.release(trial.prepared(), trial.emulator, trial.record,
                   trial.requests if trial.requests else None)


def kill_processes_in(workdir: Path) -> None:
    """Kill every process working inside `workdir` (what the agent left running), but
    never this process or those it runs under: in a container the framework's own
    shell that started the grader may well work there too."""
    spared = _ancestors()
    for pid in processes_in(workdir):
        if pid not in spared:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _ancestors() -> set[int]:
    found, pid = {1}, os.getpid()
    while pid > 1 and pid not in found:
        found.add(pid)
        try:  # /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return found


def reopen_trial(task: Task, description: dict[str, Any]) -> StandingTrial:
    """The trial `describe()` wrote down, from another process (Harbor's test.sh)."""
    emulator = Emulator(description["emulator"], description.get("control_token"))
    trial_dir = Path(description["trial_dir"])
    kind = description.get("sandbox") or "local"
    run_as = RunAs.named(description["run_as"]) if description.get("run_as") else None
    attempt = int(description["attempt"])
    record = trial_record(task, attempt, run_id=description.get("run_id", "standing"),
                          agent=description.get("agent", "standing"),
                          sealed=is_sealed(kind, run_as),
                          account=description["account"]["id"])
    return StandingTrial(task, attempt, trial_dir,
                         Path(description["workdir"]), emulator,
                         Account(**description["account"]), dict(description["env"]),
                         {k: int(v) for k, v in description["ports"].items()},
                         prompt="", mcp_config=trial_dir / "mcp.json",
                         agent_timeout=float(description["agent_timeout"]),
                         record=record, sandbox_kind=kind, run_as=run_as)


def _with_tests(task: Task, tests: Path, trial_dir: Path) -> Task:
    """The task with its grader taken from `tests` (copied next to the trial)."""

    holder = trial_dir / "grader-task"
    if holder.exists():
        shutil.rmtree(holder)
    shutil.copytree(tests, holder / "tests")
    return replace(task, path=holder)


def load_description(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data
