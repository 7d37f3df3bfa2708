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
into the services' room. (The port plumbing is `routing.ports`.)

Two side rooms still share the submission folder, so two pieces of the agent's code can
meet through a unix socket there; neither can reach the grader's proxies through the
other, for neither's network holds them.

A local grading room has no namespaces: there a side room is the grading sandbox
itself, unsealed (the trial says so), and a reached port keeps its number.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

from ..routing.bwrap import BubblewrapSandbox
from ..sandbox.base import SandboxError
from ..sandbox.limits import Limits
from .sandbox import Sandbox


class SideRoom:
    """One use of a side room: where its commands run, what of the grading room's
    network leads into it; `stop()` ends it (safe to call twice, from any thread)."""

    def __init__(self, sandbox: Sandbox, grading: Sandbox) -> None:
        self.sandbox = sandbox
        self.grading = grading
        self.own = sandbox is not grading   # a sandbox of its own (bubblewrap)
        self.served: list[int] = []
        self._lock = threading.Lock()
        self.stopped = False

    def serve(self, port: int) -> None:
        """127.0.0.1:`port` in the grading room leads to the same port in this room."""
        if not self.own:
            return   # one loopback for all
        assert isinstance(self.sandbox, BubblewrapSandbox)
        assert isinstance(self.grading, BubblewrapSandbox)
        self.grading.forward_port(port, f"unix:{self.sandbox.port_socket(port)}")
        self.served.append(port)

    def argv(self, argv: Sequence[str], cwd: str) -> list[str]:
        """`argv` run in this room, in `cwd` (a folder of the submission)."""
        if not self.own:
            return list(argv)
        assert isinstance(self.sandbox, BubblewrapSandbox)
        return self.sandbox.enter_argv(argv, cwd)

    def host_cwd(self, cwd: str) -> str:
        """The working folder for the process that enters the room."""
        return str(self.sandbox.workdir) if self.own else cwd

    def env(self, extra: Mapping[str, str]) -> dict[str, str]:
        return {**getattr(self.sandbox, "env", {}), **extra}

    def stop(self) -> None:
        with self._lock:
            if self.stopped:
                return
            self.stopped = True
            if not self.own:
                return
            assert isinstance(self.grading, BubblewrapSandbox)
            for port in self.served:
                self.grading.close_forward(port)
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
            room = SideRoom(grading, grading)
        else:
            forwards = {inside: f"unix:{grading.port_socket(outside)}"
                        for inside, outside in reach.items()}
            room = SideRoom(BubblewrapSandbox(
                grading.workdir, self.env, routing=grading.routing,
                certificates=grading._certs, limits=self.limits, clear_on_stop=False,
                cgroup=grading.cgroup, forwards=forwards), grading)
        with self._lock:
            self._open = [r for r in self._open if not r.stopped]
            self._open.append(room)
            closed = self._closed
        try:
            if closed:
                raise SandboxError("the grading is over: nothing more runs in it")
            for port in serve:
                room.serve(port)
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

