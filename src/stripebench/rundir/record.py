"""The trial record: result.json, one per trial, typed, with a schema version.

The harness builds a record with `new_record` and writes it with `write_result` (last,
atomically: a trial is done exactly when result.json exists); everything that reads one
goes through `load_result`, which brings a record written by an older harness up to the
current schema (schema 0: before the field existed).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Required, TypedDict

from .atomic import read_json, write_json_atomic
from .layout import RESULT

# 1: `schema`, `sealed`, `task_version` and `setup_retries` added; statuses from
#    statuses.TABLE.
SCHEMA_VERSION = 1


class Submission(TypedDict):
    added: list[str]
    modified: list[str]
    deleted: list[str]


class TrialRecord(TypedDict, total=False):
    schema: Required[int]
    task: Required[str]
    task_version: Required[int | None]  # task.toml [metadata] version; None before schema 1
    category: Required[str]
    attempt: Required[int]
    run_id: Required[str]
    agent: Required[str]
    model: Required[str | None]
    status: Required[str]  # a row of statuses.TABLE
    sealed: Required[bool]  # False when the trial ran with --sandbox local
    reward: Required[float | None]
    subscores: Required[dict[str, float]]
    subproblems: dict[str, list[str]]
    turns: Required[int]
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    tool_calls: int
    error: Required[str | None]
    notes: Required[list[str]]
    setup_retries: int
    started: float
    finished: float
    wall_seconds: float
    setup_seconds: float
    agent_seconds: float
    grader_seconds: float
    teardown_seconds: float
    account: str
    ports: dict[str, int]
    submission: Submission
    agent_extra: dict[str, Any]
    executor: dict[str, Any]


def new_record(*, task: str, task_version: int | None, category: str, attempt: int,
               run_id: str, agent: str, model: str | None, sealed: bool,
               status: str = "setup_error", started: float = 0.0,
               subproblems: dict[str, list[str]] | None = None) -> TrialRecord:
    """A trial's record before anything happened: a set-up error until told otherwise."""
    return TrialRecord(schema=SCHEMA_VERSION, task=task, task_version=task_version,
                       category=category, attempt=attempt, run_id=run_id, agent=agent,
                       model=model, status=status, sealed=sealed, reward=None, subscores={},
                       subproblems=subproblems or {}, turns=0, input_tokens=0,
                       output_tokens=0, cost_usd=None, tool_calls=0, error=None, notes=[],
                       setup_retries=0, started=started)


def upgrade(raw: Mapping[str, Any], sandbox: str | None = None) -> TrialRecord:
    """A record of any schema as the current one. `sandbox`: run.json's, for records
    written before `sealed` existed (a bubblewrap trial was sealed, a local one not)."""
    record: dict[str, Any] = dict(raw)
    record.setdefault("schema", 0)
    record.setdefault("task_version", None)
    record.setdefault("sealed", (sandbox or "local") != "local")
    record.setdefault("setup_retries", 0)
    record.setdefault("category", "?")
    record.setdefault("model", None)
    record.setdefault("agent", "?")
    record.setdefault("run_id", "?")
    record.setdefault("reward", None)
    record.setdefault("subscores", {})
    record.setdefault("turns", 0)
    record.setdefault("error", None)
    record.setdefault("notes", [])
    record["turns"] = int(record["turns"] or 0)
    return record  # type: ignore[return-value]  # every Required key is now set


def load_result(trial_dir: Path, sandbox: str | None = None) -> TrialRecord | None:
    """The trial's record, upgraded, or None when the trial is not done (no result.json,
    or one that is not a record)."""
    raw = read_json(Path(trial_dir) / RESULT)
    if not isinstance(raw, dict) or not {"task", "attempt", "status"} <= raw.keys():
        return None
    return upgrade(raw, sandbox)


def write_result(trial_dir: Path, record: Mapping[str, Any]) -> None:
    """The trial's last write: after it, the trial is done."""
    write_json_atomic(Path(trial_dir) / RESULT, dict(record))
