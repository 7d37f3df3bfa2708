"""A trial's emulator_requests.json, read in its current shape whatever wrote it.

Now: the account's whole request record (emulator/request_record.py) with each trial
phase's seq range (harness/trial.py `save_requests`; docs/harness.md). Before: a plain
list of the emulator's ring buffer at the end of the agent phase, at most the last 5,000
requests (trimmed from 5,500), no `seq`, no grading. Such a list is read as a record
that is `complete` only when it is shorter than 5,000 (it was never trimmed then), with
`total` unknown (None) when it is not, and no phases.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .atomic import read_json
from .layout import REQUESTS

OLD_RING = 5_000


def load_requests(trial: Path) -> dict[str, Any] | None:
    """The trial's request record, or None when the file is missing or unreadable."""
    data = read_json(Path(trial) / REQUESTS)
    if isinstance(data, dict) or data is None:
        return data
    entries = list(data)
    whole = len(entries) < OLD_RING
    return {"object": "emulator.request_record", "legacy_ring_buffer": True,
            "total": len(entries) if whole else None, "kept": len(entries),
            "dropped": 0 if whole else None, "complete": whole, "phases": {},
            "data": entries}
