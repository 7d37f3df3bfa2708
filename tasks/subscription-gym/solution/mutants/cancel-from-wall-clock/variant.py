"""Mutant: cancel_at counted from the wall clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import gym_solution
from gym_solution import DAY, Handler


def install(table: dict[int, Handler], stripe_client: Callable[[], Any]) -> None:
    """The reference's handlers, OVERRIDES' families replaced."""
    gym_solution.install(table, stripe_client)
    client = stripe_client()
    for challenge in gym_solution.challenge_set():
        make = OVERRIDES.get(challenge["family"])
        if make is not None:
            table[challenge["number"]] = make(client, challenge["params"])


def cancel_at_date(c: Any, p: dict[str, Any]) -> Handler:
    def handle(b: dict[str, Any]) -> dict[str, Any]:
        now = int(dt.datetime.now(dt.UTC).timestamp())
        c.v1.subscriptions.update(b["subscription"], {
            "cancel_at": now + p["cancel_after_days"] * DAY, "proration_behavior": "none"})
        return {"subscription": b["subscription"]}
    return handle


OVERRIDES = {"cancel_at_date": cancel_at_date}
