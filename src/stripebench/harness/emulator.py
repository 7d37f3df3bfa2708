"""The run's emulator: one server per run, one fresh account per trial.

The server runs in-process (a uvicorn thread) or is an already-running one given by URL.
Either way the harness talks to it only over HTTP through the control plane, with a
control token the agent never sees, so agent code cannot rewrite state behind the API.
"""

from __future__ import annotations

import hashlib
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def trial_account_id(*parts: object) -> str:
    """A stable account id for these parts (see `Emulator.trial_account_id`)."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:20]
    return f"acct_1{digest}"


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
        # Mixed into trial account ids, which seed every object id in the account: a
        # trial knows its task and attempt, but not this, so it cannot compute another
        # trial's account, ids or the pages they serve.
        self.account_salt = account_salt or secrets.token_hex(16)
        self._server: Any = None
        self._thread: threading.Thread | None = None
        headers = {"X-Emulator-Token": control_token} if control_token else {}
        self.http = httpx.Client(base_url=self.base, headers=headers, timeout=60)

    @classmethod
    def start(cls, seed: int = 0, port: int | None = None) -> Emulator:
        """Start an emulator server in a background thread of this process."""
        import uvicorn

        from ..emulator.server import build

        port = port or free_port()
        base = f"http://127.0.0.1:{port}"
        token = secrets.token_hex(16)
        app = build(seed=seed, control_token=token, local_origin=base)
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                access_log=False, lifespan="on")
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name="emulator", daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the emulator did not start")
            time.sleep(0.02)
        emulator = cls(base, token)
        emulator._server, emulator._thread = server, thread
        return emulator

    def stop(self) -> None:
        self.http.close()
        if self._server is not None:
            self._server.should_exit = True
            if self._thread is not None:
                self._thread.join(timeout=10)

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
        body: dict[str, Any] = {"id": account_id}
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

    def requests(self, account_id: str) -> list[dict[str, Any]]:
        data = self._call("GET", f"/_emulator/accounts/{account_id}/requests")
        return list(data.get("data", []))

    @staticmethod
    def _account(info: dict[str, Any]) -> Account:
        return Account(info["id"], info["secret_key"], info["publishable_key"],
                       info.get("api_version") or "")
