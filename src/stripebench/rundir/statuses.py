"""The trial statuses: one table saying what each does to the scores.

Every trial ends with exactly one status, never a silent score. For each:

- scored:   the grader's reward counts (best of N per task, paired comparisons);
- zero:     the agent's own outcome without a reward that counts: the trial is worth 0
            (it is graded anyway, for information, when the agent got that far);
- retried:  an error `stripebench run --resume --retry-errors` redoes;
- left_out: the trial says nothing about the agent and the agent could not have caused
            it: left out of the means and of paired comparisons, and listed.

Every status that is not scored is listed in reports. At the level of a task: its score
is its best scored attempt; a task with no scored attempt counts 0 in the category and
overall means (an agent cannot drop a task from the means by breaking its trials), unless
every one of its attempts is `left_out`, and then the task is left out of the means and
listed as not measured. In a paired comparison a trial that is neither scored nor zero
voids its pair (the pair is dropped and listed).

Set-up that was retried is no status: the record's `setup_retries` counts the retries and
a note says why; the trial's status is what happened after them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Status:
    name: str
    scored: bool = False
    zero: bool = False
    retried: bool = False
    left_out: bool = False
    meaning: str = ""


TABLE: tuple[Status, ...] = (
    Status("completed", scored=True, meaning="the agent finished (submitted or stopped)"),
    Status("turn_limit", scored=True, meaning="the agent used all its turns; its work is "
           "graded as it stands"),
    Status("agent_timeout", zero=True, meaning="the agent hung past its time limit"),
    Status("agent_error", zero=True, meaning="the agent crashed"),
    Status("limit_breached", zero=True, meaning="the trial exceeded a process, memory, "
           "disk or time limit of its sealed room: the agent's doing, like a crash"),
    Status("setup_error", retried=True, meaning="materializing the workdir, seeding or "
           "the task's set-up failed before the agent"),
    Status("service_error", retried=True, meaning="the task's services did not start "
           "before the agent"),
    Status("grader_error", retried=True, meaning="the grader crashed, timed out or wrote "
           "no valid reward.json"),
    Status("harness_error", retried=True, meaning="the agent finished but the harness could "
           "not grade it (final snapshot, request log, or no reward came back)"),
    Status("emulator_error", retried=True, meaning="the emulator died during the trial (the "
           "runner restarts it and redoes the trial)"),
    Status("budget_stopped", retried=True, left_out=True, meaning="a real-model run's cost "
           "budget ran out: the run stopped, not the agent; resume with more budget"),
    Status("provider_refused", retried=True, left_out=True, meaning="the model provider "
           "refused or rate-limited the requests beyond the retries"),
    Status("endpoint_unreachable", retried=True, left_out=True, meaning="the model endpoint "
           "could not be reached"),
)
BY_NAME = {status.name: status for status in TABLE}
# A status this code does not know (a newer harness's record): listed, counts 0 like an
# error, never redone by a harness that does not know what it means.
UNKNOWN = Status("unknown", meaning="a status this version does not know")

SCORED = tuple(s.name for s in TABLE if s.scored)
ZERO = tuple(s.name for s in TABLE if s.zero)
RETRYABLE = tuple(s.name for s in TABLE if s.retried)
LEFT_OUT = tuple(s.name for s in TABLE if s.left_out)


def status(name: str) -> Status:
    return BY_NAME.get(name, UNKNOWN)


def counts(record: Mapping[str, object]) -> bool:
    """True when the trial's reward counts: a scored status with a reward (an older
    harness wrote `completed` with no reward when grading failed)."""
    return status(str(record.get("status"))).scored and record.get("reward") is not None


def is_zero(record: Mapping[str, object]) -> bool:
    """The agent's own failure: worth 0."""
    return status(str(record.get("status"))).zero


def is_left_out(record: Mapping[str, object]) -> bool:
    return status(str(record.get("status"))).left_out


def needs_retry(record: Mapping[str, object]) -> bool:
    """What `--retry-errors` redoes: a retried status, or a scored one with no reward."""
    row = status(str(record.get("status")))
    return row.retried or (row.scored and record.get("reward") is None)


def table_markdown() -> str:
    """The table as docs/harness.md shows it."""
    def mark(flag: bool) -> str:
        return "yes" if flag else ""

    lines = ["| status | scored | counts 0 | --retry-errors | left out, listed | meaning |",
             "|---|---|---|---|---|---|"]
    lines += [f"| `{s.name}` | {mark(s.scored)} | {mark(s.zero)} | {mark(s.retried)} | "
              f"{mark(s.left_out)} | {s.meaning} |" for s in TABLE]
    return "\n".join(lines)
