"""Each account's log of the API requests it received, and its read-out for graders.

A grader that runs the agent's services behind a recording proxy must know that nothing
went around the proxy (a service can hard-code the emulator's address). The proxy stamps
what it forwards with a secret of the grader's (`Stripebench-Recorded-By`); the log keeps
only that stamp's SHA-256, so reading the log (`GET /_stripebench/request_log` with the
account's secret key) tells a service nothing it could stamp its own requests with.
Requests made on a connected account (Stripe-Account) are logged under the platform
whose key made them, naming the connected account.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from .http import Request, Response
from .store import REQUEST_LOG_LIMIT

if TYPE_CHECKING:
    from .store import Account

STAMP_HEADER = "stripebench-recorded-by"
READ_PATH = "/_stripebench/request_log"


def record(owner: Account, acting: Account, request: Request, path: str, response: Response,
           request_id: str) -> None:
    stamp = request.header(STAMP_HEADER)
    log = owner.requests
    log.append({"id": request_id, "method": request.method, "path": path,
                "query": request.query, "status": response.status,
                "version": response.headers.get("stripe-version", ""),
                "idempotency_key": request.header("idempotency-key") or None,
                "user_agent": request.header("user-agent")[:300],
                "recorded_by": hashlib.sha256(stamp.encode("latin-1")).hexdigest()
                if stamp else None,
                **({"account": acting.id} if acting is not owner else {}),
                "time": acting.clock.now()})
    if len(log) > REQUEST_LOG_LIMIT + 500:  # trim in batches: one shift per 500 requests
        del log[: len(log) - REQUEST_LOG_LIMIT]


def read(owner: Account, query: dict[str, str]) -> Response:
    """The log, oldest first; `after=<request id>` keeps only what came after that one
    (the whole log when it is no longer held)."""
    entries: list[dict[str, Any]] = owner.requests
    after = query.get("after")
    if after:
        for position in range(len(entries) - 1, -1, -1):
            if entries[position]["id"] == after:
                entries = entries[position + 1:]
                break
    return Response.json({"object": "list", "url": READ_PATH, "data": entries})
