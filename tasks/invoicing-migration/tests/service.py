"""Bounded HTTP to the agent's server: however it misbehaves (hangs, resets, garbage),
each request waits at most REQUEST_TIMEOUT seconds and all of them BUDGET seconds, and
a failure is an answer (status 0), never a grader error."""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from typing import Any

REQUEST_TIMEOUT = 8.0
BUDGET = 60.0
_deadline = {"at": 0.0}


def call(method: str, url: str, body: Any = None) -> tuple[int, Any]:
    """(status, JSON body or text tail); status 0 when the server did not answer."""
    if not _deadline["at"]:
        _deadline["at"] = time.monotonic() + BUDGET
    left = _deadline["at"] - time.monotonic()
    if left <= 0:
        return 0, "the server used up the grader's time"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=min(REQUEST_TIMEOUT, left)) as response:
            status, raw = response.status, response.read(2_000_000)
    except urllib.error.HTTPError as exc:
        status = exc.code
        try:
            raw = exc.read(2_000_000)
        except OSError:
            raw = b""
    except (OSError, ValueError, http.client.HTTPException) as exc:
        return 0, f"no answer: {type(exc).__name__}: {exc}"
    try:
        return status, json.loads(raw)
    except (ValueError, RecursionError):
        return status, raw.decode("utf-8", "replace")[-300:]
