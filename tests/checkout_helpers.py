"""Helpers for the Checkout tests: catalog set-up and driving the page's JSON actions."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import stripe

CARD_OK = "4242 4242 4242 4242"
CARD_DECLINED = "4000 0000 0000 0002"
CARD_3DS = "4000 0025 0000 3155"


def serve_merchant_pages(pages: dict[str, str]) -> ThreadingHTTPServer:
    """The merchant's own site on a loopback origin (Chromium lets such a page load the
    emulator's Stripe.js): `pages` maps a path to its HTML, any other path is a stub."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            path = self.path.split("?")[0]
            body = pages.get(path, f"<h1 id='shop'>Shop page</h1><p>{path}</p>").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the browser navigated away mid-response

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def price(client: stripe.StripeClient, amount: int, name: str = "Widget",
          currency: str = "usd", **extra: Any) -> stripe.Price:
    params: dict[str, Any] = {"currency": currency, "unit_amount": amount,
                              "product_data": {"name": name}, **extra}
    return client.v1.prices.create(params=params)  # type: ignore[arg-type]


def page_base(base: str, session: Any) -> str:
    """Where the session's page lives (hosted url, or the embedded page for a secret)."""
    if session.url:
        return str(session.url)
    return f"{base}/checkout.stripe.com/c/embedded/{session.client_secret}"


def form(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "email": "jenny@example.com",
        "card": {"number": CARD_OK, "expiry": "12 / 34", "cvc": "123", "name": "Jenny Rosen"},
        "billing": {"country": "US", "postal_code": "94107", "state": "CA"},
        "custom_fields": {}, "consent": {}}
    body.update(overrides)
    return body


def confirm(base: str, session: Any, **overrides: Any) -> dict[str, Any]:
    r = httpx.post(page_base(base, session) + "/confirm", json=form(**overrides), timeout=30)
    r.raise_for_status()
    data: dict[str, Any] = r.json()
    return data


def state(base: str, session: Any, **change: Any) -> dict[str, Any]:
    r = httpx.post(page_base(base, session) + "/state", json=change, timeout=30)
    r.raise_for_status()
    data: dict[str, Any] = r.json()
    return data
