"""Usage for metered prices: meter events aggregated over a billing period."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ..context import Ctx
from . import timing


def usage(ctx: Ctx, price: dict[str, Any], customer_id: str, start: int, end: int) -> int:
    """The aggregated meter value of `customer_id` in [start, end) for a metered price."""
    meter_id = (price.get("recurring") or {}).get("meter")
    meter = ctx.maybe(meter_id, "billing.meter")
    if meter is None:
        return 0
    found = [e for e in ctx.account.iter_type("billing.meter_event", newest_first=False)
             if e.get("_meter") == meter["id"] and e.get("_customer") == customer_id
             and start <= e["timestamp"] < end]
    found.sort(key=lambda e: e["timestamp"])  # stable: same-second events keep their order
    values = [Decimal(str(e["_value"])) for e in found]
    formula = (meter.get("default_aggregation") or {}).get("formula", "sum")
    if formula == "count":
        total = Decimal(len(values))
    elif formula == "last":
        total = values[-1] if values else Decimal(0)
    else:
        total = sum(values, Decimal(0))
    return timing.round_half_up(total)
