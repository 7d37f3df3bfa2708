"""transcript.jsonl, a trial's events: one JSON object per line, appended as things happen.

Several writers may share one file (the harness, an MCP server process serving an
external agent), so each event is one `write` of one line on a file opened for append.
Screenshots are saved next to it and referenced by relative path.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

TEXT_LIMIT = 20_000


class Transcript:
    def __init__(self, path: Path | None) -> None:
        self.path = Path(path) if path else None
        self._lock = threading.Lock()
        self._shots = 0
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)

    def add(self, kind: str, **fields: Any) -> None:
        if self.path is None:
            return
        event = {"type": kind, "t": round(time.time(), 3), **fields}
        line = json.dumps(event, default=str, ensure_ascii=False) + "\n"
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)

    def save_image(self, png: bytes) -> str | None:
        if self.path is None:
            return None
        with self._lock:
            self._shots += 1
            name = f"shot-{os.getpid()}-{self._shots:04d}.png"
        folder = self.path.parent / "screenshots"
        folder.mkdir(exist_ok=True)
        (folder / name).write_bytes(png)
        return f"screenshots/{name}"


def clip(text: str, limit: int = TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n[... {len(text) - limit} more]"


def read(path: Path) -> list[dict[str, Any]]:
    events = []
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut short by kill -9
            continue
    return events
