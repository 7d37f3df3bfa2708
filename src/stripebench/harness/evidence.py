"""What a stopped sandbox leaves in the trial's record: the limits it ran without, the
limits it hit, and the tamper evidence (processes still running at its stop, set-id or
capability files it cleared). Written by every phase that runs a sandbox."""

from __future__ import annotations

from typing import Any

from .sandbox import Sandbox


def limits_record(record: dict[str, Any]) -> dict[str, Any]:
    """The trial's `limits` entry: what it ran under, what was missing, what it hit."""
    found: dict[str, Any] = record.setdefault("limits", {"unbounded": [], "breached": []})
    return found


def note_sandbox_end(record: dict[str, Any], phase: str, sandbox: Sandbox | None) -> None:
    """After a sandbox's stop(): the limits it hit, what had no cgroup, and the tamper
    evidence it left (processes still running at stop, set-id or capability files)."""
    if sandbox is None:
        return
    limits = limits_record(record)
    unbounded = getattr(sandbox, "unbounded", None)
    if unbounded and f"{phase}: {unbounded}" not in limits["unbounded"]:
        limits["unbounded"].append(f"{phase}: no cgroup ({unbounded})")
    for breach in getattr(sandbox, "breaches", []):
        limits["breached"].append({"phase": phase, "limit": breach})
    tamper = record.setdefault("tamper", {})
    killed = getattr(sandbox, "killed_at_stop", 0)
    if killed:
        tamper[f"{phase}_processes_killed_at_stop"] = killed
    cleared = getattr(sandbox, "cleared", [])
    if cleared:
        tamper.setdefault("privileged_files_cleared", []).extend(cleared)
