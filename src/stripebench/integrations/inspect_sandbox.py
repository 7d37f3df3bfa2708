"""Inspect's sandbox environment `stripebench`: the room of a standing trial.

The stripebench Inspect task's samples name it (`sandbox=("stripebench", config)`), so
whatever runs commands through Inspect's `sandbox()` -- its `bash()` and `python()`
tools, any agent or scorer of Inspect's -- runs them in the sample's trial room:

- `sample_init` opens the sample's trial (`standing.open_trial`: an emulator of its own,
  the trial's account and fixtures, the hidden setup, the services) in a room of the
  configured kind, by default a bubblewrap sandbox: the trial's workdir at its host path,
  the system read-only, loopback only with Stripe's host names routed to the emulator,
  its own pid namespace, no capabilities. `local` (unsealed) only when asked for.
- `exec`, `read_file` and `write_file` run in that very sandbox (the one its services
  run in, the one our MCP server attaches to), relative paths from the workdir; files
  travel as base64 through a command inside, so a path means what it means to the
  agent's own commands and nothing is opened on the host.
- `sample_cleanup` stops the room, deletes the trial's accounts and stops the emulator.

The scorer grades the trial in the sealed grading room (`standing.grade_trial`).
Commands run as the room's root (uid 0 without capabilities in a bubblewrap room);
another `user` is refused (SandboxUserUnsupportedError).
"""

from __future__ import annotations

import atexit
import base64
import os
import pwd
import subprocess
import tempfile
from functools import partial
from pathlib import Path
from typing import Any, Literal, overload

import anyio
import anyio.to_thread
from inspect_ai.util import (
    ExecResult,
    OutputLimitExceededError,
    SandboxEnvironment,
    SandboxEnvironmentConfigType,
    SandboxEnvironmentLimits,
    SandboxUnavailableError,
    SandboxUserUnsupportedError,
    sandboxenv,
)
from pydantic import BaseModel

from ..harness.emulator import Emulator
from ..harness.sandbox import SandboxError, bwrap_available
from ..harness.task import Task, load_task
from ..sandbox.base import collect, kill_group
from .standing import StandingTrial, close_trial, open_trial

PROVIDER = "stripebench"
FILE_TIMEOUT = 300.0   # reading or writing one file (up to Inspect's 100 MiB)


class TrialSandboxConfig(BaseModel, frozen=True):
    """The provider's configuration: the room's kind and where trials are kept."""

    sandbox: Literal["bwrap", "local"] = "bwrap"
    trials_dir: str | None = None   # default: a temporary folder per sample


def bwrap_missing_message() -> str:
    return ("bubblewrap cannot create namespaces here, so the agent's commands cannot be "
            "sealed; pass -T sandbox=local to run them unsealed on this machine "
            "(scores then are not comparable)")


def _config(config: SandboxEnvironmentConfigType | None) -> TrialSandboxConfig:
    if config is None:
        return TrialSandboxConfig()
    if isinstance(config, TrialSandboxConfig):
        return config
    raise ValueError(f"the {PROVIDER} sandbox takes a TrialSandboxConfig, not {config!r}")


def _sample_identity() -> tuple[int, str]:
    """The running sample's epoch (our attempt) and uuid, from Inspect's context."""
    try:
        # a private module of Inspect's: imported where used, so a move costs only this
        from inspect_ai.solver._task_state import sample_state
    except ImportError:  # pragma: no cover - a future Inspect moved it
        state = None
    else:
        state = sample_state()
    if state is None:
        return 1, os.urandom(6).hex()
    return state.epoch, state.uuid


