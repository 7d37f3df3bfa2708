"""card-element-to-checkout: the starter shop pays with the Card Element; the grader is
proven requirement by requirement (tests/requirements.toml: the oracle 1.0, noop 0.0,
each mutant loses its requirement's checks only, each alternative 1.0, one test per
variant, all on the module's one harness emulator); red teams that are no single
requirement's mutant stay as tests."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import stripe

from conftest import free_port, load_module
from paths import REPO
from stripebench.harness.fixtures import seed
from stripebench.harness.proof.prove import prove_task, prove_variant, static_proof, variant_labels
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "card-element-to-checkout"
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


def migrate(trial: dict[str, Any]) -> None:
    """The reference migration (the oracle's code) in the workdir."""
    shutil.copytree(TASK / "solution" / "app", trial["workdir"], dirs_exist_ok=True)


def submit(trial: dict[str, Any], session_id: str) -> None:
    submission = trial["workdir"] / "submission"
    submission.mkdir(exist_ok=True)
    (submission / "checkout_session_id.txt").write_text(session_id + "\n")


def test_a_fifo_for_a_submission_scores_zero(trial: dict[str, Any]) -> None:
    """Red team: a FIFO where the session id should be blocked the grader's read until
    it timed out (a grader_error, left out of every mean); now it scores 0."""
    (trial["workdir"] / "submission").mkdir()
    os.mkfifo(trial["workdir"] / "submission" / "checkout_session_id.txt")
    with shop(trial) as origin:
        reward = grade(trial, origin)
    assert reward["total"] == 0.0
    assert "not a regular file" in reward["messages"]["gate:submitted_session"]

def pay_by_hand(trial: dict[str, Any], mode: str = "embedded_page") -> str:
    """Red team: a Checkout Session made through the API (not by the shop) with every
    setting the task asks for, paid with TRAIL10 on a throwaway page in Chromium."""
    from playwright.sync_api import sync_playwright

    client = sdk(trial)
    prices = client.v1.prices.list({"lookup_keys": ["camp_mug", "map_poster",
                                                    "wool_beanie"]}).data
    created = client.v1.checkout.sessions.create({
        "mode": "payment", "ui_mode": mode,
        "line_items": [{"price": p.id, "quantity": 1, "adjustable_quantity": {
            "enabled": True, "minimum": 0, "maximum": 20}} for p in prices],
        "allow_promotion_codes": True,
        "shipping_address_collection": {"allowed_countries": ["US", "CA", "GB"]},
        "shipping_options": [{"shipping_rate_data": {
            "display_name": "Standard shipping", "type": "fixed_amount",
            "fixed_amount": {"amount": 600, "currency": "usd"}}}],
        "return_url": "http://127.0.0.1:9/thanks?session_id={CHECKOUT_SESSION_ID}"})
    page_html = (f"<!doctype html><script src='{trial['env']['STRIPE_JS_URL']}'></script>"
                 "<div id='checkout'></div><script>Stripe("
                 f"{json.dumps(trial['account']['publishable_key'])}).initEmbeddedCheckout("
                 f"{{clientSecret: {json.dumps(created.client_secret)}}})"
                 ".then((c) => c.mount('#checkout'));</script>")
    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page_html.encode())

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_default_timeout(15_000)
        page.goto(f"http://127.0.0.1:{server.server_port}/")
        purchase = load_module(TASK / "solution" / "purchase.py", "card_purchase")
        purchase.pay(purchase.checkout_frame(page))
        for _ in range(300):
            if client.v1.checkout.sessions.retrieve(created.id).status == "complete":
                break
            page.wait_for_timeout(50)
        browser.close()
    server.shutdown()
    assert client.v1.checkout.sessions.retrieve(created.id).payment_status == "paid"
    return str(created.id)


def test_a_session_paid_beside_an_untouched_shop_scores_nothing_of_the_purchase(
        trial: dict[str, Any]) -> None:
    """Red team: the shop left as it was, a session with every asked-for setting made by
    hand through the API and paid with TRAIL10, an order row written into shop.db, the
    Card Element's tell-tale strings disguised (`PaymentIntent . create`, `"/p" "ay"`).
    The old grader read only the submitted session and the code's text: 0.93 untouched,
    1.0 disguised. Now the grader asks the restarted shop for a session (Chromium fills
    the cart and opens /checkout with a stand-in Stripe.js): the starter makes none, so
    only `app_pages` is left."""
    session_id = pay_by_hand(trial)
    submit(trial, session_id)
    work = trial["workdir"]
    app = (work / "app.py").read_text()
    (work / "app.py").write_text(
        app.replace("PaymentIntent.create", "PaymentIntent . create")
        .replace('confirmation_method="manual"', '**{"confirmation_" "method": "manual"}')
        .replace('"/pay"', '"/p" "ay"'))
    js = (work / "static" / "checkout.js").read_text()
    (work / "static" / "checkout.js").write_text(
        "// stripe.initEmbeddedCheckout\n" + js.replace('elements.create("card"',
                                                        'elements.create(KIND')
        .replace('"/pay"', '"/p" + "ay"'))
    with shop(trial) as origin:
        conn = sqlite3.connect(work / "shop.db")
        conn.execute("INSERT INTO orders (items, subtotal, total, stripe_reference) "
                     "VALUES ('[]', 7500, 7350, ?)", (session_id,))
        conn.commit()
        conn.close()
        reward = grade(trial, origin)
    scores = reward["subscores"]
    assert scores["shop_creates_session"] == scores["submitted_from_shop"] == 0.0
    assert {k: v for k, v in scores.items() if v} == {"gate:submitted_session": 1.0,
                                                     "app_pages": 1.0}
    assert reward["total"] < 0.06


