"""A trial's phases, written once: set-up, the agent's room, what is kept before
grading, grading, teardown.

Every executor and integration composes these same functions. `run_trial` (the local
runner and Ray) runs them around its own agent loop; the standing trials (Inspect's
sandbox provider, Harbor's container, see integrations/standing.py) split them at the
agent: `open_trial` is `prepare` + `open_room`, `grade_trial` is `keep_submission` +
`grade`, `close_trial` is `release`.

    prepared = prepare(task, attempt, trial_dir, workdir, emulator, kind)
    room = open_room(prepared, emulator, limits=...)      # services up, webhooks routed
    ...                                                    # the agent works in `room`
    room.stop()
    keep_submission(prepared, emulator, record, phases)    # snapshot, requests, file list
    grade(prepared, emulator, record, limits=...)          # the sealed grading room
    release(prepared, emulator, record, phases)            # set-id bits, accounts
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rundir import write_json_atomic
from ..rundir.layout import REQUESTS, SETUP_LOG
from ..sandbox import safe_files
from ..sandbox.limits import DEFAULT_LIMITS, Limits
from . import fixtures as fixture_mod
from .emulator import Account, Emulator
from .grading_room import grade_submission
from .sandbox import (
    RunAs,
    Sandbox,
    SandboxError,
    go_module_cache,
    make_sandbox,
    maven_repository,
    npm_cache,
    wheelhouse,
)
from .services import route_webhooks, service_env, service_ports, start_services
from .submission import submission_changes
from .task import Task


class TrialStop(Exception):
    """The trial cannot go on; `status` is what it ends as (the record's default is
    `setup_error`)."""

    def __init__(self, message: str, status: str | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Prepared:
    """What set-up made: the workdir, the seeded account, the variables and ports every
    process of the trial gets, and the kind of room it runs in."""

    task: Task
    attempt: int
    trial_dir: Path
    workdir: Path
    account: Account
    env: dict[str, str]
    ports: dict[str, int]
    kind: str


def agent_env(account: Any, emulator: Emulator) -> dict[str, str]:
    """What every process of a trial gets: the account's keys, the emulator, the offline
    package caches and the benchmark's python first on PATH."""
    offline = {"STRIPEBENCH_WHEELHOUSE": wheelhouse(), "STRIPEBENCH_NPM_CACHE": npm_cache(),
               "STRIPEBENCH_GOMODCACHE": go_module_cache(), "STRIPEBENCH_M2": maven_repository()}
    return {**{name: str(path) for name, path in offline.items() if path},
            "STRIPE_SECRET_KEY": account.secret_key,
            "STRIPE_PUBLISHABLE_KEY": account.publishable_key,
            "STRIPE_API_BASE": emulator.base,
            "STRIPE_BASE_URL": emulator.base,
            # The benchmark's python (stripe, flask, playwright) is the tasks' `python`.
            "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"}


SETUP_TRIES = 2  # a set-up that fails or hangs is tried once more, from scratch


class SetupFailed(TrialStop):
    """The task's set-up command failed or hung (a fresh try may go through)."""


def prepare(task: Task, attempt: int, trial_dir: Path, workdir: Path, emulator: Emulator,
            kind: str, *, copy_environment: bool = True, fixed_ports: bool = False,
            phases: dict[str, int] | None = None,
            record: dict[str, Any] | None = None) -> Prepared:
    """Set-up: the environment copied into the workdir, the trial's account created
    (reaching no webhook yet) and seeded, its snapshot kept, the task's hidden set-up
    run. On failure the accounts made are deleted and TrialStop says why. `phases`
    (name -> first request seq) gets `setup` and `agent`.

    A set-up command that fails or hangs past its timeout is tried once more, from
    scratch, once the first try's processes are killed and its accounts (the trial's
    and those the set-up listed) deleted: `record` (its `setup_retries` and `notes`)
    says so, and setup.log in the trial folder keeps what every try printed."""
    for number in range(1, SETUP_TRIES + 1):
        if copy_environment and task.environment.is_dir():
            shutil.copytree(task.environment, workdir, symlinks=True, dirs_exist_ok=True)
        workdir.mkdir(parents=True, exist_ok=True)
        try:
            return _prepare_once(task, attempt, trial_dir, workdir, emulator, kind,
                                 fixed_ports=fixed_ports, phases=phases,
                                 try_number=number)
        except SetupFailed as failed:
            if number == SETUP_TRIES:
                if number > 1:
                    raise SetupFailed(f"{failed} (on its retry too; setup.log has both "
                                      "tries)") from None
                raise
            if record is not None:
                record["setup_retries"] = record.get("setup_retries", 0) + 1
                record.setdefault("notes", []).append(
                    f"set-up retried: try {number}: {failed}; its processes were killed and "
                    f"its accounts deleted before try {number + 1} (setup.log keeps both)"
                    [:1500])
            for leftover in (SETUP_ACCOUNTS, "setup.json"):
                (trial_dir / leftover).unlink(missing_ok=True)
            if copy_environment and task.environment.is_dir():
                _empty(workdir)  # the next try starts from the environment again
    raise AssertionError("unreachable")  # pragma: no cover


