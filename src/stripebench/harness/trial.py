"""One trial: materialize, seed, start services, run the agent, grade, record, tear down.

Every outcome is a status, never a silent score (the table and what each status does to
the means: stripebench/rundir/statuses.py). The record is rundir's TrialRecord, written
last as result.json through rundir.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
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
from ..rundir.layout import REQUESTS
from ..sandbox import safe_files
from ..sandbox.disk import DiskUnavailable, WorkdirDisk, release_leftover
from ..sandbox.limits import DEFAULT_LIMITS, LIMIT_BREACHED, Limits
from . import fixtures as fixture_mod
from .agents.base import Agent, AgentContext, AgentOutcome
from .emulator import Emulator, EmulatorDown
from .evidence import limits_record, note_sandbox_end
from .grading_room import grade_submission
from .interventions import SKILLS_DIR, Interventions
from .prompt import task_prompt
from .sandbox import (
    Sandbox,
    SandboxError,
    go_module_cache,
    make_sandbox,
    maven_repository,
    npm_cache,
    wheelhouse,
)
from .services import route_webhooks, service_env, service_ports, start_services
from .task import Task
from .tools import Toolbox
from .tools.browser import launch_options

__all__ = ["RETRYABLE", "SCORED", "TrialConfig", "run_trial", "route_webhooks",
           "service_env", "service_ports", "start_services", "write_json_atomic"]
AGENT_GRACE_SECONDS = 15
# Installed packages and build output (.go: a Go task's build cache and binaries;
# target: Maven's).
SKIP_IN_DIFF = {".stripebench", "node_modules", "__pycache__", ".git", ".venv", ".deps", ".go",
                "target", SKILLS_DIR}
# The submission's file list: how much of each file is hashed (a bigger one is known by
# its size and first bytes) and how many files are listed at most.
HASH_CAP_BYTES = 8 * 1024 * 1024
DIFF_FILE_LIMIT = 20_000


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


def _new_sandbox(kind: str, workdir: Path, env: dict[str, str],
                 grader: bool = False, limits: Limits = DEFAULT_LIMITS) -> Sandbox:
    options: dict[str, Any] = {"share_package": True} if grader and kind == "bwrap" else {}
    # the trial clears set-id bits and capabilities once, at its teardown
    return make_sandbox(kind, workdir, env, limits=limits,  # type: ignore[arg-type]
                        clear_on_stop=False, **options)


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


def _file_digests(root: Path) -> dict[str, str]:
    """Regular files below root -> digest. Streams each file and reads at most
    HASH_CAP_BYTES of it; symlinks, FIFOs and devices are skipped unopened."""
    digests = {}
    for rel, dir_fd, name in safe_files.regular_files(root, SKIP_IN_DIFF, DIFF_FILE_LIMIT):
        found = safe_files.sha256_of(dir_fd, name, HASH_CAP_BYTES)
        if found is not None:
            digests[rel] = found[0]
    return digests


def submission_changes(environment: Path, workdir: Path) -> dict[str, list[str]]:
    before = _file_digests(environment) if environment.is_dir() else {}
    after = _file_digests(workdir)
    return {"added": sorted(set(after) - set(before)),
            "modified": sorted(p for p in set(after) & set(before) if after[p] != before[p]),
            "deleted": sorted(set(before) - set(after))}


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
    account = None
    phases: dict[str, int] = {}  # trial phase -> the first seq of its requests
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
        if task.environment.is_dir():
            shutil.copytree(task.environment, workdir, symlinks=True, dirs_exist_ok=True)
        else:
            workdir.mkdir(exist_ok=True)
        skills = arm.install_skills(workdir)
        account = emulator.create_account(emulator.trial_account_id(task.id, attempt),
                                          task.api_version)
        record["account"] = account.id
        phases["setup"] = 1
        emulator.route_webhooks(account.id, {})  # a trial's account reaches nothing yet
        refs = fixture_mod.seed(emulator.base, account.secret_key, task.fixtures,
                                task.api_version)
        write_json_atomic(trial_dir / "fixtures.json", refs)
        write_json_atomic(trial_dir / "stripe_seed.json", emulator.snapshot(account.id))
        ports = service_ports(task, config.sandbox)
        env = {**agent_env(account, emulator), **service_env(task, ports)}
        if task.setup_command:
            run_setup(task, workdir, env, emulator, trial_dir)
        record["ports"] = ports
        phases["agent"] = emulator.request_total(account.id) + 1  # from the services on
        sandbox = _new_sandbox(config.sandbox, workdir, env, limits=config.limits)
        try:
            start_services(sandbox, task, ports)
        except SandboxError as exc:
            record["status"] = "service_error"
            raise _Stop(str(exc)) from None
        route_webhooks(emulator, account.id, sandbox, ports)
        agent_timeout = config.agent_timeout or task.agent_timeout
        deadline = time.monotonic() + agent_timeout
        toolbox = Toolbox(sandbox, transcript, deadline=deadline,
                          browser_launch=_browser_launch(sandbox, emulator),
                          **arm.toolbox_options())
        prompt = task_prompt(task, sandbox.workdir, env, ports) + arm.prompt_note(
            workdir, sandbox.workdir, skills)
        (trial_dir / "prompt.md").write_text(prompt)
        mcp_config = trial_dir / "mcp.json"
        write_json_atomic(mcp_config, {"workdir": str(workdir), "sandbox": config.sandbox,
                                       "env": env, "transcript": str(trial_dir /
                                                                    "transcript.jsonl"),
                                       "deadline_unix": time.time() + agent_timeout,
                                       # an external agent's server joins this sandbox
                                       "attach": getattr(sandbox, "attach_info",
                                                         lambda: None)(),
                                       **arm.toolbox_options()})
        ctx = AgentContext(task=task, sandbox=sandbox, toolbox=toolbox, transcript=transcript,
                           prompt=prompt, deadline=deadline,
                           max_turns=config.max_turns or task.max_turns, env=env,
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
        write_json_atomic(trial_dir / "stripe_final.json", emulator.snapshot(account.id))
        phases["grading"] = save_requests(emulator, account.id, trial_dir, phases) + 1
        record["submission"] = submission_changes(task.environment, workdir)
        grade_submission(task, trial_dir, workdir, env=env, ports=ports,
                         sandbox_kind=config.sandbox, record=record, limits=config.limits,
                         webhooks=(emulator, account.id))
        note_disk(record, "grading", disk)
        timings["grader_seconds"] = time.monotonic() - clock
    except _Stop as stop:
        record["error"] = str(stop)
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
        if workdir.is_dir():  # every sandbox is gone: nothing can set them again
            cleared = safe_files.clear_setid_bits(workdir)
            if cleared:
                record.setdefault("tamper", {}).setdefault(
                    "privileged_files_cleared", []).extend(cleared)
        if disk is not None:  # the quota's files become a plain folder at the same path
            disk.release()
        if account is not None:  # every phase is over: the record is the whole trial's
            try:
                save_requests(emulator, account.id, trial_dir, phases)
            except Exception as exc:  # noqa: BLE001 - the emulator may be gone
                record["notes"].append(f"the request record could not be saved after the "
                                       f"trial: {exc}"[:500])
        for account_id in ([account.id] if account is not None else []) + \
                setup_accounts(trial_dir):
            try:
                emulator.delete_account(account_id)
            except Exception:  # noqa: BLE001 - the emulator may be gone at shutdown
                pass
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


class _Stop(Exception):
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
              trial_dir: Path) -> None:
    """The task's hidden set-up step: outside the sandbox, with the control plane."""
    setup_env = {**os.environ, **env, "STRIPEBENCH_WORKDIR": str(workdir),
                 "STRIPEBENCH_CONTROL_TOKEN": emulator.control_token or "",
                 # what the setup leaves here reaches the grader (never the agent)
                 "STRIPEBENCH_SETUP_OUTPUT": str(trial_dir / "setup.json"),
                 # accounts the setup creates (one id a line) are deleted at teardown
                 "STRIPEBENCH_SETUP_ACCOUNTS": str(trial_dir / SETUP_ACCOUNTS),
                 "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin')}"}
    try:
        done = subprocess.run(task.setup_command or "", shell=True, cwd=task.path,
                              env=setup_env, capture_output=True, text=True,
                              timeout=task.setup_timeout)
    except subprocess.TimeoutExpired:
        raise _Stop(f"the task's setup timed out after {task.setup_timeout:g}s") from None
    (trial_dir / "setup.log").write_text(f"$ {task.setup_command}\nexit code "
                                         f"{done.returncode}\n{done.stdout}\n{done.stderr}")
    if done.returncode != 0:
        raise _Stop(f"the task's setup failed: {done.stderr[-1500:]}")
