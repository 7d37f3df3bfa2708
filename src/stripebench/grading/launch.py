"""Run the agent's code from a grader: each use in a room of its own.

A grader never starts the submission's programs itself (they would run beside it, see
its folder, reach its helpers and outlive it). It asks the harness, over the socket
named by STRIPEBENCH_LAUNCH (see harness/launch_server.py), and the command runs in a
fresh sandbox over the submission, without sight of the grader's sealed folder, with
pid and network namespaces of its own that die with it:

    done = launch.run(["node", "migrate.js"], cwd=work, timeout=60)
    done.exit_code, done.stdout, done.stderr, done.timed_out

    with launch.start(["bash", "run.sh", "payments"], cwd=work, env=..., log="payments",
                      serve=port, reach={proxy_port: proxy_port}):
        ...  # the command runs until the block ends, then it and all it forked die

Its network reaches the emulator (Stripe's hosts) and, for each `reach` entry
{inside: outside}, the grader's 127.0.0.1:outside at its own 127.0.0.1:inside -- no
other port of the grader's. `serve=port`: the grader reaches the command at its
127.0.0.1:port. Ports are 1024-65535; under a local sandbox (no namespaces) a reached
port must keep its number.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from types import TracebackType
from typing import Any

from ..sandbox.base import ExecResult

SOCKET_VARIABLE = "STRIPEBENCH_LAUNCH"
# a reply carries a command's output (each stream capped by the harness), JSON-escaped
REPLY_LIMIT = 64 * 1024 * 1024


class LaunchError(RuntimeError):
    """The harness refused or could not run the command."""


def _connect() -> socket.socket:
    path = os.environ.get(SOCKET_VARIABLE)
    if not path:
        raise LaunchError(f"{SOCKET_VARIABLE} is not set: run the grader through the "
                          "stripebench harness")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    return conn


def _request(conn: socket.socket, argv: list[str], cwd: Path | str | None,
             env: dict[str, str] | None, **fields: Any) -> None:
    message = {"argv": [str(a) for a in argv], "cwd": str(cwd) if cwd else None,
               "env": env or {}, **fields}
    conn.sendall(json.dumps(message).encode() + b"\n")


def _ports(reach: dict[int, int] | None) -> dict[str, int]:
    return {str(inside): outside for inside, outside in (reach or {}).items()}


def read_line(conn: socket.socket, limit: int) -> bytes:
    """One line of the launch protocol, both ways (at most `limit` bytes: ValueError past
    it); what came before the peer closed, if it closed first."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            raise ValueError(f"the message is larger than {limit} bytes")
    return data


def _reply(conn: socket.socket) -> dict[str, Any]:
    data = read_line(conn, REPLY_LIMIT)
    if not data:
        raise LaunchError("the harness closed the launch socket without an answer")
    reply: dict[str, Any] = json.loads(data)
    if "error" in reply:
        raise LaunchError(reply["error"])
    return reply


def run(argv: list[str], *, cwd: Path | str | None = None, env: dict[str, str] | None = None,
        timeout: float = 120, output_limit: int = 200_000,
        reach: dict[int, int] | None = None) -> ExecResult:
    """Run `argv` to its end (or `timeout`) in a room of its own; `env` is added to the
    sandbox's environment (the trial's keys, the emulator, the offline caches)."""
    with _connect() as conn:
        _request(conn, argv, cwd, env, mode="run", timeout=timeout,
                 output_limit=output_limit, reach=_ports(reach))
        reply = _reply(conn)
    return ExecResult(exit_code=reply["exit_code"], stdout=reply["stdout"],
                     stderr=reply["stderr"], timed_out=reply["timed_out"],
                     truncated=reply.get("truncated", False))


class Started:
    """A command started with `start`: it runs until `stop()` (or the end of a `with`
    block, or the grader's exit), then it and everything it forked are killed."""

    def __init__(self, conn: socket.socket) -> None:
        self._conn: socket.socket | None = conn

    def stop(self) -> None:
        """Stop the command and wait (up to 15 s) until the harness has killed it."""
        if self._conn is None:
            return
        conn, self._conn = self._conn, None
        try:
            conn.shutdown(socket.SHUT_WR)
            conn.settimeout(15)
            while conn.recv(4096):  # the harness closes its end once the command is dead
                pass
        except OSError:
            pass
        finally:
            conn.close()

    def __enter__(self) -> Started:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


def start(argv: list[str], *, cwd: Path | str | None = None, env: dict[str, str] | None = None,
          log: str = "launched", serve: int | None = None,
          reach: dict[int, int] | None = None) -> Started:
    """Start `argv` (a service) in a room of its own; its output goes to the grader's
    logs (`log`.log). `serve`: the port it listens on, which the grader then reaches at
    its own 127.0.0.1:serve; `reach`: see the module's doc."""
    conn = _connect()
    try:
        _request(conn, argv, cwd, env, mode="start", log=log, serve=serve,
                 reach=_ports(reach))
        _reply(conn)
    except BaseException:
        conn.close()
        raise
    return Started(conn)
