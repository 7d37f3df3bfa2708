"""webhook-fulfillment: the grader against the shop run from a workdir, with the
emulator delivering real webhooks to it. The oracle scores 1.0 and the starter 0.0; a
handler that trusts every request, one that fulfils on every delivery and one that
ignores async payments each lose exactly their checks."""

from __future__ import annotations

import json
import os
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
from stripebench.harness.fixtures import seed
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "webhook-fulfillment"


@pytest.fixture()
def trial(emulator: Any, account: dict[str, str], tmp_path: Path) -> dict[str, Any]:
    seed(emulator.base, account["secret_key"], load_task(TASK).fixtures)
    workdir = tmp_path / "work"
    shutil.copytree(TASK / "environment", workdir)
    port = free_port()
    env = {"STRIPE_API_BASE": emulator.base, "STRIPE_SECRET_KEY": account["secret_key"],
           "STRIPE_PUBLISHABLE_KEY": account["publishable_key"],
           "STRIPEBENCH_WORKDIR": str(workdir), "PYTHON": sys.executable,
           "STRIPEBENCH_REWARD_PATH": str(tmp_path / "reward.json"),
           "STRIPEBENCH_FINAL_SNAPSHOT": str(tmp_path / "final.json"),
           "SHOP_URL": f"http://127.0.0.1:{port}", "PORT": str(port)}
    return {"env": env, "workdir": workdir, "account": account, "emulator": emulator,
            "tmp": tmp_path}


@contextmanager
def shop(trial: dict[str, Any]) -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=trial["workdir"],
                            env={**os.environ, **trial["env"]},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    origin = trial["env"]["SHOP_URL"]
    try:
        for _ in range(200):
            try:
                if httpx.get(origin + "/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            raise AssertionError("the shop did not start")
        yield origin
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def solve(trial: dict[str, Any]) -> None:
    done = subprocess.run(["bash", str(TASK / "solution" / "solve.sh")],
                          env={**os.environ, **trial["env"]}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def grade(trial: dict[str, Any]) -> dict[str, Any]:
    snapshot = httpx.get(f"{trial['emulator'].base}/_emulator/accounts/"
                         f"{trial['account']['id']}/snapshot").json()
    Path(trial["env"]["STRIPEBENCH_FINAL_SNAPSHOT"]).write_text(json.dumps(snapshot))
    with shop(trial):
        done = subprocess.run([sys.executable, str(TASK / "tests" / "grade.py")],
                              env={**os.environ, **trial["env"]}, capture_output=True,
                              text=True, timeout=170)
    assert done.returncode == 0, done.stderr
    reward: dict[str, Any] = json.loads(Path(trial["env"]["STRIPEBENCH_REWARD_PATH"])
                                        .read_text())
    return reward


def patched(trial: dict[str, Any], old: str, new: str) -> None:
    app = trial["workdir"] / "app.py"
    source = app.read_text()
    assert old in source, old
    app.write_text(source.replace(old, new))


def test_oracle_scores_one(trial: dict[str, Any]) -> None:
    solve(trial)
    reward = grade(trial)
    assert reward["total"] == 1.0, reward


def test_starter_scores_zero(trial: dict[str, Any]) -> None:
    assert grade(trial)["total"] == 0.0


def test_unverified_handler_loses_the_signature_checks(trial: dict[str, Any]) -> None:
    """Red team: parse the JSON and never check the signature."""
    solve(trial)
    patched(trial, '''        event = stripe.Webhook.construct_event(
            payload, request.headers.get("Stripe-Signature", ""), webhook_secret())''',
            '''        event = json.loads(payload)''')
    patched(trial, "import os\n", "import json\nimport os\n")
    subscores = grade(trial)["subscores"]
    assert subscores["forged_refused"] == 0.0 and subscores["stale_refused"] == 0.0
    assert subscores["fulfilled_without_success_page"] == 1.0


def test_handler_without_idempotency_fulfils_twice(trial: dict[str, Any]) -> None:
    """Fulfilling on every delivery: replays and out-of-order pairs double the order."""
    solve(trial)
    patched(trial, "INSERT OR IGNORE INTO orders", "INSERT INTO orders")
    patched(trial, '''    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS orders_one_per_session "
                 "ON orders (checkout_session_id)")\n''', "")
    reward = grade(trial)
    subscores = reward["subscores"]
    assert subscores["replays_ignored"] == 0.0 and subscores["out_of_order_once"] == 0.0
    assert subscores["exactly_once_with_reloads"] == 0.0
    assert subscores["fulfilled_without_success_page"] == 1.0
    assert 0.2 < reward["total"] < 0.8, reward


def test_completed_only_handler_misses_async_payments(trial: dict[str, Any]) -> None:
    solve(trial)
    patched(trial, '''    elif event["type"] == "checkout.session.async_payment_succeeded":
        fulfil(session)\n''', "")
    subscores = grade(trial)["subscores"]
    assert subscores["async_payment_succeeded_fulfils"] == 0.0
    assert subscores["out_of_order_once"] == 1.0 and subscores["replays_ignored"] == 1.0