def _empty(folder: Path) -> None:
    """Remove what is in `folder`, keeping the folder (it may be a mount: the quota)."""
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def _prepare_once(task: Task, attempt: int, trial_dir: Path, workdir: Path,
                  emulator: Emulator, kind: str, *, fixed_ports: bool,
                  phases: dict[str, int] | None, try_number: int) -> Prepared:
    account = emulator.create_account(emulator.trial_account_id(task.id, attempt),
                                      task.api_version)
    try:
        if phases is not None:
            phases["setup"] = 1
        emulator.route_webhooks(account.id, {})  # nothing reachable until the services run
        try:
            refs = fixture_mod.seed(emulator.base, account.secret_key, task.fixtures,
                                    task.api_version)
        except Exception as exc:  # noqa: BLE001 - a failing fixture names its call
            raise TrialStop(f"seeding the fixtures failed: {exc}") from None
        write_json_atomic(trial_dir / "fixtures.json", refs)
        write_json_atomic(trial_dir / "stripe_seed.json", emulator.snapshot(account.id))
        ports = service_ports(task, "fixed" if fixed_ports else kind)
        env = {**agent_env(account, emulator), **service_env(task, ports)}
        if task.setup_command:
            run_setup(task, workdir, env, emulator, trial_dir, try_number=try_number)
        if phases is not None:
            phases["agent"] = emulator.request_total(account.id) + 1  # the services on
    except BaseException:
        delete_accounts(emulator, [account.id, *setup_accounts(trial_dir)])
        raise
    return Prepared(task, attempt, trial_dir, workdir, account, env, ports, kind)


def open_room(prepared: Prepared, emulator: Emulator, *, limits: Limits = DEFAULT_LIMITS,
              run_as: RunAs | None = None) -> Sandbox:
    """The agent's room: a sandbox of the trial's kind over the workdir, the task's
    services started in it and the account's webhooks routed to them. A service that
    does not come up: the room is stopped and TrialStop(status service_error)."""
    options: dict[str, Any] = {"run_as": run_as} if run_as is not None else {}
    # the trial clears set-id bits and capabilities once, at release
    room = make_sandbox(prepared.kind, prepared.workdir, prepared.env,  # type: ignore[arg-type]
                        limits=limits, clear_on_stop=False, **options)
    try:
        start_services(room, prepared.task, prepared.ports)
        route_webhooks(emulator, prepared.account.id, room, prepared.ports)
    except SandboxError as exc:
        room.stop()
        raise TrialStop(str(exc), status="service_error") from None
    except BaseException:
        room.stop()
        raise
    return room


def write_mcp_config(prepared: Prepared, room: Sandbox, deadline_unix: float,
                     **extra: Any) -> Path:
    """mcp.json: what an MCP server (an external agent's, Inspect's tools) needs to join
    this very room."""
    path = prepared.trial_dir / "mcp.json"
    write_json_atomic(path, {"workdir": str(prepared.workdir), "sandbox": prepared.kind,
                             "env": prepared.env,
                             "transcript": str(prepared.trial_dir / "transcript.jsonl"),
                             "deadline_unix": deadline_unix,
                             "attach": getattr(room, "attach_info", lambda: None)(),
                             **extra})
    return path


def keep_submission(prepared: Prepared, emulator: Emulator, record: dict[str, Any],
                    phases: dict[str, int]) -> None:
    """After the agent, before grading: the account's final snapshot, its request record
    so far, and the files the agent changed. `phases` gets `grading`."""
    trial_dir, account = prepared.trial_dir, prepared.account
    write_json_atomic(trial_dir / "stripe_final.json", emulator.snapshot(account.id))
    phases["grading"] = save_requests(emulator, account.id, trial_dir, phases) + 1
    record["submission"] = submission_changes(prepared.task.environment, prepared.workdir)


def grade(prepared: Prepared, emulator: Emulator, record: dict[str, Any], *,
          limits: Limits = DEFAULT_LIMITS, run_as: RunAs | None = None,
          tests_task: Task | None = None) -> None:
    """The sealed grading room over the workdir (grading_room.grade_submission).
    `tests_task`: the task whose tests/ grade it, when not the trial's own (Harbor)."""
    grade_submission(tests_task or prepared.task, prepared.trial_dir, prepared.workdir,
                     env=prepared.env, ports=prepared.ports, sandbox_kind=prepared.kind,
                     record=record, limits=limits,
                     webhooks=(emulator, prepared.account.id), run_as=run_as)


