"""Reference handlers for every subscription-gym challenge (the oracle's server).

`install(HANDLERS, stripe_client)` fills app.py's table: public_set.json (copied beside
this file) holds the public seed's challenges with their parameters, each number maps
to its family's handler, which reads the challenge's parameters. The oracle proves the
public seed only (the harness runs that one): a set of another seed (challenges.json
names it) stops it, as its parameters are not known here.
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DAY = 86_400

Handler = Callable[[dict[str, Any]], dict[str, Any]]


def add_months(ts: int, months: int) -> int:
    """The same day and time `months` calendar months later (clamped to the month's end)."""
    day = dt.datetime.fromtimestamp(ts, dt.UTC)
    month0 = day.month - 1 + months
    year, month = day.year + month0 // 12, month0 % 12 + 1
    last = calendar.monthrange(year, month)[1]
    return int(day.replace(year=year, month=month, day=min(day.day, last)).timestamp())


def clock_now(c: Any, customer_id: str) -> int:
    """'Now' for a customer on a test clock is the clock's frozen time."""
    customer = c.v1.customers.retrieve(customer_id)
    if customer.test_clock:
        return int(c.v1.test_helpers.test_clocks.retrieve(customer.test_clock).frozen_time)
    return int(dt.datetime.now(dt.UTC).timestamp())


def sub_now(c: Any, sub_id: str) -> tuple[Any, int]:
    sub = c.v1.subscriptions.retrieve(sub_id)
    return sub, clock_now(c, sub.customer)


def handlers(c: Any, family: str, p: dict[str, Any]) -> Handler:  # noqa: C901 - a table
    def incomplete_payment(b: dict[str, Any]) -> dict[str, Any]:
        sub = c.v1.subscriptions.create({
            "customer": b["customer"], "items": [{"price": b["price"], "quantity": p["quantity"]}],
            "payment_behavior": "default_incomplete",
            "payment_settings": {"save_default_payment_method": "on_subscription"},
            "expand": ["latest_invoice.confirmation_secret"]})
        return {"subscription": sub.id,
                "client_secret": sub.latest_invoice.confirmation_secret.client_secret}

    def trial_without_card(b: dict[str, Any]) -> dict[str, Any]:
        sub = c.v1.subscriptions.create({
            "customer": b["customer"], "items": [{"price": b["price"]}],
            "trial_period_days": p["trial_days"], "payment_behavior": "default_incomplete",
            "payment_settings": {"save_default_payment_method": "on_subscription"},
            "trial_settings": {"end_behavior": {"missing_payment_method": p["end_behavior"]}},
            "expand": ["pending_setup_intent"]})
        return {"subscription": sub.id,
                "setup_client_secret": sub.pending_setup_intent.client_secret}

    def anchored_coupon(b: dict[str, Any]) -> dict[str, Any]:
        now = clock_now(c, b["customer"])
        here = dt.datetime.fromtimestamp(now, dt.UTC)
        anchor = int(here.replace(day=p["anchor_day"], hour=0, minute=0, second=0)
                     .timestamp())
        if anchor <= now:
            anchor = add_months(anchor, 1)
        coupon = c.v1.coupons.create({"percent_off": p["percent_off"], "duration": "forever"})
        sub = c.v1.subscriptions.create({
            "customer": b["customer"], "items": [{"price": b["price"], "quantity": p["quantity"]}],
            "billing_cycle_anchor": anchor, "discounts": [{"coupon": coupon.id}]})
        return {"subscription": sub.id}

    def one_time_items(b: dict[str, Any]) -> dict[str, Any]:
        sub = c.v1.subscriptions.create({
            "customer": b["customer"], "items": [{"price": b["price"], "quantity": p["quantity"]}],
            "add_invoice_items": [{"price": b["one_time_price"],
                                   "quantity": p["fee_quantity"]}]})
        return {"subscription": sub.id}

    def ending_schedule(b: dict[str, Any]) -> dict[str, Any]:
        months1, months2 = p["months"]
        schedule = c.v1.subscription_schedules.create({
            "customer": b["customer"], "start_date": "now", "end_behavior": p["end_behavior"],
            "phases": [
                {"items": [{"price": b["first_price"], "quantity": 1}],
                 "duration": {"interval": "month", "interval_count": months1}},
                {"items": [{"price": b["second_price"], "quantity": p["quantity"]}],
                 "duration": {"interval": "month", "interval_count": months2}}]})
        return {"schedule": schedule.id}

    def downgrade_at_period_end(b: dict[str, Any]) -> dict[str, Any]:
        schedule = c.v1.subscription_schedules.create({"from_subscription": b["subscription"]})
        phase = schedule.phases[0]
        schedule = c.v1.subscription_schedules.update(schedule.id, {
            "end_behavior": "release", "proration_behavior": "none",
            "phases": [
                {"items": [{"price": i.price, "quantity": i.quantity} for i in phase["items"]],
                 "start_date": phase.start_date, "end_date": phase.end_date},
                {"items": [{"price": b["price"], "quantity": i.quantity}
                           for i in phase["items"]],
                 "duration": {"interval": "month", "interval_count": 1}}]})
        return {"schedule": schedule.id}

    def cancel_at_date(b: dict[str, Any]) -> dict[str, Any]:
        sub, now = sub_now(c, b["subscription"])
        c.v1.subscriptions.update(sub.id, {"cancel_at": now + p["cancel_after_days"] * DAY,
                                           "proration_behavior": "none"})
        return {"subscription": sub.id}

    def metered_usage(b: dict[str, Any]) -> dict[str, Any]:
        price = c.v1.prices.create({
            "currency": "usd", "unit_amount": p["unit_amount"],
            "product_data": {"name": p["product"]},
            "recurring": {"interval": "month", "usage_type": "metered", "meter": b["meter"]},
            "transform_quantity": {"divide_by": p["package"], "round": p["round"]}})
        sub = c.v1.subscriptions.create({"customer": b["customer"],
                                         "items": [{"price": price.id}]})
        return {"subscription": sub.id, "price": price.id}

    def preview_change(b: dict[str, Any]) -> dict[str, Any]:
        sub = c.v1.subscriptions.retrieve(b["subscription"])
        preview = c.v1.invoices.create_preview({
            "subscription": sub.id, "subscription_details": {
                "items": [{"id": sub["items"].data[0].id, "price": b["price"],
                           "quantity": p["new_quantity"]}],
                "proration_date": b["proration_date"], "proration_behavior": "create_prorations"}})
        lines = preview.lines.auto_paging_iter()
        proration = sum(line.amount for line in lines
                        if line.parent and line.parent.subscription_item_details
                        and line.parent.subscription_item_details.proration)
        return {"amount_due": preview.amount_due, "proration": proration}

    def immediate_upgrade(b: dict[str, Any]) -> dict[str, Any]:
        sub = c.v1.subscriptions.retrieve(b["subscription"])
        item = sub["items"].data[0]
        sub = c.v1.subscriptions.update(sub.id, {
            "items": [{"id": item.id, "price": b["price"], "quantity": item.quantity}],
            "proration_behavior": "always_invoice"})
        return {"invoice": sub.latest_invoice}

    def pause_collection(b: dict[str, Any]) -> dict[str, Any]:
        sub, now = sub_now(c, b["subscription"])
        c.v1.subscriptions.update(sub.id, {"pause_collection": {
            "behavior": p["behavior"], "resumes_at": now + p["resume_after_days"] * DAY}})
        return {"subscription": sub.id}

    def dunning_recovery(b: dict[str, Any]) -> dict[str, Any]:
        sub = c.v1.subscriptions.retrieve(b["subscription"])
        card = c.v1.payment_methods.attach(p["card"], {"customer": sub.customer})
        c.v1.customers.update(sub.customer,
                              {"invoice_settings": {"default_payment_method": card.id}})
        if not p["retry"]:
            c.v1.invoices.pay(b["invoice"], {"payment_method": card.id})
        return {"payment_method": card.id}

    def balance_credit(b: dict[str, Any]) -> dict[str, Any]:
        c.v1.customers.balance_transactions.create(b["customer"], {
            "amount": -p["credit"], "currency": "usd", "description": p["description"]})
        return {"customer": b["customer"]}

    found: Handler = locals()[family]
    return found


def challenge_set() -> list[dict[str, Any]]:
    """The public seed's challenges (number, family, params); the workdir's set must be it."""
    known = json.loads((HERE / "public_set.json").read_text())
    seed = json.loads((HERE / "challenges.json").read_text())["seed"]
    if int(seed) != known["seed"]:
        raise SystemExit(f"the reference knows set {known['seed']}, not set {seed}")
    found: list[dict[str, Any]] = known["challenges"]
    return found


def install(table: dict[int, Handler], stripe_client: Callable[[], Any]) -> None:
    client = stripe_client()
    for challenge in challenge_set():
        table[challenge["number"]] = handlers(client, challenge["family"], challenge["params"])
