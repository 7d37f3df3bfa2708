"""The run's emulator: one server per run, one fresh account per trial.

The server is a child process of the harness (`stripebench emulator serve --data`), or an
already-running one given by URL. Either way the harness talks to it only over HTTP
through the control plane, with a control token the agent never sees, so agent code
cannot rewrite state behind the API. A child that dies is restarted on the same port from
its data folder (every acknowledged write is kept); each restart bumps `generation`, so a
trial can tell that the emulator died under it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

STARTUP_SECONDS = 60
REQUEST_PAGE = 10_000  # request-record entries a read


class EmulatorDown(RuntimeError):
    """The emulator is gone and cannot be (re)started."""


def _die_with_parent() -> None:
    """In the forked child before exec: SIGKILL when the parent thread goes
    (prctl PR_SET_PDEATHSIG, Linux)."""
    _LIBC.prctl(1, 9)


try:  # loaded before any fork: the child only calls it
    import ctypes

    _LIBC: Any = ctypes.CDLL(None, use_errno=True)
except OSError:  # pragma: no cover - not Linux
    _LIBC = None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def trial_account_id(*parts: object) -> str:
    """A stable account id for these parts (see `Emulator.trial_account_id`)."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:20]
    return f"acct_1{digest}"


SALT_FILE = "account_salt"


def stored_salt(folder: Path) -> str:
    """The run's salt kept in `folder` (created, owner-only, on first use): a resumed run
    gets the same trial account ids and id salts, so a redone trial replays its ids."""
    path = folder / SALT_FILE
    try:
        value = path.read_text().strip()
        if value:
            return value
    except FileNotFoundError:
        pass
    folder.mkdir(parents=True, exist_ok=True)
    value = secrets.token_hex(16)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(value)
    return value


def keyed(salt: str, *parts: object) -> str:
    """A secret derived from the run's salt for these parts (never shown to a trial)."""
    return hmac.new(salt.encode(), ":".join(map(str, parts)).encode(),
                    hashlib.sha256).hexdigest()[:32]


@dataclass
class Account:
    id: str
    secret_key: str
    publishable_key: str
    api_version: str