@sandboxenv(name=PROVIDER)
class TrialSandbox(SandboxEnvironment):
    """One sample's trial room (see the module's docstring)."""

    def __init__(self, trial: StandingTrial) -> None:
        super().__init__()
        self.trial = trial

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def task_init(cls, task_name: str,
                        config: SandboxEnvironmentConfigType | None) -> None:
        if _config(config).sandbox == "bwrap" and not bwrap_available():
            raise RuntimeError(bwrap_missing_message())

    @classmethod
    async def sample_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                          metadata: dict[str, str]) -> dict[str, SandboxEnvironment]:
        settings = _config(config)
        task_def = load_task(Path(metadata["task_dir"]))
        epoch, uuid = _sample_identity()
        trials = Path(settings.trials_dir) if settings.trials_dir else \
            Path(tempfile.mkdtemp(prefix="stripebench-inspect-"))
        trial_dir = trials / task_def.id / f"{epoch}-{uuid}"
        trial = await anyio.to_thread.run_sync(_open, task_def, epoch, trial_dir,
                                               settings.sandbox)
        return {"default": cls(trial)}

    @classmethod
    async def sample_cleanup(cls, task_name: str,
                             config: SandboxEnvironmentConfigType | None,
                             environments: dict[str, SandboxEnvironment],
                             interrupted: bool) -> None:
        for environment in environments.values():
            if isinstance(environment, TrialSandbox):
                await anyio.to_thread.run_sync(_close, environment.trial)

    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return TrialSandboxConfig(**config)

    # ------------------------------------------------------------------ commands

    async def exec(self, cmd: list[str], input: str | bytes | None = None,
                   cwd: str | None = None, env: dict[str, str] | None = None,
                   user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> ExecResult[str]:
        """Run `cmd` in the trial's room (cwd: the workdir, or relative to it). No
        timeout given: the trial's agent time limit bounds it. A timeout kills the
        command's process group and raises TimeoutError (never retried: a command need
        not be idempotent)."""
        self._check_user(user)
        data = input.encode() if isinstance(input, str) else input
        return await self._run(list(cmd), data, cwd, env or {},
                               float(timeout) if timeout else self.trial.agent_timeout,
                               SandboxEnvironmentLimits.MAX_EXEC_OUTPUT_SIZE)

    async def _run(self, argv: list[str], data: bytes | None, cwd: str | None,
                   env: dict[str, str], timeout: float, output_limit: int
                   ) -> ExecResult[str]:
        proc = await anyio.to_thread.run_sync(self._start, argv, cwd, env, data is not None)
        try:
            result = await anyio.to_thread.run_sync(
                partial(collect, proc, timeout=timeout, input=data,
                        output_limit=output_limit), abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            kill_group(proc.pid)  # the sample was cancelled (a limit, an interrupt)
            raise
        if result.timed_out:
            raise TimeoutError(f"the command timed out after {timeout:g}s; its processes "
                               "were killed")
        return ExecResult(success=result.exit_code == 0, returncode=result.exit_code,
                          stdout=result.stdout, stderr=result.stderr)

    def _start(self, argv: list[str], cwd: str | None, env: dict[str, str],
               with_input: bool) -> subprocess.Popen[bytes]:
        room = self.trial.sandbox
        if room is None:
            raise SandboxUnavailableError("the trial's room has been stopped (it was "
                                          "graded)")
        try:
            return room.popen(argv, cwd=cwd, env=env,  # type: ignore[attr-defined]
                              stdin=subprocess.PIPE if with_input else subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except SandboxError as exc:
            raise SandboxUnavailableError(str(exc)) from None

    def _check_user(self, user: str | None) -> None:
        if user is None:
            return
        if self.trial.sandbox_kind == "bwrap":
            allowed = {"root", "0"}
        else:
            me = pwd.getpwuid(os.geteuid()).pw_name
            allowed = {me, str(os.geteuid())}
        if user not in allowed:
            raise SandboxUserUnsupportedError(
                f"the {PROVIDER} sandbox runs commands as its room's "
                f"{'root (no capabilities)' if 'root' in allowed else 'user'} only, "
                f"not as {user!r}")

    # ------------------------------------------------------------------ files

    async def write_file(self, file: str, contents: str | bytes) -> None:
        data = contents.encode() if isinstance(contents, str) else contents
        result = await self._run(["sh", "-c", _WRITE, "write", file], base64.b64encode(data),
                                 None, {}, FILE_TIMEOUT, 64 * 1024)
        if not result.success:
            _file_error(file, result)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        limit = SandboxEnvironmentLimits.MAX_READ_FILE_SIZE
        result = await self._run(["sh", "-c", _READ, "read", file, str(limit)], None, None,
                                 {}, FILE_TIMEOUT, limit * 4 // 3 + 1024)
        if result.returncode == 27:
            raise OutputLimitExceededError(SandboxEnvironmentLimits.MAX_READ_FILE_SIZE_STR,
                                           truncated_output=None)
        if not result.success:
            _file_error(file, result)
        data = base64.b64decode(result.stdout)
        return data.decode("utf-8") if text else data


# Both scripts take the path as $1 (never interpreted by a shell); their exit codes name
# what went wrong: 21 a folder, 2 missing, 13 not permitted, 27 too large.
_WRITE = """
[ -d "$1" ] && exit 21
mkdir -p -- "$(dirname -- "$1")" || exit 13
base64 -d > "$1" || exit 13
"""
_READ = """
[ -d "$1" ] && exit 21
[ -e "$1" ] || exit 2
[ -r "$1" ] || exit 13
[ "$(stat -L -c %s -- "$1")" -gt "$2" ] && exit 27
base64 -w 0 -- "$1" || exit 13
"""


def _file_error(file: str, result: ExecResult[str]) -> None:
    why = result.stderr.strip() or f"exit code {result.returncode}"
    if result.returncode == 21:
        raise IsADirectoryError(f"{file} is a directory")
    if result.returncode == 2:
        raise FileNotFoundError(f"{file} does not exist")
    if result.returncode == 13:
        raise PermissionError(f"{file}: {why}")
    raise RuntimeError(f"{file}: {why}")


# ---------------------------------------------------------------------- trials

# Each sample's emulator is a child process: stopped by sample_cleanup, and at exit
# whatever an interrupted eval (or --no-sandbox-cleanup) left running.
_EMULATORS: set[Emulator] = set()


def _open(task_def: Task, attempt: int, trial_dir: Path, kind: str) -> StandingTrial:
    emulator = Emulator.start(data=trial_dir / "emulator")
    _EMULATORS.add(emulator)
    try:
        return open_trial(task_def, emulator, trial_dir, trial_dir / "workdir",
                          attempt=attempt, run_id="inspect", agent="inspect", sandbox=kind)
    except BaseException:
        _stop_emulator(emulator)
        raise


def _close(trial: StandingTrial) -> None:
    try:
        close_trial(trial)
    finally:
        _stop_emulator(trial.emulator)


def _stop_emulator(emulator: Emulator) -> None:
    _EMULATORS.discard(emulator)
    emulator.stop()


@atexit.register
def _stop_all() -> None:
    for emulator in list(_EMULATORS):
        _stop_emulator(emulator)


__all__ = ["TrialSandbox", "TrialSandboxConfig", "PROVIDER", "bwrap_missing_message"]
