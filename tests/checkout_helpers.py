"""Helpers for the Checkout tests: catalog set-up and driving the page's JSON actions."""

from __future__ import annotations

from typing import Any

import httpx
import stripe

CARD_OK = "4242 4242 4242 4242"
CARD_DECLINED = "4000 0000 0000 0002"
CARD_3DS = "4000 0025 0000 3155"


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
