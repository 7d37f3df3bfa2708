"""transcript.jsonl, a trial's events: one JSON object per line, appended as things happen.

Several writers may share one file (the harness, an MCP server process serving an
external agent), so each event is one `write` of one line on a file opened for append.
Screenshots are saved next to it and referenced by relative path.

What a trial can make the harness keep on the host is capped in bytes: each text in an
event (a tool's arguments and result) at TEXT_LIMIT characters, the transcript at
TRANSCRIPT_LIMIT bytes (then one `transcript_full` event, and nothing more), each
screenshot at IMAGE_LIMIT and all of them at SCREENSHOTS_LIMIT bytes.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

TEXT_LIMIT = 20_000
TRANSCRIPT_LIMIT = 64 * 1024 * 1024
IMAGE_LIMIT = 8 * 1024 * 1024
SCREENSHOTS_LIMIT = 128 * 1024 * 1024


class Transcript:
    def __init__(self, path: Path | None) -> None:
        self.path = Path(path) if path else None
        self._lock = threading.Lock()
        self._shots = 0
        self._full = False
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)

    def add(self, kind: str, **fields: Any) -> None:
        if self.path is None:
            return
        event = {"type": kind, "t": round(time.time(), 3), **clipped(fields)}
        line = (json.dumps(event, default=str, ensure_ascii=False) + "\n").encode()
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                size = os.fstat(fd).st_size
                if size + len(line) > TRANSCRIPT_LIMIT:
                    if not self._full:  # said once per writer; later events are dropped
                        self._full = True
                        os.write(fd, json.dumps({"type": "transcript_full", "t": round(
                            time.time(), 3), "limit_bytes": TRANSCRIPT_LIMIT}).encode() + b"\n")
                    return
                os.write(fd, line)
            finally:
                os.close(fd)

    def save_image(self, png: bytes) -> str | None:
        """Save a screenshot; None when there is no transcript or the image (or all the
        trial's images together) would pass their byte limit."""
        if self.path is None or len(png) > IMAGE_LIMIT:
            return None
        folder = self.path.parent / "screenshots"
        try:
            kept = sum(entry.stat().st_size for entry in os.scandir(folder))
        except OSError:
            kept = 0
        if kept + len(png) > SCREENSHOTS_LIMIT:
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


def clipped(value: Any) -> Any:
    """`value` with every string in it clipped (a tool's arguments: a 16 MB file_text is
    kept as its first TEXT_LIMIT characters)."""
    if isinstance(value, str):
        return clip(value)
    if isinstance(value, dict):
        return {k: clipped(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clipped(v) for v in value[:1000]]
    return value


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
