"""Mutant: the downgrade made immediately."""

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


def downgrade_at_period_end(c: Any, p: dict[str, Any]) -> Handler:
    def handle(b: dict[str, Any]) -> dict[str, Any]:
        sub = c.v1.subscriptions.retrieve(b["subscription"])
        item = sub["items"].data[0]
        c.v1.subscriptions.update(sub.id, {
            "items": [{"id": item.id, "price": b["price"], "quantity": item.quantity}],
            "proration_behavior": "none"})
        return {"schedule": None}
    return handle


OVERRIDES = {"downgrade_at_period_end": downgrade_at_period_end}
