"""Mutant: the coupon's percentage five points too high."""

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


def anchored_coupon(c: Any, p: dict[str, Any]) -> Handler:
    return gym_solution.handlers(c, "anchored_coupon", {**p, "percent_off": p["percent_off"] + 5})


OVERRIDES = {"anchored_coupon": anchored_coupon}
