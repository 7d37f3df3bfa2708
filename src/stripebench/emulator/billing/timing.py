"""Billing time: the clock a customer's objects live on, periods and prorations.

A customer attached to a test clock lives at the clock's frozen time, so every object
billed to it (subscriptions, invoices, their events) is stamped with that time. Periods
follow Stripe's calendar rules: monthly and yearly periods keep the anchor's day of
month (clamped to the month's last day) and time of day; prorations are computed to
the second.
"""

from __future__ import annotations

import calendar
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from ..context import Ctx

DAY = 86400
INTERVAL_SECONDS = {"day": DAY, "week": 7 * DAY}


class ClockCtx(Ctx):
    """The same request context, living at a fixed (test clock) time."""

    def __init__(self, base: Ctx, time: int) -> None:  # noqa: D107 - copy, not re-init
        self.__dict__.update(base.__dict__)
        self.frozen = time

    def now(self) -> int:
        return self.frozen


def clock_of(ctx: Ctx, customer: Any) -> dict[str, Any] | None:
    obj = customer if isinstance(customer, dict) else ctx.maybe(customer, "customer")
    if not obj or not obj.get("test_clock"):
        return None
    return ctx.maybe(obj["test_clock"], "test_helpers.test_clock")


def for_customer(ctx: Ctx, customer: Any) -> Ctx:
    """The context whose `now()` is the customer's time (its test clock's, if any)."""
    if isinstance(ctx, ClockCtx):
        return ctx
    clock = clock_of(ctx, customer)
    return ClockCtx(ctx, clock["frozen_time"]) if clock else ctx


def at(ctx: Ctx, time: int) -> Ctx:
    base = ctx
    return ClockCtx(base, time)


# ------------------------------------------------------------------ calendar

def add_months(ts: int, months: int, day: int | None = None) -> int:
    """`ts` moved by `months` calendar months, keeping `day` (clamped) and time of day."""
    moment = datetime.fromtimestamp(ts, UTC)
    index = moment.month - 1 + months
    year, month = moment.year + index // 12, index % 12 + 1
    wanted = day or moment.day
    last = calendar.monthrange(year, month)[1]
    return int(moment.replace(year=year, month=month, day=min(wanted, last)).timestamp())


def boundary(anchor: int, interval: str, count: int, n: int) -> int:
    """The n-th period boundary counted from `anchor` (n may be negative)."""
    if interval in INTERVAL_SECONDS:
        return anchor + n * count * INTERVAL_SECONDS[interval]
    months = count * (12 if interval == "year" else 1)
    return add_months(anchor, n * months, datetime.fromtimestamp(anchor, UTC).day)


def next_boundary(anchor: int, interval: str, count: int, after: int) -> int:
    """The first boundary strictly after `after` on the anchor's cycle."""
    n = _index_near(anchor, interval, count, after)
    while boundary(anchor, interval, count, n) > after:
        n -= 1
    while boundary(anchor, interval, count, n) <= after:
        n += 1
    return boundary(anchor, interval, count, n)


def previous_boundary(anchor: int, interval: str, count: int, before: int) -> int:
    """The last boundary strictly before `before` on the anchor's cycle."""
    n = _index_near(anchor, interval, count, before)
    while boundary(anchor, interval, count, n) < before:
        n += 1
    while boundary(anchor, interval, count, n) >= before:
        n -= 1
    return boundary(anchor, interval, count, n)


def _index_near(anchor: int, interval: str, count: int, ts: int) -> int:
    if interval in INTERVAL_SECONDS:
        return (ts - anchor) // (count * INTERVAL_SECONDS[interval])
    a, t = datetime.fromtimestamp(anchor, UTC), datetime.fromtimestamp(ts, UTC)
    months = count * (12 if interval == "year" else 1)
    return ((t.year - a.year) * 12 + t.month - a.month) // months


def period_after(price: dict[str, Any], anchor: int, start: int) -> int:
    recurring = price.get("recurring") or {}
    return next_boundary(anchor, recurring.get("interval", "month"),
                         int(recurring.get("interval_count") or 1), start)


def natural_billing_date(prices: list[dict[str, Any]], start: int) -> int:
    """When a subscription starting at `start` would first bill again by itself: one
    interval of its (shortest) recurring price later."""
    return min(period_after(price, start, start) for price in prices if price.get("recurring"))


# ------------------------------------------------------------------ money

def round_half_up(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def prorate(amount: int, remaining: int, period: int) -> int:
    """`amount` for `remaining` of `period` seconds, to the second, rounded half up."""
    if period <= 0:
        return 0
    return round_half_up(Decimal(amount) * Decimal(remaining) / Decimal(period))


def transform(quantity: int, spec: dict[str, Any] | None) -> int:
    """`transform_quantity`: divide_by with round up / down before pricing."""
    if not spec:
        return quantity
    divide = int(spec.get("divide_by") or 1)
    whole, rest = divmod(quantity, divide)
    if rest and spec.get("round") == "up":
        whole += 1
    return whole


def unit_amount(price: dict[str, Any], currency: str | None = None) -> Decimal:
    if currency and currency != price.get("currency"):
        option = (price.get("currency_options") or {}).get(currency)
        if option and option.get("unit_amount") is not None:
            return Decimal(option["unit_amount"])
    if price.get("unit_amount") is not None:
        return Decimal(price["unit_amount"])
    return Decimal(price.get("unit_amount_decimal") or 0)


def price_amount(price: dict[str, Any], quantity: int, currency: str | None = None) -> int:
    """What `quantity` of `price` costs: per unit (with transform_quantity) or tiered."""
    if price.get("billing_scheme") == "tiered":
        return tiered_amount(price, quantity)
    units = transform(quantity, price.get("transform_quantity"))
    return round_half_up(unit_amount(price, currency) * units)


def tiered_amount(price: dict[str, Any], quantity: int) -> int:
    tiers = price.get("tiers") or []
    total = Decimal(0)
    if price.get("tiers_mode") == "volume":
        for tier in tiers:
            upto = tier.get("up_to")
            if upto in (None, "inf") or quantity <= int(upto):
                unit = Decimal(str(tier.get("unit_amount_decimal") or tier.get("unit_amount") or 0))
                return round_half_up(unit * quantity + Decimal(tier.get("flat_amount") or 0))
        return 0
    floor = 0
    for tier in tiers:
        upto = tier.get("up_to")
        top = quantity if upto in (None, "inf") else min(quantity, int(upto))
        if top > floor:
            unit = Decimal(str(tier.get("unit_amount_decimal") or tier.get("unit_amount") or 0))
            total += unit * (top - floor) + Decimal(tier.get("flat_amount") or 0)
        floor = top if upto not in (None, "inf") else quantity
        if quantity <= floor:
            break
    return round_half_up(total)


def fmt_date(ts: int) -> str:
    moment = datetime.fromtimestamp(ts, UTC)
    return f"{moment.strftime('%b')} {moment.day}, {moment.year}"


def proration_date(ts: int) -> str:
    """The date in proration line descriptions: day, short month, year ("03 Mar 2026")."""
    return datetime.fromtimestamp(ts, UTC).strftime("%d %b %Y")
