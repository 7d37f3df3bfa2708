"""Each account's API requests as graders and the harness read them.

A grader that runs the agent's services behind a recording proxy must know that nothing
went around the proxy (a service can hard-code the emulator's address). The proxy stamps
what it forwards with a secret of the grader's (`Stripebench-Recorded-By`); the record
keeps only that stamp's SHA-256, so reading it (`GET /_stripebench/request_log` with the
account's secret key) tells a service nothing it could stamp its own requests with.
Requests made on a connected account (Stripe-Account) are recorded under the platform
whose key made them, naming the connected account.

What is kept, and how a full budget is reported rather than hidden, is the account's
RequestRecord (request_record.py). Reading it, here and on the control plane
(`GET /_emulator/accounts/<id>/requests`), takes two parameters and nothing else:

    after  the seq of the last entry already read (default 0: from the first)
    limit  how many entries at most (default 10,000, at most 100,000; 0 for only the
           counters)

and answers the record's counters (`total`, `kept`, `dropped`, `complete`, `began`,
`unstamped`, `stamps`, ...), `has_more`, and `data`: the held entries after `after`,
oldest first. Anything else in the query is a 400 naming it.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl

import orjson

from .errors import InvalidRequest
from .http import Request, Response

if TYPE_CHECKING:
    from .account import Account
    from .request_record import RequestRecord

STAMP_HEADER = "stripebench-recorded-by"
READ_PATH = "/_stripebench/request_log"
DEFAULT_LIMIT = 10_000
MAX_LIMIT = 100_000
_NUMBER = re.compile(r"\d{1,18}", re.ASCII)


def record(owner: Account, acting: Account, request: Request, path: str, response: Response,
           request_id: str) -> None:
    stamp = request.header(STAMP_HEADER)
    stamp_hash = hashlib.sha256(stamp.encode("latin-1")).hexdigest() if stamp else None
    owner.record.add({"id": request_id, "method": request.method, "path": path,
                      "query": request.query, "status": response.status,
                      "version": response.headers.get("stripe-version", ""),
                      "idempotency_key": request.header("idempotency-key") or None,
                      "user_agent": request.header("user-agent")[:300],
                      "recorded_by": stamp_hash,
                      **({"account": acting.id} if acting is not owner else {}),
                      "time": acting.clock.now()}, stamp_hash)


def _number(name: str, text: str, high: int) -> int:
    if not _NUMBER.fullmatch(text) or int(text) > high:
        raise InvalidRequest(f"Invalid {name}: {text[:40]!r} is not an integer from 0 to "
                             f"{high}.", param=name)
    return int(text)


def read_params(query: str, total: int) -> tuple[int, int]:
    """`after` and `limit` from a raw query string; a Stripe-shaped 400 naming any
    parameter that is unknown, repeated or out of range."""
    values: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name not in ("after", "limit"):
            raise InvalidRequest(f"Received unknown parameter: {name[:100]}. The request "
                                 "log takes `after` (a seq) and `limit`.", param=name[:100])
        if name in values:
            raise InvalidRequest(f"Invalid {name}: given more than once.", param=name)
        values[name] = value
    after = _number("after", values.get("after", "0"), 10**18)
    if after > total:
        raise InvalidRequest(f"Invalid after: {after} is past the last request of this "
                             f"record (seq {total}).", param="after")
    limit = _number("limit", values["limit"], MAX_LIMIT) if "limit" in values \
        else DEFAULT_LIMIT
    return after, limit


def read(record_: RequestRecord, query: str, url: str) -> Response:
    """One page of the record, its counters first (see the module's docstring)."""
    after, limit = read_params(query, record_.total)
    lines, more = record_.page(after, limit)
    head = orjson.dumps({"object": "list", "url": url, **record_.summary(), "after": after,
                         "has_more": more})
    body = head[:-1] + b',"data":[' + b",".join(lines) + b"]}"
    return Response(200, body, {"content-type": "application/json"})
