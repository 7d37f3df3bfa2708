"""Results: the trial store of a run directory, best-of-N aggregation, reports."""

from .aggregate import RunSummary, TaskScore, summarize
from .store import Run, load_run

__all__ = ["Run", "RunSummary", "TaskScore", "load_run", "summarize"]
