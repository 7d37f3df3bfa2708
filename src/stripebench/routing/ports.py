"""Ports across a bubblewrap sandbox's wall, carried through unix sockets.

A sandbox's network namespace has only loopback. What crosses its wall goes through
unix sockets in the sandbox's own socket folder (`<rundir>/inside/sock` on the host,
bound at /run/stripebench/sock inside that sandbox and in no other), each carried by a
relay (`relay.py` inside, a `RelayThread` on the host):

- in: `port_socket(port)` is a host socket reaching 127.0.0.1:port inside (a relay
  inside listens on it); `expose_port(port)` a host TCP port reaching the same;
  `service_address(port)` the socket as the emulator's webhook route;
- out: `forward_port(port, target)` makes 127.0.0.1:port inside lead to `target`, a
  host address such as another sandbox's port socket (a relay inside listens on the
  port, the host carries its socket folder's `out-PORT.sock` on to the target), until
  `close_forward(port)`. A sandbox made with `forwards` has them from its first moment,
  carried by its namespace holder.

Nothing else leads in or out, so two sandboxes reach each other only at the ports the
harness joined this way (the grading room's side rooms are built on it).
"""

from __future__ import annotations

import select
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..sandbox.base import SandboxError, kill_group
from ..sandbox.room import INSIDE
from .front import RelayThread, port_of

START_TIMEOUT = 20.0


class PortBridges:
    """The port methods of `BubblewrapSandbox` (and of `AttachedSandbox`)."""

    sockets: Path
    _relays: RelayThread | None
    _exposed: dict[int, int]
    _port_sockets: set[int]
    _forwarded: dict[int, subprocess.Popen[bytes]]

    def popen(self, argv: Sequence[str], *, hide: Sequence[str] = (),
              unprivileged: bool = False, cwd: str | None = None,
              **kwargs: Any) -> subprocess.Popen[bytes]:
        raise NotImplementedError

    @property
    def _ports_lock(self) -> threading.RLock:
        """The grading room's launcher joins ports from several threads at once: this
        sandbox's lock keeps its relay thread and port tables whole (setdefault is
        atomic, so the first caller's lock is everyone's)."""
        lock: threading.RLock = self.__dict__.setdefault("_ports_rlock", threading.RLock())
        return lock

    def _relay_thread(self) -> RelayThread:
        with self._ports_lock:
            if self._relays is None:
                self._relays = RelayThread()
            return self._relays

    def port_socket(self, port: int) -> Path:
        """A host-side unix socket reaching 127.0.0.1:port inside (its relay starts once)."""
        with self._ports_lock:
            return self._port_socket(port)

    def _port_socket(self, port: int) -> Path:
        host_sock = self.sockets / f"port-{port}.sock"
        if port in self._port_sockets:
            return host_sock
        inside_sock = f"{INSIDE}/sock/port-{port}.sock"
        self.popen(["python3", f"{INSIDE}/relay.py", f"unix:{inside_sock}=tcp:127.0.0.1:{port}"],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT
        while not host_sock.exists():
            if time.monotonic() > deadline:
                raise SandboxError(f"could not expose port {port}")
            time.sleep(0.02)
        self._port_sockets.add(port)
        return host_sock

    def expose_port(self, port: int) -> int:
        """Make 127.0.0.1:port inside reachable from the host; returns the host port."""
        if port in self._exposed:
            return self._exposed[port]
        bound = self._relay_thread().add("tcp:127.0.0.1:0", f"unix:{self.port_socket(port)}")
        self._exposed[port] = port_of(bound)
        return self._exposed[port]

    def service_address(self, port: int) -> str:
        """Where the emulator delivers webhooks for this sandbox's `port`: a unix socket
        into its network namespace (the host's 127.0.0.1:port is someone else's)."""
        return f"unix:{self.port_socket(port)}"

    def _outward(self, port: int, target: str) -> str:
        """The host's half of a way out at `port`: it listens on `out-PORT.sock` in this
        sandbox's socket folder and carries each connection to `target` (never following
        a symlink planted over a unix target). Returns the inside relay's route."""
        name = f"out-{port}.sock"
        self._relay_thread().add(f"unix:{self.sockets / name}", target)
        return f"tcp:127.0.0.1:{port}=unix:{INSIDE}/sock/{name}"

    def forward_port(self, port: int, target: str) -> None:
        """Make 127.0.0.1:`port` inside lead to `target` (`unix:PATH` on the host, or
        `tcp:HOST:PORT` there), from now until `close_forward(port)`. Raises
        SandboxError if the port is taken inside."""
        with self._ports_lock:
            self._forward_port(port, target)

    def _forward_port(self, port: int, target: str) -> None:
        if port in self._forwarded:
            raise SandboxError(f"port {port} is already forwarded")
        route = self._outward(port, target)
        proc = self.popen(["python3", f"{INSIDE}/relay.py", route], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdout is not None
        if not _ready(proc.stdout, START_TIMEOUT):
            kill_group(proc.pid)
            proc.wait()
            proc.stdout.close()
            self._relay_thread().remove(f"unix:{self.sockets / f'out-{port}.sock'}")
            raise SandboxError(f"could not forward port {port} (is it taken?)")
        self._forwarded[port] = proc

    def close_forward(self, port: int) -> None:
        """End `forward_port(port)`: the port is free inside again."""
        with self._ports_lock:
            proc = self._forwarded.pop(port, None)
        if proc is None:
            return
        kill_group(proc.pid)
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        if self._relays is not None:
            self._relays.remove(f"unix:{self.sockets / f'out-{port}.sock'}")


def _ready(stream: Any, timeout: float) -> bool:
    """The relay printed `ready` (it listens) within `timeout`; False if it exited."""
    ready, _, _ = select.select([stream], [], [], timeout)
    return bool(ready) and stream.readline().strip() == b"ready"
