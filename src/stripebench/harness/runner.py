"""A run: every (task, attempt) trial of one agent, in parallel, resumable after kill -9.

The run directory (its layout, run.json, the trial records) belongs to stripebench.rundir;
this module decides which trials are still to do and runs them.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..rundir import (
    has_meta,
    load_result,
    needs_retry,
    read_meta,
    trial_dir,
    write_meta,
    write_result,
)
from .agents import Agent
from .emulator import Emulator, EmulatorDown
from .interventions import InterventionError, Interventions
from .task import Task
from .trial import TrialConfig, run_trial

# How often the emulator may die in one run before the run stops (it is restarted and
# the trials it took down are redone each time).
MAX_EMULATOR_RESTARTS = 3


class RunError(ValueError):
    pass


class RunStopped(RunError):
    """The run stopped before its end (the model endpoint failed): exit 1, not 2."""


# Statuses that stop the run: the endpoint is down or refusing, so every later trial
# would fail the same way after its retries.
STOPS_THE_RUN = ("endpoint_unreachable", "provider_refused")


@dataclass
class RunPlan:
    out: Path
    tasks: list[Task]
    agent_name: str
    model: str | None
    attempts: int = 1
    parallel: int = 1
    sandbox: str = "local"
    resume: bool = False
    retry_errors: bool = False
    agent_timeout: float | None = None
    max_turns: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    interventions: Interventions = field(default_factory=Interventions)
    provenance: dict[str, Any] = field(default_factory=dict)  # what the run is (provenance.py)

    def __post_init__(self) -> None:
        # Trials run setup commands and services from other directories: a relative
        # --out would point somewhere else for them.
        self.out = Path(self.out).absolute()


def prepare(plan: RunPlan) -> dict[str, Any]:
    """Create or reopen run.json; on resume the agent and model must match."""
    if has_meta(plan.out):
        meta = read_meta(plan.out)
        if not plan.resume:
            raise RunError(f"{plan.out} already holds a run; use --resume to finish it or "
                           "choose another --out")
        if (meta["agent"], meta.get("model")) != (plan.agent_name, plan.model):
            raise RunError(f"{plan.out} was run with agent {meta['agent']} model "
                           f"{meta.get('model')}; cannot resume with {plan.agent_name} "
                           f"{plan.model}")
        _same_interventions(plan, meta)
        meta["tasks"] = sorted(set(meta["tasks"]) | {t.id for t in plan.tasks})
        meta["attempts"] = max(meta["attempts"], plan.attempts)
        meta.setdefault("resumed", []).append(time.time())
        if plan.provenance and plan.provenance != meta.get("provenance"):
            # reports warn: the trials of this run were not all made by the same thing
            meta.setdefault("resumed_provenance", []).append(plan.provenance)
    else:
        plan.out.mkdir(parents=True, exist_ok=True)
        meta = {"run_id": f"{plan.out.name}-{secrets.token_hex(3)}", "name": plan.out.name,
                "agent": plan.agent_name, "model": plan.model,
                "tasks": [t.id for t in plan.tasks], "attempts": plan.attempts,
                "sandbox": plan.sandbox, "created": time.time(), **plan.extra,
                **({"label": plan.interventions.label} if plan.interventions.label else {}),
                "interventions": _prepare_interventions(plan),
                **({"provenance": plan.provenance} if plan.provenance else {})}
    write_meta(plan.out, meta)
    return meta


def _prepare_interventions(plan: RunPlan) -> dict[str, Any]:
    try:
        return plan.interventions.prepare(plan.out)
    except InterventionError as exc:
        raise RunError(str(exc)) from None


def _same_interventions(plan: RunPlan, meta: dict[str, Any]) -> None:
    """A resumed run must test what it started testing (or its arms would mix)."""
    def kept(record: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in record.items() if k != "tools_offered"}  # added later

    asked = _prepare_interventions(plan)
    label = plan.interventions.label
    if kept(asked) != kept(meta.get("interventions", {})) or (label and label != meta.get("label")):
        raise RunError(f"{plan.out} was started with other interventions "
                       f"({meta.get('label') or 'no label'}: {meta.get('interventions')}); "
                       "resume with the same --label, --system-prompt, "
                       "--system-prompt-addendum, --skills, --tools and --docs")


def pending(plan: RunPlan) -> tuple[list[tuple[Task, int]], int]:
    todo, done = [], 0
    for task in plan.tasks:
        for attempt in range(1, plan.attempts + 1):
            result = load_result(trial_dir(plan.out, task.id, attempt))
            if result is not None and not (plan.retry_errors and needs_retry(result)):
                done += 1
            else:
                todo.append((task, attempt))
    return todo, done


def execute(plan: RunPlan, make_agent: Callable[[], Agent],
            on_result: Callable[[dict[str, Any]], None] | None = None,
            emulator: Emulator | None = None,
            on_start: Callable[[str, int], None] | None = None) -> list[dict[str, Any]]:
    """Run every pending trial; return the results of the trials run now. `on_start`
    (task id, attempt) is called as each trial begins (progress)."""
    meta = prepare(plan)
    todo, _ = pending(plan)
    if not todo:
        return []
    own_emulator = emulator is None
    try:
        emulator = emulator or Emulator.start(data=plan.out / "emulator")
    except EmulatorDown as exc:
        raise RunError(str(exc)) from None
    config = TrialConfig(run_id=meta["run_id"], agent_name=plan.agent_name, model=plan.model,
                         sandbox=plan.sandbox, agent_timeout=plan.agent_timeout,
                         max_turns=plan.max_turns, interventions=plan.interventions)
    results: list[dict[str, Any]] = []
    lock = threading.Lock()

    broken: list[str] = []
    endpoint_failed: list[dict[str, Any]] = []

    def one(task: Task, attempt: int) -> dict[str, Any] | None:
        folder = trial_dir(plan.out, task.id, attempt)
        lost: list[str] = []
        while not broken and not endpoint_failed:
            if on_start is not None and not lost:
                on_start(task.id, attempt)
            result = run_trial(task, attempt, folder, make_agent(), emulator, config)
            if result["status"] in STOPS_THE_RUN:
                endpoint_failed.append(result)
            if result["status"] != "emulator_error":
                if lost:  # say so in the record of the try that counts
                    result["notes"] += [f"redone after the emulator died: {e}" for e in lost]
                    write_result(folder, result)
                return result
            if emulator.process is None or emulator.generation > MAX_EMULATOR_RESTARTS:
                broken.append(result["error"] or "the emulator died")
                return result
            lost.append(result["error"] or "")  # restarted already: redo from scratch
        return None

    try:
        with ThreadPoolExecutor(max(1, plan.parallel), thread_name_prefix="trial") as pool:
            futures = [pool.submit(one, task, attempt) for task, attempt in todo]
            for future in as_completed(futures):
                result = future.result()
                if result is None:
                    continue
                with lock:
                    results.append(result)
                if on_result is not None:
                    on_result(result)
    finally:
        if own_emulator:
            emulator.stop()
    if broken:
        log = f"; its log: {emulator.data / 'emulator.log'}" if emulator.data else ""
        raise RunError(f"the emulator died {emulator.generation + 1} time(s) in this run "
                       f"({broken[0]}){log}. The trials it took down are recorded as "
                       f"emulator_error; after fixing the cause: stripebench run --resume "
                       f"--retry-errors --out {plan.out}")
    if endpoint_failed:
        first = endpoint_failed[0]
        skipped = len(todo) - len(results)
        raise RunStopped(
            f"the run stopped: {first['task']} #{first['attempt']} ended "
            f"{first['status']} ({str(first.get('error') or '').splitlines()[0][:300]}). "
            f"{len(endpoint_failed)} trial(s) are recorded as errors (not scores), "
            f"{skipped} were not started; when the endpoint works again: stripebench run "
            f"--resume --retry-errors --out {plan.out} (with the same agent and model)")
    return results
