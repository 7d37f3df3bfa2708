"""`total_details.breakdown`: sent only when expanded, as Stripe does.

`refresh_totals` leaves a private summary on the session's `total_details`; expanding
`total_details.breakdown` turns it into Discount objects (ids derived from the session
and coupon, so they are stable across reads) and TaxRate objects (automatic-tax rates
are stored once per jurisdiction, marked `_automatic`).
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..context import Ctx
from ..ids import base62
from ..render import includable, public_copy
from ..tax_table import rule_for


def stable_id(prefix: str, *parts: str) -> str:
    digest = hashlib.sha256(":".join(parts).encode()).digest()
    return f"{prefix}_{base62(digest, 24)}"


def summary(totals: Any, session: dict[str, Any]) -> dict[str, Any]:
    """The private record `refresh_totals` keeps for a later expand."""
    taxes = []
    for entry in totals.tax_breakdown:
        rate = entry["rate"]
        taxes.append({"amount": entry["amount"], "taxable_amount": entry["taxable_amount"],
                      "rate": rate.get("id"), "rule": rate.get("rule")})
    return {"session": session["id"], "taxes": taxes,
            "discounts": [{"amount": d["amount"], "coupon": d["coupon"],
                           "promotion_code": d.get("promotion_code")}
                          for d in totals.discount_breakdown]}


def automatic_rate(ctx: Ctx, jurisdiction: str) -> dict[str, Any] | None:
    country, _, state = jurisdiction.partition("-")
    rule = rule_for(country, state or None)
    if rule is None:
        return None
    rate_id = stable_id("txr", ctx.account.id, "automatic", jurisdiction)
    existing = ctx.maybe(rate_id, "tax_rate")
    if existing is not None:
        return existing
    rate = ctx.new("tax_rate", "txr", id=rate_id, active=True, country=rule.country,
                   state=rule.state, display_name=rule.display_name, inclusive=False,
                   percentage=rule.percentage, effective_percentage=rule.percentage,
                   jurisdiction=jurisdiction, jurisdiction_level="state" if rule.state
                   else "country", rate_type="percentage", tax_type=rule.tax_type,
                   description="Automatic tax (emulator rate table)", metadata={})
    rate["_automatic"] = jurisdiction
    ctx.put(rate)
    return rate


@includable("None", "breakdown")
def include_breakdown(ctx: Ctx, total_details: dict[str, Any]) -> dict[str, Any] | None:
    """Expanding `total_details.breakdown` (total_details carries no `object` of its own)."""
    record = total_details.get("_breakdown")
    if record is None:
        return None
    discounts = []
    for entry in record["discounts"]:
        discount = {"id": stable_id("di", record["session"], entry["coupon"]),
                    "object": "discount", "checkout_session": record["session"],
                    "customer": None, "customer_account": None, "end": None,
                    "invoice": None, "invoice_item": None,
                    "promotion_code": entry.get("promotion_code"),
                    "source": {"coupon": entry["coupon"], "type": "coupon"},
                    "start": ctx.now(), "subscription": None, "subscription_item": None}
        discounts.append({"amount": entry["amount"], "discount": discount})
    taxes = []
    for entry in record["taxes"]:
        rate = (ctx.maybe(entry["rate"], "tax_rate") if entry.get("rate")
                else automatic_rate(ctx, entry["rule"]))
        if rate is None:
            continue
        taxes.append({"amount": entry["amount"], "rate": public_copy(rate),
                      "taxability_reason": "standard_rated" if entry.get("rule") else None,
                      "taxable_amount": entry["taxable_amount"]})
    return {"discounts": discounts, "taxes": taxes}
