"""Checkout totals: line amounts, discounts, shipping, tax and what is due today.

One function, `compute`, prices a session's cart for an (optional) tax address; both
the API (session fields, line items) and the page (summary) use it, so what the page
shows is what the API reports. Subscription sessions report the amount due today:
recurring items in a trial cost 0, a billing-cycle anchor prorates (or, with
`proration_behavior=none`, defers) the first period.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from .. import tax_table
from ..billing import timing
from ..context import Ctx


@dataclass
class Line:
    item: dict[str, Any]
    price: dict[str, Any]
    product: dict[str, Any] | None
    unit_amount: int
    quantity: int
    full_amount: int  # the price for one period at this quantity
    amount_subtotal: int = 0  # due today, before discount and exclusive tax
    amount_discount: int = 0
    amount_tax: int = 0
    taxes: list[dict[str, Any]] = field(default_factory=list)
    discounts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def recurring(self) -> dict[str, Any] | None:
        return self.price.get("recurring")

    @property
    def inclusive(self) -> bool:
        return self.price.get("tax_behavior") == "inclusive"

    @property
    def amount_total(self) -> int:
        extra = 0 if self.inclusive else self.amount_tax
        return self.amount_subtotal - self.amount_discount + extra


@dataclass
class Totals:
    currency: str | None
    lines: list[Line]
    amount_subtotal: int = 0
    amount_discount: int = 0
    amount_shipping: int = 0
    shipping_tax: int = 0
    amount_tax: int = 0
    amount_total: int = 0
    tax_rule: tax_table.TaxRule | None = None
    tax_breakdown: list[dict[str, Any]] = field(default_factory=list)
    discount_breakdown: list[dict[str, Any]] = field(default_factory=list)
    recurring_after: int = 0  # what each period costs after the trial/anchor (display)


def unit_amount(price: dict[str, Any], currency: str | None) -> int:
    if currency and currency != price["currency"]:
        option = (price.get("currency_options") or {}).get(currency) or {}
        if option.get("unit_amount") is not None:
            return int(option["unit_amount"])
    if price.get("unit_amount") is not None:
        return int(price["unit_amount"])
    if price.get("unit_amount_decimal") is not None:
        return int(Decimal(str(price["unit_amount_decimal"])).quantize(
            Decimal(1), rounding=ROUND_HALF_UP))
    return 0


def line_amount(price: dict[str, Any], quantity: int, currency: str | None) -> int:
    """One period of `price` at `quantity`: per-unit, transform_quantity, or tiers."""
    if price.get("billing_scheme") == "tiered" and price.get("tiers"):
        return _tiered(price, quantity)
    units = quantity
    transform = price.get("transform_quantity")
    if transform:
        divided = quantity / int(transform["divide_by"])
        units = math.ceil(divided) if transform.get("round") == "up" else math.floor(divided)
    return unit_amount(price, currency) * units


def _tiered(price: dict[str, Any], quantity: int) -> int:
    tiers = price["tiers"]
    if price.get("tiers_mode") == "volume":
        for tier in tiers:
            up_to = tier.get("up_to")
            if up_to in (None, "inf") or quantity <= int(up_to):
                return int(tier.get("unit_amount") or 0) * quantity + int(
                    tier.get("flat_amount") or 0)
        return 0
    total, previous = 0, 0
    for tier in tiers:
        up_to = tier.get("up_to")
        limit = quantity if up_to in (None, "inf") else min(quantity, int(up_to))
        if limit > previous:
            total += int(tier.get("unit_amount") or 0) * (limit - previous)
            total += int(tier.get("flat_amount") or 0)
        previous = limit
        if up_to in (None, "inf") or quantity <= int(up_to):
            break
    return total


def cart_items(session: dict[str, Any]) -> list[dict[str, Any]]:
    """The items being bought: line items plus optional items the customer added."""
    return [i for i in session.get("_items", [])
            if not i.get("optional") or i.get("added")]


def customer_now(ctx: Ctx, session: dict[str, Any]) -> int:
    """Now as the billing engine will see it (a customer's test clock, if any)."""
    return timing.for_customer(ctx, session.get("customer")).now() if session.get(
        "customer") else ctx.now()


def first_period_factor(ctx: Ctx, session: dict[str, Any], recurring: dict[str, Any]) -> float:
    """Share of a recurring item's first period charged today (1 = full, 0 = free)."""
    data = session.get("_subscription_data") or {}
    if data.get("trial_period_days") or data.get("trial_end"):
        return 0.0
    anchor = data.get("billing_cycle_anchor")
    if anchor and int(anchor) > customer_now(ctx, session):  # a passed anchor bills in full
        if data.get("proration_behavior") == "none":
            return 0.0
        remaining, period = _anchor_span(ctx, session, recurring, int(anchor))
        return max(0.0, min(1.0, remaining / period)) if period else 0.0
    return 1.0


def _anchor_span(ctx: Ctx, session: dict[str, Any], recurring: dict[str, Any],
                 anchor: int) -> tuple[int, int]:
    """(seconds from now to the anchor, length of the calendar period ending there).

    The billing engine prorates the first invoice over the real period that ends at the
    anchor (a month before a 16 January anchor is 31 days), so the session does too.
    """
    start = timing.previous_boundary(anchor, recurring["interval"],
                                     int(recurring.get("interval_count") or 1), anchor)
    return max(0, anchor - customer_now(ctx, session)), anchor - start


def first_period_amount(ctx: Ctx, session: dict[str, Any], recurring: dict[str, Any],
                        full: int) -> int:
    """What a recurring line costs today: 0 in a trial, prorated up to an anchor."""
    data = session.get("_subscription_data") or {}
    anchor = data.get("billing_cycle_anchor")
    if anchor and int(anchor) > customer_now(ctx, session) and not (
            data.get("trial_period_days") or data.get("trial_end")) and data.get(
            "proration_behavior") != "none":
        remaining, period = _anchor_span(ctx, session, recurring, int(anchor))
        return min(full, timing.prorate(full, remaining, period))
    factor = first_period_factor(ctx, session, recurring)
    return int(Decimal(full * factor).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def compute(ctx: Ctx, session: dict[str, Any], country: str | None = None,
            state: str | None = None) -> Totals:
    currency = session.get("currency")
    lines: list[Line] = []
    subscription = session.get("mode") == "subscription"
    for item in cart_items(session):
        price = ctx.account.objects.get(item["price"]) or {}
        product = ctx.maybe(price.get("product"), "product")
        quantity = int(item.get("quantity") or 0)
        if price.get("custom_unit_amount"):
            unit = int(item.get("custom_amount") or 0)
            full = unit * quantity
        else:
            unit = unit_amount(price, currency)
            full = line_amount(price, quantity, currency)
        line = Line(item, price, product, unit, quantity, full)
        if subscription and price.get("recurring"):
            line.amount_subtotal = first_period_amount(ctx, session, price["recurring"], full)
        else:
            line.amount_subtotal = full
        lines.append(line)
    totals = Totals(currency, lines)
    totals.recurring_after = sum(ln.full_amount for ln in lines if ln.recurring)
    _apply_discounts(ctx, session, totals)
    shipping = _shipping_rate(ctx, session)
    if shipping is not None:
        totals.amount_shipping = _shipping_amount(shipping, currency)
    _apply_tax(ctx, session, totals, shipping, country, state)
    totals.amount_subtotal = sum(ln.amount_subtotal for ln in lines)
    totals.amount_discount = sum(ln.amount_discount for ln in lines)
    exclusive_tax = sum(ln.amount_tax for ln in lines if not ln.inclusive)
    shipping_exclusive = shipping is not None and shipping.get("tax_behavior") != "inclusive"
    totals.amount_tax = sum(ln.amount_tax for ln in lines) + totals.shipping_tax
    totals.amount_total = (totals.amount_subtotal - totals.amount_discount
                           + totals.amount_shipping + exclusive_tax
                           + (totals.shipping_tax if shipping_exclusive else 0))
    return totals


def _shipping_rate(ctx: Ctx, session: dict[str, Any]) -> dict[str, Any] | None:
    selected = (session.get("shipping_cost") or {}).get("shipping_rate")
    return ctx.maybe(selected, "shipping_rate") if selected else None


def _shipping_amount(rate: dict[str, Any], currency: str | None) -> int:
    fixed = rate.get("fixed_amount") or {}
    if currency and fixed.get("currency") != currency:
        option = (fixed.get("currency_options") or {}).get(currency)
        if option:
            return int(option["amount"])
    return int(fixed.get("amount") or 0)


def coupon_amount_off(coupon: dict[str, Any], currency: str | None) -> int | None:
    if coupon.get("amount_off") is None:
        return None
    if currency and coupon.get("currency") and coupon["currency"] != currency:
        option = (coupon.get("currency_options") or {}).get(currency)
        return int(option["amount_off"]) if option else 0
    return int(coupon["amount_off"])


def coupon_applies(coupon: dict[str, Any], line: Line) -> bool:
    products = (coupon.get("applies_to") or {}).get("products")
    return not products or (line.product is not None and line.product["id"] in products)


def discount_coupon(ctx: Ctx, entry: dict[str, Any]) -> dict[str, Any] | None:
    """The coupon a session's `discounts[]` entry applies: its own, or its promotion
    code's (an entry for a code names only the code, `coupon` is null, as in Stripe)."""
    coupon = ctx.maybe(entry.get("coupon"), "coupon")
    if coupon is None:
        promo = ctx.maybe(entry.get("promotion_code"), "promotion_code") or {}
        coupon = ctx.maybe((promo.get("promotion") or {}).get("coupon"), "coupon")
    return coupon


def _apply_discounts(ctx: Ctx, session: dict[str, Any], totals: Totals) -> None:
    for entry in session.get("discounts") or []:
        coupon = discount_coupon(ctx, entry)
        if coupon is None:
            continue
        eligible = [ln for ln in totals.lines if coupon_applies(coupon, ln)]
        applied = 0
        if coupon.get("percent_off") is not None:
            pct = Decimal(str(coupon["percent_off"]))
            for ln in eligible:
                off = int((Decimal(ln.amount_subtotal - ln.amount_discount) * pct / 100)
                          .quantize(Decimal(1), rounding=ROUND_HALF_UP))
                ln.amount_discount += off
                applied += off
                ln.discounts.append({"amount": off, "coupon": coupon["id"]})
        else:
            amount_off = coupon_amount_off(coupon, totals.currency) or 0
            base = sum(ln.amount_subtotal - ln.amount_discount for ln in eligible)
            amount_off = min(amount_off, base)
            remaining = amount_off
            for index, ln in enumerate(eligible):
                share = remaining if index == len(eligible) - 1 else (
                    (ln.amount_subtotal - ln.amount_discount) * amount_off // base if base else 0)
                ln.amount_discount += share
                remaining -= share
                applied += share
                ln.discounts.append({"amount": share, "coupon": coupon["id"]})
        totals.discount_breakdown.append({"amount": applied, "coupon": coupon["id"],
                                          "promotion_code": entry.get("promotion_code")})


def _apply_tax(ctx: Ctx, session: dict[str, Any], totals: Totals,
               shipping: dict[str, Any] | None, country: str | None,
               state: str | None) -> None:
    automatic = (session.get("automatic_tax") or {}).get("enabled")
    rule = tax_table.rule_for(country, state) if automatic else None
    totals.tax_rule = rule
    by_rate: dict[str, dict[str, Any]] = {}

    def record(key: str, amount: int, taxable: int, rate: dict[str, Any]) -> None:
        entry = by_rate.setdefault(key, {"amount": 0, "taxable_amount": 0, "rate": rate})
        entry["amount"] += amount
        entry["taxable_amount"] += taxable

    for ln in totals.lines:
        taxable = ln.amount_subtotal - ln.amount_discount
        manual = [ctx.account.objects.get(r) for r in ln.item.get("tax_rates") or []]
        for rate in [r for r in manual if r]:
            amount = tax_table.tax_on(taxable, float(rate["percentage"]), bool(rate["inclusive"]))
            ln.amount_tax += amount
            ln.taxes.append({"amount": amount, "rate": rate["id"], "taxability_reason": None,
                             "taxable_amount": taxable})
            record(rate["id"], amount, taxable, {"id": rate["id"]})
        if rule is not None and not manual:
            amount = tax_table.tax_on(taxable, rule.percentage, ln.inclusive)
            ln.amount_tax += amount
            ln.taxes.append({"amount": amount, "rate": {"rule": rule.jurisdiction},
                             "taxability_reason": "standard_rated", "taxable_amount": taxable})
            record(rule.jurisdiction, amount, taxable, {"rule": rule.jurisdiction})
    if rule is not None and shipping is not None and totals.amount_shipping:
        inclusive = shipping.get("tax_behavior") == "inclusive"
        totals.shipping_tax = tax_table.tax_on(totals.amount_shipping, rule.percentage,
                                               inclusive)
        record(rule.jurisdiction, totals.shipping_tax, totals.amount_shipping,
               {"rule": rule.jurisdiction})
    totals.tax_breakdown = list(by_rate.values())
