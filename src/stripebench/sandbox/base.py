"""What every sandbox kind shares: the Sandbox protocol, process handling, workdir files.

It sits below both the harness (`harness.sandbox`: the local sandbox and the factory)
and the routing (`routing.bwrap`: the bubblewrap sandbox), so neither imports the other
to get it. Every command gets its own process group, output is read incrementally and
capped, a timeout kills the whole group; files in the workdir are reached without
following the agent's links out of it (see safe_files).
"""

from __future__ import annotations

import errno
import math
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import httpx

import stripebench

from . import safe_files

# After the command exits, keep reading this long for output still in flight; a
# background job (`server &`) holding the pipe open must not make exec hang.
PIPE_GRACE_SECONDS = 0.3
TRUNCATION_NOTE = "\n[... output truncated ...]\n"
# The file tools read whole files into memory: a bigger one is refused, not loaded.
READ_LIMIT = 16 * 1024 * 1024
LOGS = ".stripebench/logs"      # service output, inside the workdir
# An `unprivileged` service runs as this uid and gid in a user namespace of its own (see
# as_unprivileged): servers that refuse root (PostgreSQL) run in a sandbox whose
# commands are root without capabilities.
UNPRIVILEGED_UID = 65534


@dataclass
class ExecResult:
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    truncated: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @property
    def output(self) -> str:
        """stdout, then stderr."""
        return self.stdout + self.stderr


@runtime_checkable
class Sandbox(Protocol):
    workdir: Path

    def exec(self, command: str | list[str], *, timeout: float = 120,
             output_limit: int = 100_000, env: dict[str, str] | None = None,
             cwd: str | None = None) -> ExecResult: ...

    def read_file(self, path: str) -> bytes: ...

    def write_file(self, path: str, data: bytes | str) -> None: ...

    def start_service(self, name: str, command: str, *, ready_url: str | None = None,
                      ready_port: int | None = None, timeout: float = 60,
                      hide: Sequence[str] = (), unprivileged: bool = False) -> None: ...

    def service_address(self, port: int) -> str:
        """Where the emulator reaches the sandbox's 127.0.0.1:`port` (webhook deliveries):
        `unix:/path` into its network namespace, or `direct` (the host's loopback)."""
        ...

    def stop(self) -> None: ...


class SandboxError(RuntimeError):
    """A sandbox could not do what was asked (bad path, service never became ready...)."""


# ---------------------------------------------------------------------- process handling

@dataclass
class _Capture:
    limit: int
    chunks: list[bytes] = field(default_factory=list)
    size: int = 0
    truncated: bool = False

    def add(self, data: bytes) -> None:
        room = self.limit - self.size
        if room <= 0:
            self.truncated = True
            return
        if len(data) > room:
            data = data[:room]
            self.truncated = True
        self.chunks.append(data)
        self.size += len(data)

    def text(self) -> str:
        out = b"".join(self.chunks).decode("utf-8", "replace")
        return out + TRUNCATION_NOTE if self.truncated else out


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def end_processes(groups: set[int], services: dict[str, subprocess.Popen[bytes]]) -> None:
    """Kill every process group a sandbox started and reap its services (both sandboxes'
    stop()); the sets are emptied."""
    for pgid in list(groups):
        kill_group(pgid)
    for proc in services.values():
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    groups.clear()
    services.clear()


def run_captured(argv: Sequence[str], *, env: dict[str, str], cwd: str | Path,
                 timeout: float, output_limit: int, pass_fds: Sequence[int] = (),
                 on_start: Any = None) -> ExecResult:
    """Run argv in a new process group; capture at most output_limit bytes per stream."""
    check_timeout(timeout)
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=str(cwd),
                            start_new_session=True, pass_fds=tuple(pass_fds))
    if on_start is not None:
        on_start(proc.pid)
    return collect(proc, timeout=timeout, output_limit=output_limit)


def check_timeout(timeout: float) -> None:
    if not math.isfinite(timeout) or timeout <= 0:  # a NaN deadline would never pass
        raise SandboxError(f"a command's timeout must be a positive number of seconds, "
                           f"not {timeout!r}")


