"""The local sandbox: commands in a plain directory on this machine (fast, no isolation:
for tests and machines without namespaces). Scores from it are not comparable."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import safe_files
from .base import (
    ExecResult,
    WorkdirFiles,
    as_unprivileged,
    end_processes,
    open_service_log,
    port_open,
    run_captured,
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

    def exec(self, command: str | list[str], *, timeout: float = 120,
             output_limit: int = 100_000, env: dict[str, str] | None = None,
             cwd: str | None = None) -> ExecResult:
        where = self.resolve(cwd) if cwd else self.workdir
        return run_captured([*self.join_argv(), *shell_argv(command)], env=self.full_env(env),
                            cwd=where,
                            timeout=timeout, output_limit=output_limit,
                            on_start=self._groups.add)

    def start_service(self, name: str, command: str, *, ready_url: str | None = None,
                      ready_port: int | None = None, timeout: float = 60,
                      hide: Sequence[str] = (), unprivileged: bool = False) -> None:
        # `hide` cannot be honoured without namespaces: a local sandbox isolates nothing.
        # `unprivileged`: not root, in a user namespace of its own (as_unprivileged).
        argv = shell_argv(command)
        if unprivileged and os.geteuid() == 0:
            argv = [*as_unprivileged(), *argv]
        log = open_service_log(self.workdir, name)
        try:
            proc = subprocess.Popen([*self.join_argv(), *argv], stdin=subprocess.DEVNULL,
                                    stdout=log,
                                    stderr=subprocess.STDOUT, env=self.full_env(None),
                                    cwd=self.workdir, start_new_session=True)
        finally:
            os.close(log)
        self._groups.add(proc.pid)
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


def _probe_for(ready_url: str | None, ready_port: int | None) -> Any:
    if ready_url:
        return lambda: url_ok(ready_url)
    if ready_port:
        return lambda: port_open("127.0.0.1", ready_port)
    return None
