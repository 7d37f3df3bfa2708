"""subscription-gym: the generator (the task's hidden set-up, tests/generate.py), the
grader's rules, and the proof (oracle 1.0 on several seeds, noop 0, the requirement table,
every mutant and alternative of solution/ one test each, a blanket answer 0, hostile
services 0 without a grader error), against the real emulator and the real harness."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import free_port, load_module
from paths import REPO
from stripebench.harness.proof.prove import prove_task, prove_variant, static_proof, variant_labels
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "subscription-gym"
# Unique module names: checkout-gym's tests, in the same pytest worker, have a
# `generate` module of their own.
families = load_module(TASK / "tests" / "families.py", "subgym_families")
generate = load_module(TASK / "tests" / "generate.py", "subgym_generate")


# ------------------------------------------------------------------ generator

def test_same_seed_same_set_other_seeds_vary_every_family() -> None:
    public = generate.generate(generate.PUBLIC_SEED)
    assert public == generate.generate(generate.PUBLIC_SEED)
    assert sorted(c["family"] for c in public) == sorted(generate.FAMILIES)
    assert sorted(families.FAMILIES) == sorted(generate.FAMILIES)
    assert [c["number"] for c in public] == list(range(1, 14))
    sets = [generate.generate(s) for s in range(30)]
    for family in generate.FAMILIES:
        params = {json.dumps(c["params"], sort_keys=True) for s in sets for c in s
                  if c["family"] == family}
        assert len(params) >= 25, family  # plans, amounts, dates, quantities vary
    seen = {(c["family"], k, json.dumps(v)) for s in sets for c in s
            for k, v in c["params"].items()}
    for family, key, values in [("trial_without_card", "end_behavior", 2),
                                ("ending_schedule", "end_behavior", 2),
                                ("pause_collection", "behavior", 3),
                                ("dunning_recovery", "retry", 2),
                                ("metered_usage", "round", 2),
                                ("anchored_coupon", "percent_off", 5)]:
        assert len({v for f, k, v in seen if (f, k) == (family, key)}) >= values, key
    # the order of the families changes with the seed too
    assert len({tuple(c["family"] for c in s) for s in sets}) == 30


def test_the_agent_sees_texts_not_grading_parameters() -> None:
    shown = generate.public_view(generate.generate(5))
    assert all(set(c) == {"number", "title", "text", "request", "response"} for c in shown)
    text = " ".join(c["text"] for c in shown)
    assert "params" not in json.dumps(shown) and "$" in text


def test_proration_and_calendar_arithmetic() -> None:
    """Stripe prorates to the second, rounding half up: 1000 × 21/31 days = 677.4 → 677
    (docs.stripe.com/billing/subscriptions/prorations)."""
    day = families.DAY
    start = 1772323200  # 2026-03-01
    assert families.prorate(1000, start + 10 * day, start, start + 31 * day) == 677
    assert families.prorate(3, 1, 0, 2) == 2  # 1.5 rounds up
    assert families.percent_of(2550, 10) == 255 and families.percent_of(25, 10) == 3
    assert families.add_months(start, 1) == start + 31 * day
    assert families.add_months(start, -1) == start - 28 * day
    assert families.next_day_of_month(start, 15) == start + 14 * day
    assert families.next_day_of_month(start + 20 * day, 15) == start + 45 * day
    gold = {"name": "Gold", "amount": 2000, "interval": "month"}
    assert families.plan_line(gold, 2) == "2 × Gold (at $20.00 / month)"


# ------------------------------------------------------------------ grading end to end

@pytest.fixture()
def trial(emulator: Any, account: dict[str, str], tmp_path: Path) -> dict[str, Any]:
    work = tmp_path / "work"
    shutil.copytree(TASK / "environment", work)
    env = {**os.environ, "STRIPE_API_BASE": emulator.base,
           "STRIPE_SECRET_KEY": account["secret_key"], "STRIPEBENCH_WORKDIR": str(work),
           "STRIPEBENCH_SETUP_OUTPUT": str(tmp_path / "setup.json"),
           "STRIPEBENCH_REWARD_PATH": str(tmp_path / "reward.json"), "PYTHON": sys.executable}
    return {"env": env, "work": work, "tmp": tmp_path}


def run(args: list[str], env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def prepare(trial: dict[str, Any], seed: int | None = None) -> dict[str, Any]:
    env = dict(trial["env"], **({"STRIPEBENCH_GYM_SEED": str(seed)} if seed else {}))
    run([sys.executable, "tests/prepare.py"], env, TASK)
    key: dict[str, Any] = json.loads((trial["tmp"] / "setup.json").read_text())
    return key


def serve(trial: dict[str, Any], app: str = "app.py") -> Iterator[str]:
    port = free_port()
    env = dict(trial["env"], PORT=str(port))
    process = subprocess.Popen([sys.executable, app], cwd=trial["work"], env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                httpx.get(url + "/healthz")
                break
            except httpx.TransportError:
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def grade(trial: dict[str, Any], app: str = "app.py", **env: str) -> dict[str, Any]:
    """As the harness does: the service restarted from the workdir, the hidden tests
    copied in for grading only."""
    grader_dir = trial["work"] / ".stripebench" / "grader"
    shutil.copytree(TASK / "tests", grader_dir / "tests")
    try:
        for url in serve(trial, app):
            out = run([sys.executable, "tests/grade.py"],
                      dict(trial["env"], BILLING_URL=url, **env), grader_dir)
    finally:
        shutil.rmtree(grader_dir)
    reward: dict[str, Any] = json.loads((trial["tmp"] / "reward.json").read_text())
    reward["out"] = out
    return reward


def oracle(trial: dict[str, Any], seed: int | None = None) -> None:
    """The reference handlers; for another seed than the public one (which is all the
    reference knows) this test hands them that set's parameters from the generator."""
    run(["bash", str(TASK / "solution" / "solve.sh")], trial["env"], trial["work"])
    if seed is not None:
        (trial["work"] / "public_set.json").write_text(json.dumps({"seed": seed, "challenges": [
            {k: c[k] for k in ("number", "family", "params")}
            for c in generate.generate(seed)]}))