def collect(proc: subprocess.Popen[bytes], *, timeout: float, output_limit: int,
            input: bytes | None = None) -> ExecResult:
    """Wait for a started process (its own process group, stdout and stderr piped),
    feeding it `input` (its stdin must then be a pipe); capture at most output_limit
    bytes per stream; at the timeout its whole group is killed."""
    check_timeout(timeout)
    assert proc.stdout is not None and proc.stderr is not None
    if proc.stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, input or b""), daemon=True).start()
    captures = {proc.stdout.fileno(): _Capture(output_limit),
                proc.stderr.fileno(): _Capture(output_limit)}
    open_fds = set(captures)
    deadline = time.monotonic() + timeout
    exited_at: float | None = None
    timed_out = False
    while open_fds:
        now = time.monotonic()
        if exited_at is None and proc.poll() is not None:
            exited_at = now
        if exited_at is not None and now - exited_at > PIPE_GRACE_SECONDS:
            break
        if exited_at is None and now > deadline:
            timed_out = True
            kill_group(proc.pid)
            proc.wait()
            exited_at = time.monotonic()
            continue
        ready, _, _ = select.select(list(open_fds), [], [], 0.05)
        for fd in ready:
            data = os.read(fd, 65536)
            if data:
                captures[fd].add(data)
            else:
                open_fds.discard(fd)
    code = proc.wait()
    out, err = captures[proc.stdout.fileno()], captures[proc.stderr.fileno()]
    proc.stdout.close()
    proc.stderr.close()
    if timed_out:
        err.add(f"\n[timed out after {timeout:g}s; the command's processes were killed]\n"
                .encode())
    return ExecResult(exit_code=124 if timed_out else code, stdout=out.text(),
                      stderr=err.text(), timed_out=timed_out,
                      truncated=out.truncated or err.truncated)


def _feed(stdin: Any, data: bytes) -> None:
    try:
        stdin.write(data)
    except OSError:  # the command ended without reading all of it
        pass
    finally:
        try:
            stdin.close()
        except OSError:
            pass


def wait_until_ready(probe: Any, *, name: str, timeout: float, proc: subprocess.Popen[bytes],
                     workdir: Path) -> None:
    """Poll `probe()` until it returns True; fail with the service's log if it dies."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if probe():
            return
        if proc.poll() is not None:
            raise SandboxError(f"service {name!r} exited with code {proc.returncode} before it "
                               f"was ready; last output:\n{service_log_tail(workdir, name)}")
        time.sleep(0.1)
    raise SandboxError(f"service {name!r} was not ready after {timeout:g}s; last output:\n"
                       f"{service_log_tail(workdir, name)}")


def tail(path: Path, limit: int = 4000) -> str:
    """The end of a file the harness owns (outside any workdir)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - limit))
            return handle.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


def open_service_log(workdir: Path, name: str) -> int:
    """An fd appending to the service's log in the workdir. The harness opens it on the
    host, so a symlink the agent planted on the way is refused, never followed."""
    try:
        return safe_files.append_handle(workdir, f"{LOGS}/{name}.log")
    except OSError as exc:
        raise SandboxError(f"cannot open the log of service {name!r}: {exc.strerror} "
                           f"({LOGS} must be a plain folder in the workdir)") from None


def service_log_tail(workdir: Path, name: str) -> str:
    return safe_files.tail_in(workdir, f"{LOGS}/{name}.log")


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def url_ok(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2, verify=False).status_code < 500
    except httpx.HTTPError:
        return False


def as_unprivileged() -> list[str]:
    """A prefix that runs a command as UNPRIVILEGED_UID in a new user namespace where that
    uid stands for the caller's own (the sandbox's root): the command is not root, yet
    its files and its access to the workdir are the caller's. No uid switch on the host,
    so no chown and no capability is needed; it must run before capabilities are dropped
    (mapping uid 0 of the parent namespace takes CAP_SETFCAP)."""
    return ["unshare", "--user", f"--map-user={UNPRIVILEGED_UID}",
            f"--map-group={UNPRIVILEGED_UID}", "--"]


