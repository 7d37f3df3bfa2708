"""Where things are in a run directory: the one place that spells the folder layout.

    run.json                                what was asked (see meta.py)
    interventions/                          the arm's copied inputs (prompt, skills, docs)
    emulator/                               the run's emulator data and log
    trials/<task>/<attempt>/result.json     the trial record (see record.py), written last
                                            and atomically: a trial is done exactly when
                                            this file exists
    trials/<task>/<attempt>/transcript.jsonl  the trial's events (see transcript.py)
    trials/<task>/<attempt>/...             prompt.md, mcp.json, fixtures.json,
                                            stripe_seed.json, stripe_final.json,
                                            emulator_requests.json, setup.log, grader.log,
                                            reward.json, screenshots/, workdir/
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

RUN_JSON = "run.json"
TRIALS = "trials"
INTERVENTIONS = "interventions"
EMULATOR = "emulator"
RESULT = "result.json"
TRANSCRIPT = "transcript.jsonl"
PROMPT = "prompt.md"
MCP_CONFIG = "mcp.json"
FIXTURES = "fixtures.json"
SEED_SNAPSHOT = "stripe_seed.json"
FINAL_SNAPSHOT = "stripe_final.json"
REQUESTS = "emulator_requests.json"
SETUP_LOG = "setup.log"
SETUP_OUTPUT = "setup.json"
SETUP_ACCOUNTS = "setup_accounts.txt"
GRADER_LOG = "grader.log"
REWARD = "reward.json"
WORKDIR = "workdir"
SCREENSHOTS = "screenshots"


def run_json(out: Path) -> Path:
    return Path(out) / RUN_JSON


def trial_dir(out: Path, task_id: str, attempt: int) -> Path:
    return Path(out) / TRIALS / task_id / str(attempt)


def result_paths(out: Path) -> Iterator[Path]:
    """Every finished trial's result.json, in task then attempt order."""
    found = (Path(out) / TRIALS).glob(f"*/*/{RESULT}")
    yield from sorted(found, key=lambda p: (p.parent.parent.name, _number(p.parent.name)))


def _number(name: str) -> int:
    return int(name) if name.isdigit() else -1
