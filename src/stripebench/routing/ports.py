"""Ports across a bubblewrap sandbox's wall, carried through unix sockets.

A sandbox's network namespace has only loopback. What crosses its wall goes through
unix sockets in its socket folder (`sockets` on the host, bound at /run/stripebench/sock
inside that sandbox; a side room's folder lies within the grading room's, so the grading
room sees it too), each carried by a relay (`relay.py` inside, a `RelayThread` on the
host):

- in: `port_socket(port)` is a socket reaching 127.0.0.1:port inside (a relay inside
  listens on it; a sandbox made with `port_sockets` has them from the start, carried by
  its namespace holder); `expose_port(port)` a host TCP port reaching the same;
  `service_address(port)` the socket as the emulator's webhook route;
- out: `forward_ports({port: address})` makes 127.0.0.1:port inside lead to an address
  this sandbox can see, such as a side room's port socket under /run/stripebench/sock
  (a relay inside listens on the ports), until `close_forward`; a sandbox made with
  `forwards` has such ways out from the start (a socket of another sandbox bound into
  its folder, carried by its holder).

The relays connect to a unix socket without following a symlink planted over it. Nothing
else leads in or out, so two sandboxes reach each other only at the ports the harness
joined this way (the grading room's side rooms are built on it).
"""

from __future__ import annotations

import select
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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

    def forward_ports(self, routes: Mapping[int, str]) -> Forward:
        """Make each 127.0.0.1:port inside lead to its address (`unix:PATH` as this
        sandbox sees it), from now until `close_forward` of what this returns (one relay
        for them all). Raises SandboxError if a port is taken inside."""
        return self.await_forward(self.start_forward(routes))

    def start_forward(self, routes: Mapping[int, str]) -> Forward:
        """`forward_ports` without waiting: the relay starts (its targets need not
        exist yet); `await_forward` waits until it listens."""
        args = [f"tcp:127.0.0.1:{port}={target}" for port, target in routes.items()]
        proc = self.popen(["python3", f"{INSIDE}/relay.py", *args], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return Forward(proc, list(routes))

    def await_forward(self, forward: Forward) -> Forward:
        assert forward.proc.stdout is not None
        if not _ready(forward.proc.stdout, START_TIMEOUT):
            self.close_forward(forward)
            raise SandboxError(f"could not forward port {', '.join(map(str, forward.ports))}"
                               " (taken?)")
        return forward

    @staticmethod
    def close_forward(forward: Forward) -> None:
        """End a `forward_ports`: its ports are free inside again."""
        kill_group(forward.proc.pid)
        forward.proc.wait()
        if forward.proc.stdout is not None:
            forward.proc.stdout.close()


@dataclass
class Forward:
    """A relay inside a sandbox listening on `ports` (see `forward_ports`)."""

    proc: subprocess.Popen[bytes]
    ports: list[int]


def _ready(stream: Any, timeout: float) -> bool:
    """The relay printed `ready` (it listens) within `timeout`; False if it exited."""
    ready, _, _ = select.select([stream], [], [], timeout)
    return bool(ready) and stream.readline().strip() == b"ready"
