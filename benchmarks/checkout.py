"""Checkout latency: create a complex session, render its page, change the cart, pay.

    .venv/bin/python benchmarks/checkout.py [--rounds 50]

Runs a real emulator in-process (uvicorn on a free port, as the tests do) and drives it
over HTTP with httpx: `POST /v1/checkout/sessions` with 20+ options, `GET` of the hosted
page, a promotion-code `state` action and the `confirm` that pays with a test card.
Prints p50 / p95 / max milliseconds per step. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from conftest import start_emulator  # noqa: E402

FORM = {"email": "bench@example.com", "phone": "+15555550100",
        "shipping": {"name": "B", "line1": "1 Main", "city": "Denver", "state": "CO",
                     "postal_code": "80202", "country": "US"},
        "billing": {"country": "US", "postal_code": "80202"},
        "card": {"number": "4242424242424242", "expiry": "12/34", "cvc": "123", "name": "B"},
        "custom_fields": {"size": "m", "note": "leave at door"},
        "consent": {"terms_of_service": True, "promotions": True}}


def session_params(price: str, extra: str) -> dict[str, Any]:
    return {
        "mode": "payment", "success_url": "https://shop.test/ok?id={CHECKOUT_SESSION_ID}",
        "cancel_url": "https://shop.test/cart", "allow_promotion_codes": "true",
        "line_items[0][price]": price, "line_items[0][quantity]": "2",
        "line_items[0][adjustable_quantity][enabled]": "true",
        "line_items[0][adjustable_quantity][maximum]": "5",
        "optional_items[0][price]": extra, "optional_items[0][quantity]": "1",
        "automatic_tax[enabled]": "true", "phone_number_collection[enabled]": "true",
        "shipping_address_collection[allowed_countries][0]": "US",
        "shipping_address_collection[allowed_countries][1]": "CA",
        "shipping_options[0][shipping_rate_data][display_name]": "Ground",
        "shipping_options[0][shipping_rate_data][fixed_amount][amount]": "500",
        "shipping_options[0][shipping_rate_data][fixed_amount][currency]": "usd",
        "custom_fields[0][key]": "size", "custom_fields[0][type]": "dropdown",
        "custom_fields[0][label][type]": "custom", "custom_fields[0][label][custom]": "Size",
        "custom_fields[0][dropdown][options][0][label]": "M",
        "custom_fields[0][dropdown][options][0][value]": "m",
        "custom_fields[1][key]": "note", "custom_fields[1][type]": "text",
        "custom_fields[1][label][type]": "custom", "custom_fields[1][label][custom]": "Note",
        "custom_text[submit][message]": "Ships tomorrow",
        "consent_collection[terms_of_service]": "required",
        "consent_collection[promotions]": "auto", "locale": "fr", "submit_type": "book"}


def report(name: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    print(f"{name:<28} p50 {statistics.median(ordered):7.2f} ms   p95 {p95:7.2f} ms   "
          f"max {ordered[-1]:7.2f} ms   (n={len(ordered)})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    emulator = start_emulator()
    account = emulator.new_account()
    api = httpx.Client(base_url=emulator.base, timeout=30,
                       headers={"Authorization": f"Bearer {account['secret_key']}"})
    web = httpx.Client(timeout=30)
    price = api.post("/v1/prices", data={"currency": "usd", "unit_amount": "2500",
                                         "product_data[name]": "Shirt"}).json()["id"]
    extra = api.post("/v1/prices", data={"currency": "usd", "unit_amount": "900",
                                         "product_data[name]": "Socks"}).json()["id"]
    coupon = api.post("/v1/coupons", data={"percent_off": "10", "duration": "once"}).json()
    api.post("/v1/promotion_codes", data={"promotion[type]": "coupon",
                                          "promotion[coupon]": coupon["id"], "code": "BENCH"})
    steps: dict[str, list[float]] = {"create session": [], "render hosted page": [],
                                     "apply promotion code": [], "confirm (pay)": []}
    for _ in range(args.rounds):
        start = time.perf_counter()
        session = api.post("/v1/checkout/sessions", data=session_params(price, extra)).json()
        steps["create session"].append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        page = web.get(session["url"])
        steps["render hosted page"].append((time.perf_counter() - start) * 1000)
        assert page.status_code == 200
        start = time.perf_counter()
        web.post(session["url"] + "/state", json={"action": "promotion_code", "code": "BENCH"})
        steps["apply promotion code"].append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        done = web.post(session["url"] + "/confirm", json=FORM).json()
        steps["confirm (pay)"].append((time.perf_counter() - start) * 1000)
        assert done["complete"], done
    for name, samples in steps.items():
        report(name, samples)
    emulator.stop()


if __name__ == "__main__":
    main()