class Emulator:
    """A handle on an emulator server: its base URL and control plane."""

    def __init__(self, base: str, control_token: str | None = None,
                 account_salt: str | None = None) -> None:
        self.base = base.rstrip("/")
        self.control_token = control_token
        # Mixed into trial account ids and, as each account's id salt, into every object
        # id of the account and of its connected accounts: a trial knows its task and
        # attempt (and may learn account ids), but not this, so it cannot compute
        # another trial's account, ids or the pages they serve. Kept in the data folder
        # by `start`, so `--resume` keeps it.
        self.account_salt = account_salt or secrets.token_hex(16)
        self.process: subprocess.Popen[bytes] | None = None
        self.generation = 0  # restarts so far
        self.exit_codes: list[int | None] = []
        self.data: Path | None = None
        self._seed = 0
        self._die_with_parent = False
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._lock = threading.Lock()
        headers = {"X-Emulator-Token": control_token} if control_token else {}
        self.http = httpx.Client(base_url=self.base, headers=headers, timeout=60)

    @classmethod
    def start(cls, seed: int = 0, port: int | None = None, data: Path | None = None,
              die_with_parent: bool = False) -> Emulator:
        """Start an emulator server as a child process keeping its state in `data`
        (a temporary folder when None). `die_with_parent`: the kernel kills the server
        when the thread that started it ends, even by kill -9 (a Ray worker's emulator
        must not outlive the worker)."""
        port = port or free_port()
        emulator = cls(f"http://127.0.0.1:{port}", secrets.token_hex(16))
        emulator._die_with_parent = die_with_parent
        if data is None:
            emulator._tmp = tempfile.TemporaryDirectory(prefix="stripebench-emulator-")
            data = Path(emulator._tmp.name)
        data.mkdir(parents=True, exist_ok=True)
        emulator.account_salt = stored_salt(data)
        emulator.data, emulator._seed = data, seed
        emulator._spawn()
        return emulator

    def _spawn(self) -> None:
        assert self.data is not None
        port = self.base.rsplit(":", 1)[1]
        log = open(self.data / "emulator.log", "ab")  # noqa: SIM115 - the child owns it
        try:
            self.process = subprocess.Popen(
                # --no-landing: the page lists every account's keys; trials never see it
                [sys.executable, "-m", "stripebench.cli", "emulator", "serve", "--no-landing",
                 "--host", "127.0.0.1", "--port", port, "--seed", str(self._seed), "--data",
                 str(self.data / "state")],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent if self._die_with_parent else None,
                env={**os.environ, "STRIPEBENCH_CONTROL_TOKEN": self.control_token or "",
                     # accounts made without a salt (a task's set-up) still get one
                     "STRIPEBENCH_EMULATOR_SALT": keyed(self.account_salt, "server")})
        finally:
            log.close()
        deadline = time.monotonic() + STARTUP_SECONDS
        while not self._healthy():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                self.process.wait()
                raise EmulatorDown(f"the emulator did not start: {self.log_tail()}")
            time.sleep(0.05)

    def _healthy(self) -> bool:
        try:
            return self.http.get("/_emulator/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def log_tail(self, size: int = 1500) -> str:
        try:
            return (self.data / "emulator.log").read_text(errors="replace")[-size:] \
                if self.data else ""
        except OSError:
            return ""

    def ensure_running(self) -> None:
        """Restart a child that died (bumping `generation`); EmulatorDown when the server
        is gone for good (it will not start again, or it is not ours to start)."""
        with self._lock:
            if self.process is None:
                if not self._healthy():
                    raise EmulatorDown(f"the emulator at {self.base} does not answer")
                return
            if self.process.poll() is None:
                return
            self.exit_codes.append(self.process.returncode)
            self.generation += 1
            self._spawn()

    def stop(self) -> None:
        self.http.close()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._tmp is not None:
            self._tmp.cleanup()

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.http.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise RuntimeError(f"emulator {method} {path}: {response.status_code} "
                               f"{response.text[:300]}")
        return response.json()

    def trial_account_id(self, task_id: str, attempt: int) -> str:
        """The trial's account id: the same for a redone trial on this emulator handle
        (same object ids), unguessable from inside any trial. Its API keys are random
        on every creation."""
        return trial_account_id(self.account_salt, task_id, attempt)

    def create_account(self, account_id: str, api_version: str | None = None) -> Account:
        # The account's id salt: the same for a redone trial, unknown to every trial.
        body: dict[str, Any] = {"id": account_id,
                                "salt": keyed(self.account_salt, "ids", account_id)}
        if api_version:
            body["api_version"] = api_version
        existing = self.http.get(f"/_emulator/accounts/{account_id}")
        if existing.status_code == 200:  # a trial being redone in the same run
            self.delete_account(account_id)
        return self._account(self._call("POST", "/_emulator/accounts", json=body))

    def route_webhooks(self, account_id: str, routes: dict[int, str]) -> None:
        """Deliver the account's webhooks to these ports only (port -> `unix:/socket`
        into the trial's sandbox, or `direct`); nothing else is reachable."""
        self._call("POST", f"/_emulator/accounts/{account_id}/webhook_routes",
                   json={"routes": {str(port): target for port, target in routes.items()}})

    def delete_account(self, account_id: str) -> None:
        self.http.delete(f"/_emulator/accounts/{account_id}")

    def snapshot(self, account_id: str) -> dict[str, Any]:
        data: dict[str, Any] = self._call("GET", f"/_emulator/accounts/{account_id}/snapshot")
        return data

    def restore(self, snapshot: dict[str, Any]) -> Account:
        return self._account(self._call("POST", "/_emulator/restore", json=snapshot))

    def requests(self, account_id: str, after: int = 0) -> dict[str, Any]:
        """The account's request record (emulator/request_record.py): its counters
        (`total`, `kept`, `dropped`, `complete`, ...) and, in `data`, every entry it holds
        with seq > `after`, oldest first (read a page at a time)."""
        path = f"/_emulator/accounts/{account_id}/requests"
        entries: list[dict[str, Any]] = []
        while True:
            page = self._call("GET", path, params={"after": after, "limit": REQUEST_PAGE})
            entries += page["data"]
            if not page["has_more"] or not page["data"]:
                break
            after = page["data"][-1]["seq"]
        counters = {k: v for k, v in page.items()
                    if k not in ("object", "url", "after", "has_more", "data")}
        return {"object": "emulator.request_record", "account": account_id, **counters,
                "data": entries}

    def request_total(self, account_id: str) -> int:
        """How many requests the account's record has counted (the seq of the last)."""
        page = self._call("GET", f"/_emulator/accounts/{account_id}/requests",
                          params={"limit": 0})
        return int(page["total"])

    @staticmethod
    def _account(info: dict[str, Any]) -> Account:
        return Account(info["id"], info["secret_key"], info["publishable_key"],
                       info.get("api_version") or "")
