"""Browser tools in real Chromium on an emulator Checkout page: snapshot refs, fill the
form, pay, wait for the result; screenshots come back as PNG images."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import stripe

from stripebench.harness.sandbox import LocalSandbox
from stripebench.harness.tools import Toolbox
from stripebench.rundir.transcript import Transcript, read


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


TOOLS_PAGE = """<!doctype html><html><head><title>Tools page</title></head><body>
<h1>Order form</h1>
<label for="name">Name</label><input id="name">
<label for="plan">Plan</label>
<select id="plan"><option value="basic">Basic</option><option value="pro">Pro plan</option>
</select>
<p id="out">nothing sent</p>
<div id="banner">Loading banner</div>
<script>
  console.log("page ready");
  document.getElementById("name").addEventListener("keydown", e => {
    if (e.key === "Enter") {
      document.getElementById("out").textContent = "hello " + e.target.value;
      console.warn("sent " + e.target.value);
    }
  });
  document.getElementById("plan").addEventListener("change",
    e => console.log("plan is " + e.target.value));
  document.addEventListener("keydown", e => {
    if (e.key === "Escape") document.getElementById("banner").remove();
  });
</script></body></html>"""


def test_snapshot_type_select_keys_console_tabs_and_waits(tmp_path: Path) -> None:
    """The browser tools the Checkout test does not reach, on a local page in Chromium."""
    (tmp_path / "form.html").write_text(TOOLS_PAGE)
    (tmp_path / "other.html").write_text("<title>Other tab</title><p>Second page</p>")
    tools = Toolbox(LocalSandbox(tmp_path / "work"), Transcript(tmp_path / "t.jsonl"))
    try:
        tools.call("browser_navigate", {"url": (tmp_path / "form.html").as_uri()})
        snap = tools.call("browser_snapshot", {})
        assert not snap.is_error and "'Tools page'" in snap.text
        assert 'heading "Order form"' in snap.text
        name, plan = ref_of(snap.text, 'textbox "Name"'), ref_of(snap.text, 'combobox "Plan"')
        assert name != plan and name.startswith("e")

        typed = tools.call("browser_type", {"ref": name, "text": "Ada", "submit": True})
        assert not typed.is_error and "hello Ada" in typed.text
        # select by visible label (values first, then labels)
        picked = tools.call("browser_select_option", {"ref": plan, "values": ["Pro plan"]})
        assert not picked.is_error, picked.text
        bad = tools.call("browser_select_option", {"ref": plan, "values": ["Gold"]})
        assert bad.is_error and "Browser error" in bad.text

        assert "Loading banner" in tools.call("browser_snapshot", {}).text
        missing = tools.call("browser_wait_for", {"text_gone": "Loading banner",
                                                  "seconds": 0.5})
        assert missing.is_error and "still present" in missing.text
        tools.call("browser_press_key", {"key": "Escape"})
        gone = tools.call("browser_wait_for", {"text_gone": "Loading banner", "seconds": 5})
        assert not gone.is_error and "Loading banner" not in gone.text
        absent = tools.call("browser_wait_for", {"text": "never shown", "seconds": 0.5})
        assert absent.is_error and "still absent" in absent.text

        console = tools.call("browser_console_messages", {}).text.splitlines()
        assert "[tab 1] [log] page ready" in console
        assert "[tab 1] [warning] sent Ada" in console
        assert "[tab 1] [log] plan is pro" in console

        opened = tools.call("browser_tabs", {"action": "new",
                                             "url": (tmp_path / "other.html").as_uri()})
        assert opened.text.splitlines() == [
            f"  1. 'Tools page' {(tmp_path / 'form.html').as_uri()}",
            f"* 2. 'Other tab' {(tmp_path / 'other.html').as_uri()}"]
        assert "Second page" in tools.call("browser_snapshot", {}).text
        selected = tools.call("browser_tabs", {"action": "select", "index": 1})
        assert selected.text.startswith("* 1. 'Tools page'")
        assert "hello Ada" in tools.call("browser_snapshot", {}).text
        closed = tools.call("browser_tabs", {"action": "close", "index": 2})
        assert closed.text.splitlines() == [f"* 1. 'Tools page' "
                                            f"{(tmp_path / 'form.html').as_uri()}"]
        wrong = tools.call("browser_tabs", {"action": "select", "index": 5})
        assert wrong.is_error and "1..1" in wrong.text
    finally:
        tools.close()
    calls = [e["name"] for e in read(tmp_path / "t.jsonl") if e["type"] == "tool_call"]
    assert calls.count("browser_tabs") == 4 and "browser_press_key" in calls
