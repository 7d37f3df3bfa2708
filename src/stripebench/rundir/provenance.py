"""run.json's `provenance` (written by harness/provenance.py) compared across runs: the
lines `report` and `compare` print when the runs they put together were not made by the
same code, tasks, docs, emulator, SDKs, sandbox, toolchains or options.

The agent, model, label and interventions are what runs are put together to compare:
they are not differences to warn about; nor is how the trials were scheduled (parallel,
executor).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# How trials were scheduled, not what they measure: recorded, never warned about.
NOT_COMPARED = {"options.parallel", "options.executor"}
# flattened key -> how a reader names it
NAMES = {"stripebench": "stripebench version", "commit": "git commit",
         "dirty": "uncommitted changes", "gym_seed": "gym seed",
         "docs_guides_sha256": "docs guides", "emulator_api_version": "emulator API version",
         "sandbox": "sandbox", "sealed": "sealed"}


def flatten(provenance: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in provenance.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


def _shown(value: Any) -> str:
    text = "—" if value is None else str(value)
    return text[:12] if len(text) == 64 or len(text) == 40 else text  # hashes, commits


def _label(key: str) -> str:
    if key.startswith("tasks."):
        task, _, what = key[len("tasks."):].rpartition(".")
        return f"task {task} ({'files' if what == 'sha256' else what})"
    if key.startswith(("sdks.", "tools.", "options.")):
        return key.split(".", 1)[1]
    return NAMES.get(key, key)


def differences(runs: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """One line per provenance entry on which the runs (name, run.json) disagree, and per
    run that lacks a provenance or was resumed under another one."""
    lines = []
    flat = [(name, flatten(meta.get("provenance") or {})) for name, meta in runs]
    missing = [name for name, meta in runs if not meta.get("provenance")]
    if missing and len(runs) > 1:
        lines.append(f"no record of what made {', '.join(missing)} (a run older than "
                     "run.json's provenance): cannot check they are the same benchmark")
    for name, meta in runs:
        if meta.get("resumed_provenance"):
            lines.append(f"{name} was resumed with other code, tasks or tools than it "
                         "started with (run.json: resumed_provenance)")
    present = [(name, values) for name, values in flat if values]
    if len(present) < 2:
        return lines
    keys = sorted({k for _, values in present for k in values} - NOT_COMPARED)
    for key in keys:
        if key.startswith("tasks.") and any(key not in values for _, values in present):
            continue  # a task only some runs ran: compare lists those apart
        seen = [(name, values.get(key)) for name, values in present]
        if len({repr(v) for _, v in seen}) > 1:
            lines.append(f"{_label(key)} differs: " + ", ".join(
                f"{name} {_shown(value)}" for name, value in seen))
    return lines
