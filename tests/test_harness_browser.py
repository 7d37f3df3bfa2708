"""Browser tools in real Chromium on an emulator Checkout page: snapshot refs, fill the
form, pay, wait for the result; screenshots come back as PNG images."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import stripe

from stripebench.harness.sandbox import LocalSandbox
from stripebench.harness.tools import Toolbox
from stripebench.harness.transcript import Transcript, read


def ref_of(snapshot: str, role_and_name: str) -> str:
    line = next(line for line in snapshot.splitlines() if role_and_name in line)
    return line.split("[ref=")[1].split("]")[0]


def test_pay_a_checkout_session_with_the_browser_tools(tmp_path: Path, client: stripe.StripeClient,
                                                      emulator: Any) -> None:
    price = client.v1.prices.create(params={"currency": "usd", "unit_amount": 2500,
                                            "product_data": {"name": "Trail shirt"}})
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "line_items": [{"price": price.id, "quantity": 2}],
        "success_url": f"{emulator.base}/_emulator/health"})
    transcript = Transcript(tmp_path / "transcript.jsonl")
    tools = Toolbox(LocalSandbox(tmp_path / "work"), transcript)
    try:
        page = tools.call("browser_navigate", {"url": session.url})
        assert not page.is_error, page.text
        assert "$50.00" in page.text and 'button "Pay"' in page.text
        filled = tools.call("browser_fill_form", {"fields": [
            {"ref": ref_of(page.text, 'textbox "Email"'), "value": "jenny@example.com"},
            {"ref": ref_of(page.text, 'textbox "Card number"'), "value": "4242 4242 4242 4242"},
            {"ref": ref_of(page.text, 'textbox "Expiration"'), "value": "12 / 34"},
            {"ref": ref_of(page.text, 'textbox "CVC"'), "value": "123"},
            {"ref": ref_of(page.text, 'textbox "Cardholder name"'), "value": "Jenny Rosen"},
            {"ref": ref_of(page.text, 'combobox "Country or region"'), "value": "United States"},
            {"ref": ref_of(page.text, 'textbox "ZIP"'), "value": "94107"},
        ]})
        assert 'value="jenny@example.com"' in filled.text
        shot = tools.call("browser_take_screenshot", {})
        assert shot.images and shot.images[0].startswith(b"\x89PNG")
        tools.call("browser_click", {"ref": ref_of(filled.text, 'button "Pay"')})
        # the success URL is the emulator health page: {"status": "ok", "accounts": ...}
        waited = tools.call("browser_wait_for", {"text": "accounts", "seconds": 20})
        assert not waited.is_error, waited.text
        network = tools.call("browser_network_requests", {})
        assert "/checkout.stripe.com/" in network.text
        stale = tools.call("browser_click", {"ref": "e999"})
        assert stale.is_error and "browser_snapshot" in stale.text
    finally:
        tools.close()
    paid = client.v1.checkout.sessions.retrieve(session.id)
    assert paid.status == "complete" and paid.payment_status == "paid"
    assert paid.customer_details is not None and paid.customer_details.email == \
        "jenny@example.com"
    events = read(tmp_path / "transcript.jsonl")
    results = [e for e in events if e["type"] == "tool_result"]
    assert any(e["images"] for e in results)
    assert (tmp_path / results[2]["images"][0]).read_bytes().startswith(b"\x89PNG")
