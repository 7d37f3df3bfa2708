"""Mutant: a pause made by emailing invoices instead."""

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


def pause_collection(c: Any, p: dict[str, Any]) -> Handler:
    def handle(b: dict[str, Any]) -> dict[str, Any]:
        c.v1.subscriptions.update(b["subscription"], {"collection_method": "send_invoice",
                                                      "days_until_due": 30})
        return {"subscription": b["subscription"]}
    return handle


OVERRIDES = {"pause_collection": pause_collection}
