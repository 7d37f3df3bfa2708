"""The local sandbox: commands in a plain directory on this machine (fast, no isolation:
for tests and machines without namespaces). Scores from it are not comparable.

`UserSandbox` is a local sandbox whose commands run as another user (a container's
agent user, whose room is the container): not root, no capabilities, no new privileges.
What that user cannot read or write, the commands cannot either; the harness and the
grader stay root beside them.
"""

from __future__ import annotations

import os
import pwd
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import safe_files
from .base import (
    ExecResult,
    WorkdirFiles,
    as_unprivileged,
    check_timeout,
    collect,
    end_processes,
    open_service_log,
    port_open,
    shell_argv,
    url_ok,
    wait_until_ready,
)
from .cgroups import Cgroup, CgroupUnavailable
from .limits import DEFAULT_LIMITS, Limits

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)


class LocalSandbox(WorkdirFiles):
    """Commands run directly in `workdir` on this machine. No isolation at all, but the
    same process and memory limits as a bubblewrap sandbox where a cgroup can be made."""

    run_as: RunAs | None = None   # a UserSandbox's user; None: the harness's own

    def __init__(self, workdir: Path | str, env: dict[str, str] | None = None, *,
                 limits: Limits = DEFAULT_LIMITS, clear_on_stop: bool = True) -> None:
        self.workdir = Path(workdir).resolve()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.env = dict(env or {})
        self._groups: set[int] = set()
        self._services: dict[str, subprocess.Popen[bytes]] = {}
        self.limits = limits
        self.unbounded: str | None = None
        self.breaches: list[str] = []
        self.cleared: list[str] = []
        self.killed_at_stop = 0
        self.clear_on_stop = clear_on_stop
        self.cgroup: Cgroup | None = None
        try:
            self.cgroup = Cgroup.create(limits)
        except CgroupUnavailable as exc:
            self.unbounded = str(exc)

    def join_argv(self) -> list[str]:
        """The prefix that puts a command into this sandbox's cgroup (if it has one)."""
        return self.cgroup.join_argv() if self.cgroup is not None else []

    # processes ------------------------------------------------------------
    def full_env(self, extra: dict[str, str] | None) -> dict[str, str]:
        # No isolation here, but at least the harness's own credentials (model API keys,
        # control-plane token) are not handed to the agent's commands.
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("STRIPEBENCH_") and not _SECRET_NAME.search(k)}
        env.update(self.env)
        env.update(extra or {})
        return env

    def command_argv(self, argv: Sequence[str]) -> list[str]:
        """argv as the sandbox runs its commands (in its cgroup)."""
        return [*self.join_argv(), *argv]

    def command_env(self, extra: dict[str, str] | None) -> dict[str, str]:
        return self.full_env(extra)

    def exec(self, command: str | list[str], *, timeout: float = 120,
             output_limit: int = 100_000, env: dict[str, str] | None = None,
             cwd: str | None = None) -> ExecResult:
        where = self.resolve(cwd) if cwd else self.workdir
        check_timeout(timeout)
        proc = self.popen(shell_argv(command), env=env, cwd=str(where),
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
        return collect(proc, timeout=timeout, output_limit=output_limit)

    def popen(self, argv: Sequence[str], *, cwd: str | None = None,
              env: dict[str, str] | None = None, **kwargs: Any) -> subprocess.Popen[bytes]:
        """Start a command of the sandbox without waiting (the caller owns its pipes), in
        a process group of its own that stop() kills. `cwd`: relative to the workdir."""
        where = self.workdir / cwd if cwd else self.workdir
        proc = subprocess.Popen(self.command_argv(argv), env=self.command_env(env), cwd=where,
                                start_new_session=True, **kwargs)
        self._groups.add(proc.pid)
        return proc

    def start_service(self, name: str, command: str, *, ready_url: str | None = None,
                      ready_port: int | None = None, timeout: float = 60,
                      hide: Sequence[str] = (), unprivileged: bool = False) -> None:
        # `hide` cannot be honoured without namespaces: a local sandbox isolates nothing.
        # `unprivileged`: not root, in a user namespace of its own (as_unprivileged); a
        # UserSandbox's commands are not root anyway.
        argv = shell_argv(command)
        if unprivileged and os.geteuid() == 0 and self.run_as is None:
            argv = [*as_unprivileged(), *argv]
        log = open_service_log(self.workdir, name)
        try:
            proc = self.popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                              stderr=subprocess.STDOUT)
        finally:
            os.close(log)
        self._services[name] = proc
        probe = _probe_for(ready_url, ready_port)
        if probe is not None:
            wait_until_ready(probe, name=name, timeout=timeout, proc=proc, workdir=self.workdir)

    def expose_port(self, port: int) -> int:
        """The host port where the sandbox's `port` is reachable (here: the same one)."""
        return port

    def service_address(self, port: int) -> str:
        return "direct"  # the sandbox's loopback is the host's

    def stop(self) -> None:
        """Kill what runs (the cgroup as a unit, then each process group), note the limits
        hit (`breaches`) and clear set-id bits and file capabilities in the workdir
        (`cleared`)."""
        if self.cgroup is not None:
            self.breaches = self.cgroup.breaches()
            self.killed_at_stop += self.cgroup.kill()
        end_processes(self._groups, self._services)
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.clear_on_stop and self.workdir.is_dir():
            self.cleared += safe_files.clear_setid_bits(self.workdir)

    def __enter__(self) -> LocalSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass(frozen=True)
