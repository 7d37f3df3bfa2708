"""Inside an exported Harbor task's container (see harbor_export).

    python -m stripebench.integrations.harbor_runtime start   # the image's entrypoint
    python -m stripebench.integrations.harbor_runtime grade --tests /tests \\
        --reward /logs/verifier/reward.json                  # tests/test.sh

`start` sets the trial up with the harness's own steps: the emulator (port 12111, its
data and control token in a root-only folder), the trial's account and fixtures, the
task's hidden setup, its services (as the agent's user when one is named), then writes
the agent's variables (keys, base URL, service URLs) to a file every shell sources and
marks the container ready. `grade` kills what the agent left running in the workdir,
restarts the services and runs the hidden grader as `stripebench run` does, then writes
Harbor's reward: a flat map of numbers, `reward` being the total.

Where things are (the defaults are the container's; the tests point them elsewhere):
STRIPEBENCH_HOME (/opt/stripebench: project/tasks/<id>/ the task definition, state/ the
trial), STRIPEBENCH_TASK (the id; default: the one task there),
STRIPEBENCH_APP (/app, the workdir), STRIPEBENCH_AGENT_ENV (/etc/stripebench/agent.env),
STRIPEBENCH_EMULATOR_PORT (12111), STRIPEBENCH_AGENT_USER (unset: services run as the
caller), STRIPEBENCH_SERVICE_PORTS (`declared`; `fresh` when sharing a machine's ports).
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import shlex
import shutil
import signal
import sys
from dataclasses import replace
from pathlib import Path

from ..harness.emulator import Emulator
from ..harness.task import Task, load_task
from ..rundir import SCORED, write_json_atomic
from .standing import (
    TrialSetupError,
    close_trial,
    grade_trial,
    load_description,
    open_trial,
    reopen_trial,
)

READY_NAME = "ready"


def _home() -> Path:
    return Path(os.environ.get("STRIPEBENCH_HOME", "/opt/stripebench"))


def _task() -> Task:
    tasks = _home() / "project" / "tasks"
    chosen = os.environ.get("STRIPEBENCH_TASK")
    if chosen:
        return load_task(tasks / chosen)
    found = sorted(p for p in tasks.iterdir() if (p / "task.toml").is_file())
    if len(found) != 1:
        raise SystemExit(f"stripebench: expected one task under {tasks}, found {len(found)}")
    return load_task(found[0])


def _app() -> Path:
    return Path(os.environ.get("STRIPEBENCH_APP", "/app"))


def _agent_env_file() -> Path:
    return Path(os.environ.get("STRIPEBENCH_AGENT_ENV", "/etc/stripebench/agent.env"))


def as_user(task: Task, user: str | None) -> Task:
    """The task with each service's command run as `user` (keeping the environment,
    with that user's HOME), so the agent, working as that user, can restart them."""
    if not user:
        return task

    entry = pwd.getpwnam(user)
    prefix = (f"HOME={shlex.quote(entry.pw_dir)} setpriv --reuid={entry.pw_uid} "
              f"--regid={entry.pw_gid} --init-groups --")
    return replace(task, services=tuple(
        replace(s, command=f"{prefix} sh -c {shlex.quote(s.command)}")
        for s in task.services))


def kill_user(user: str) -> None:
    """Kill every process of the agent's user: the verifier shares its container, and
    a process left in the background (anywhere, not only in the workdir) must not go on
    acting while the grader runs or rewrite the reward after it."""

    uid = pwd.getpwnam(user).pw_uid
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            owner = entry.stat().st_uid
        except OSError:
            continue
        if owner == uid:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass


def start() -> int:
    home, app = _home(), _app()
    state = home / "state"
    state.mkdir(parents=True, exist_ok=True)
    state.chmod(0o700)  # the control token, seed snapshot and hidden setup output
    task = _task()
    # Nothing of ours may work inside the workdir: grading kills every process there.
    os.chdir(state)
    port = int(os.environ.get("STRIPEBENCH_EMULATOR_PORT", "12111"))
    emulator = Emulator.start(port=port, data=state / "emulator")
    user = os.environ.get("STRIPEBENCH_AGENT_USER") or None
    try:
        trial = open_trial(as_user(task, user), emulator, state / "trial", app,
                           copy_environment=False, run_id="harbor",
                           fixed_ports=os.environ.get("STRIPEBENCH_SERVICE_PORTS") != "fresh")
    except TrialSetupError as exc:
        emulator.stop()
        print(f"stripebench: the trial could not be set up: {exc}", file=sys.stderr)
        return 1
    assert emulator.process is not None
    write_json_atomic(state / "trial.json", {**trial.describe(),
                                             "emulator_pid": emulator.process.pid})
    if user:  # the setup step may have written files as root

        for path in [app, *app.rglob("*")]:
            shutil.chown(path, user, pwd.getpwnam(user).pw_gid)
    agent_env = _agent_env_file()
    agent_env.parent.mkdir(parents=True, exist_ok=True)
    agent_env.write_text("".join(f"export {name}={shlex.quote(value)}\n"
                                 for name, value in sorted(trial.env.items())))
    agent_env.chmod(0o644)
    (agent_env.parent / READY_NAME).write_text("ready\n")
    print(f"stripebench: {task.id} is set up (account {trial.account.id}, emulator "
          f"{emulator.base})", flush=True)
    return 0


def grade(tests: Path, reward: Path) -> int:
    home = _home()
    task = _task()
    os.chdir(home / "state")
    user = os.environ.get("STRIPEBENCH_AGENT_USER") or None
    if user:  # wherever they work, the agent's processes are over (see kill_user)
        kill_user(user)
    trial = reopen_trial(task, load_description(home / "state" / "trial.json"))
    record = grade_trial(trial, tests=tests)
    close_trial(trial)
    log = Path(record.get("trial_dir", trial.trial_dir)) / "grader.log"
    if log.is_file():
        print(log.read_text()[-20_000:])
    if record["status"] not in SCORED or record["reward"] is None:
        # No reward file: Harbor reports a verifier error, not a score of 0.
        print(f"stripebench: not graded ({record['status']}): {record.get('error')}",
              file=sys.stderr)
        return 1
    rewards = {name: float(value) for name, value in record["subscores"].items()}
    rewards["reward"] = float(record["reward"])
    reward.parent.mkdir(parents=True, exist_ok=True)
    reward.write_text(json.dumps(rewards, indent=2) + "\n")
    print(f"stripebench: reward {rewards['reward']:g} -> {reward}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stripebench.integrations.harbor_runtime")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("start", help="set the trial up (the container's entrypoint)")
    grader = commands.add_parser("grade", help="grade the trial (tests/test.sh)")
    grader.add_argument("--tests", type=Path, required=True, help="the grader's folder")
    grader.add_argument("--reward", type=Path, default=Path("/logs/verifier/reward.json"))
    args = parser.parse_args(argv)
    if args.command == "start":
        return start()
    return grade(args.tests.resolve(), args.reward.resolve())


if __name__ == "__main__":
    sys.exit(main())
