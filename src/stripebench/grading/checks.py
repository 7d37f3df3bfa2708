"""Weighted checks that add up to a reward.json."""

from __future__ import annotations

import json
import math
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .environment import reward_path


@dataclass
class CheckResult:
    name: str
    weight: float
    score: float
    message: str = ""


# beside reward.json: the top-level modules the grader imported
IMPORTED_MODULES = "imported_modules.json"


@dataclass
class Grader:
    """Collects named, weighted checks; `write()` emits reward.json."""

    results: list[CheckResult] = field(default_factory=list)
    verbose: bool = True

    def check(self, name: str, weight: float, fn: Callable[[], Any] | bool | float,
              message: str = "") -> float:
        if weight < 0:
            raise ValueError("a check's weight cannot be negative")
        if any(r.name == name for r in self.results):
            raise ValueError(f"check {name!r} is defined twice")
        try:
            value = fn() if callable(fn) else fn
            score = _as_score(value)
        except Exception as exc:  # a broken submission scores 0; the grader goes on
            score = 0.0
            message = message or f"{type(exc).__name__}: {exc}"
            if os.environ.get("STRIPEBENCH_GRADER_DEBUG"):
                traceback.print_exc()
        self.results.append(CheckResult(name, float(weight), score, message))
        if self.verbose:
            mark = "PASS" if score == 1.0 else ("FAIL" if score == 0.0 else f"{score:.2f}")
            print(f"[{mark}] {name} (weight {weight:g}){': ' + message if message else ''}",
                  flush=True)
        return score

    def gate(self, name: str, fn: Callable[[], Any] | bool) -> bool:
        """A zero-weight check whose failure zeroes the total (e.g. "the app still runs")."""
        self.check(f"gate:{name}", 0, fn)
        return self.results[-1].score == 1.0

    @property
    def total(self) -> float:
        if any(r.name.startswith("gate:") and r.score < 1.0 for r in self.results):
            return 0.0
        weight = sum(r.weight for r in self.results)
        if weight == 0:
            return 0.0
        return sum(r.weight * r.score for r in self.results) / weight

    def reward(self) -> dict[str, Any]:
        return {"total": round(self.total, 6),
                "subscores": {r.name: r.score for r in self.results},
                "weights": {r.name: r.weight for r in self.results},
                "messages": {r.name: r.message for r in self.results if r.message}}

    def write(self, path: Path | None = None) -> dict[str, Any]:
        reward = self.reward()
        target = Path(path) if path else reward_path()
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".tmp")
        tmp.write_text(json.dumps(reward, indent=2))
        tmp.replace(target)
        # what this grader imported, by top-level name: the harness looks for files of
        # the submission named like them (tamper evidence, see rundir/tamper.py)
        names = sorted({name.split(".")[0] for name in sys.modules if name})
        (target.parent / IMPORTED_MODULES).write_text(json.dumps(names))
        if self.verbose:
            print(f"total {reward['total']:.3f}", flush=True)
        return reward


def _as_score(value: Any) -> float:
    if value is None:
        raise ValueError("check returned None (return a bool or a number in [0, 1])")
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    score = float(value)
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        raise ValueError(f"check returned {value!r}, outside [0, 1]")
    return score
