"""Buy one of each product through the migrated shop's embedded Checkout, in Chromium.

    python purchase.py WORKDIR

Starts the migrated app from WORKDIR on a free port (the task's own service still runs
the old code until the harness restarts it), drives the shop and the embedded Checkout
iframe with Playwright, and writes the completed session's id to
WORKDIR/submission/checkout_session_id.txt.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Frame, Page, sync_playwright

PRODUCTS = ["Enamel Camp Mug", "Trail Map Poster", "Wool Beanie"]
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


def pay(frame: Frame) -> None:
    """Fill the embedded Checkout form the way a customer would, field by field."""
    frame.locator("#email").fill("hiker@example.com")
    frame.locator("#promotion_code").fill("TRAIL10")
    frame.locator("#apply-code").click()
    frame.locator(".code-chip", has_text="TRAIL10").wait_for()
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
            page.goto(origin + "/")
            for name in PRODUCTS:
                page.get_by_role("button", name=f"Add {name} to cart").click()
                page.wait_for_url(re.compile(r"/cart$"))
                page.goto(origin + "/")
            page.goto(origin + "/checkout")
            pay(checkout_frame(page))
            page.wait_for_url(re.compile(r"/checkout/return"), timeout=30_000)
            heading = page.locator("h1").first.inner_text()
            if page.locator("#session-id").count() == 0:
                log_text = (workdir / ".oracle-shop.log").read_text()[-3000:]
                raise SystemExit(f"the return page shows {heading!r}:\n{log_text}")
            session_id = page.locator("#session-id").inner_text().strip()
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
