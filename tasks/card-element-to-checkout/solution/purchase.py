"""Buy one of each product through the migrated shop's embedded Checkout, in Chromium.

    python purchase.py WORKDIR

Starts the migrated app from WORKDIR on a free port (the task's own service still runs
the old code until the harness restarts it), drives the shop and the embedded Checkout
iframe with Playwright, and writes the completed session's id to
WORKDIR/submission/checkout_session_id.txt.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Frame, Locator, Page, sync_playwright

# What the customer buys and enters; purchase.json beside this script may change it
# (a variant that buys differently overlays its own).
PLAN = {"products": ["Enamel Camp Mug", "Trail Map Poster", "Wool Beanie"],
        "promotion_code": "TRAIL10"}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_shop(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "PORT": str(port)}
    base = os.environ.get("STRIPE_API_BASE", "")
    if "STRIPE_JS_URL" not in env and base.startswith("http://"):
        # No routing: Stripe.js comes from the emulator's plain path.
        env["STRIPE_JS_URL"] = base.rstrip("/") + "/js.stripe.com/v3/"
    log = open(workdir / ".oracle-shop.log", "wb")  # noqa: SIM115 - lives with the process
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=workdir, env=env,
                            stdout=log, stderr=subprocess.STDOUT)
    origin = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(origin + "/healthz", timeout=1)
            return proc, origin
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the migrated shop did not start")


def checkout_frame(page: Page) -> Frame:
    page.wait_for_selector("#checkout iframe", timeout=20_000)
    handle = page.query_selector("#checkout iframe")
    frame = handle.content_frame() if handle else None
    if frame is None:
        raise SystemExit("embedded Checkout did not mount")
    frame.wait_for_load_state()
    return frame


def plan() -> dict[str, Any]:
    overlay = Path(__file__).with_name("purchase.json")
    return {**PLAN, **(json.loads(overlay.read_text()) if overlay.is_file() else {})}


def add_button(page: Page, name: str) -> Locator:
    """The button beside the product's name, whatever it says."""
    around = page.get_by_text(name).first.locator(
        "xpath=ancestor-or-self::*[self::button or .//button][1]")
    if around.evaluate("e => e.tagName") == "BUTTON":
        return around
    buttons = around.locator("button")
    if buttons.count() > 1:
        buttons = buttons.filter(has_text=re.compile(r"add|cart|buy", re.I))
    return buttons.first


def pay(frame: Frame, code: str | None = "TRAIL10") -> None:
    """Fill the embedded Checkout form the way a customer would, field by field."""
    frame.locator("#email").fill("hiker@example.com")
    if code:
        frame.locator("#promotion_code").fill(code)
        frame.locator("#apply-code").click()
        frame.locator(".code-chip", has_text=code).wait_for()
    frame.locator("#shipping-name").fill("Alex Hiker")
    frame.locator("#shipping-country").select_option("US")
    frame.locator("#shipping-line1").fill("1 Trailhead Road")
    frame.locator("#shipping-city").fill("Boulder")
    frame.locator("#shipping-state").fill("CO")
    frame.locator("#shipping-postal_code").fill("80302")
    frame.locator("#card-number").fill("4242 4242 4242 4242")
    frame.locator("#card-expiry").fill("12 / 34")
    frame.locator("#card-cvc").fill("123")
    frame.locator("#card-name").fill("Alex Hiker")
    frame.locator("#billing-country").select_option("US")
    frame.locator("#billing-postal_code").fill("80302")
    frame.locator("#submit").click()


def main() -> None:
    workdir = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    shop, origin = start_shop(workdir)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                         args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.set_default_timeout(15_000)
            wanted = plan()
            for name in wanted["products"]:
                page.goto(origin + "/")
                add_button(page, name).click()
                page.wait_for_load_state("networkidle")
            page.goto(origin + "/checkout")
            pay(checkout_frame(page), wanted["promotion_code"])
            # Back on the shop: the return page's address names the session.
            page.wait_for_url(re.compile(r"cs_test_\w+"), timeout=30_000)
            page.wait_for_load_state("networkidle")
            found = re.search(r"cs_test_\w+", page.url + " " + page.inner_text("body"))
            if found is None:
                log_text = (workdir / ".oracle-shop.log").read_text()[-3000:]
                raise SystemExit(f"no return page at {page.url}:\n{log_text}")
            session_id = found.group(0)
            browser.close()
    finally:
        shop.terminate()
        shop.wait(timeout=10)
        (workdir / ".oracle-shop.log").unlink(missing_ok=True)
    if not session_id.startswith("cs_"):
        raise SystemExit(f"no Checkout Session id on the return page: {session_id!r}")
    out = workdir / "submission" / "checkout_session_id.txt"
    out.parent.mkdir(exist_ok=True)
    out.write_text(session_id + "\n")
    print(f"bought one of each product in {session_id}")


if __name__ == "__main__":
    main()