def test_a_session_paid_by_hand_beside_the_migrated_shop_is_not_the_purchase(
        trial: dict[str, Any]) -> None:
    """Red team: the shop migrated, but the paid session was made through the API in
    hosted mode (not the shop's embedded one): the integration scores, the purchase
    does not; the same session made in embedded mode with the shop's settings but
    another return page does not count either."""
    migrate(trial)
    hosted = sdk(trial).v1.checkout.sessions.create({
        "mode": "payment", "ui_mode": "hosted_page", "success_url": "http://x.test/ok",
        "line_items": [{"price": p.id, "quantity": 1} for p in sdk(trial).v1.prices.list(
            {"lookup_keys": ["camp_mug"]}).data]})
    submit(trial, hosted.id)
    with shop(trial) as origin:
        reward = grade(trial, origin)
        submit(trial, pay_by_hand(trial))
        by_hand = grade(trial, origin)
    for result in (reward, by_hand):
        scores = result["subscores"]
        assert scores["shop_creates_session"] == scores["line_items_from_prices"] == 1.0
        assert scores["submitted_from_shop"] == scores["paid"] == 0.0
        assert scores["trail10_applied"] == scores["every_product"] == 0.0
        assert result["total"] < 1.0  # the purchase requirement's checks, above, are lost


def test_a_shop_that_hands_out_a_paid_session_does_not_count(trial: dict[str, Any]) -> None:
    """Red team: the migrated shop, except that its /create-checkout-session hands every
    visitor the client secret of one session made and paid by hand (one of each
    product, TRAIL10), with an order row written for it. The grader's first probe
    accepted any session the shop's page mounted, so this scored 1.0. Now the probe's
    sessions must be new (none existed when the agent stopped) and follow the cart (two
    mugs, afresh): the integration fails, and with it the purchase."""
    migrate(trial)
    session_id = pay_by_hand(trial)
    secret = sdk(trial).v1.checkout.sessions.retrieve(session_id).client_secret
    app = trial["workdir"] / "app.py"
    code = app.read_text()
    handout = "return jsonify(clientSecret=checkout_session.client_secret)"
    assert handout in code
    app.write_text(code.replace(handout, f"return jsonify(clientSecret={secret!r})"))
    submit(trial, session_id)
    with shop(trial) as origin:
        conn = sqlite3.connect(trial["workdir"] / "shop.db")
        conn.execute("INSERT INTO orders (items, subtotal, total, stripe_reference) "
                     "VALUES ('[]', 7500, 7350, ?)", (session_id,))
        conn.commit()
        conn.close()
        snapshot = httpx.get(f"{trial['emulator'].base}/_emulator/accounts/"
                             f"{trial['account']['id']}/snapshot").json()
        reward = grade(trial, origin)
    assert session_id in {o["id"] for o in snapshot["objects"]}
    scores = reward["subscores"]
    assert "existed before grading" in reward["messages"]["shop_creates_session"]
    assert scores["shop_creates_session"] == scores["submitted_from_shop"] == 0.0
    assert scores["paid"] == scores["promotion_code"] == 0.0
    assert {k: v for k, v in scores.items() if v} == {"gate:submitted_session": 1.0,
                                                     "app_pages": 1.0}


def test_the_requirement_table_and_variants_are_valid() -> None:
    assert static_proof(load_task(TASK)).problems == []


def test_proven_under_the_harness(server: Any, tmp_path: Path) -> None:
    """The real trial loop (local sandbox, the shop as the task's service, restarted
    before grading, the grader copied in only then): the oracle migrates the shop and
    buys one of each product with TRAIL10 in Chromium (every check 1.0, and every check
    a requirement's), noop 0.0."""
    proof = prove_task(load_task(TASK), tmp_path, server)
    assert proof.problems == [] and (proof.oracle, proof.noop) == (1.0, 0.0)


@pytest.mark.parametrize("label", variant_labels(TASK))
def test_variant(label: str, server: Any, tmp_path: Path) -> None:
    """Each mutant loses exactly its requirement's checks; each alternative scores 1.0."""
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message