def release(prepared: Prepared, emulator: Emulator, record: dict[str, Any],
            phases: dict[str, int] | None = None) -> None:
    """Teardown, once nothing of the trial runs: set-id bits and file capabilities off
    the workdir (recorded as tamper evidence), the request record kept whole (with
    `phases`), the account and those the set-up made deleted."""
    clear_privileged(prepared.workdir, record)
    if phases is not None:
        try:
            save_requests(emulator, prepared.account.id, prepared.trial_dir, phases)
        except Exception as exc:  # noqa: BLE001 - the emulator may be gone
            record["notes"].append(f"the request record could not be saved after the "
                                   f"trial: {exc}"[:500])
    delete_accounts(emulator, [prepared.account.id, *setup_accounts(prepared.trial_dir)])


def clear_privileged(workdir: Path, record: dict[str, Any]) -> None:
    if workdir.is_dir():
        cleared = safe_files.clear_setid_bits(workdir)
        if cleared:
            record.setdefault("tamper", {}).setdefault(
                "privileged_files_cleared", []).extend(cleared)


def delete_accounts(emulator: Emulator, account_ids: list[str]) -> None:
    for account_id in account_ids:
        try:
            emulator.delete_account(account_id)
        except Exception:  # noqa: BLE001 - the emulator may be gone at shutdown
            pass


def save_requests(emulator: Emulator, account_id: str, trial_dir: Path,
                  phases: dict[str, int]) -> int:
    """emulator_requests.json: the account's whole request record (its counters, every
    entry it holds, and what it dropped if its budget ran out: `complete` says whether
    it holds every request), with each trial phase's requests as a seq range
    (`phases`: name -> first seq, in order; an empty phase has last_seq < first_seq).
    Returns how many requests the record has counted."""
    found = emulator.requests(account_id)
    total = int(found["total"])
    starts = list(phases.items())
    ranges = {name: {"first_seq": first,
                     "last_seq": starts[n + 1][1] - 1 if n + 1 < len(starts) else total}
              for n, (name, first) in enumerate(starts)}
    entries = found.pop("data")
    write_json_atomic(trial_dir / REQUESTS, {**found, "phases": ranges, "data": entries})
    return total


SETUP_ACCOUNTS = "setup_accounts.txt"


def setup_accounts(trial_dir: Path) -> list[str]:
    """Extra emulator accounts the task's setup made (say, a hidden account holding
    the gym's sessions): listed by the setup, one id a line, so teardown removes them."""
    try:
        lines = (trial_dir / SETUP_ACCOUNTS).read_text().split()
    except OSError:
        return []
    return [line for line in lines if line.startswith("acct_")]


def run_setup(task: Task, workdir: Path, env: dict[str, str], emulator: Emulator,
              trial_dir: Path, *, try_number: int = 1) -> None:
    """The task's hidden set-up step: outside the sandbox, with the control plane, in a
    session of its own. What it prints goes to setup.log in the trial folder as it comes
    (a hung set-up keeps what it printed); one that fails or outlives its timeout has
    its whole process group killed and raises SetupFailed."""
    setup_env = {**os.environ, **env, "STRIPEBENCH_WORKDIR": str(workdir),
                 "STRIPEBENCH_CONTROL_TOKEN": emulator.control_token or "",
                 # what the setup leaves here reaches the grader (never the agent)
                 "STRIPEBENCH_SETUP_OUTPUT": str(trial_dir / "setup.json"),
                 # accounts the setup creates (one id a line) are deleted at teardown
                 "STRIPEBENCH_SETUP_ACCOUNTS": str(trial_dir / SETUP_ACCOUNTS),
                 "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin')}"}
    log_path = trial_dir / SETUP_LOG
    with log_path.open("a", encoding="utf-8") as log:
        log.write(f"--- try {try_number} ---\n" if try_number > 1 else "")
        log.write(f"$ {task.setup_command}\n")
        log.flush()
        process = subprocess.Popen(task.setup_command or "", shell=True, cwd=task.path,
                                   env=setup_env, stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code: int | None = process.wait(timeout=task.setup_timeout)
        except subprocess.TimeoutExpired:
            code = None
        except BaseException:
            kill_group(process)
            raise
        if code != 0:  # what it started dies with it
            kill_group(process)
        log.write(f"\nexit code {code}\n" if code is not None else
                  f"\ntimed out after {task.setup_timeout:g}s: killed\n")
    if code is None:
        raise SetupFailed(f"the task's setup timed out after {task.setup_timeout:g}s")
    if code != 0:
        tail = log_path.read_text(errors="replace")[-1500:]
        raise SetupFailed(f"the task's setup failed (exit code {code}): {tail}")


def kill_group(process: subprocess.Popen[Any]) -> None:
    """SIGKILL the process's whole session (it leads its own group) and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    process.wait()
