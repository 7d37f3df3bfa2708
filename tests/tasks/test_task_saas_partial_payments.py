"""saas-partial-payments: Launchpad drops its trial and takes the first invoice of a
subscription in two Checkout payments of half each, attached to that invoice
(`invoices.attach_payment`). Through the real trial loop the oracle (the changed app,
a sign-up and both halves paid in Chromium) scores 1.0 and noop 0.0; halves paid
through the API instead of Checkout, behind the app's back, score only part."""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_task_saas_app import TASKS, launchpad

from stripebench.harness.proof.prove import prove_task, prove_variant, static_proof, variant_labels
from stripebench.harness.task import load_task

TASK = TASKS / "saas-partial-payments"


def run_grader(app: Any, tmp_path: Path) -> dict[str, Any]:
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


def test_both_saas_tasks_start_from_the_same_app() -> None:
    """One Launchpad: the two tasks' environments (and setups) are the same files."""
    first, second = TASKS / "saas-embedded-checkout", TASK
    left = sorted(p.relative_to(first / "environment") for p in
                  (first / "environment").rglob("*") if p.is_file())
    right = sorted(p.relative_to(second / "environment") for p in
                   (second / "environment").rglob("*") if p.is_file())
    assert left == right
    _, mismatch, errors = filecmp.cmpfiles(first / "environment", second / "environment",
                                           [str(p) for p in left], shallow=False)
    assert mismatch == errors == []
    assert filecmp.cmp(first / "tests" / "prepare.py", second / "tests" / "prepare.py",
                       shallow=False)
    assert filecmp.cmp(first / "fixtures.json", second / "fixtures.json", shallow=False)


def test_halves_paid_behind_the_apps_back_score_part(emulator: Any, account: dict[str, str],
                                                      tmp_path: Path) -> None:
    """Partial: the subscription made and its invoice paid in two attached halves, but
    through PaymentIntents made by hand (no Checkout) and with no trace in the app: the
    invoice checks pass; `from_checkout`, the app's database and the trial-free
    pricing page do not."""
    with launchpad(emulator, account, tmp_path, TASK) as app:
        client = app.client
        base = client.v1.prices.list(params={"lookup_keys": ["base_monthly"]}).data[0]
        customer = client.v1.customers.create(params={"email": "byhand@example.com"})
        subscription = client.v1.subscriptions.create(params={
            "customer": customer.id, "items": [{"price": base.id}],
            "payment_behavior": "default_incomplete"})
        invoice = str(subscription.latest_invoice)
        for _ in range(2):
            intent = client.v1.payment_intents.create(params={
                "amount": 400, "currency": "usd", "customer": customer.id,
                "payment_method": "pm_card_visa", "confirm": True,
                "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})
            client.v1.invoices.attach_payment(invoice, params={"payment_intent": intent.id})
        (app.workdir / "submission").mkdir()
        (app.workdir / "submission" / "subscription_id.txt").write_text(subscription.id)
        reward = run_grader(app, tmp_path)
    scores = reward["subscores"]
    assert scores["invoice_paid"] == scores["subscription_active"] == 1.0, reward["log"]
    assert scores["two_halves"] == scores["no_trial"] == 1.0
    assert scores["from_checkout"] == scores["app_database"] == 0.0
    assert scores["no_trial_in_app"] == 0.0
    assert 0.4 < reward["total"] < 0.8


def test_the_requirement_table_and_variants_are_valid() -> None:
    assert static_proof(load_task(TASK)).problems == []


def test_proven_under_the_harness(server: Any, tmp_path: Path) -> None:
    """The real trial loop (no trial, two hosted Checkout halves attached to the first
    invoice, paid in Chromium; the grader's own Chromium customer): the oracle scores
    1.0 with every check a requirement's, noop 0.0."""
    proof = prove_task(load_task(TASK), tmp_path, server)
    assert proof.problems == [] and (proof.oracle, proof.noop) == (1.0, 0.0)


@pytest.mark.parametrize("label", variant_labels(TASK))
def test_variant(label: str, server: Any, tmp_path: Path) -> None:
    """Each mutant loses exactly its requirement's checks; each alternative scores 1.0."""
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message