class RunAs:
    """The user a UserSandbox runs its commands as."""

    name: str
    uid: int
    gid: int
    home: str

    @classmethod
    def named(cls, name: str) -> RunAs:
        entry = pwd.getpwnam(name)  # KeyError: no such user
        return cls(name, entry.pw_uid, entry.pw_gid, entry.pw_dir)

    def prefix(self) -> list[str]:
        """Become the user (real, effective and saved ids, its groups) before exec: root's
        capabilities go with the uid, and no set-id file or file capability can bring
        any back (no_new_privs)."""
        return ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--init-groups",
                "--no-new-privs", "--"]

    def env(self) -> dict[str, str]:
        return {"HOME": self.home, "USER": self.name, "LOGNAME": self.name}


class UserSandbox(LocalSandbox):
    """A local sandbox whose commands, services and launched programs run as `run_as`
    (see the module's docstring). Processes the harness runs itself through `join_argv()`
    (the grader) stay the harness's user."""

    def __init__(self, workdir: Path | str, env: dict[str, str] | None = None, *,
                 run_as: RunAs, limits: Limits = DEFAULT_LIMITS,
                 clear_on_stop: bool = True) -> None:
        if os.geteuid() != 0:
            raise PermissionError("only root can run the sandbox's commands as another user")
        self.run_as: RunAs = run_as
        super().__init__(workdir, env, limits=limits, clear_on_stop=clear_on_stop)

    def command_argv(self, argv: Sequence[str]) -> list[str]:
        return [*self.join_argv(), *self.run_as.prefix(), *argv]

    def command_env(self, extra: dict[str, str] | None) -> dict[str, str]:
        # the user's HOME for its commands only: what the harness runs as root (the
        # grader) must never read the agent's dotfiles
        return {**self.full_env(extra), **self.run_as.env()}

    def enter_argv(self, argv: Sequence[str], cwd: str | None = None,
                   hide: Sequence[str] = (), **_: Any) -> list[str]:
        """argv that runs `argv` as the user in `cwd` (the grading room's launcher runs
        the agent's code with it). `hide` has no namespace to be honoured in: what the
        user must not reach is the harness's by its permissions (root-only folders)."""
        where = cwd or str(self.workdir)
        assignments = [f"{k}={v}" for k, v in self.run_as.env().items()]
        return self.command_argv(["env", "-C", where, *assignments, *argv])


def _probe_for(ready_url: str | None, ready_port: int | None) -> Any:
    if ready_url:
        return lambda: url_ok(ready_url)
    if ready_port:
        return lambda: port_open("127.0.0.1", ready_port)
    return None
