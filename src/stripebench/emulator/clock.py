"""The simulated clock. Emulator logic never reads the wall clock.

Each account's clock starts at the server's start time and ticks one second per
mutating request, so `created` values increase and responses stay reproducible.
Test clocks (billing) keep their own frozen time on top of this.
"""

from __future__ import annotations

DEFAULT_START = 1_767_225_600  # 2026-01-01T00:00:00Z


class Clock:
    def __init__(self, start: int = DEFAULT_START) -> None:
        self.time = start

    def now(self) -> int:
        return self.time

    def tick(self, seconds: int = 1) -> int:
        self.time += seconds
        return self.time

    def advance_to(self, when: int) -> None:
        self.time = max(self.time, when)
