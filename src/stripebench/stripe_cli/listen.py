"""`stripebench emulator listen`: forward events to a local URL as `stripe listen` does.

The account's events (and, with `--forward-connect-to`, its connected accounts' events)
are polled from `/v1/events` and POSTed oldest first, each signed with one `whsec_`
secret printed at start (stable for an account key, like the CLI's), so the receiving
app's `construct_event` accepts them. Only events created after listening began are sent.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..emulator.resources.webhooks import sign


def listen_secret(secret_key: str) -> str:
    return "whsec_" + hashlib.sha256(f"listen:{secret_key}".encode()).hexdigest()[:40]


@dataclass
class Listener:
    api_base: str
    secret_key: str
    forward_to: str | None
    forward_connect_to: str | None = None
    events: set[str] = field(default_factory=set)  # empty: every event
    secret: str = ""
    cursors: dict[str, str | None] = field(default_factory=dict)  # account ("" = own) -> id

    def __post_init__(self) -> None:
        self.secret = self.secret or listen_secret(self.secret_key)
        self.http = httpx.Client(base_url=self.api_base.rstrip("/"), timeout=15,
                                 headers={"Authorization": f"Bearer {self.secret_key}"})

    def _get(self, path: str, params: dict[str, Any], account: str = "") -> dict[str, Any]:
        headers = {"Stripe-Account": account} if account else {}
        response = self.http.get(path, params=params, headers=headers)
        response.raise_for_status()
        data: dict[str, Any] = response.json()
        return data

    def _accounts(self) -> list[str]:
        found = [""]
        if self.forward_connect_to:
            page = self._get("/v1/accounts", {"limit": 100})
            found += [a["id"] for a in page["data"]]
        return found

    def start(self) -> None:
        """Remember where each account's event stream stands now."""
        for account in self._accounts():
            newest = self._get("/v1/events", {"limit": 1}, account)["data"]
            self.cursors[account] = newest[0]["id"] if newest else None

    def _new_events(self, account: str) -> Iterator[dict[str, Any]]:
        cursor = self.cursors.get(account)
        if account not in self.cursors:
            self.cursors[account] = None  # an account made while listening: all of it
        while True:
            params: dict[str, Any] = {"limit": 100}
            if cursor:
                params["ending_before"] = cursor
            page = self._get("/v1/events", params, account)
            fresh = list(reversed(page["data"]))  # oldest first
            if not fresh:
                return
            yield from fresh
            cursor = fresh[-1]["id"]
            self.cursors[account] = cursor
            if not page["has_more"] and cursor:
                return

    def poll(self, send: Callable[[str, bytes, str], int | None]) -> int:
        """Forward what arrived since the last poll; returns how many were sent."""
        sent = 0
        for account in self._accounts():
            target = self.forward_connect_to if account else self.forward_to
            for event in self._new_events(account):
                if not target or (self.events and event["type"] not in self.events):
                    continue
                payload = json.dumps(event, indent=2).encode()
                header = sign(self.secret, int(time.time()), payload)
                send(target, payload, header)
                sent += 1
        return sent


def post(url: str, payload: bytes, header: str) -> int | None:
    try:
        response = httpx.post(url, content=payload, timeout=10, headers={
            "Content-Type": "application/json; charset=utf-8", "Stripe-Signature": header,
            "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)"})
    except httpx.HTTPError:
        return None
    return response.status_code
