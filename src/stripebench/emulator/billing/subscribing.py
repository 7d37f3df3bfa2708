"""The subscription lifecycle: first invoice, renewals, prorations, status, cancellation.

Subscriptions keep their current period privately (`_period`) and on every item
(`current_period_start/end`, the basil+ shape); older API versions read it back at the
subscription level. All times come from the customer's clock (`timing.for_customer`).
"""

from __future__ import annotations

import copy
from typing import Any

from ..context import Ctx
from ..events import changed
from ..resources.customer_discounts import customer_discount, end_customer_discount
from . import collect, invoicing, items, pausing, timing
from .metering import usage

ACTIVE_LIKE = ("active", "trialing", "past_due", "unpaid")
INCOMPLETE_EXPIRES = 23 * 3600


def save(ctx: Ctx, sub: dict[str, Any]) -> dict[str, Any]:
    """Store the subscription with its embedded items list refreshed."""
    data = [ctx.maybe(i, "subscription_item") for i in sub.get("_item_ids", [])]
    sub["items"] = {"object": "list", "data": [d for d in data if d], "has_more": False,
                    "total_count": len([d for d in data if d]),
                    "url": f"/v1/subscription_items?subscription={sub['id']}"}
    return ctx.put(sub)


def live_items(ctx: Ctx, sub: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in (ctx.maybe(x, "subscription_item") for x in sub.get("_item_ids", []))
            if i]


def set_period(ctx: Ctx, sub: dict[str, Any], start: int, end: int) -> None:
    sub["_period"] = [start, end]
    for item in live_items(ctx, sub):
        item["current_period_start"], item["current_period_end"] = start, end
        ctx.put(item)


def cycle_price(ctx: Ctx, sub: dict[str, Any]) -> dict[str, Any]:
    """The price whose interval sets the billing cycle (the first item's)."""
    return items.price_of(ctx, live_items(ctx, sub)[0])


def next_period_end(ctx: Ctx, sub: dict[str, Any], start: int) -> int:
    return timing.period_after(cycle_price(ctx, sub), sub["billing_cycle_anchor"], start)


def snapshot(sub: dict[str, Any]) -> dict[str, Any]:
    """The subscription's public fields as they are now, items included (deep: item
    periods change in place), for an event's `previous_attributes`."""
    return copy.deepcopy({k: v for k, v in sub.items() if not k.startswith("_")})


def transition(ctx: Ctx, sub: dict[str, Any], status: str, **fields: Any) -> None:
    before = snapshot(sub)
    sub["status"] = status
    sub.update(fields)
    save(ctx, sub)
    ctx.emit("customer.subscription.updated", sub, changed(before, sub))


# ------------------------------------------------------------------ invoices

def cycle_lines(ctx: Ctx, sub: dict[str, Any], inv: dict[str, Any], period: tuple[int, int],
                usage_period: tuple[int, int] | None, trial: bool = False) -> None:
    """Lines for one billing period: licensed items in advance, metered usage in arrears."""
    currency = sub["currency"]
    for item in live_items(ctx, sub):
        price = items.price_of(ctx, item)
        if items.is_metered(price):
            if usage_period is None:
                quantity, amount, span = 0, 0, period
            else:
                quantity = usage(ctx, price, sub["customer"], *usage_period)
                amount = timing.price_amount(price, quantity, currency)
                span = usage_period
            invoicing.add_line(ctx, inv, amount=amount, description=items.describe(
                ctx, price, quantity, currency), price=price, quantity=quantity, period=span,
                subscription=sub["id"], subscription_item=item["id"])
            continue
        quantity = int(item.get("quantity") or 0)
        if trial:
            description = f"Trial period for {items.product_name(ctx, price)}"
            amount = 0
        else:
            description = items.describe(ctx, price, quantity, currency)
            amount = timing.price_amount(price, quantity, currency)
        invoicing.add_line(ctx, inv, amount=amount, description=description, price=price,
                           quantity=quantity, period=period, subscription=sub["id"],
                           subscription_item=item["id"])


def subscription_invoice(ctx: Ctx, sub: dict[str, Any], reason: str,
                         period: tuple[int, int]) -> dict[str, Any]:
    customer = ctx.get(sub["customer"], "customer")
    inv = invoicing.new_invoice(
        ctx, customer, currency=sub["currency"], subscription=sub, billing_reason=reason,
        collection_method=sub["collection_method"], days_until_due=sub.get("days_until_due"),
        auto_advance=True, default_payment_method=None, description=sub.get("description"),
        period=period)
    inv["discounts"] = active_discounts(ctx, sub, period[0])
    return inv


