"""One composition of the trial's phases serves every executor and integration (issue 27).

The same task (the fixture shop) solved the same way through the local runner, the Ray
executor and Inspect (its own agent loop, our sandbox provider and scorer): each trial
goes through harness/phases.py -- set-up, the room, the kept submission, the sealed
grading room, teardown -- so the records agree on everything that is not the agent's
or the executor's own, and each trial folder holds the same files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from paths import TESTS
from stripebench.harness.sandbox import bwrap_available

FIXTURES = TESTS / "fixtures" / "tasks"
SOLUTION = (FIXTURES / "fixture-shop" / "solution" / "solve.sh").read_text()
# what a trial's record says about the task and its grading, whoever ran the agent
SHARED = ("schema", "task", "task_version", "category", "attempt", "status", "reward",
          "subscores", "sealed", "account")
# the files every trial folder holds after grading
FILES = ("result.json", "fixtures.json", "stripe_seed.json", "stripe_final.json",
         "emulator_requests.json", "prompt.md", "mcp.json", "grading/reward.json",
         "reward.json", "grader.log")

pytestmark = pytest.mark.skipif(not bwrap_available(),
                                reason="bubblewrap cannot create namespaces here")


def cli_run(out: Path, *extra: str) -> Path:
    done = subprocess.run([sys.executable, "-m", "stripebench.cli", "run", "--agent",
                           "oracle", "--tasks-dir", str(FIXTURES), "--tasks", "fixture-shop",
                           "--sandbox", "bwrap", "--out", str(out), "--no-report", *extra],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return out / "trials" / "fixture-shop" / "1"


def inspect_run(tmp_path: Path) -> Path:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import get_model

    from inspect_models import ScriptedModel  # noqa: F401 - registers the scripted model
    from stripebench.integrations.inspect_eval import stripebench

    task = stripebench(tasks="fixture-shop", tasks_dir=str(FIXTURES),
                       trials_dir=str(tmp_path / "trials"), tools="inspect")
    model = get_model("stripebench-scripted/composition",
                      script=[["bash", {"command": SOLUTION}],
                              ["submit", {"summary": "customer created"}]])
    logs = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    log = read_eval_log(logs[0].location)
    assert log.status == "success", log.error
    assert log.samples
    score = log.samples[0].scores["stripebench_grader"]  # type: ignore[index]
    return Path(score.metadata["trial_dir"])


def shared(trial_dir: Path) -> dict[str, Any]:
    record = json.loads((trial_dir / "result.json").read_text())
    found = {key: record.get(key) for key in SHARED}
    found["account"] = (found["account"] or "")[:5]   # acct_, salted per run
    found["submission_added"] = sorted(record.get("submission", {}).get("added", []))
    requests = json.loads((trial_dir / "emulator_requests.json").read_text())
    found["request_phases"] = sorted(requests.get("phases", {}))
    return found


@pytest.mark.slow
def test_the_local_runner_ray_and_inspect_make_the_same_trial(tmp_path: Path) -> None:
    trials = {"local": cli_run(tmp_path / "local"),
              "ray": cli_run(tmp_path / "ray", "--executor", "ray"),
              "inspect": inspect_run(tmp_path / "inspect")}
    records = {name: shared(folder) for name, folder in trials.items()}
    assert records["local"]["reward"] == 1.0 and records["local"]["sealed"] is True
    assert records["local"]["request_phases"] == ["agent", "grading", "setup"]
    assert records["local"]["submission_added"] == ["customer.txt"]
    assert records["ray"] == records["local"], records
    assert records["inspect"] == records["local"], records
    for name, folder in trials.items():
        missing = [f for f in FILES if not (folder / f).is_file()]
        assert missing == [], f"{name}: {missing}"
