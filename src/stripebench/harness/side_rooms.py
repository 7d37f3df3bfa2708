"""The grading room's side rooms: the agent's code that the grader exercises, each use
in a sandbox of its own (issue 25, wall 4).

The grader, its recording proxies and the harness's relays share the grading room's
network namespace. None of the agent's code runs there: the task's services (restarted
for the grader) share one side room, as they shared the agent's sandbox, and each
command the grader launches (a migration script, an SDK-upgrade service copy, `go list`)
gets a fresh one. A side room is a bubblewrap sandbox over the same submission folder,
routed to the trial's account as the agent's sandbox was; it never mounts the grader's
sealed folder, joins the grading room's cgroup (one set of limits for the whole
grading, killed with it) and dies as a unit when its use ends. Its network reaches:

- the emulator, at Stripe's hosts (its own relay on 127.0.0.1:443), as every sandbox's;
- `reach`: the grading-room ports it was handed, each at a port of its own loopback
  (an SDK-upgrade copy: its own recorder, no other proxy of the grader's);

and the grader reaches it at the ports it `serve`s: 127.0.0.1:port in the grading room
leads to 127.0.0.1:port in the side room, and to nothing else. Webhooks are delivered
into the services' room. Each way is two relays, no more: a side room's socket folder
lies within the grading room's (which sees the room's port sockets), and a reached port's
socket of the grading room is bound into the side room's folder alone (the port
plumbing is `routing.ports`).

Two side rooms still share the submission folder, so two pieces of the agent's code can
meet through a unix socket there; neither can reach the grader's proxies through the
other, for neither's network holds them.

A local grading room has no namespaces: there a side room is the grading sandbox
itself, unsealed (the trial says so), and a reached port keeps its number.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping, Sequence

from ..routing.bwrap import BubblewrapSandbox
from ..routing.ports import Forward, PortBridges
from ..sandbox.base import SandboxError
from ..sandbox.limits import Limits
from ..sandbox.local import LocalSandbox
from ..sandbox.room import INSIDE
from .sandbox import Sandbox


class SideRoom:
    """One use of a side room: where its commands run, what of the grading room's
    network leads into it; `stop()` ends it (safe to call twice, from any thread).
    `name`: its socket folder's, within the grading room's (bubblewrap)."""

    def __init__(self, sandbox: Sandbox, grading: Sandbox, name: str = "") -> None:
        self.sandbox = sandbox
        self.grading = grading
        self.name = name
        self.own = sandbox is not grading   # a sandbox of its own (bubblewrap)
        self._forwards: list[Forward] = []
        self._lock = threading.Lock()
        self.stopped = False

    def serve(self, ports: Sequence[int]) -> None:
        """127.0.0.1:port in the grading room leads to the same port in this room, for
        each of `ports`: the grading room's relay connects to the room's port socket,
        which it sees in its own socket folder."""
        if not self.own or not ports:
            return   # a local room: one loopback for all
        assert isinstance(self.sandbox, BubblewrapSandbox)
        assert isinstance(self.grading, BubblewrapSandbox)
        for port in ports:
            self.sandbox.port_socket(port)   # the room's relay (its holder's, if known)
        self.forward(_start_forward(self.grading, self.name, ports))

    def forward(self, started: Forward) -> None:
        """Wait for a started relay of the grading room's; it ends with this room."""
        self._forwards.append(started)
        assert isinstance(self.grading, BubblewrapSandbox)
        self.grading.await_forward(started)

    def argv(self, argv: Sequence[str], cwd: str) -> list[str]:
        """`argv` run in this room, in `cwd` (a folder of the submission)."""
        if not self.own:  # a local room: its cgroup, and its user if it has one (Harbor)
            assert isinstance(self.sandbox, LocalSandbox)
            return self.sandbox.command_argv(argv)
        assert isinstance(self.sandbox, BubblewrapSandbox)
        return self.sandbox.enter_argv(argv, cwd)

    def host_cwd(self, cwd: str) -> str:
        """The working folder for the process that enters the room."""
        return str(self.sandbox.workdir) if self.own else cwd

    def env(self, extra: Mapping[str, str]) -> dict[str, str]:
        if isinstance(self.sandbox, LocalSandbox):  # no harness secrets; the user's HOME
            return self.sandbox.command_env(dict(extra))
        return {**getattr(self.sandbox, "env", {}), **extra}

    def stop(self) -> None:
        with self._lock:
            if self.stopped:
                return
            self.stopped = True
            if not self.own:
                return
            for started in self._forwards:
                PortBridges.close_forward(started)
            self.sandbox.stop()


class SideRooms:
    """Makes the side rooms of one grading room (`grading`, a sandbox over the
    submission made with `env` and `limits`) and stops those still open at `close()`."""

    def __init__(self, grading: Sandbox, env: dict[str, str], limits: Limits) -> None:
        self.grading = grading
        self.env = env
        self.limits = limits
        self._open: list[SideRoom] = []
        self._lock = threading.Lock()
        self._closed = False
        self._made = itertools.count(1)

    def open(self, *, serve: Sequence[int] = (), reach: Mapping[int, int] | None = None
             ) -> SideRoom:
        """A fresh side room whose 127.0.0.1:inside reaches the grading room's
        127.0.0.1:outside for each `reach` entry, and whose `serve` ports the grading
        room reaches. Raises SandboxError if that cannot be made."""
        reach = dict(reach or {})
        grading = self.grading
        if not isinstance(grading, BubblewrapSandbox):
            if any(inside != outside for inside, outside in reach.items()):
                raise SandboxError("a local grading room has one loopback: a reached port "
                                   "keeps its number")
            room, started = SideRoom(grading, grading), None
        else:
            # The grading room's port socket of each reached port is bound into the
            # room's socket folder (a mount point it can neither remove nor replace),
            # where the room's holder relays its own port to it.
            name = f"rooms/{next(self._made)}"
            binds = [(grading.port_socket(outside), f"{INSIDE}/sock/reach-{inside}.sock")
                     for inside, outside in reach.items()]
            # the grading room's relay for the served ports starts while the room does
            started = _start_forward(grading, name, serve) if serve else None
            try:
                room = SideRoom(BubblewrapSandbox(
                    grading.workdir, self.env, routing=grading.routing,
                    certificates=grading._certs, limits=self.limits, clear_on_stop=False,
                    cgroup=grading.cgroup, sockets=grading.sockets / name, binds=binds,
                    forwards={inside: f"unix:{INSIDE}/sock/reach-{inside}.sock"
                              for inside in reach},
                    port_sockets=serve), grading, name)
            except BaseException:
                if started is not None:
                    grading.close_forward(started)
                raise
        with self._lock:
            self._open = [r for r in self._open if not r.stopped]
            self._open.append(room)
            closed = self._closed
        try:
            if started is not None:
                room.forward(started)   # its ports' sockets: the room's holder has them
            if closed:
                raise SandboxError("the grading is over: nothing more runs in it")
        except BaseException:
            room.stop()
            raise
        return room

    def close(self) -> None:
        """Stop every side room still open; none opens after this."""
        with self._lock:
            self._closed = True
            rooms, self._open = self._open, []
        for room in rooms:
            room.stop()


def _start_forward(grading: BubblewrapSandbox, name: str, ports: Sequence[int]) -> Forward:
    """The grading room's relay from each of `ports` to the same port of the side room
    whose socket folder is `name` in the grading room's, started (not yet listening)."""
    return grading.start_forward({port: f"unix:{INSIDE}/sock/{name}/port-{port}.sock"
                                  for port in ports})