def test_the_oracle_knows_the_public_set() -> None:
    known = json.loads((TASK / "solution" / "public_set.json").read_text())
    assert known == {"seed": generate.PUBLIC_SEED, "challenges": [
        {k: c[k] for k in ("number", "family", "params")}
        for c in generate.generate(generate.PUBLIC_SEED)]}


@pytest.mark.parametrize("seed", [None, 2, 11])
def test_oracle_scores_one_on_the_public_and_hidden_seeds(trial: dict[str, Any],
                                                          seed: int | None) -> None:
    key = prepare(trial, seed)
    shown = json.loads((trial["work"] / "challenges.json").read_text())
    assert shown["seed"] == (seed or generate.PUBLIC_SEED)
    assert "params" not in json.dumps(shown)  # the agent's copy has no answers
    assert "## Challenge 13" in (trial["work"] / "challenges.md").read_text()
    assert all("params" in c for c in key["challenges"])
    oracle(trial, seed)
    reward = grade(trial)
    assert reward["total"] == 1.0, reward["messages"]
    assert sorted(reward["subscores"]) == sorted(generate.FAMILIES)
    graded_in = float(reward["out"].rsplit("graded in ", 1)[1].split("s")[0])
    assert graded_in < 60  # the whole grade runs on simulated time


def test_noop_scores_zero(trial: dict[str, Any]) -> None:
    prepare(trial)
    reward = grade(trial)
    assert reward["total"] == 0.0
    assert all("501" in m for m in reward["messages"].values())


BLANKET = '''
from app import *  # noqa
import app as gym

def blanket(body):
    """One answer for everything: a plain subscription, or a plain change to one."""
    c = stripe_client()
    price = body.get("price") or body.get("first_price")
    if "customer" in body and price:
        sub = c.v1.subscriptions.create({"customer": body["customer"],
                                         "items": [{"price": price}],
                                         "payment_behavior": "default_incomplete",
                                         "expand": ["latest_invoice.confirmation_secret",
                                                    "pending_setup_intent"]})
        secret = sub.latest_invoice.confirmation_secret
        return {"subscription": sub.id, "client_secret": secret and secret.client_secret,
                "setup_client_secret": sub.pending_setup_intent
                and sub.pending_setup_intent.client_secret, "price": price,
                "invoice": sub.latest_invoice.id}
    if "subscription" in body:
        sub = c.v1.subscriptions.retrieve(body["subscription"])
        if body.get("price"):
            sub = c.v1.subscriptions.update(sub.id, {"items": [
                {"id": sub["items"].data[0].id, "price": body["price"]}]})
        return {"subscription": sub.id, "invoice": sub.latest_invoice,
                "amount_due": 0, "proration": 0}
    return {"customer": body.get("customer")}

for n in range(1, 14):
    gym.HANDLERS[n] = blanket
gym.main()
'''