def active_discounts(ctx: Ctx, sub: dict[str, Any], when: int) -> list[str]:
    """The subscription's discounts in force at `when`; without any of its own, the
    customer's discount (Stripe's inheritance)."""
    found = []
    for discount_id in sub.get("discounts") or []:
        discount = ctx.maybe(discount_id, "discount")
        if discount and (discount.get("end") is None or discount["end"] > when):
            found.append(discount_id)
    if not sub.get("discounts"):
        inherited = customer_discount(ctx, sub.get("customer"), when)
        if inherited:
            found.append(inherited)
    return found


def after_invoiced(ctx: Ctx, sub: dict[str, Any], inv: dict[str, Any]) -> None:
    """`once` coupons are used up by the first invoice that carries them (the customer's
    own discount too)."""
    for discount_id in list(inv.get("discounts") or []):
        discount = ctx.maybe(discount_id, "discount")
        coupon = ctx.maybe(((discount or {}).get("source") or {}).get("coupon"), "coupon")
        if discount and coupon and coupon.get("duration") == "once" and \
                discount_id not in (sub.get("discounts") or []):
            end_customer_discount(ctx, discount_id)
            continue
        if discount and coupon and coupon.get("duration") == "once" and \
                discount_id in (sub.get("discounts") or []):
            sub["discounts"] = [d for d in sub["discounts"] if d != discount_id]
            discount["end"] = ctx.now()
            ctx.put(discount)


def finalize_and_collect(ctx: Ctx, sub: dict[str, Any], inv: dict[str, Any],
                         raise_on_decline: bool = False) -> None:
    invoicing.save(ctx, inv)
    ctx.emit("invoice.created", inv)
    collect.finalize(ctx, inv)
    if inv["status"] == "open" and inv["collection_method"] == "charge_automatically":
        collect.attempt(ctx, inv, raise_on_decline=raise_on_decline)


# ------------------------------------------------------------------ renewals

def renew(ctx: Ctx, sub: dict[str, Any]) -> dict[str, Any] | None:
    """At the end of the current period: roll to the next and draft its invoice."""
    old_start, old_end = sub["_period"]
    was_trial = sub["status"] == "trialing" and sub.get("trial_end") and \
        sub["trial_end"] <= old_end
    if was_trial and _end_trial_without_method(ctx, sub):
        return None
    new_end = next_period_end(ctx, sub, old_end)
    before = snapshot(sub)
    set_period(ctx, sub, old_end, new_end)
    if was_trial:
        sub["status"] = "active"
    inv = subscription_invoice(ctx, sub, "subscription_cycle", (old_start, old_end))
    cycle_lines(ctx, sub, inv, (old_end, new_end), (old_start, old_end))
    invoicing.pull_pending_items(ctx, inv, sub["id"])
    after_invoiced(ctx, sub, inv)
    pausing.mark_created(ctx, sub, inv)
    invoicing.save(ctx, inv)
    sub["latest_invoice"] = inv["id"]
    save(ctx, sub)
    ctx.emit("invoice.created", inv)
    ctx.emit("customer.subscription.updated", sub, changed(before, sub))
    return inv


def has_payment_method(ctx: Ctx, sub: dict[str, Any]) -> bool:
    if sub.get("default_payment_method") or sub.get("default_source"):
        return True
    customer = ctx.maybe(sub["customer"], "customer") or {}
    return bool((customer.get("invoice_settings") or {}).get("default_payment_method")
                or customer.get("default_source"))


def _end_trial_without_method(ctx: Ctx, sub: dict[str, Any]) -> bool:
    """`trial_settings.end_behavior.missing_payment_method`: a trial that ends with no
    payment method pauses (no invoice until resumed) or cancels the subscription; the
    default, create_invoice, bills as usual (the invoice then fails)."""
    behavior = ((sub.get("trial_settings") or {}).get("end_behavior") or {}).get(
        "missing_payment_method")
    if behavior not in ("pause", "cancel") or sub["collection_method"] != \
            "charge_automatically" or has_payment_method(ctx, sub):
        return False
    if behavior == "cancel":
        cancel_now(ctx, sub)
        return True
    transition(ctx, sub, "paused", status_details={"paused": {
        "type": "subscription", "transitioned_at": ctx.now(),
        "subscription": {"type": "trial_end_without_payment_method"}}})
    ctx.emit("customer.subscription.paused", sub)
    return True


