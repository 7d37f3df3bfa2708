"""saas-embedded-checkout: Launchpad's subscriptions move from hosted to embedded
Checkout. Through the real trial loop the oracle (migrated app, TAKE20, a sign-up and a
subscription in Chromium) scores 1.0 and noop 0.0; a subscription bought through the
untouched hosted Checkout scores only part."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_task_saas_app import SLOW_STEP_MS, TASKS, fill_hosted_card, launchpad, sign_up

from stripebench.harness.proof.prove import prove_task, prove_variant, static_proof, variant_labels
from stripebench.harness.task import load_task

TASK = TASKS / "saas-embedded-checkout"


def run_grader(app: Any, tmp_path: Path) -> dict[str, Any]:
    """The hidden grader against a running app, as the harness runs it."""
    grader_dir = app.workdir / ".stripebench" / "grader"
    shutil.copytree(TASK / "tests", grader_dir / "tests", dirs_exist_ok=True)
    env = {**os.environ, **app.env, "STRIPEBENCH_WORKDIR": str(app.workdir),
           "STRIPEBENCH_REWARD_PATH": str(tmp_path / "reward.json")}
    done = subprocess.run([sys.executable, "tests/grade.py"], cwd=grader_dir, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    reward: dict[str, Any] = json.loads((tmp_path / "reward.json").read_text())
    reward["log"] = done.stdout
    return reward


def test_a_hosted_subscription_with_take20_scores_part(
        emulator: Any, account: dict[str, str], tmp_path: Path, page: Any) -> None:
    """Partial: TAKE20 made and used, but through the untouched hosted Checkout. The
    subscription checks pass except the embedded ones, and the probe finds no
    embedded Checkout in the app."""
    with launchpad(emulator, account, tmp_path) as app:
        coupon = app.client.v1.coupons.create(params={"percent_off": 20,
                                                      "duration": "forever"})
        app.client.v1.promotion_codes.create(params={
            "code": "TAKE20", "promotion": {"type": "coupon", "coupon": coupon.id}})
        page.set_default_timeout(SLOW_STEP_MS)
        sign_up(page, app.url, "hosted@example.com")
        page.wait_for_url(re.compile(r"checkout\.stripe\.com/c/pay/cs_"))
        session_id = re.search(r"cs_[A-Za-z0-9_]+", page.url).group(0)  # type: ignore[union-attr]
        page.locator("#promotion_code").fill("TAKE20")
        page.locator("#apply-code").click()
        page.locator(".code-chip", has_text="TAKE20").wait_for()
        fill_hosted_card(page)
        page.locator("#submit").click()
        page.wait_for_url(re.compile(r"/dashboard$"))
        (app.workdir / "submission").mkdir()
        (app.workdir / "submission" / "checkout_session_id.txt").write_text(session_id)
        reward = run_grader(app, tmp_path)
    scores = reward["subscores"]
    assert scores["embedded_ui_mode"] == 0.0, reward["log"]
    assert scores["probe_mounts_embedded_checkout"] == scores["submitted_through_app"] == 0.0
    assert scores["completed"] == scores["promotion_code"] == scores["trial_kept"] == 1.0
    assert scores["app_database"] == scores["signed_up_in_app"] == 1.0
    assert 0.3 < reward["total"] < 0.7


def test_the_requirement_table_and_variants_are_valid() -> None:
    assert static_proof(load_task(TASK)).problems == []


def test_proven_under_the_harness(server: Any, tmp_path: Path) -> None:
    """The real trial loop (setup with the npm packages and the webhook endpoint, the db
    and app services, the app restarted from the agent's code, the grader's Chromium
    probe): the oracle scores 1.0 with every check a requirement's, noop 0.0."""
    proof = prove_task(load_task(TASK), tmp_path, server)
    assert proof.problems == [] and (proof.oracle, proof.noop) == (1.0, 0.0)


@pytest.mark.parametrize("label", variant_labels(TASK))
def test_variant(label: str, server: Any, tmp_path: Path) -> None:
    """Each mutant loses exactly its requirement's checks; each alternative scores 1.0."""
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message


def test_a_session_made_by_hand_beside_the_migrated_app_is_not_the_apps(
        emulator: Any, account: dict[str, str], tmp_path: Path) -> None:
    """Red team: the app migrated (the oracle's code), but the submitted session is one
    made through the API with its own return URL. The probe finds the app's embedded
    Checkout working, yet `submitted_through_app` fails (and, unpaid, so does
    `completed`)."""
    with launchpad(emulator, account, tmp_path) as app:
        shutil.copytree(TASK / "solution" / "app", app.workdir, dirs_exist_ok=True)
        subprocess.run(["bash", "scripts/install.sh"], cwd=app.workdir, check=True,
                       env={**os.environ, **app.env}, capture_output=True)
        base = app.client.v1.prices.list(params={"lookup_keys": ["base_monthly"]}).data[0]
        session = app.client.v1.checkout.sessions.create(params={
            "ui_mode": "embedded_page", "mode": "subscription",
            "line_items": [{"price": base.id, "quantity": 1}],
            "return_url": "http://127.0.0.1:9/done?session_id={CHECKOUT_SESSION_ID}",
            "allow_promotion_codes": True,
            "subscription_data": {"trial_period_days": 14}})
        (app.workdir / "submission").mkdir()
        (app.workdir / "submission" / "checkout_session_id.txt").write_text(session.id)
        reward = run_grader(app, tmp_path)
    scores = reward["subscores"]
    assert scores["probe_mounts_embedded_checkout"] == 1.0, reward["log"]
    assert scores["probe_session_settings"] == scores["return_route"] == 1.0
    assert scores["submitted_through_app"] == scores["completed"] == 0.0
    assert scores["embedded_ui_mode"] == 1.0
    assert reward["total"] < 0.6
