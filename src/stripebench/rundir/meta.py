"""run.json: what a run was asked to do (agent, model, tasks, attempts, sandbox, the
arm's interventions), read and written here; and the run's finished trial records.

Keys: schema (absent before 1), run_id, name, agent, model, tasks, attempts, sandbox,
created, resumed (times), label, interventions (see `describe`), provenance (what made
the run: versions, hashes of the tasks and of the guide corpus the docs tool served; a
resume made by something else appends to resumed_provenance), plus the agent's
options (context_budget, ...).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .atomic import read_json, write_json_atomic
from .layout import result_paths, run_json
from .record import TrialRecord, load_result

SCHEMA_VERSION = 1
# The agent's tools when runs recorded only the kept ones (before `offered` was written
# beside them): what "without ..." is measured against for those runs.
TOOLS_BEFORE_SCHEMA_1 = (
    "bash", "view", "create", "str_replace", "insert", "browser_navigate",
    "browser_snapshot", "browser_click", "browser_type", "browser_fill_form",
    "browser_select_option", "browser_press_key", "browser_take_screenshot",
    "browser_console_messages", "browser_network_requests", "browser_tabs",
    "browser_wait_for", "search_stripe_documentation", "submit")


class RunNotFound(ValueError):
    pass


def read_meta(out: Path) -> dict[str, Any]:
    """run.json, or RunNotFound."""
    meta = read_json(run_json(out))
    if not isinstance(meta, dict):
        raise RunNotFound(f"{out} is not a run directory (no readable run.json)")
    return meta


def has_meta(out: Path) -> bool:
    return run_json(out).exists()


def write_meta(out: Path, meta: dict[str, Any]) -> None:
    Path(out).mkdir(parents=True, exist_ok=True)
    write_json_atomic(run_json(out), {"schema": SCHEMA_VERSION, **meta})


def load_results(out: Path, sandbox: str | None = None) -> list[TrialRecord]:
    """Every finished trial of the run, upgraded to the current record schema, by task
    then attempt. `sandbox`: run.json's (for records older than their `sealed` field)."""
    found = []
    for path in result_paths(out):
        record = load_result(path.parent, sandbox)
        if record is not None:
            found.append(record)
    return found


def describe(meta: dict[str, Any]) -> dict[str, str]:
    """run.json's interventions in a few words each, for reports (empty: defaults)."""
    out = {}
    record = meta.get("interventions") or {}
    if meta.get("label"):
        out["label"] = str(meta["label"])
    if "system_prompt" in record:
        r = record["system_prompt"]
        out["system prompt"] = f"replaced by {Path(str(r['file'])).name} ({r['sha256'][:8]})"
    if "system_prompt_addendum" in record:
        r = record["system_prompt_addendum"]
        out["system prompt addendum"] = f"{Path(str(r['file'])).name} ({r['sha256'][:8]})"
    if "skills" in record:
        r = record["skills"]
        out["skills"] = f"{Path(str(r['dir'])).name}/: {len(r['files'])} file(s) " \
                        f"({r['sha256'][:8]})"
    if "tools" in record:
        offered = record.get("tools_offered") or TOOLS_BEFORE_SCHEMA_1
        out["tools"] = "without " + ", ".join(_collapse(
            [t for t in offered if t not in record["tools"]], offered))
    if "docs" in record:
        r = record["docs"]
        changed = ", ".join(r["replaced"] + r["added"])
        out["docs"] = f"{Path(str(r['dir'])).name}/ ({r['mode']}: {changed}) " \
                      f"({r['sha256'][:8]})"
    return out


def _collapse(names: list[str], offered: list[str] | tuple[str, ...]) -> list[str]:
    """`browser_*` for every browser tool rather than twelve names."""
    family = [t for t in offered if t.startswith("browser_")]
    if family and all(t in names for t in family):
        names = ["browser_*"] + [n for n in names if n not in family]
    return names or ["nothing"]