def resume(ctx: Ctx, sub: dict[str, Any], anchor: str, proration_behavior: str) -> None:
    """A paused subscription starts again: a new cycle from now (`billing_cycle_anchor=now`,
    the default) invoiced in full, or the unchanged cycle with the rest of its current
    period prorated to the second (nothing with `proration_behavior=none`)."""
    now = ctx.now()
    before = snapshot(sub)
    if anchor == "unchanged":
        start = sub["billing_cycle_anchor"]
        end = next_period_end(ctx, sub, start)
        while end <= now:
            start, end = end, next_period_end(ctx, sub, end)
    else:
        sub["billing_cycle_anchor"] = start = now
        end = next_period_end(ctx, sub, now)
    set_period(ctx, sub, start, end)
    sub["status"] = "active"
    sub["status_details"] = None
    inv = subscription_invoice(ctx, sub, "subscription_update", (now, now))
    cycle_lines(ctx, sub, inv, (now, end) if anchor == "unchanged" else (start, end), None)
    if anchor == "unchanged":
        for line in inv["lines"]["data"]:
            line["amount"] = line["subtotal"] = 0 if proration_behavior == "none" else \
                timing.prorate(int(line["amount"]), end - now, end - start)
            line["parent"]["subscription_item_details"]["proration"] = True
            price = ctx.get(line["pricing"]["price_details"]["price"], "price")
            line["description"] = items.proration_text(ctx, "Remaining", price,
                                                       int(line["quantity"] or 0), now)
    sub["latest_invoice"] = inv["id"]
    save(ctx, sub)
    ctx.emit("customer.subscription.resumed", sub)
    ctx.emit("customer.subscription.updated", sub, changed(before, sub))
    finalize_and_collect(ctx, sub, inv)


def finalize_due(ctx: Ctx, inv: dict[str, Any]) -> None:
    """A renewal draft reached `automatically_finalizes_at`: finalize and charge (not for
    an unpaid subscription: its invoices stay open, unattempted; nor for one drafted while
    collection was paused: `pausing` settles it)."""
    if pausing.settle(ctx, inv):
        return
    collect.finalize(ctx, inv)
    sub = ctx.maybe(invoicing.subscription_of(inv), "subscription") or {}
    if sub.get("status") == "unpaid":
        inv["auto_advance"] = False
        ctx.put(inv)
        return
    if inv["status"] == "open" and inv["collection_method"] == "charge_automatically":
        collect.attempt(ctx, inv)


# ------------------------------------------------------------------ prorations

def proration_specs(ctx: Ctx, sub: dict[str, Any], old: tuple[dict[str, Any], int] | None,
                    new: tuple[dict[str, Any], int] | None, when: int) -> list[dict[str, Any]]:
    """Credit the unused time of the old (price, quantity), charge the new, to the second."""
    start, end = sub["_period"]
    if sub["status"] == "trialing" or when >= end:
        return []
    specs = []
    span, remaining = end - start, end - when
    for sign, pair, word in ((-1, old, "Unused"), (1, new, "Remaining")):
        if pair is None or items.is_metered(pair[0]):
            continue
        price, quantity = pair
        amount = sign * timing.prorate(timing.price_amount(price, quantity, sub["currency"]),
                                       remaining, span)
        specs.append({"amount": amount, "price": price, "quantity": quantity,
                      "period": (when, end),
                      "description": items.proration_text(ctx, word, price, quantity, when)})
    return specs


def proration_items(ctx: Ctx, sub: dict[str, Any], item: dict[str, Any],
                    old: tuple[dict[str, Any], int] | None, new: tuple[dict[str, Any], int] | None,
                    when: int) -> list[dict[str, Any]]:
    """The prorations of one item change, stored as pending invoice items."""
    customer = ctx.get(sub["customer"], "customer")
    return [invoicing.new_invoice_item(
        ctx, customer, currency=sub["currency"], amount=spec["amount"],
        description=spec["description"], period=spec["period"], price=spec["price"],
        quantity=spec["quantity"], proration=True, subscription=sub["id"],
        subscription_item=item["id"]) for spec in proration_specs(ctx, sub, old, new, when)]


