"""Tamper evidence: what the walls caught in a trial, one table.

A trial record's `tamper` maps these keys to what was found (a count or a list). The
harness writes them; reports flag every trial with a FLAGGED entry. Evidence is not a
verdict: the walls already held (the score is the grader's), but a reader of the
results should know that an agent tried, on purpose or by accident.
"""

from __future__ import annotations

from typing import Any

# key -> what it means. Flagged: reports list the trial under "Tamper evidence".
FLAGGED: dict[str, str] = {
    "privileged_files_cleared": "files with set-id bits or file capabilities, cleared at "
                                "teardown",
    "launch_requests_refused": "requests to the grading room's launcher that were refused",
    "writable_folders_refused": "folders the grader may write that were not real folders "
                                "(a symlink in their place)",
    "shadowing_files": "files named like a module the grader imported, or .pth / "
                       "sitecustomize files (never imported: the grader runs isolated)",
}
# Recorded for the reader, not flagged: every trial's services are killed at teardown.
NOTED: dict[str, str] = {
    "agent_processes_killed_at_stop": "processes still running when the agent's sandbox "
                                      "stopped",
    "grading_processes_killed_at_stop": "processes still running when the grading room "
                                        "stopped",
}


def flagged(record: dict[str, Any]) -> dict[str, Any]:
    """The record's flagged tamper entries (empty when there are none)."""
    tamper = record.get("tamper") or {}
    return {key: value for key, value in tamper.items() if key in FLAGGED and value}


def describe(entries: dict[str, Any]) -> str:
    """One line: each flagged entry with its count and first items."""
    parts = []
    for key, value in entries.items():
        if isinstance(value, list):
            shown = ", ".join(str(v) for v in value[:3]) + (", ..." if len(value) > 3 else "")
            parts.append(f"{key} ({len(value)}: {shown})")
        else:
            parts.append(f"{key} ({value})")
    return "; ".join(parts)
