"""The billing engine is deterministic too: two servers with one seed, driven through a
subscription's life on a test clock (trial, renewals, metered usage, a proration, a
schedule, a preview), answer every request with the same bytes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from billing_helpers import DAY, JAN_1
from conftest import RunningEmulator, start_emulator

Call = Callable[..., dict[str, Any]]


def billing_story(call: Call) -> None:
    clock = call("POST", "/v1/test_helpers/test_clocks", {"frozen_time": JAN_1})
    customer = call("POST", "/v1/customers", {"email": "det@example.com",
                                              "test_clock": clock["id"]})
    card = call("POST", "/v1/payment_methods/pm_card_visa/attach",
                {"customer": customer["id"]})
    call("POST", f"/v1/customers/{customer['id']}",
         {"invoice_settings[default_payment_method]": card["id"]})
    product = call("POST", "/v1/products", {"name": "Det"})
    basic = call("POST", "/v1/prices", {"product": product["id"], "unit_amount": "1900",
                                        "currency": "usd", "recurring[interval]": "month"})
    pro = call("POST", "/v1/prices", {"product": product["id"], "unit_amount": "4900",
                                      "currency": "usd", "recurring[interval]": "month"})
    meter = call("POST", "/v1/billing/meters", {
        "display_name": "Calls", "event_name": "calls", "default_aggregation[formula]": "sum"})
    metered = call("POST", "/v1/prices", {
        "product": product["id"], "unit_amount": "3", "currency": "usd",
        "recurring[interval]": "month", "recurring[usage_type]": "metered",
        "recurring[meter]": meter["id"]})
    coupon = call("POST", "/v1/coupons", {"percent_off": "15", "duration": "repeating",
                                          "duration_in_months": "2"})
    sub = call("POST", "/v1/subscriptions", {
        "customer": customer["id"], "items[0][price]": basic["id"],
        "items[1][price]": metered["id"], "trial_period_days": "7",
        "discounts[0][coupon]": coupon["id"], "expand[0]": "latest_invoice"})
    for n in range(3):
        call("POST", "/v1/billing/meter_events", {
            "event_name": "calls", "timestamp": str(JAN_1 + (n + 8) * DAY),
            "payload[stripe_customer_id]": customer["id"], "payload[value]": str(40 + n)})
    call("POST", f"/v1/test_helpers/test_clocks/{clock['id']}/advance",
         {"frozen_time": str(JAN_1 + 50 * DAY)})
    item = sub["items"]["data"][0]["id"]
    call("POST", "/v1/invoices/create_preview", {
        "subscription": sub["id"], "subscription_details[items][0][id]": item,
        "subscription_details[items][0][price]": pro["id"]})
    call("POST", f"/v1/subscriptions/{sub['id']}", {
        "items[0][id]": item, "items[0][price]": pro["id"],
        "proration_behavior": "always_invoice"})
    call("POST", "/v1/subscription_schedules", {
        "customer": customer["id"], "start_date": str(JAN_1 + 60 * DAY),
        "phases[0][items][0][price]": basic["id"], "phases[0][duration][interval]": "month",
        "end_behavior": "cancel"})
    call("POST", f"/v1/test_helpers/test_clocks/{clock['id']}/advance",
         {"frozen_time": str(JAN_1 + 100 * DAY)})
    call("GET", "/v1/invoices", {"customer": customer["id"], "limit": "20",
                                 "expand[]": "data.payments"})
    call("GET", "/v1/invoice_payments", {"limit": "20"})
    call("GET", "/v1/subscriptions", {"status": "all", "expand[]": "data.latest_invoice"})
    call("GET", "/v1/events", {"limit": "100"})


def record(emulator: RunningEmulator) -> list[tuple[int, bytes, str]]:
    key = emulator.new_account()["secret_key"]
    out: list[tuple[int, bytes, str]] = []
    with httpx.Client(base_url=emulator.base, timeout=30) as http:
        def call(method: str, path: str, data: dict[str, str]) -> dict[str, Any]:
            headers = {"Authorization": f"Bearer {key}"}
            if method == "GET":
                r = http.get(path, params=data, headers=headers)
            else:
                r = http.post(path, data=data, headers=headers)
            assert r.status_code == 200, (path, r.text[:500])
            # Links (hosted invoice pages) name the server they came from: its port differs.
            body = r.content.replace(emulator.base.encode(), b"http://ORIGIN")
            out.append((r.status_code, body, r.headers["request-id"]))
            return r.json()  # type: ignore[no-any-return]

        billing_story(call)
    return out


def test_billing_is_byte_identical_across_servers() -> None:
    first, second = start_emulator(seed=99), start_emulator(seed=99)
    try:
        a, b = record(first), record(second)
    finally:
        first.stop()
        second.stop()
    assert len(a) == len(b) > 20
    for n, (one, two) in enumerate(zip(a, b, strict=True)):
        assert one == two, f"response {n} differs"
    invoices = a[-4][1]
    assert invoices.count(b'"object": "invoice"') >= 4 and b'"subscription_cycle"' in invoices