def test_a_blanket_answer_earns_nothing(trial: dict[str, Any]) -> None:
    """Precision: one generic handler behind every endpoint (a subscription on the price
    it is given, or that price swapped in) answers every request and scores 0: each
    challenge checks what only it asks for."""
    prepare(trial)
    (trial["work"] / "blanket.py").write_text(BLANKET)
    reward = grade(trial, "blanket.py")
    assert reward["total"] == 0.0, reward["subscores"]
    assert not any("501" in m for m in reward["messages"].values())


HOSTILE = '''
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import os

class H(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"{}")
    def do_POST(self):
        n = int(self.path.rsplit("/", 1)[1])
        if n % 3 == 0:
            time.sleep(30)  # hangs
        self.send_response(200); self.end_headers()
        if n % 3 == 1:
            self.wfile.write(b"[" * 200_000)  # not JSON, deeply nested
        else:
            self.wfile.write(b"x" * 5_000_000)  # too large
    def log_message(self, *a):
        pass

ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
'''


def test_hostile_services_score_zero_within_the_budget(trial: dict[str, Any]) -> None:
    """A service that hangs, answers 200 000 nested brackets or 5 MB scores 0 and the
    grade still finishes inside its time budget (no grader_error)."""
    prepare(trial)
    (trial["work"] / "hostile.py").write_text(HOSTILE)
    started = time.monotonic()
    reward = grade(trial, "hostile.py", SUBSCRIPTION_GYM_REQUEST_SECONDS="1",
                   SUBSCRIPTION_GYM_BUDGET_SECONDS="6")
    assert reward["total"] == 0.0
    assert time.monotonic() - started < 30
    assert len(reward["subscores"]) == 13


def test_the_requirement_table_and_variants_are_valid() -> None:
    assert static_proof(load_task(TASK)).problems == []


def test_proven_under_the_harness(server: Any, tmp_path: Path) -> None:
    """The real trial loop (setup step, services, hidden grader): oracle 1.0, noop 0.0,
    the table against the reward."""
    task = load_task(TASK)
    assert sorted(s.name for s in task.subproblems) == sorted(generate.FAMILIES)
    proof = prove_task(task, tmp_path, server)
    assert (proof.problems, proof.oracle, proof.noop) == ([], 1.0, 0.0)


@pytest.mark.parametrize("label", variant_labels(TASK))
def test_variant(label: str, server: Any, tmp_path: Path) -> None:
    """Each mutant gets one challenge wrong (the wall clock for 'now', a downgrade made at
    once, a credit twice, a pause by emailing invoices, a trial with no SetupIntent or
    the wrong end, a coupon five points high, an invoice paid before the retry); each
    alternative reaches the same Stripe state through other calls."""
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message


# ------------------------------------------------------------------ sub-problems in reports

def _record(attempt: int, subscores: dict[str, float], task: Any) -> dict[str, Any]:
    """A trial record as trial.py writes it (the fields the aggregation reads)."""
    return {"task": task.id, "category": task.category, "attempt": attempt, "turns": 3,
            "status": "completed", "reward": sum(subscores.values()) / len(subscores),
            "subscores": subscores,
            "subproblems": {s.name: list(s.subscores) for s in task.subproblems}}


@pytest.mark.parametrize("task_id", ["subscription-gym", "checkout-gym"])
def test_gyms_declare_one_sub_problem_per_challenge(task_id: str) -> None:
    """Reports showed no sub-problems for checkout-gym although its grader records one
    sub-score per page; both gyms now declare them, named as their graders name them, and
    best-of-N then picks the best attempt per challenge."""
    from stripebench.results.aggregate import score_task

    task = load_task(TASK.parent / task_id)
    if task_id == "subscription-gym":
        names = list(generate.FAMILIES)
    else:
        names = [f"challenge_{n:02d}" for n in range(1, 21)]
    assert sorted(s.name for s in task.subproblems) == sorted(names)
    assert all(s.subscores == (s.name,) for s in task.subproblems)
    half = len(names) // 2
    first = _record(0, {n: 1.0 if i < half else 0.0 for i, n in enumerate(names)}, task)
    second = _record(1, {n: 0.0 if i < half else 1.0 for i, n in enumerate(names)}, task)
    scored = score_task(task.id, [first, second])
    assert set(scored.parts) == set(names)
    assert scored.score == 1.0 and scored.chosen == [0, 1]
