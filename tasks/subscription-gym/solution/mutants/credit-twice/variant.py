"""Mutant: the balance credit applied twice."""

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


def balance_credit(c: Any, p: dict[str, Any]) -> Handler:
    def handle(b: dict[str, Any]) -> dict[str, Any]:
        for _ in range(2):
            c.v1.customers.balance_transactions.create(b["customer"], {
                "amount": -p["credit"], "currency": "usd", "description": p["description"]})
        return {"customer": b["customer"]}
    return handle


OVERRIDES = {"balance_credit": balance_credit}
