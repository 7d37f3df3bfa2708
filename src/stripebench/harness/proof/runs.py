"""Each variant as one oracle trial whose solution is the variant's folder, run through
the ordinary trial path (runner.execute -> trial.run_trial and its one grading step):
no model, no extra phase."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agents.simple import OracleAgent
from ..emulator import Emulator
from ..runner import RunPlan, execute, trial_dir
from ..task import Task
from .variants import Variant, build_solution


@dataclass
class Trials:
    """The graded trials of one solution folder (the reference or a variant)."""

    label: str
    results: list[dict[str, Any]] = field(default_factory=list)

    @property
    def first(self) -> dict[str, Any]:
        return self.results[0] if self.results else {"status": "no result", "reward": None,
                                                     "subscores": {}}

    def scores(self) -> list[tuple[float | None, dict[str, float]]]:
        return [(r.get("reward"), dict(r.get("subscores") or {})) for r in self.results]


def weights_of(out: Path, task_id: str, attempt: int = 1) -> dict[str, float]:
    """The check weights the grader wrote into a trial's reward.json."""
    try:
        data = json.loads((trial_dir(out, task_id, attempt) / "reward.json").read_text())
        return {str(k): float(v) for k, v in (data.get("weights") or {}).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def own_accounts(emulator: Emulator, label: str) -> Emulator:
    """The same emulator server, but trial account ids of this solution's own: the
    variants of one task run side by side and would otherwise share (and delete) each
    other's account, since an account id is derived from the task and attempt."""
    handle = copy.copy(emulator)
    handle.account_salt = f"{emulator.account_salt}:{label}"
    return handle


def run_solution(task: Task, solution: Path | None, out: Path, emulator: Emulator,
                 sandbox: str, label: str, attempts: int = 1) -> Trials:
    """`attempts` oracle trials of `solution` (None: the task's reference), kept in
    `out`."""
    if out.exists():  # an earlier check: prove anew
        shutil.rmtree(out)
    plan = RunPlan(out=out, tasks=[task], agent_name="oracle", model=None,
                   attempts=attempts, sandbox=sandbox, extra={"variant": label})
    results = execute(plan, lambda: OracleAgent(solution),
                      emulator=own_accounts(emulator, label))
    return Trials(label, sorted(results, key=lambda r: r["attempt"]))


def run_variants(task: Task, variants: list[Variant], out: Path, emulator: Emulator,
                 sandbox: str, repeat: int = 1, parallel: int = 1,
                 on_done: Callable[[Variant, Trials], None] | None = None
                 ) -> dict[str, Trials]:
    """Every variant of `task` (mutants `repeat` times, alternatives once); label ->
    trials."""
    def one(variant: Variant) -> Trials:
        folder = out / variant.kind / variant.name
        solution = build_solution(variant, task.solution, folder / "solution")
        attempts = repeat if variant.kind == "mutant" else 1
        trials = run_solution(task, solution, folder / "run", emulator, sandbox,
                              variant.label, attempts)
        if on_done is not None:
            on_done(variant, trials)
        return trials

    with ThreadPoolExecutor(max(1, parallel), thread_name_prefix="variant") as pool:
        done = list(pool.map(one, variants))
    return {v.label: t for v, t in zip(variants, done, strict=True)}
