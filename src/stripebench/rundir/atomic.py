"""Atomic writes of the run record's JSON files: a reader sees the old file or the whole
new one, never half of it (a trial is done exactly when its result.json exists)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any


def write_json_atomic(path: Path, data: Any) -> None:
    """Write-then-rename, fsynced."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "w") as handle:
        json.dump(data, handle, indent=2, default=str)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def read_json(path: Path) -> Any | None:
    """The JSON in `path`, or None when it is missing or unreadable (never half-written:
    every writer goes through write_json_atomic)."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None