def shell_argv(command: str | list[str]) -> list[str]:
    if isinstance(command, str):
        return ["bash", "-c", command]
    return list(command)


class WorkdirFiles:
    """File access confined to the workdir, shared by every sandbox kind (the workdir
    is the same directory inside and outside the sandbox)."""

    workdir: Path

    def resolve(self, path: str) -> Path:
        """A path inside the workdir (relative paths are relative to it)."""
        candidate = (self.workdir / path).resolve()
        if candidate != self.workdir and self.workdir not in candidate.parents:
            raise SandboxError(f"{path!r} is outside the sandbox's workdir")
        return candidate

    # Reads and writes happen on the host (as the harness's user) while the agent's
    # processes run: they follow symlinks only while those stay inside the workdir, and
    # touch nothing but regular files (see safe_files).
    def read_file(self, path: str) -> bytes:
        try:
            data = safe_files.read_in(self.workdir, self._relative(path), symlinks=True,
                                      limit=READ_LIMIT + 1)
        except OSError as exc:
            raise SandboxError(f"cannot read {path!r}: {_reason(exc)}") from None
        if len(data) > READ_LIMIT:
            raise SandboxError(f"{path!r} is larger than {READ_LIMIT // 2**20} MB; read "
                               "parts of it with a command (head, sed -n, grep)")
        return data

    def write_file(self, path: str, data: bytes | str) -> None:
        try:
            safe_files.write_in(self.workdir, self._relative(path),
                                data.encode() if isinstance(data, str) else data,
                                symlinks=True)
        except OSError as exc:
            raise SandboxError(f"cannot write {path!r}: {_reason(exc)}") from None

    def _relative(self, path: str) -> str:
        self.resolve(path)  # the usual message for a path that is plainly outside
        return str(path)


def _reason(exc: OSError) -> str:
    if exc.errno in (errno.EXDEV, errno.ELOOP):
        return "it leads outside the workdir (through a symlink or '..')"
    return exc.strerror or str(exc)



def _offline_cache(variable: str, name: str) -> Path | None:
    """$<variable> or the checkout's `.cache/<name>`, when that directory exists."""

    given = os.environ.get(variable)
    path = Path(given) if given else \
        Path(stripebench.__file__).resolve().parents[2] / ".cache" / name
    return path.resolve() if path.is_dir() else None


def wheelhouse() -> Path | None:
    """The offline wheelhouse `scripts/setup.sh` fills (`.cache/wheelhouse`, or
    $STRIPEBENCH_WHEELHOUSE): tasks install pinned packages from it with
    `pip install --no-index --find-links`, in either sandbox."""
    return _offline_cache("STRIPEBENCH_WHEELHOUSE", "wheelhouse")


def npm_cache() -> Path | None:
    """The offline npm cache `scripts/setup.sh` fills (`.cache/npm`, or
    $STRIPEBENCH_NPM_CACHE), the npm twin of the wheelhouse: tasks install their
    package.json from a copy of it with `npm install --offline --cache`."""
    return _offline_cache("STRIPEBENCH_NPM_CACHE", "npm")


def go_module_cache() -> Path | None:
    """The offline Go module cache `scripts/setup.sh` fills (`.cache/go`, or
    $STRIPEBENCH_GOMODCACHE): tasks build with it as GOMODCACHE (read-only) and
    GOPROXY=off."""
    return _offline_cache("STRIPEBENCH_GOMODCACHE", "go")


def maven_repository() -> Path | None:
    """The offline Maven repository `scripts/setup.sh` fills (`.cache/m2`, or
    $STRIPEBENCH_M2), the Maven twin of the wheelhouse: Java tasks build with `mvn -o`
    against a private copy of it (Maven writes to its local repository)."""
    return _offline_cache("STRIPEBENCH_M2", "m2")
