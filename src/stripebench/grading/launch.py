"""Run the agent's code from a grader: each use in a room of its own.

A grader never starts the submission's programs itself (they would run beside it, see
its folder and outlive it). It asks the harness, over the socket named by
STRIPEBENCH_LAUNCH (see harness/launch_server.py), and the command runs in the grading
sandbox without sight of the grader's sealed folder, in a pid namespace that dies with
it:

    done = launch.run(["node", "migrate.js"], cwd=work, timeout=60)
    done.exit_code, done.stdout, done.stderr, done.timed_out

    with launch.start(["bash", "run.sh", "payments"], cwd=work, env=..., log="payments"):
        ...  # the command runs until the block ends, then it and all it forked die
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

SOCKET_VARIABLE = "STRIPEBENCH_LAUNCH"


class LaunchError(RuntimeError):
    """The harness refused or could not run the command."""


@dataclass
class Completed:
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    truncated: bool = False

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


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


def _reply(conn: socket.socket) -> dict[str, Any]:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    if not data:
        raise LaunchError("the harness closed the launch socket without an answer")
    reply: dict[str, Any] = json.loads(data)
    if "error" in reply:
        raise LaunchError(reply["error"])
    return reply


def run(argv: list[str], *, cwd: Path | str | None = None, env: dict[str, str] | None = None,
        timeout: float = 120, output_limit: int = 200_000) -> Completed:
    """Run `argv` to its end (or `timeout`) in a room of its own; `env` is added to the
    sandbox's environment (the trial's keys, the emulator, the offline caches)."""
    with _connect() as conn:
        _request(conn, argv, cwd, env, mode="run", timeout=timeout,
                 output_limit=output_limit)
        reply = _reply(conn)
    return Completed(exit_code=reply["exit_code"], stdout=reply["stdout"],
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
          log: str = "launched") -> Started:
    """Start `argv` (a service) in a room of its own; its output goes to the grader's
    logs (`log`.log)."""
    conn = _connect()
    try:
        _request(conn, argv, cwd, env, mode="start", log=log)
        _reply(conn)
    except BaseException:
        conn.close()
        raise
    return Started(conn)
