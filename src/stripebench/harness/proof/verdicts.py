"""What a variant must score.

Mutant: total < 1.0; every check it `loses` below 1.0 (a fractional check counts if it
drops at all); every other check exactly 1.0 (a check left out of the reward counts 0,
except after a gate the mutant breaks: a grader may stop at a failed gate).
Alternative: total 1.0 and every check 1.0.
A trial that did not complete, or repeated trials whose subscores differ, fail too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .variants import Variant


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reward: float | None
    message: str


def _fmt(scores: Mapping[str, float], names: Sequence[str]) -> str:
    return ", ".join(f"{n} {scores.get(n, 0.0):.2f}" for n in names)


def judge(variant: Variant, reward: float | None, subscores: Mapping[str, float],
          status: str = "completed", checks: Sequence[str] = ()) -> Verdict:
    """The verdict on one graded trial of `variant`. `checks`: every check the
    requirement table names; one the reward leaves out (a grader stopped early) scores 0."""
    if status != "completed" or reward is None:
        return Verdict(False, reward, f"trial {status}, no score")
    if not _gate_failed(variant, subscores):
        subscores = {**{c: 0.0 for c in checks}, **subscores}
    if variant.kind == "alternative":
        low = [n for n, v in subscores.items() if v < 1.0]
        if reward < 1.0 or low:
            return Verdict(False, reward, f"scores {reward:.3f}, below 1.0: "
                                          f"{_fmt(subscores, low) or 'total only'}")
        return Verdict(True, reward, "1.0")
    failures = []
    if reward >= 1.0:
        failures.append("scores 1.0")
    kept = [n for n in variant.loses if subscores.get(n, 0.0) >= 1.0]
    collateral = [n for n, v in subscores.items() if n not in variant.loses and v < 1.0]
    if kept:
        failures.append(f"keeps full marks on {', '.join(kept)}")
    if collateral:
        failures.append(f"also loses {_fmt(subscores, collateral)}")
    if failures:
        return Verdict(False, reward, f"{reward:.3f}: " + "; ".join(failures))
    return Verdict(True, reward, f"{reward:.3f}, loses {_fmt(subscores, variant.loses)}")


def _gate_failed(variant: Variant, subscores: Mapping[str, float]) -> bool:
    """A mutant that breaks a gate (`gate:<name>` in `loses`) and fails it: a grader may
    stop there (the total is 0 anyway), so the checks it never ran are not held against
    the mutant; those it did run must still be 1.0."""
    return variant.kind == "mutant" and any(
        name.startswith("gate:") and subscores.get(name, 1.0) < 1.0 for name in variant.loses)


def same_scores(runs: Sequence[tuple[float | None, Mapping[str, float]]]) -> str:
    """'' when every repeated trial gave the same total and subscores, else what differs."""
    if len(runs) < 2:
        return ""
    first_total, first = runs[0]
    for n, (total, scores) in enumerate(runs[1:], start=2):
        if total != first_total or dict(scores) != dict(first):
            changed = sorted(k for k in set(first) | set(scores)
                             if first.get(k) != scores.get(k))
            return f"run {n} differs from run 1 (total {first_total} vs {total}" + \
                (f"; {', '.join(changed)}" if changed else "") + ")"
    return ""
