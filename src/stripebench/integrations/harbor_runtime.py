"""Inside an exported Harbor task's container (see harbor_export).

    python -m stripebench.integrations.harbor_runtime start   # the image's entrypoint
    python -m stripebench.integrations.harbor_runtime grade --tests /tests \\
        --reward /logs/verifier/reward.json                  # tests/test.sh

`start` sets the trial up with the harness's own steps: the emulator (port 12111, its
data and control token in a root-only folder), the trial's account and fixtures, the
task's hidden setup, its services (as the agent's user when one is named), then writes
the agent's variables (keys, base URL, service URLs) to a file every shell sources and
marks the container ready. The container is the trial's room: Harbor runs the agent's
commands as its user, outside any namespace of ours, and they must reach the services,
so the room is a local one whose commands run as that user (a `UserSandbox`).

`grade` (Harbor's verifier, root) keeps the agent's code away from its own files (wall
6): it makes Harbor's verifier folder root's alone for the while (owner and mode given
back at the end), ends every process of the agent's user, makes the grader's folder
(/tests) root-only, then grades in the grading room as `stripebench run` does: the
services restart, and whatever the grader launches runs, as the agent's user (no
capabilities, no new privileges), the grader as root beside them with its sealed folder
under the root-only state/. Once the room is stopped and no process of the agent's user
is left, it removes whatever reward files are in the verifier folder and writes Harbor's
reward (a flat map of numbers, `reward` the total) afresh, never through a link. The
record is sealed only when an agent user is named (STRIPEBENCH_AGENT_USER).

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
import shlex
import shutil
import signal
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..harness.emulator import Emulator
from ..harness.sandbox import RunAs
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
REWARD_FILES = ("reward.json", "reward.txt")   # what Harbor reads, json first


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


def _run_as() -> RunAs | None:
    """The agent's user (STRIPEBENCH_AGENT_USER), whose commands are the agent's."""
    user = os.environ.get("STRIPEBENCH_AGENT_USER") or None
    return RunAs.named(user) if user else None


def processes_of(uid: int) -> list[int]:
    """The live processes of `uid` (a zombie, already dead, waits for its parent)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid != uid:
                    continue
                # /proc/PID/stat: "pid (comm) state ..."; comm may hold spaces
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state not in ("Z", "X"):
                found.append(int(entry.name))
    return found


def end_user_processes(run_as: RunAs, rounds: int = 50) -> int:
    """Kill every process of the agent's user, again until none is left (one that
    forked while the list was read is caught on the next round): the verifier shares
    its container, and a process left in the background (anywhere, not only in the
    workdir) must not go on acting while the grader runs or touch the reward after it.
    Returns how many were killed."""
    killed = 0
    for _ in range(rounds):
        pids = processes_of(run_as.uid)
        if not pids:
            return killed
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:
                pass
        time.sleep(0.02)
    raise SystemExit(f"stripebench: processes of {run_as.name} kept appearing; "
                     "not grading")


def seal_folder(folder: Path) -> None:
    """Make the grader's folder root's alone (Harbor uploads /tests readable to all),
    before any of the agent's code runs again: the folder itself, not a link."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        os.fchown(fd, 0, 0)
        os.fchmod(fd, 0o700)
    finally:
        os.close(fd)


@contextmanager
def locked_folder(folder: Path) -> Iterator[int]:
    """Harbor's verifier folder (/logs/verifier), root's alone (0755) while the grading
    runs the agent's code, its owner and mode given back afterwards (Harbor's side of the
    mount may need them). Yields an open handle on it. Where it cannot be changed (a
    user namespace without the right), the reward files are still removed and written
    afresh once no process of the agent's is left. If grading ends in an exception
    (say, the agent's processes could not all be killed), the folder stays root's."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    before = os.fstat(fd)
    try:
        try:
            os.fchown(fd, 0, 0)
            os.fchmod(fd, 0o755)
        except OSError:
            pass
        yield fd
        try:
            os.fchown(fd, before.st_uid, before.st_gid)
            os.fchmod(fd, stat.S_IMODE(before.st_mode))
        except OSError:
            pass
    finally:
        os.close(fd)


def clear_rewards(folder: int, names: set[str]) -> None:
    """Remove whatever reward files are in the verifier folder (a file, a link, a folder:
    never followed)."""
    for name in names:
        try:
            found = os.lstat(name, dir_fd=folder)
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(found.st_mode):
            shutil.rmtree(name, dir_fd=folder)
        else:
            os.unlink(name, dir_fd=folder)


def write_reward(folder: int, name: str, rewards: dict[str, float]) -> None:
    """The reward, written to a fresh file and renamed into place (a rename replaces a
    link planted there, never writes through it)."""
    temporary = f".{name}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644,
                 dir_fd=folder)
    with os.fdopen(fd, "w") as handle:
        handle.write(json.dumps(rewards, indent=2) + "\n")
    os.rename(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)


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
    run_as = _run_as()
    try:
        # the container is the room: its agent runs outside any namespace of ours and
        # must reach the services, so they run locally, as the agent's user
        trial = open_trial(task, emulator, state / "trial", app, copy_environment=False,
                           run_id="harbor", agent="harbor", sandbox="local", run_as=run_as,
                           fixed_ports=os.environ.get("STRIPEBENCH_SERVICE_PORTS") != "fresh")
    except TrialSetupError as exc:
        emulator.stop()
        print(f"stripebench: the trial could not be set up: {exc}", file=sys.stderr)
        return 1
    assert emulator.process is not None
    write_json_atomic(state / "trial.json", {**trial.describe(),
                                             "emulator_pid": emulator.process.pid})
    if run_as is not None:  # the setup step may have written files as root
        for path in [app, *app.rglob("*")]:
            os.chown(path, run_as.uid, run_as.gid, follow_symlinks=False)
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
    run_as = _run_as()
    with locked_folder(reward.parent) as folder:
        try:
            if run_as is not None:  # wherever they work, the agent's processes are over
                end_user_processes(run_as)
            seal_folder(tests)
            trial = reopen_trial(task, load_description(home / "state" / "trial.json"))
            try:
                record = grade_trial(trial, tests=tests)
            finally:
                close_trial(trial)
        finally:
            try:
                if run_as is not None:  # what a service of the agent's left behind
                    end_user_processes(run_as)
            finally:  # whatever is there now, whatever happened: only ours may follow
                clear_rewards(folder, {*REWARD_FILES, reward.name})
        return _report(trial.trial_dir, record, folder, reward.name)


def _report(trial_dir: Path, record: dict[str, Any], folder: int, reward_name: str) -> int:
    log = trial_dir / "grader.log"
    if log.is_file():
        print(log.read_text()[-20_000:])
    if record["status"] not in SCORED or record["reward"] is None:
        # No reward file: Harbor reports a verifier error, not a score of 0.
        print(f"stripebench: not graded ({record['status']}): {record.get('error')}",
              file=sys.stderr)
        return 1
    rewards = {name: float(value) for name, value in record["subscores"].items()}
    rewards["reward"] = float(record["reward"])
    write_reward(folder, reward_name, rewards)
    print(f"stripebench: reward {rewards['reward']:g} -> {reward_name}")
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
    # absolute, never resolved: a link the agent planted must not choose the paths
    return grade(Path(os.path.abspath(args.tests)), Path(os.path.abspath(args.reward)))


if __name__ == "__main__":
    sys.exit(main())
