"""A run as reports see it: run.json and its trial records, read through stripebench.rundir
(older records come upgraded to the current schema)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..rundir import RunNotFound, load_results, read_meta, trial_dir
from ..rundir.provenance import differences

__all__ = ["UNSEALED", "Run", "RunNotFound", "load_run", "unsealed_line", "warnings"]

UNSEALED = "unsealed: scores are not comparable"


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
        return trial_dir(self.path, trial["task"], int(trial["attempt"]))

    @property
    def unsealed(self) -> bool:
        """Some trial ran outside a sealed room (--sandbox local): its agent could reach
        the grader's inputs, so the run's scores are not comparable with sealed ones."""
        return any(t.get("sealed") is False for t in self.trials)

    @property
    def unfinished(self) -> list[str]:
        """Planned trials without a result (an interrupted run), as "task #attempt"."""
        done = {(t["task"], t["attempt"]) for t in self.trials}
        attempts = int(self.meta.get("attempts") or 1)
        return [f"{task} #{n}" for task in self.meta.get("tasks") or []
                for n in range(1, attempts + 1) if (task, n) not in done]


def load_run(path: Path) -> Run:
    path = Path(path)
    meta = read_meta(path)
    trials: list[dict[str, Any]] = [{**record} for record in
                                    load_results(path, meta.get("sandbox"))]
    return Run(path, meta, trials)


def unsealed_line(runs: list[Run]) -> list[str]:
    """The warning every report opens with when any trial of a run was not sealed."""
    names = [run.label for run in runs if run.unsealed]
    return [f"{UNSEALED} ({', '.join(names)})"] if names else []


def warnings(runs: list[Run]) -> list[str]:
    """Every report's opening warnings: unsealed trials, then each way the runs put
    together were not made by the same benchmark (rundir/provenance.py)."""
    labels = [run.label for run in runs]
    names = [f"{label} ({run.path.name})" if labels.count(label) > 1 else label
             for label, run in zip(labels, runs, strict=True)]
    return unsealed_line(runs) + [f"not the same benchmark: {line}" for line in
                                  differences(list(zip(names, [r.meta for r in runs],
                                                       strict=True)))]
