"""Each account's request record: every API request it received, never silently cut.

The record replaces a ring buffer of the last 5,000 requests, which let a service hide one
request by sending 5,000 more after it. It is append-only:

- Entries (one compact JSON line each, in memory) are numbered `seq` 1, 2, 3, ... and are
  never removed while the account lives. They are held within a byte budget (`budget`,
  default DEFAULT_BUDGET per account, `stripebench emulator serve --request-budget`).
  When the budget runs out the record keeps the entries it has and stops taking new
  ones: `kept` stays, `dropped` counts what was not kept, and the read-out says the
  record is no longer `complete`. Nothing is dropped silently, nothing is overwritten:
  the held entries are always the unbroken run seq 1..kept, so an entry once read never
  changes, and a check that needs the whole record fails closed on one that is not.
- Counters never drop, whatever the budget: `total` requests, `unstamped` ones (no
  recording-proxy stamp) and, per stamp hash, how many carried it (`stamps`, at most
  MAX_STAMPS distinct hashes; requests with further hashes are counted in
  `other_stamps`). A grader that knows its own stamps and the `total` when its grading
  began can count exactly how many requests since then went around its proxies, without
  reading a single entry (grading/sdk_upgrade/service_copies.py).
- `began` tells what the record covers: `created` (the account's whole life on this
  server), `restored` (since a snapshot brought the account to this server) or
  `restarted` (since the emulator restarted from its data folder: requests before the
  restart are not in it, so it is not `complete`). Restoring a snapshot over an existing
  account keeps its record: the record is what the server received, not account state,
  and is never part of a snapshot. Deleting an account (or a reset) ends its record.

Everything here is bookkeeping of what arrived: no clock, no randomness.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

DEFAULT_BUDGET = 32 * 1024 * 1024  # bytes of entries per account: ~90,000 requests
MAX_STAMPS = 100  # distinct stamp hashes counted one by one
# What a held entry costs beyond its JSON: the bytes object and its slot in the list.
ENTRY_OVERHEAD = 41

Began = Literal["created", "restored", "restarted"]


@dataclass
class RequestRecord:
    budget: int = DEFAULT_BUDGET
    began: Began = "created"
    lines: list[bytes] = field(default_factory=list)  # entry seq n is lines[n - 1]
    used: int = 0  # bytes the held entries cost (see ENTRY_OVERHEAD)
    total: int = 0
    unstamped: int = 0
    stamps: dict[str, int] = field(default_factory=dict)
    other_stamps: int = 0

    @property
    def kept(self) -> int:
        return len(self.lines)

    @property
    def dropped(self) -> int:
        return self.total - len(self.lines)

    @property
    def complete(self) -> bool:
        """Every request the account received on this server is held here."""
        return self.dropped == 0 and self.began != "restarted"

    def add(self, entry: dict[str, Any], stamp_hash: str | None) -> int:
        """Count a request and hold its entry (given its `seq`) if the budget allows;
        returns the request's seq."""
        self.total += 1
        seq = self.total
        if stamp_hash is None:
            self.unstamped += 1
        elif stamp_hash in self.stamps or len(self.stamps) < MAX_STAMPS:
            self.stamps[stamp_hash] = self.stamps.get(stamp_hash, 0) + 1
        else:
            self.other_stamps += 1
        # Once one entry is dropped every later one is too: what is held is always
        # the unbroken run seq 1..kept, and `dropped` names the rest.
        if self.kept == seq - 1:
            line = orjson.dumps({"seq": seq, **entry})
            cost = len(line) + ENTRY_OVERHEAD
            if self.used + cost <= self.budget:
                self.lines.append(line)
                self.used += cost
        return seq

    def summary(self) -> dict[str, Any]:
        """The counters and what the record covers (every read-out starts with these)."""
        return {"total": self.total, "kept": self.kept, "dropped": self.dropped,
                "complete": self.complete, "began": self.began,
                "budget_bytes": self.budget, "used_bytes": self.used,
                "unstamped": self.unstamped, "stamps": dict(self.stamps),
                "other_stamps": self.other_stamps}

    def page(self, after: int, limit: int) -> tuple[list[bytes], bool]:
        """Held entries with seq > `after`, at most `limit`, and whether more are held."""
        start = min(after, self.kept)
        lines = self.lines[start:start + limit]
        return lines, start + len(lines) < self.kept
