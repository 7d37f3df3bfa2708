"""Where a trial's commands run: a Sandbox protocol and its implementations.

`LocalSandbox` runs commands in a plain directory on this machine (fast, no isolation:
for tests and machines without namespaces). `BubblewrapSandbox` (in
`stripebench.routing.bwrap`) runs them in a bubblewrap namespace that sees only the
trial's workdir and a read-only system, has loopback-only networking with Stripe's host
names routed to the emulator, and dies as a whole at `stop()`.

Both share the same process handling: every command gets its own process group, output
is read incrementally and capped, a timeout kills the whole group, and `stop()` kills
every group ever started (services included).
"""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

# After the command exits, keep reading this long for output still in flight; a
# background job (`server &`) holding the pipe open must not make exec hang.
PIPE_GRACE_SECONDS = 0.3
TRUNCATION_NOTE = "\n[... output truncated ...]\n"
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)


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
                      hide: Sequence[str] = ()) -> None: ...

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


def run_captured(argv: Sequence[str], *, env: dict[str, str], cwd: str | Path,
                 timeout: float, output_limit: int, pass_fds: Sequence[int] = (),
                 on_start: Any = None) -> ExecResult:
    """Run argv in a new process group; capture at most output_limit bytes per stream."""
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=str(cwd),
                            start_new_session=True, pass_fds=tuple(pass_fds))
    if on_start is not None:
        on_start(proc.pid)
    assert proc.stdout is not None and proc.stderr is not None
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


def wait_until_ready(probe: Any, *, name: str, timeout: float, proc: subprocess.Popen[bytes],
                     log_path: Path) -> None:
    """Poll `probe()` until it returns True; fail with the service's log if it dies."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if probe():
            return
        if proc.poll() is not None:
            raise SandboxError(f"service {name!r} exited with code {proc.returncode} before it "
                               f"was ready; last output:\n{tail(log_path)}")
        time.sleep(0.1)
    raise SandboxError(f"service {name!r} was not ready after {timeout:g}s; last output:\n"
                       f"{tail(log_path)}")


def tail(path: Path, limit: int = 4000) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-limit:].decode("utf-8", "replace")


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def url_ok(url: str) -> bool:
    import httpx
    try:
        return httpx.get(url, timeout=2, verify=False).status_code < 500
    except httpx.HTTPError:
        return False


def shell_argv(command: str | list[str]) -> list[str]:
    if isinstance(command, str):
        return ["bash", "-c", command]
    return list(command)


# ---------------------------------------------------------------------- local directory

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

    def read_file(self, path: str) -> bytes:
        try:
            return self.resolve(path).read_bytes()
        except OSError as exc:
            raise SandboxError(f"cannot read {path!r}: {exc.strerror}") from None

    def write_file(self, path: str, data: bytes | str) -> None:
        target = self.resolve(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode() if isinstance(data, str) else data)


class LocalSandbox(WorkdirFiles):
    """Commands run directly in `workdir` on this machine. No isolation at all."""

    def __init__(self, workdir: Path | str, env: dict[str, str] | None = None) -> None:
        self.workdir = Path(workdir).resolve()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.env = dict(env or {})
        self.logs = self.workdir / ".stripebench" / "logs"
        self._groups: set[int] = set()
        self._services: dict[str, subprocess.Popen[bytes]] = {}

    # processes ------------------------------------------------------------
    def full_env(self, extra: dict[str, str] | None) -> dict[str, str]:
        # No isolation here, but at least the harness's own credentials (model API keys,
        # control-plane token) are not handed to the agent's commands.
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("STRIPEBENCH_") and not _SECRET_NAME.search(k)}
        env.update(self.env)
        env.update(extra or {})
        return env

    def exec(self, command: str | list[str], *, timeout: float = 120,
             output_limit: int = 100_000, env: dict[str, str] | None = None,
             cwd: str | None = None) -> ExecResult:
        where = self.resolve(cwd) if cwd else self.workdir
        return run_captured(shell_argv(command), env=self.full_env(env), cwd=where,
                            timeout=timeout, output_limit=output_limit,
                            on_start=self._groups.add)

    def start_service(self, name: str, command: str, *, ready_url: str | None = None,
                      ready_port: int | None = None, timeout: float = 60,
                      hide: Sequence[str] = ()) -> None:
        # `hide` cannot be honoured without namespaces: a local sandbox isolates nothing.
        self.logs.mkdir(parents=True, exist_ok=True)
        log_path = self.logs / f"{name}.log"
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(shell_argv(command), stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, env=self.full_env(None),
                                    cwd=self.workdir, start_new_session=True)
        self._groups.add(proc.pid)
        self._services[name] = proc
        probe = _probe_for(ready_url, ready_port)
        if probe is not None:
            wait_until_ready(probe, name=name, timeout=timeout, proc=proc, log_path=log_path)

    def expose_port(self, port: int) -> int:
        """The host port where the sandbox's `port` is reachable (here: the same one)."""
        return port

    def stop(self) -> None:
        for pgid in list(self._groups):
            kill_group(pgid)
        for proc in self._services.values():
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        self._groups.clear()
        self._services.clear()

    def __enter__(self) -> LocalSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _probe_for(ready_url: str | None, ready_port: int | None) -> Any:
    if ready_url:
        return lambda: url_ok(ready_url)
    if ready_port:
        return lambda: port_open("127.0.0.1", ready_port)
    return None


