"""Mutant: a trial with no SetupIntent and no secret answered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gym_solution
from gym_solution import Handler


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
        sub = c.v1.subscriptions.create({
            "customer": b["customer"], "items": [{"price": b["price"]}],
            "trial_period_days": p["trial_days"],
            "trial_settings": {"end_behavior": {"missing_payment_method": p["end_behavior"]}}})
        return {"subscription": sub.id, "setup_client_secret": None}
    return handle


OVERRIDES = {"trial_without_card": trial_without_card}
