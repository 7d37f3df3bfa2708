"""Read a run directory written by the harness (see harness/runner.py for its layout)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Run:
    path: Path
    meta: dict[str, Any]
    trials: list[dict[str, Any]] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return str(self.meta.get("run_id", self.path.name))

    @property
    def model(self) -> str:
        return str(self.meta.get("model") or self.meta.get("agent", "?"))

    @property
    def label(self) -> str:
        if self.meta.get("label"):  # an experiment's arm (run --label)
            return str(self.meta["label"])
        agent, model = self.meta.get("agent", "?"), self.meta.get("model")
        return f"{agent}:{model}" if model else str(agent)

    def trial_dir(self, trial: dict[str, Any]) -> Path:
        return self.path / "trials" / trial["task"] / str(trial["attempt"])

    @property
    def unfinished(self) -> list[str]:
        """Planned trials without a result (an interrupted run), as "task #attempt"."""
        done = {(t["task"], t["attempt"]) for t in self.trials}
        attempts = int(self.meta.get("attempts") or 1)
        return [f"{task} #{n}" for task in self.meta.get("tasks") or []
                for n in range(1, attempts + 1) if (task, n) not in done]


class RunNotFound(ValueError):
    pass


def load_run(path: Path) -> Run:
    path = Path(path)
    meta_path = path / "run.json"
    if not meta_path.is_file():
        raise RunNotFound(f"{path} is not a run directory (no run.json)")
    meta = json.loads(meta_path.read_text())
    trials = []
    for result in sorted((path / "trials").glob("*/*/result.json")):
        try:
            trials.append(json.loads(result.read_text()))
        except json.JSONDecodeError:
            continue  # cannot happen with atomic writes, but never crash a report
    trials.sort(key=lambda t: (t["task"], t["attempt"]))
    return Run(path, meta, trials)
