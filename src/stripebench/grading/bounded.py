"""Bounded HTTP to the agent's servers, for graders.

The servers are the agent's code: however they misbehave (hang, reset, answer garbage),
the grader must finish and score them 0, never time out or crash (a grader_error leaves
the task out of every mean, which would reward breaking what one cannot fix). So each
request waits at most `request_timeout` seconds, all of them together at most a budget,
and a failure is an answer (status 0).
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

REQUEST_TIMEOUT = 10.0
MAX_BODY = 2_000_000  # bytes of an answer read at most


class Budget:
    """Requests that together take at most `seconds` from the first one (or from the
    last `restart`), each at most `request_timeout`."""

    def __init__(self, seconds: float, request_timeout: float = REQUEST_TIMEOUT) -> None:
        self.seconds = seconds
        self.request_timeout = request_timeout
        self.deadline = 0.0

    def restart(self) -> None:
        self.deadline = time.monotonic() + self.seconds

    def call(self, method: str, url: str, body: Any = None) -> tuple[int, Any]:
        """(status, JSON body or text tail) of a request with an optional JSON body;
        status 0 when the server did not answer (timeout, reset, refused, out of budget)."""
        if not self.deadline:
            self.restart()
        left = self.deadline - time.monotonic()
        if left <= 0:
            return 0, "the server used up its share of the grader's time"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method,
                                         headers={"Content-Type": "application/json"}
                                         if data is not None else {})
        try:
            with urllib.request.urlopen(request, timeout=min(self.request_timeout, left)
                                        ) as response:
                status, raw = response.status, response.read(MAX_BODY)
        except urllib.error.HTTPError as exc:
            status = exc.code
            try:
                raw = exc.read(MAX_BODY)
            except OSError:
                raw = b""
        except (OSError, ValueError, http.client.HTTPException) as exc:
            return 0, f"no answer: {type(exc).__name__}: {exc}"
        try:
            return status, json.loads(raw)
        except (ValueError, RecursionError):
            return status, raw.decode("utf-8", "replace")[-300:]

    def get(self, url: str) -> tuple[int, Any]:
        return self.call("GET", url)

    def compare(self, cases: Sequence[tuple[str, Callable[[], Any], int]]) -> tuple[float, str]:
        """Fraction of (url, expected, status) GET cases answered exactly, and the first
        miss described."""
        good, first_miss = 0, ""
        for url, expected, want_status in cases:
            status, body = self.get(url)
            wanted = expected()
            if status == want_status and body == wanted:
                good += 1
            elif not first_miss:
                first_miss = (f"{url.split('/', 3)[-1]}: got {status} "
                              f"{json.dumps(body, sort_keys=True)[:600]}; expected "
                              f"{want_status} {json.dumps(wanted, sort_keys=True)[:600]}")
        return good / len(cases), first_miss