# ---------------------------------------------------------------------- factory

def wheelhouse() -> Path | None:
    """The offline wheelhouse `scripts/setup.sh` fills (`.cache/wheelhouse`, or
    $STRIPEBENCH_WHEELHOUSE): tasks install pinned packages from it with
    `pip install --no-index --find-links`, in either sandbox."""
    import stripebench

    given = os.environ.get("STRIPEBENCH_WHEELHOUSE")
    path = Path(given) if given else \
        Path(stripebench.__file__).resolve().parents[2] / ".cache" / "wheelhouse"
    return path.resolve() if path.is_dir() else None


def npm_cache() -> Path | None:
    """The offline npm cache `scripts/setup.sh` fills (`.cache/npm`, or
    $STRIPEBENCH_NPM_CACHE), the npm twin of the wheelhouse: tasks install their
    package.json from a copy of it with `npm install --offline --cache`."""
    import stripebench

    given = os.environ.get("STRIPEBENCH_NPM_CACHE")
    path = Path(given) if given else \
        Path(stripebench.__file__).resolve().parents[2] / ".cache" / "npm"
    return path.resolve() if path.is_dir() else None


def bwrap_available() -> bool:
    """True when bubblewrap is installed and can create the namespaces we need here."""
    from ..routing.bwrap import bwrap_works
    return bwrap_works()


def make_sandbox(kind: Literal["bwrap", "local"], workdir: Path | str,
                 env: dict[str, str] | None = None, *, emulator_url: str | None = None,
                 **options: Any) -> Sandbox:
    """A sandbox of `kind`. With `emulator_url` (the emulator's plain HTTP address, else an
    http:// STRIPE_API_BASE in `env`) a bubblewrap sandbox routes Stripe's host names to
    it, using the STRIPE_SECRET_KEY / STRIPE_PUBLISHABLE_KEY in `env`. Other bwrap
    options: `routing` (a `stripebench.routing.bwrap.Routing`), `shared` / `extra_ro`
    (read-only paths)."""
    if kind == "local":
        return LocalSandbox(workdir, env)
    if kind == "bwrap":
        from ..routing.bwrap import BubblewrapSandbox, Routing
        # An emulator named by STRIPE_API_BASE is unreachable from inside the sandbox's
        # loopback-only network, so route to it rather than hand over a dead address.
        emulator_url = emulator_url or _emulator_in(env or {})
        if emulator_url and "routing" not in options:
            options["routing"] = Routing(emulator_url)
        return BubblewrapSandbox(workdir, env, **options)
    raise SandboxError(f"unknown sandbox kind {kind!r} (expected 'bwrap' or 'local')")


def _emulator_in(env: dict[str, str]) -> str | None:
    base = env.get("STRIPE_API_BASE", "")
    return base if base.startswith("http://") else None


def __getattr__(name: str) -> Any:
    # BubblewrapSandbox lives with the routing code it depends on; import it lazily so
    # `from stripebench.harness.sandbox import BubblewrapSandbox` works without a cycle.
    if name == "BubblewrapSandbox":
        from ..routing.bwrap import BubblewrapSandbox
        return BubblewrapSandbox
    raise AttributeError(name)


__all__ = ["ExecResult", "Sandbox", "SandboxError", "LocalSandbox", "WorkdirFiles",
           "make_sandbox", "bwrap_available", "run_captured", "kill_group", "wheelhouse",
           "npm_cache"]