def invoice_now(ctx: Ctx, sub: dict[str, Any], reason: str = "subscription_update",
                raise_on_decline: bool = False) -> dict[str, Any] | None:
    """`always_invoice`: bill the pending prorations right away."""
    pending = [i for i in ctx.account.iter_type("invoiceitem")
               if not i.get("invoice") and ((i.get("parent") or {}).get(
                   "subscription_details") or {}).get("subscription") == sub["id"]]
    if not pending:
        return None
    inv = subscription_invoice(ctx, sub, reason, (ctx.now(), ctx.now()))
    inv["discounts"] = []
    invoicing.pull_pending_items(ctx, inv, sub["id"], only_subscription=True)
    sub["latest_invoice"] = inv["id"]
    save(ctx, sub)
    finalize_and_collect(ctx, sub, inv, raise_on_decline)
    return inv


# ------------------------------------------------------------------ cancellation

def cancel_now(ctx: Ctx, sub: dict[str, Any], *, prorate: bool = False,
               invoice_now_: bool = False, details: dict[str, Any] | None = None,
               reason: str = "cancellation_requested") -> dict[str, Any]:
    now = ctx.now()
    if prorate:
        for item in live_items(ctx, sub):
            price = items.price_of(ctx, item)
            proration_items(ctx, sub, item, (price, int(item.get("quantity") or 0)), None, now)
    if invoice_now_:
        invoice_now(ctx, sub, "subscription_cycle")
    for inv in ctx.account.iter_type("invoice"):
        if invoicing.subscription_of(inv) == sub["id"] and inv["status"] == "open" and \
                inv["collection_method"] == "charge_automatically":
            inv["next_payment_attempt"] = None
            inv["auto_advance"] = False
            ctx.put(inv)
    sub["status"] = "canceled"
    sub["canceled_at"] = sub.get("canceled_at") or now
    sub["ended_at"] = now
    sub["cancel_at_period_end"] = False
    sub["cancellation_details"] = {"comment": (details or {}).get("comment"),
                                   "feedback": (details or {}).get("feedback"),
                                   "reason": reason}
    save(ctx, sub)
    ctx.emit("customer.subscription.deleted", sub)
    return sub


# ------------------------------------------------------------------ invoice outcomes

def _save_payment_method(ctx: Ctx, sub: dict[str, Any], inv: dict[str, Any]) -> None:
    """`payment_settings.save_default_payment_method=on_subscription`: the card that paid
    becomes the subscription's default for renewals."""
    if (sub.get("payment_settings") or {}).get("save_default_payment_method") != \
            "on_subscription" or sub.get("default_payment_method"):
        return
    for record_id in inv.get("_payments", []):
        record = ctx.maybe(record_id, "invoice_payment")
        pi = ctx.maybe((record or {}).get("payment", {}).get("payment_intent"),
                       "payment_intent") or {}
        if record and record["status"] == "paid" and pi.get("payment_method"):
            sub["default_payment_method"] = pi["payment_method"]
            save(ctx, sub)
            return


def _on_paid(ctx: Ctx, inv: dict[str, Any]) -> None:
    sub = ctx.maybe(invoicing.subscription_of(inv), "subscription")
    if sub is not None:
        _save_payment_method(ctx, sub, inv)
    if sub is None or sub["status"] not in ("incomplete", "past_due", "unpaid"):
        return
    if sub.get("latest_invoice") != inv["id"] and any(
            i["status"] == "open" for i in ctx.account.iter_type("invoice")
            if invoicing.subscription_of(i) == sub["id"]):
        return
    trialing = bool(sub.get("trial_end")) and sub["trial_end"] > ctx.now()
    transition(ctx, sub, "trialing" if trialing else "active")


def _on_failed(ctx: Ctx, inv: dict[str, Any]) -> None:
    sub = ctx.maybe(invoicing.subscription_of(inv), "subscription")
    if sub is None or sub["status"] == "incomplete":  # the first payment: stays incomplete
        return
    if sub["status"] in ("active", "trialing"):
        transition(ctx, sub, "past_due")
    elif sub["status"] == "past_due" and inv.get("next_payment_attempt") is None and \
            inv["attempt_count"] > len(invoicing.RETRY_DAYS):
        # Every retry failed: what happens is the account's "manage failed payments"
        # setting, the emulator account setting `subscription_failed_payments`: cancel
        # (Stripe's default), unpaid (invoices keep coming, unattempted) or past_due.
        outcome = ctx.account.settings.get("subscription_failed_payments", "cancel")
        if outcome == "unpaid":
            transition(ctx, sub, "unpaid")
        elif outcome != "past_due":
            cancel_now(ctx, sub, reason="payment_failed")


invoicing.PAID_HOOKS.append(_on_paid)
invoicing.FAILED_HOOKS.append(_on_failed)
