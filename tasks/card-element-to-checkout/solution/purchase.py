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
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=workdir, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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


def fill(frame: Frame, label: str, value: str) -> None:
    frame.get_by_label(re.compile(label, re.I)).first.fill(value)


def pay(frame: Frame) -> None:
    fill(frame, r"^email", "hiker@example.com")
    promo = frame.get_by_label(re.compile("promotion code", re.I)).first
    if not promo.is_visible():
        frame.get_by_role("button", name=re.compile("add promotion code", re.I)).click()
    promo.fill("TRAIL10")
    frame.get_by_role("button", name=re.compile("^apply", re.I)).click()
    frame.get_by_text("TRAIL10").first.wait_for(timeout=10_000)
    fill(frame, r"^(full )?name", "Alex Hiker")
    frame.get_by_label(re.compile("^country", re.I)).first.select_option("US")
    fill(frame, r"address line 1|^address$", "1 Trailhead Road")
    fill(frame, r"^city", "Boulder")
    state = frame.get_by_label(re.compile("^state", re.I))
    if state.count():
        if state.first.evaluate("e => e.tagName") == "SELECT":
            state.first.select_option("CO")
        else:
            state.first.fill("CO")
    fill(frame, r"zip|postal", "80302")
    fill(frame, r"card number", "4242 4242 4242 4242")
    fill(frame, r"expir", "12 / 34")
    fill(frame, r"cvc|security code", "123")
    cardholder = frame.get_by_label(re.compile("cardholder|name on card", re.I))
    if cardholder.count():
        cardholder.first.fill("Alex Hiker")
    frame.get_by_role("button", name=re.compile(r"^pay", re.I)).click()


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
            session_id = page.locator("#session-id").inner_text().strip()
            browser.close()
    finally:
        shop.terminate()
        shop.wait(timeout=10)
    if not session_id.startswith("cs_"):
        raise SystemExit(f"no Checkout Session id on the return page: {session_id!r}")
    out = workdir / "submission" / "checkout_session_id.txt"
    out.parent.mkdir(exist_ok=True)
    out.write_text(session_id + "\n")
    print(f"bought one of each product in {session_id}")


if __name__ == "__main__":
    main()
