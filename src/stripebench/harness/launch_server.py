"""The grading room's launcher: the agent's code, run for the grader, each use in a room
of its own.

A grader must sometimes run what the agent wrote (a migration script twice more, a copy
of a service behind a recording proxy, `go list` over its module). The grader runs
without capabilities, so it cannot make namespaces itself; it asks this server, over a
unix socket in its sealed folder (which no agent code can see), and the harness runs
the command in the grading sandbox with the sealed folder covered, in mount and pid
namespaces of its own: when the command ends, or is stopped, everything it forked dies
with its pid namespace (no /proc scan, no race). The client is
`stripebench.grading.launch`; the protocol is one JSON line each way:

    request:  {"argv": [...], "cwd": "/abs/path", "env": {...}, "mode": "run" | "start",
               "timeout": seconds, "output_limit": bytes, "log": "name"}
    "run":    the reply comes when the command has ended:
              {"exit_code": n, "stdout": "...", "stderr": "...", "timed_out": bool}
    "start":  {"started": true} at once; the command runs (output to logs/<name>.log in
              the sealed folder) until the client closes the connection, then is killed.

Bad requests get {"error": "..."} and nothing runs.
"""

from __future__ import annotations

import json
import math
import os
import re
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any

from ..sandbox.base import ExecResult, SandboxError, kill_group, run_captured
from .sandbox import Sandbox

REQUEST_LIMIT = 1_000_000
MAX_TIMEOUT = 3600.0
MAX_OUTPUT = 2_000_000
LOG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class BadRequest(ValueError):
    pass


def parse_request(raw: bytes, workdir: Path) -> dict[str, Any]:
    """A launch request, checked: argv a non-empty list of strings, cwd inside the
    submission, env strings, a finite timeout, a plain log name."""
    try:
        request = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the request is not JSON: {exc}") from None
    if not isinstance(request, dict):
        raise BadRequest("the request must be a JSON object")
    argv = request.get("argv")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise BadRequest("argv must be a non-empty list of strings")
    cwd = Path(request.get("cwd") or workdir)
    if not cwd.is_absolute() or (cwd != workdir and workdir not in cwd.parents) or \
            ".." in cwd.parts:
        raise BadRequest(f"cwd must be the submission folder or inside it, not {cwd}")
    env = request.get("env") or {}
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                            for k, v in env.items()):
        raise BadRequest("env must map names to strings")
    timeout = request.get("timeout", 120)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or \
            not math.isfinite(timeout) or not 0 < timeout <= MAX_TIMEOUT:
        raise BadRequest(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}]")
    limit = request.get("output_limit", 200_000)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 < limit <= MAX_OUTPUT:
        raise BadRequest(f"output_limit must be a whole number of bytes up to {MAX_OUTPUT}")
    mode = request.get("mode", "run")
    if mode not in ("run", "start"):
        raise BadRequest("mode must be 'run' or 'start'")
    log = request.get("log") or "launched"
    if not isinstance(log, str) or not LOG_NAME.fullmatch(log):
        raise BadRequest("log must be a plain file name")
    return {"argv": argv, "cwd": str(cwd), "env": env, "timeout": float(timeout),
            "output_limit": limit, "mode": mode, "log": log}


class LaunchServer:
    """Serves launch requests on `socket_path` for the grader in `sandbox`, whose agent
    code must not see `hide` (the sealed folder, as the sandbox names it); logs of
    started commands go to `log_dir` (on the host, in the sealed folder)."""

    def __init__(self, sandbox: Sandbox, socket_path: Path, *, hide: list[str],
                 log_dir: Path) -> None:
        self.sandbox = sandbox
        self.hide = hide
        self.log_dir = log_dir
        self.launched = 0            # commands run (the trial's record counts them)
        self.refused: list[str] = []  # bad requests, for the tamper record
        self._stopping = threading.Event()
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(socket_path))
        os.chmod(socket_path, 0o600)
        self._listener.listen(16)
        self._thread = threading.Thread(target=self._serve, name="launch-server", daemon=True)
        self._thread.start()

    def argv_for(self, argv: list[str], cwd: str) -> list[str]:
        enter = getattr(self.sandbox, "enter_argv", None)
        if enter is None:  # a local sandbox: no namespaces, the command runs as is
            return argv
        return list(enter(argv, cwd, hide=self.hide))

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                request = parse_request(_read_line(conn), self.sandbox.workdir)
            except (BadRequest, OSError) as exc:  # OSError: it never sent a whole line
                self.refused.append(str(exc)[:300])
                _send(conn, {"error": str(exc)})
                return
            self.launched += 1
            try:
                if request["mode"] == "run":
                    _send(conn, self._run(request).__dict__)
                else:
                    self._start(conn, request)
            except (OSError, SandboxError) as exc:
                _send(conn, {"error": f"could not launch: {exc}"})

    def _env(self, request: dict[str, Any]) -> dict[str, str]:
        base = getattr(self.sandbox, "env", {})
        return {**base, **request["env"]}

    def _run(self, request: dict[str, Any]) -> ExecResult:
        cwd = request["cwd"]
        local = not hasattr(self.sandbox, "enter_argv")
        return run_captured(self.argv_for(request["argv"], cwd), env=self._env(request),
                            cwd=cwd if local else self.sandbox.workdir,
                            timeout=request["timeout"], output_limit=request["output_limit"])

    def _start(self, conn: socket.socket, request: dict[str, Any]) -> None:
        cwd = request["cwd"]
        local = not hasattr(self.sandbox, "enter_argv")
        log = os.open(self.log_dir / f"{request['log']}.log",
                      os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
        try:
            proc = subprocess.Popen(self.argv_for(request["argv"], cwd),
                                    env=self._env(request), stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=subprocess.STDOUT,
                                    cwd=cwd if local else self.sandbox.workdir,
                                    start_new_session=True)
        finally:
            os.close(log)
        try:
            _send(conn, {"started": True})
            conn.recv(1)  # the client closed the connection (or died): stop the command
        except OSError:
            pass
        finally:
            kill_group(proc.pid)
            proc.wait()

    def close(self) -> None:
        self._stopping.set()
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()


def _read_line(conn: socket.socket) -> bytes:
    conn.settimeout(30)
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
        if len(data) > REQUEST_LIMIT:
            raise BadRequest(f"the request is larger than {REQUEST_LIMIT} bytes")
    conn.settimeout(None)
    return data


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(message).encode() + b"\n")
    except OSError:
        pass
