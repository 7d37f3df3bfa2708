"""Test clocks: frozen time for a set of customers, advanced on request."""

from __future__ import annotations

from typing import Any

from ..billing import advance as advancing
from ..billing import subscribing, timing
from ..context import Ctx
from ..errors import InvalidRequest
from ..listing import paginate
from ..router import api
from ._common import deleted

KEEP_DAYS = 30


@api("POST", "/v1/test_helpers/test_clocks")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    clock = ctx.new("test_helpers.test_clock", "clock", frozen_time=int(params["frozen_time"]),
                    name=params.get("name"), status="ready",
                    deletes_after=ctx.now() + KEEP_DAYS * timing.DAY,
                    status_details={"advancing": None})
    ctx.put(clock)
    ctx.emit("test_helpers.test_clock.created", clock)
    return clock


@api("GET", "/v1/test_helpers/test_clocks/{test_clock}")
def retrieve(ctx: Ctx, params: dict[str, Any], test_clock: str) -> dict[str, Any]:
    return ctx.get(test_clock, "test_helpers.test_clock", kind="test_clock")


@api("POST", "/v1/test_helpers/test_clocks/{test_clock}/advance")
def advance(ctx: Ctx, params: dict[str, Any], test_clock: str) -> dict[str, Any]:
    """Runs the whole advance before answering; the clock comes back `ready` at the target
    (Stripe answers `advancing` first; clients that poll for `ready` see it at once)."""
    clock = ctx.get(test_clock, "test_helpers.test_clock", kind="test_clock")
    target = int(params["frozen_time"])
    if target <= clock["frozen_time"]:
        raise InvalidRequest("The test clock can only be advanced forward in time: "
                             f"frozen_time must be after {clock['frozen_time']}.",
                             param="frozen_time")
    limit = _advance_limit(ctx, clock)
    if target > limit:
        raise InvalidRequest(
            "The test clock cannot be advanced more than two intervals of its shortest "
            "subscription (two years when it has none) in one step: frozen_time must be at "
            f"most {limit}.", param="frozen_time")
    clock["status"] = "advancing"
    clock["status_details"] = {"advancing": {"target_frozen_time": target}}
    ctx.put(clock)
    ctx.emit("test_helpers.test_clock.advancing", clock)
    advancing.advance(ctx, clock, target)
    clock["status"] = "ready"
    clock["status_details"] = {"advancing": None}
    ctx.put(clock)
    timing.at(ctx, target).emit("test_helpers.test_clock.ready", clock)
    return clock


def _advance_limit(ctx: Ctx, clock: dict[str, Any]) -> int:
    """Stripe's rule: no further than two intervals of the shortest live subscription on
    the clock, or two years without one."""
    now = int(clock["frozen_time"])
    limits = [timing.next_boundary(now, "year", 2, now)]
    for sub in ctx.account.iter_type("subscription"):
        if sub.get("test_clock") != clock["id"] or sub["status"] in (
                "canceled", "incomplete_expired") or not subscribing.live_items(ctx, sub):
            continue
        recurring = subscribing.cycle_price(ctx, sub).get("recurring") or {}
        interval, count = recurring.get("interval", "month"), int(
            recurring.get("interval_count") or 1)
        once = timing.next_boundary(now, interval, count, now)
        limits.append(timing.next_boundary(now, interval, count, once))
    return min(limits)


@api("DELETE", "/v1/test_helpers/test_clocks/{test_clock}")
def delete(ctx: Ctx, params: dict[str, Any], test_clock: str) -> dict[str, Any]:
    clock = ctx.get(test_clock, "test_helpers.test_clock", kind="test_clock")
    # Deleting a clock deletes the customers on it and everything they own.
    for kind in ("subscription", "subscription_schedule", "customer"):
        for obj in list(ctx.account.iter_type(kind)):
            if obj.get("test_clock") == clock["id"]:
                ctx.remove(obj["id"])
    ctx.remove(clock["id"])
    ctx.emit("test_helpers.test_clock.deleted", clock)
    return deleted(clock)


@api("GET", "/v1/test_helpers/test_clocks")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return paginate(ctx, ctx.account.iter_type("test_helpers.test_clock"), params,
                    "/v1/test_helpers/test_clocks")
