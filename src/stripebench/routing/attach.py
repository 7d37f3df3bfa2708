"""Join a running bubblewrap sandbox from another process.

An external agent's MCP server (`stripebench mcp --config TRIAL/mcp.json`) is a separate
process from the harness that holds the trial's sandbox. Making a sandbox of its own
would give its commands a different loopback network: the services the trial started
would be unreachable. Instead it enters the trial's namespaces with `nsenter`, exactly
as the owner does; it starts no holder and never tears the sandbox down — only the
processes it started itself are killed when it stops.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from ..sandbox.base import SandboxError, kill_group
from ..sandbox.cgroups import join_prefix
from .bwrap import BubblewrapSandbox, Routing


class AttachedSandbox(BubblewrapSandbox):
    def __init__(self, info: dict[str, Any]) -> None:  # noqa: D107 - nothing to start
        self.workdir = Path(info["workdir"])
        self.ns_pid = int(info["ns_pid"])
        self._ns_mnt = str(info["ns_mnt"])
        self._enter_user = bool(info["enter_user"])
        self.rundir = Path(info["rundir"])
        self.inside = self.rundir / "inside"
        self.sockets = self.inside / "sock"
        self.env = dict(info["env"])
        self.routing = Routing(info["emulator_url"]) if info.get("emulator_url") else None
        self.shared = []
        self._groups: set[int] = set()
        self._services: dict[str, subprocess.Popen[bytes]] = {}
        self._relays = None
        self._exposed: dict[int, int] = {}
        self._port_sockets: set[int] = set()
        self._forwarded: dict[int, subprocess.Popen[bytes]] = {}
        self._holder = None
        self._certs = None
        self.cgroup = None
        self._procs = [str(p) for p in info.get("cgroup_procs") or []]
        if not self.alive():
            raise SandboxError("the trial's sandbox is gone; nothing can run in it")

    def alive(self) -> bool:
        """The namespace holder still runs (same pid, same mount namespace: no reuse)."""
        try:
            return os.readlink(f"/proc/{self.ns_pid}/ns/mnt") == self._ns_mnt
        except OSError:
            return False

    def _join(self) -> list[str]:
        """The owner's cgroup: what this process starts is counted and killed with the
        sandbox."""
        return join_prefix(self._procs) if self._procs else []

    def stop(self) -> None:
        """Kill what this process started; the sandbox itself belongs to its owner."""
        for pgid in list(self._groups):
            kill_group(pgid)
        self._groups.clear()
        self._services.clear()
        if self._relays is not None:
            self._relays.stop()
            self._relays = None
