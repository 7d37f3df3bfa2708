"""connect-payments-dashboard: the grader in real Chromium against the platform run from
a workdir. The oracle scores 1.0, the starter 0.0; an agent that keeps Stripe's default
features (refund management on) earns its share; one that hands every groomer the same
pre-made session fails the own-account checks."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import free_port
from paths import REPO

TASK = REPO / "tasks" / "connect-payments-dashboard"


@pytest.fixture()
def trial(emulator: Any, account: dict[str, str], tmp_path: Path) -> dict[str, Any]:
    workdir = tmp_path / "work"
    shutil.copytree(TASK / "environment", workdir)
    env = {"STRIPE_API_BASE": emulator.base, "STRIPE_SECRET_KEY": account["secret_key"],
           "STRIPE_PUBLISHABLE_KEY": account["publishable_key"],
           "STRIPEBENCH_WORKDIR": str(workdir), "PYTHON": sys.executable,
           "STRIPEBENCH_REWARD_PATH": str(tmp_path / "reward.json")}
    setup = subprocess.run([sys.executable, "tests/prepare.py"], cwd=TASK,
                           env={**os.environ, **env}, capture_output=True, text=True)
    assert setup.returncode == 0, setup.stderr
    return {"env": env, "workdir": workdir, "account": account, "emulator": emulator}


@contextmanager
def platform(trial: dict[str, Any]) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=trial["workdir"],
                            env={**os.environ, **trial["env"], "PORT": str(port)},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    origin = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                if httpx.get(origin + "/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            raise AssertionError("the platform did not start")
        yield origin
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def grade(trial: dict[str, Any]) -> dict[str, Any]:
    with platform(trial) as origin:
        done = subprocess.run([sys.executable, str(TASK / "tests" / "grade.py")],
                              env={**os.environ, **trial["env"], "PLATFORM_URL": origin},
                              capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    reward: dict[str, Any] = json.loads(Path(trial["env"]["STRIPEBENCH_REWARD_PATH"])
                                        .read_text())
    return reward


def solve(trial: dict[str, Any]) -> None:
    done = subprocess.run(["bash", str(TASK / "solution" / "solve.sh")],
                          env={**os.environ, **trial["env"]}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_oracle_scores_one(trial: dict[str, Any]) -> None:
    solve(trial)
    reward = grade(trial)
    assert reward["total"] == 1.0, reward


def test_starter_scores_zero(trial: dict[str, Any]) -> None:
    reward = grade(trial)
    assert reward["total"] == 0.0, reward


def test_default_features_lose_the_refund_checks(trial: dict[str, Any]) -> None:
    """Stripe's defaults turn refund management on: the refund checks fail, the rest pass."""
    solve(trial)
    app = trial["workdir"] / "app.py"
    app.write_text(re.sub(r'"features": \{.*?\}\}\}', "}}", app.read_text(), flags=re.S))
    reward = grade(trial)
    subscores = reward["subscores"]
    assert subscores["refund_management_off"] == 0.0
    assert subscores["no_refund_control"] == 0.0
    assert subscores["dispute_management_on"] == 1.0 and subscores["statuses"] == 1.0
    assert 0.5 < reward["total"] < 0.9, reward


def test_one_shared_session_fails_own_account(trial: dict[str, Any]) -> None:
    """Red team: every groomer gets a session of one fixed account (a demo account id
    pasted into the code): the page renders, but not the signed-in groomer's payments."""
    solve(trial)
    app = trial["workdir"] / "app.py"
    source = app.read_text()
    fixed = source.replace('"account": groomer["stripe_account_id"]',
                           '"account": FIXED_ACCOUNT')
    fixed = fixed.replace("\n\n@app.post(\"/account_session\")",
                          "\n\nFIXED_ACCOUNT = None\n\n\n@app.post(\"/account_session\")")
    fixed = fixed.replace('    groomer = current_groomer()\n    if groomer is None:\n'
                          '        return {"error": "sign in first"}, 401\n',
                          '    global FIXED_ACCOUNT\n    groomer = current_groomer() or '
                          '{"stripe_account_id": None}\n    FIXED_ACCOUNT = FIXED_ACCOUNT or '
                          'groomer["stripe_account_id"]\n')
    assert fixed != source
    app.write_text(fixed)
    reward = grade(trial)
    assert reward["subscores"]["own_account_only"] == 0.0, reward
    assert reward["total"] < 1.0
