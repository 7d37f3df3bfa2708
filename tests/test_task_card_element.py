"""card-element-to-checkout: the starter shop pays with the Card Element, the oracle
migrates it and buys through embedded Checkout in Chromium (1.0), noop scores 0."""

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
import stripe

from conftest import free_port
from stripebench.harness.fixtures import seed
from stripebench.harness.task import load_task

TASK = Path(__file__).resolve().parent.parent / "tasks" / "card-element-to-checkout"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture()
def trial(emulator: Any, account: dict[str, str], tmp_path: Path) -> dict[str, Any]:
    """A seeded trial account, a workdir holding the starter shop, the harness's env."""
    seed(emulator.base, account["secret_key"], load_task(TASK).fixtures)
    workdir = tmp_path / "work"
    shutil.copytree(TASK / "environment", workdir)
    env = {"STRIPE_API_BASE": emulator.base, "STRIPE_SECRET_KEY": account["secret_key"],
           "STRIPE_PUBLISHABLE_KEY": account["publishable_key"],
           "STRIPE_JS_URL": f"{emulator.base}/js.stripe.com/v3/",
           "STRIPEBENCH_WORKDIR": str(workdir), "PYTHON": sys.executable,
           "STRIPEBENCH_REWARD_PATH": str(tmp_path / "reward.json"),
           "STRIPEBENCH_FINAL_SNAPSHOT": str(tmp_path / "final.json")}
    return {"env": env, "workdir": workdir, "account": account, "emulator": emulator,
            "tmp": tmp_path}


@contextmanager
def shop(trial: dict[str, Any]) -> Iterator[str]:
    """The shop from the workdir's code, as the harness runs the task's service."""
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
            raise AssertionError("the shop did not start")
        yield origin
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def grade(trial: dict[str, Any], shop_url: str) -> dict[str, Any]:
    snapshot = httpx.get(f"{trial['emulator'].base}/_emulator/accounts/"
                         f"{trial['account']['id']}/snapshot").json()
    Path(trial["env"]["STRIPEBENCH_FINAL_SNAPSHOT"]).write_text(json.dumps(snapshot))
    # As the harness does: the hidden tests arrive in the workdir only for grading.
    grader_dir = trial["workdir"] / ".stripebench" / "grader"
    shutil.copytree(TASK / "tests", grader_dir / "tests", dirs_exist_ok=True)
    done = subprocess.run([sys.executable, "tests/grade.py"],
                          env={**os.environ, **trial["env"], "SHOP_URL": shop_url},
                          cwd=grader_dir, capture_output=True, text=True, timeout=120)
    shutil.rmtree(grader_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    reward: dict[str, Any] = json.loads((trial["tmp"] / "reward.json").read_text())
    return reward


def sdk(trial: dict[str, Any]) -> stripe.StripeClient:
    return stripe.StripeClient(trial["account"]["secret_key"],
                               base_addresses={"api": trial["emulator"].base})


def test_starter_shop_pays_with_the_card_element(trial: dict[str, Any]) -> None:
    """The starting point works: a Card Element purchase with the shop's own discount."""
    from playwright.sync_api import sync_playwright

    with shop(trial) as origin, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_default_timeout(15_000)
        page.goto(origin + "/")
        page.get_by_role("button", name="Add Wool Beanie to cart").click()
        page.goto(origin + "/checkout")
        page.get_by_label("Discount code").fill("TRAIL10")
        page.get_by_role("button", name="Apply").click()
        assert page.locator("#total").inner_text() == "$34.80"  # 32.00 - 3.20 + 6.00
        for label, value in [("Email", "a@example.com"), ("Full name", "Ann Hiker"),
                             ("Address", "1 Main St"), ("City", "Boulder"),
                             ("Postal code", "80302")]:
            page.get_by_label(label, exact=True).fill(value)
        card = page.frame_locator("#card-element iframe")
        number = card.get_by_label(re.compile("card number", re.I))
        number.fill("4000 0000 0000 0002")  # declined: the shop shows Stripe's message
        card.get_by_label(re.compile("expir", re.I)).fill("12 / 34")
        card.get_by_label(re.compile("cvc|security code", re.I)).fill("123")
        page.get_by_role("button", name=re.compile("^Pay")).click()
        page.locator("#payment-message", has_text="declined").wait_for()
        number.fill("4242 4242 4242 4242")
        page.get_by_role("button", name=re.compile("^Pay")).click()
        page.wait_for_url(re.compile(r"/orders/\d+"))
        reference = page.locator("code").inner_text()
        browser.close()
    assert reference.startswith("ch_")  # read from the 2020-08-27 `charges` list
    intents = sdk(trial).v1.payment_intents.list().data
    assert [(i.amount, i.status) for i in intents] == [(3480, "succeeded"),
                                                       (3480, "requires_payment_method")]


def test_noop_scores_zero(trial: dict[str, Any]) -> None:
    with shop(trial) as origin:
        reward = grade(trial, origin)
    assert reward["total"] == 0.0
    assert reward["subscores"] == {"gate:submitted_session": 0.0}


def test_an_unpaid_session_scores_part(trial: dict[str, Any]) -> None:
    """A session that exists but was never paid passes only the set-up checks."""
    client = sdk(trial)
    prices = client.v1.prices.list({"lookup_keys": ["camp_mug", "map_poster",
                                                    "wool_beanie"]}).data
    created = client.v1.checkout.sessions.create({
        "mode": "payment", "ui_mode": "embedded_page",
        "return_url": "http://127.0.0.1/return?session_id={CHECKOUT_SESSION_ID}",
        "line_items": [{"price": p.id, "quantity": 1} for p in prices]})
    submission = trial["workdir"] / "submission"
    submission.mkdir()
    (submission / "checkout_session_id.txt").write_text(created.id + "\n")
    with shop(trial) as origin:
        reward = grade(trial, origin)
    scores = reward["subscores"]
    assert scores["embedded_ui_mode"] == scores["payment_mode"] == scores["every_product"] == 1
    assert scores["paid"] == scores["promotion_code"] == scores["adjustable_quantities"] == 0
    assert scores["card_element_removed"] == 0  # the starter code is untouched
    assert 0.0 < reward["total"] < 0.5


def test_proven_under_the_harness(tmp_path: Path) -> None:
    """The real trial loop (sandbox, the shop as a service, restart, hidden grader): the
    oracle migrates the shop and buys one of each product with TRAIL10 in Chromium
    (every check passes: 1.0), noop scores 0.0."""
    from stripebench.harness.agents.simple import NoopAgent, OracleAgent
    from stripebench.harness.emulator import Emulator
    from stripebench.harness.trial import TrialConfig, run_trial

    task = load_task(TASK)
    server = Emulator.start()
    try:
        records = {}
        for name, agent in [("oracle", OracleAgent()), ("noop", NoopAgent())]:
            record = run_trial(task, 0, tmp_path / name, agent, server,
                               TrialConfig("proof", name, None))
            assert record["status"] == "completed", record["error"]
            records[name] = record
    finally:
        server.stop()
    oracle, noop = records["oracle"], records["noop"]
    assert oracle["reward"] == 1.0 and set(oracle["subscores"].values()) == {1.0}
    assert "submission/checkout_session_id.txt" in oracle["submission"]["added"]
    assert noop["reward"] == 0.0
