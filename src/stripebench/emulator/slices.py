"""Long work cut into slices: a generator yields between slices so a server can serve
other requests in between (`restoring.run`), or is driven straight through (`run_now`)."""

from __future__ import annotations

from collections.abc import Generator
from typing import TypeVar

T = TypeVar("T")
# A stage of work: yields None between slices, or the name of a point a test may pause at.
Steps = Generator[str | None, None, T]

SLICE_BYTES = 64 * 1024  # of JSON text read between two turns of the event loop
SLICE_OBJECTS = 250  # objects built or written between two turns


def run_now(steps: Steps[T]) -> T:
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
