"""Alternative: timestamps instead of counts, item-level updates."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import gym_solution
from gym_solution import DAY, Handler, clock_now, sub_now


def install(table: dict[int, Handler], stripe_client: Callable[[], Any]) -> None:
    """The reference's handlers, OVERRIDES' families replaced."""
    gym_solution.install(table, stripe_client)
    client = stripe_client()
    for challenge in gym_solution.challenge_set():
        make = OVERRIDES.get(challenge["family"])
        if make is not None:
            table[challenge["number"]] = make(client, challenge["params"])


def trial_without_card(c: Any, p: dict[str, Any]) -> Handler:
    def handle(b: dict[str, Any]) -> dict[str, Any]:
        now = clock_now(c, b["customer"])
        sub = c.v1.subscriptions.create({
            "customer": b["customer"], "items": [{"price": b["price"], "quantity": 1}],
            "trial_end": now + p["trial_days"] * DAY, "payment_behavior": "default_incomplete",
            "payment_settings": {"save_default_payment_method": "on_subscription"},
            "trial_settings": {"end_behavior": {"missing_payment_method": p["end_behavior"]}}})
        intent = c.v1.setup_intents.retrieve(sub.pending_setup_intent)
        return {"subscription": sub.id, "setup_client_secret": intent.client_secret}
    return handle


def immediate_upgrade(c: Any, p: dict[str, Any]) -> Handler:
    def handle(b: dict[str, Any]) -> dict[str, Any]:
        sub = c.v1.subscriptions.retrieve(b["subscription"])
        item = sub["items"].data[0]
        c.v1.subscription_items.update(item.id, {"price": b["price"],
                                                 "proration_behavior": "always_invoice"})
        return {"invoice": c.v1.subscriptions.retrieve(sub.id).latest_invoice}
    return handle


def cancel_at_date(c: Any, p: dict[str, Any]) -> Handler:
    def handle(b: dict[str, Any]) -> dict[str, Any]:
        sub, now = sub_now(c, b["subscription"])
        target = dt.datetime.fromtimestamp(now, dt.UTC) + dt.timedelta(days=p["cancel_after_days"])
        c.v1.subscriptions.update(sub.id, {"cancel_at": int(target.timestamp()),
                                           "proration_behavior": "none"})
        return {"subscription": sub.id}
    return handle


OVERRIDES = {"trial_without_card": trial_without_card, "immediate_upgrade": immediate_upgrade,
             "cancel_at_date": cancel_at_date}
