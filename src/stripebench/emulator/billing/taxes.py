"""Automatic tax on invoices, from the same deterministic table Checkout uses.

A subscription with `automatic_tax.enabled` gives each of its invoices automatic tax.
The tax location is fixed on the subscription when Checkout creates it (the address the
session taxed), else read from the customer as Stripe Tax does: the shipping address if
there is one, else the billing address. Each line is taxed on its amount after
discounts, rounded half-up per line, exclusive unless its price is tax-inclusive — the
rule Checkout's totals use, so a session's tax equals its first invoice's tax.
"""

from __future__ import annotations

from typing import Any

from .. import tax_table
from ..context import Ctx
from ..resources.checkout_breakdown import automatic_rate
from ..versions import response_change

BASIL = "2025-03-31.basil"


def location(customer: dict[str, Any]) -> list[str | None] | None:
    """[country, state] Stripe Tax would use for this customer, or None."""
    for address in ((customer.get("shipping") or {}).get("address"), customer.get("address")):
        if address and address.get("country"):
            return [address["country"], address.get("state")]
    return None


def enable_on_invoice(inv: dict[str, Any], sub: dict[str, Any],
                      customer: dict[str, Any]) -> None:
    """A subscription invoice inherits automatic tax and fixes its location now."""
    if not (sub.get("automatic_tax") or {}).get("enabled"):
        return
    where = sub.get("_tax_location") or location(customer)
    inv["_tax_location"] = where
    inv["automatic_tax"] = {"enabled": True, "disabled_reason": None,
                            "liability": {"account": None, "type": "self"},
                            "provider": "stripe",
                            "status": "complete" if where else "requires_location_inputs"}


def apply(ctx: Ctx, inv: dict[str, Any]) -> tuple[int, int]:
    """Set each line's `taxes` and the invoice's `total_taxes`; (exclusive, inclusive) sums."""
    where = inv.get("_tax_location")
    rule = tax_table.rule_for(where[0], where[1]) if where else None
    if not (inv.get("automatic_tax") or {}).get("enabled") or rule is None:
        return 0, 0
    rate = automatic_rate(ctx, rule.jurisdiction)
    assert rate is not None
    exclusive = inclusive = 0
    totals: dict[str, dict[str, Any]] = {}
    for line in inv["lines"]["data"]:
        taxable = int(line["amount"]) - sum(int(d["amount"]) for d in line["discount_amounts"])
        is_inclusive = _price_tax_behavior(ctx, line) == "inclusive"
        if taxable == 0:
            line["taxes"] = []
            continue
        # Credits (negative proration lines) give back the tax their amount carried.
        sign = 1 if taxable > 0 else -1
        amount = sign * tax_table.tax_on(abs(taxable), rule.percentage, is_inclusive)
        behavior = "inclusive" if is_inclusive else "exclusive"
        net = taxable - amount if is_inclusive else taxable
        line["taxes"] = [{"amount": amount, "tax_behavior": behavior,
                          "tax_rate_details": {"tax_rate": rate["id"]},
                          "taxability_reason": "standard_rated", "taxable_amount": net,
                          "type": "tax_rate_details"}]
        entry = totals.setdefault(behavior, {**line["taxes"][0], "amount": 0,
                                             "taxable_amount": 0})
        entry["amount"] += amount
        entry["taxable_amount"] += net
        if is_inclusive:
            inclusive += amount
        else:
            exclusive += amount
    inv["total_taxes"] = list(totals.values())
    return exclusive, inclusive


def _price_tax_behavior(ctx: Ctx, line: dict[str, Any]) -> str | None:
    details = (line.get("pricing") or {}).get("price_details") or {}
    price = ctx.maybe(details.get("price"), "price")
    return (price or {}).get("tax_behavior")


# Before basil: `total_tax_amounts` on invoices, `tax_amounts` on lines (basil's changelog).

def _old_amount(tax: dict[str, Any]) -> dict[str, Any]:
    return {"amount": tax["amount"], "inclusive": tax.get("tax_behavior") == "inclusive",
            "tax_rate": (tax.get("tax_rate_details") or {}).get("tax_rate"),
            "taxability_reason": tax.get("taxability_reason"),
            "taxable_amount": tax.get("taxable_amount")}


@response_change(BASIL, "invoice")
def old_invoice_taxes(ctx: Ctx, obj: dict[str, Any]) -> None:
    if "total_taxes" in obj:
        taxes = obj.pop("total_taxes") or []
        obj["total_tax_amounts"] = [_old_amount(t) for t in taxes]
        obj["tax"] = sum(int(t["amount"]) for t in taxes) if taxes else None


@response_change(BASIL, "line_item")
def old_line_taxes(ctx: Ctx, obj: dict[str, Any]) -> None:
    if "taxes" in obj:
        obj["tax_amounts"] = [_old_amount(t) for t in obj.pop("taxes") or []]
        obj.setdefault("tax_rates", [])
