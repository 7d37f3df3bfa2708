"""The standalone emulator's landing page (issue 32), in Chromium; and its wall: the page
lists every account's secret key, so a trial's emulator never serves it, by any address
or host name a trial's sandbox could use."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import stripe

from stripebench.harness.emulator import Emulator
from stripebench.harness.sandbox import bwrap_available, make_sandbox

STRIPEBENCH = str(Path(sys.executable).parent / "stripebench")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(*args: str) -> tuple[subprocess.Popen[str], str]:
    port = _free_port()
    proc = subprocess.Popen([STRIPEBENCH, "emulator", "serve", "--port", str(port), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while not proc.stdout.readline().startswith("Ready"):
        assert proc.poll() is None and time.monotonic() < deadline, "serve did not start"
    return proc, f"http://127.0.0.1:{port}"


def test_the_landing_page_shows_keys_requests_objects_and_events(page: Any) -> None:
    secret = "sk_test_landing0123456789"
    proc, base = _serve("--api-key", secret)
    try:
        client = stripe.StripeClient(secret, base_addresses={"api": base})
        customer = client.v1.customers.create({"email": "grace@example.com"})
        client.v1.products.create({"name": "Landing plan"})
        page.goto(base + "/")
        assert page.title() == "Local Stripe — stripebench emulator"
        account = page.locator("section.account").first
        assert account.locator(".secret-key code").inner_text() == secret
        assert account.locator(".publishable-key code").inner_text().startswith("pk_test_")
        requests = account.locator("table.requests tbody tr")
        assert "POST" in requests.first.inner_text() and "/v1/products" in \
            requests.first.inner_text()
        counts = account.locator("table.object-counts").inner_text()
        assert "customer\t1" in counts and "product\t1" in counts
        assert customer.id in account.locator("table.objects").inner_text()
        events = account.locator("table.events").inner_text()
        assert "customer.created" in events and "product.created" in events
        # the API's root is still the API for clients that are not browsers
        api = httpx.get(base + "/v1/customers", auth=(secret, ""))
        assert api.json()["data"][0]["id"] == customer.id
        # a Stripe host name never gets the page, even from the standalone emulator
        routed = httpx.get(base + "/_landing", headers={"host": "dashboard.stripe.com",
                                                        "accept": "text/html"})
        assert secret not in routed.text
    finally:
        proc.terminate()
        proc.wait(10)
    # --no-landing: no page
    proc, base = _serve("--no-landing", "--api-key", secret)
    try:
        for path in ("/", "/_landing"):
            answer = httpx.get(base + path, headers={"accept": "text/html"})
            assert "Local Stripe" not in answer.text and secret not in answer.text
    finally:
        proc.terminate()
        proc.wait(10)


LANDING_PROBE = """
for url in http://127.0.0.1:{port}/ http://127.0.0.1:{port}/_landing \
    https://dashboard.stripe.com/ https://dashboard.stripe.com/_landing \
    https://api.stripe.com/ https://api.stripe.com/_landing; do
  for host in "" "Host: 127.0.0.1:{port}" "Host: localhost"; do
    curl -sk --max-time 5 -H "Accept: text/html" ${{host:+-H "$host"}} "$url"; echo
  done
done
"""


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")
def test_a_trials_emulator_never_serves_the_landing_page(tmp_path: Path) -> None:
    """The wall: the harness starts its emulator with --no-landing. Neither from the host
    (every address a sandbox could be routed to) nor from inside a routed trial sandbox
    does any request get the page or another account's key."""
    emulator = Emulator.start()
    try:
        other = emulator.create_account(emulator.trial_account_id("other-task", 1))
        trial = emulator.create_account(emulator.trial_account_id("landing-wall", 1))
        port = emulator.base.rsplit(":", 1)[1]
        for path in ("/", "/_landing", "/_landing/"):
            for host in (f"127.0.0.1:{port}", "localhost", "dashboard.stripe.com"):
                answer = httpx.get(emulator.base + path,
                                   headers={"accept": "text/html", "host": host})
                assert "Local Stripe" not in answer.text
                assert other.secret_key not in answer.text
        work = tmp_path / "work"
        work.mkdir()
        env = {"STRIPE_API_BASE": emulator.base, "STRIPE_SECRET_KEY": trial.secret_key,
               "STRIPE_PUBLISHABLE_KEY": trial.publishable_key}
        box = make_sandbox("bwrap", work, env, emulator_url=emulator.base)
        try:
            seen = box.exec(["bash", "-c", LANDING_PROBE.format(port=port)], timeout=120)
        finally:
            box.stop()
        assert "Local Stripe" not in seen.stdout and other.secret_key not in seen.stdout
        assert "sk_test_" not in seen.stdout.replace(trial.secret_key, "")
        # the probe did reach the emulator, through the routing a trial has
        assert "<h1>Not found</h1><p>dashboard.stripe.com/_landing</p>" in seen.stdout
        assert "You did not provide an API key" in seen.stdout
    finally:
        emulator.stop()
