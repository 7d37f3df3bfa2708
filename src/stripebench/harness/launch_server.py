"""The grading room's launcher: the agent's code, run for the grader, each use in a room
of its own.

A grader must sometimes run what the agent wrote (a migration script twice more, a copy
of a service behind a recording proxy, `go list` over its module). The grader runs
without capabilities, so it cannot make namespaces itself; it asks this server, over a
unix socket in its sealed folder (which no agent code can see), and the harness runs
the command in a side room of its own (`side_rooms.py`): a fresh sandbox over the
submission, with its own mount, pid and network namespaces, that never mounts the
sealed folder and dies as a unit when the command ends or is stopped (no /proc scan,
no race). Its network reaches the emulator and only the grading room's ports the
request hands it. The client is `stripebench.grading.launch`; the protocol is one JSON
line each way:

    request:  {"argv": [...], "cwd": "/abs/path", "env": {...}, "mode": "run" | "start",
               "timeout": seconds, "output_limit": bytes, "log": "name",
               "reach": {"<port in the room>": <port in the grading room>, ...},
               "serve": port}
    "run":    the reply comes when the command has ended:
              {"exit_code": n, "stdout": "...", "stderr": "...", "timed_out": bool}
    "start":  {"started": true} once the room is up and the command started; it runs
              (output to logs/<name>.log in the sealed folder) until the client closes
              the connection, then it and its room are killed.
    "reach":  at most 4 entries: 127.0.0.1:<key> in the command's room leads to
              127.0.0.1:<value> in the grading room (an SDK-upgrade copy's own recorder),
              and no other port of the grading room is reachable from there.
    "serve":  ("start" only) 127.0.0.1:port in the grading room leads to the same port in
              the command's room, where the command listens (the grader calls it there).

Ports are whole numbers from 1024 to 65535. Bad requests get {"error": "..."} and
nothing runs.
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

from ..grading.launch import read_line
from ..sandbox.base import ExecResult, SandboxError, kill_group, run_captured
from .side_rooms import SideRoom, SideRooms

REQUEST_LIMIT = 1_000_000
MAX_TIMEOUT = 3600.0
MAX_OUTPUT = 2_000_000
MAX_REACH = 4
PORT_KEY = re.compile(r"[1-9][0-9]{3,4}")
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
    reach = request.get("reach") or {}
    if not isinstance(reach, dict) or len(reach) > MAX_REACH:
        raise BadRequest(f"reach must map at most {MAX_REACH} ports to ports")
    reach = {_port(int(k) if isinstance(k, str) and PORT_KEY.fullmatch(k) else k, "reach"):
             _port(v, "reach") for k, v in reach.items()}
    serve = request.get("serve")
    if serve is not None:
        if mode != "start":
            raise BadRequest("serve is for a started command (mode 'start')")
        serve = _port(serve, "serve")
        if serve in reach:
            raise BadRequest(f"port {serve} is both served and reached")
    return {"argv": argv, "cwd": str(cwd), "env": env, "timeout": float(timeout),
            "output_limit": limit, "mode": mode, "log": log, "reach": reach,
            "serve": serve}


def _port(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1024 <= value <= 65535:
        raise BadRequest(f"{field}: ports are whole numbers from 1024 to 65535, "
                         f"not {value!r}")
    return value


class LaunchServer:
    """Serves launch requests on `socket_path` for the grader working on `workdir`; each
    command runs in a side room of `rooms`; logs of started commands go to `log_dir` (on
    the host, in the sealed folder)."""

    def __init__(self, rooms: SideRooms, workdir: Path, socket_path: Path, *,
                 log_dir: Path) -> None:
        self.rooms = rooms
        self.workdir = workdir
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
                request = parse_request(_read_request(conn), self.workdir)
            except (BadRequest, OSError) as exc:  # OSError: it never sent a whole line
                self.refused.append(str(exc)[:300])
                _send(conn, {"error": str(exc)})
                return
            self.launched += 1
            try:
                room = self.rooms.open(serve=[] if request["serve"] is None else [request["serve"]],
                                       reach=request["reach"])
            except (OSError, SandboxError) as exc:
                _send(conn, {"error": f"could not launch: {exc}"})
                return
            try:
                if request["mode"] == "run":
                    _send(conn, self._run(room, request).__dict__)
                else:
                    self._start(conn, room, request)
            except (OSError, SandboxError) as exc:
                _send(conn, {"error": f"could not launch: {exc}"})
            finally:
                room.stop()

    def _run(self, room: SideRoom, request: dict[str, Any]) -> ExecResult:
        cwd = request["cwd"]
        return run_captured(room.argv(request["argv"], cwd), env=room.env(request["env"]),
                            cwd=room.host_cwd(cwd), timeout=request["timeout"],
                            output_limit=request["output_limit"])

    def _start(self, conn: socket.socket, room: SideRoom, request: dict[str, Any]) -> None:
        cwd = request["cwd"]
        log = os.open(self.log_dir / f"{request['log']}.log",
                      os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
        try:
            proc = subprocess.Popen(room.argv(request["argv"], cwd),
                                    env=room.env(request["env"]), stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=subprocess.STDOUT,
                                    cwd=room.host_cwd(cwd), start_new_session=True)
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
        """Accept no more requests (the rooms are the grading room's to stop)."""
        self._stopping.set()
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()


def _read_request(conn: socket.socket) -> bytes:
    conn.settimeout(30)
    try:
        data = read_line(conn, REQUEST_LIMIT)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    conn.settimeout(None)
    return data


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(message).encode() + b"\n")
    except OSError:
        pass
