"""Invoice previews (`create_preview`, and `upcoming` before basil), computed without
storing anything: the next invoice of a subscription, optionally after proposed item
changes (with their prorations at `proration_date`), or a new subscription's first one.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from . import invoicing, items, subscribing, timing
from .metering import usage

Planned = list[dict[str, Any]]  # [{"id": si or None, "price": price, "quantity": n}]


# What the preview computes; any other parameter fails loudly rather than being ignored.
SUPPORTED = {"subscription", "customer", "subscription_details", "currency", "expand",
             "automatic_tax"}
SUPPORTED_DETAILS = {"items", "proration_date", "proration_behavior", "billing_cycle_anchor",
                     "metadata"}
SUPPORTED_ITEM = {"id", "price", "plan", "price_data", "quantity", "deleted", "metadata"}


def _check_supported(params: dict[str, Any], sub: dict[str, Any] | None) -> None:
    for name in sorted(set(params) - SUPPORTED):
        raise Unsupported(f"`{name}` on invoice previews", param=name)
    details = params.get("subscription_details") or {}
    for name in sorted(set(details) - SUPPORTED_DETAILS):
        raise Unsupported(f"`subscription_details[{name}]` on invoice previews",
                          param=f"subscription_details[{name}]")
    for n, spec in enumerate(details.get("items") or []):
        for name in sorted(set(spec) - SUPPORTED_ITEM):
            raise Unsupported(f"`subscription_details[items][][{name}]` on invoice previews",
                              param=f"subscription_details[items][{n}][{name}]")
    # automatic_tax can only restate what the subscription already does.
    wanted = bool((params.get("automatic_tax") or {}).get("enabled"))
    has = bool(((sub or {}).get("automatic_tax") or {}).get("enabled"))
    if "automatic_tax" in params and wanted != has:
        raise Unsupported("changing `automatic_tax` on invoice previews",
                          param="automatic_tax[enabled]")
    anchor = _anchor(details)
    if anchor == "timestamp":
        raise Unsupported("`subscription_details[billing_cycle_anchor][type]=timestamp` on "
                          "invoice previews", param="subscription_details[billing_cycle_anchor]")
    if anchor == "now" and details.get("proration_date") is not None:
        raise InvalidRequest("You cannot specify `proration_date` when "
                             "`billing_cycle_anchor=now`.",
                             param="subscription_details[proration_date]")


def _anchor(details: dict[str, Any]) -> str | None:
    anchor = details.get("billing_cycle_anchor")
    if isinstance(anchor, dict):  # {type: now | unchanged | timestamp} (newest versions)
        return str(anchor.get("type"))
    return str(anchor) if anchor is not None else None


def preview(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    sub = None
    if params.get("subscription"):
        sub = ctx.get(params["subscription"], "subscription", "subscription")
    customer_id = params.get("customer") or (sub or {}).get("customer")
    if not customer_id:
        raise InvalidRequest("Missing required param: customer.", code="parameter_missing",
                             param="customer")
    customer = ctx.get(customer_id, "customer", "customer")
    if sub is not None and sub["customer"] != customer["id"]:
        raise InvalidRequest("The subscription does not belong to this customer.",
                             param="subscription")
    _check_supported(params, sub)
    cctx = timing.for_customer(ctx, customer)
    details = params.get("subscription_details") or {}
    now = cctx.now()
    if sub is None and not details.get("items"):
        # Without a subscription named, Stripe previews the customer's current one.
        sub = next((s for s in cctx.account.iter_type("subscription")
                    if s["customer"] == customer["id"] and s["status"] not in (
                        "canceled", "incomplete_expired")), None)
        if sub is None:
            raise InvalidRequest(f"No upcoming invoices for customer: {customer['id']}",
                                 code="invoice_upcoming_none", status=404)
    if sub is None:
        return _new_subscription(cctx, customer, details, params)
    if sub["status"] in ("canceled", "incomplete_expired"):
        raise InvalidRequest("No upcoming invoices for customer: the subscription is canceled.",
                             code="invoice_upcoming_none", status=404)
    planned = _plan(cctx, sub, details.get("items") or [])
    when = int(details.get("proration_date") or now)
    behavior = details.get("proration_behavior", "create_prorations")
    start, end = sub["_period"]
    inv = invoicing.new_invoice(cctx, customer, currency=sub["currency"], subscription=sub,
                                billing_reason="subscription_cycle",
                                collection_method=sub["collection_method"],
                                days_until_due=sub.get("days_until_due"), period=(start, end),
                                store=False)
    inv["discounts"] = subscribing.active_discounts(cctx, sub, end)
    kept = [p for p in planned if not p.get("deleted")]
    if _anchor(details) == "now" or _cycle_of(kept[0]["price"]) != _cycle_of(
            subscribing.cycle_price(cctx, sub)):
        return _restart(cctx, sub, inv, planned, behavior)
    if behavior != "none" and details.get("items"):
        for change in _changes(cctx, sub, planned):
            for spec in subscribing.proration_specs(cctx, sub, change[0], change[1], when):
                invoicing.add_line(cctx, inv, amount=spec["amount"], proration=True,
                                   description=spec["description"], price=spec["price"],
                                   quantity=spec["quantity"], period=spec["period"],
                                   subscription=sub["id"], discountable=False)
    if behavior == "always_invoice" and details.get("items"):
        inv["billing_reason"] = "subscription_update"
        inv["period_start"] = inv["period_end"] = when
    else:
        next_end = timing.period_after(kept[0]["price"], sub["billing_cycle_anchor"], end)
        for plan in kept:
            price, quantity = plan["price"], plan["quantity"]
            if items.is_metered(price):
                quantity = usage(cctx, price, sub["customer"], start, end)
                span = (start, end)
            else:
                span = (end, next_end)
            invoicing.add_line(cctx, inv, amount=timing.price_amount(price, quantity,
                                                                     sub["currency"]),
                               description=items.describe(cctx, price, quantity,
                                                          sub["currency"]),
                               price=price, quantity=quantity, period=span,
                               subscription=sub["id"], subscription_item=plan["id"])
        _pending(cctx, inv, sub["id"])
    inv["created"] = inv["period_end"] if inv["billing_reason"] == "subscription_cycle" else now
    return _finish(cctx, inv)


def _cycle_of(price: dict[str, Any]) -> tuple[str, int]:
    recurring = price.get("recurring") or {}
    return str(recurring.get("interval")), int(recurring.get("interval_count") or 1)


def _restart(ctx: Ctx, sub: dict[str, Any], inv: dict[str, Any], planned: Planned,
             behavior: str) -> dict[str, Any]:
    """The update resets the billing cycle (`billing_cycle_anchor=now`, or a new interval):
    as the update does, the new period starting now is invoiced at once, in full, with
    credits for the unused time of the old period (no charges for its remaining time)."""
    now = ctx.now()
    kept = [p for p in planned if not p.get("deleted")]
    end = timing.period_after(kept[0]["price"], now, now)
    inv["billing_reason"] = "subscription_update"
    inv["period_start"] = inv["period_end"] = now
    for plan in kept:
        price = plan["price"]
        metered = items.is_metered(price)
        quantity = 0 if metered else plan["quantity"]
        amount = 0 if metered else timing.price_amount(price, quantity, sub["currency"])
        invoicing.add_line(ctx, inv, amount=amount,
                           description=items.describe(ctx, price, quantity, sub["currency"]),
                           price=price, quantity=quantity, period=(now, end),
                           subscription=sub["id"], subscription_item=plan["id"])
    if behavior != "none":
        changes = _changes(ctx, sub, planned)
        # Items the update leaves alone are credited their unused time too.
        changes += [((p["price"], p["quantity"]), None) for p in kept
                    if not p.get("new") and p.get("old", (p["price"], p["quantity"])) == (
                        p["price"], p["quantity"])]
        for change in changes:
            for spec in subscribing.proration_specs(ctx, sub, change[0], change[1], now):
                if spec["amount"] < 0:
                    invoicing.add_line(ctx, inv, amount=spec["amount"], proration=True,
                                       description=spec["description"], price=spec["price"],
                                       quantity=spec["quantity"], period=spec["period"],
                                       subscription=sub["id"], discountable=False)
    _pending(ctx, inv, sub["id"])
    inv["created"] = now
    return _finish(ctx, inv)


def _new_subscription(ctx: Ctx, customer: dict[str, Any], details: dict[str, Any],
                      params: dict[str, Any]) -> dict[str, Any]:
    specs = details.get("items") or []
    if not specs:
        raise InvalidRequest("Missing required param: subscription_details[items].",
                             code="parameter_missing", param="subscription_details[items]")
    prices = [items.resolve_price(ctx, s, f"subscription_details[items][{n}]")
              for n, s in enumerate(specs)]
    now = ctx.now()
    currency = params.get("currency") or prices[0]["currency"]
    end = timing.period_after(prices[0], now, now)
    inv = invoicing.new_invoice(ctx, customer, currency=currency,
                                billing_reason="subscription_create", period=(now, now),
                                store=False)
    for price, spec in zip(prices, specs, strict=True):
        quantity = 0 if items.is_metered(price) else int(spec.get("quantity") or 1)
        invoicing.add_line(ctx, inv, amount=timing.price_amount(price, quantity, currency),
                           description=items.describe(ctx, price, quantity, currency),
                           price=price, quantity=quantity, period=(now, end))
    return _finish(ctx, inv)


def _plan(ctx: Ctx, sub: dict[str, Any], changes: list[dict[str, Any]]) -> Planned:
    planned: Planned = [{"id": i["id"], "price": items.price_of(ctx, i),
                         "quantity": int(i.get("quantity") or 0)}
                        for i in subscribing.live_items(ctx, sub)]
    for n, change in enumerate(changes):
        param = f"subscription_details[items][{n}]"
        target = next((p for p in planned if change.get("id") and p["id"] == change["id"]),
                      None)
        if change.get("id") and target is None:
            raise InvalidRequest(f"No such subscription item: '{change['id']}'",
                                 param=f"{param}[id]", status=404)
        if target is not None and change.get("deleted"):
            target["deleted"] = True
            continue
        has_price = change.get("price") or change.get("plan") or change.get("price_data")
        price = items.resolve_price(ctx, change, param) if has_price else None
        if target is None:
            assert price is not None
            planned.append({"id": None, "price": price, "quantity":
                            int(change.get("quantity") or 1), "new": True})
            continue
        target["old"] = (target["price"], target["quantity"])
        if price is not None:
            target["price"] = price
        if change.get("quantity") is not None:
            target["quantity"] = int(change["quantity"])
    if all(p.get("deleted") for p in planned):
        raise InvalidRequest("A subscription must have at least one active plan.",
                             param="subscription_details[items]")
    return planned


def _changes(ctx: Ctx, sub: dict[str, Any], planned: Planned) -> list[
        tuple[tuple[dict[str, Any], int] | None, tuple[dict[str, Any], int] | None]]:
    out: list[tuple[tuple[dict[str, Any], int] | None, tuple[dict[str, Any], int] | None]] = []
    for plan in planned:
        if plan.get("deleted"):
            out.append(((plan["price"], plan["quantity"]), None))
        elif plan.get("new"):
            out.append((None, (plan["price"], plan["quantity"])))
        elif plan.get("old") and plan["old"] != (plan["price"], plan["quantity"]):
            out.append((plan["old"], (plan["price"], plan["quantity"])))
    return out


def _pending(ctx: Ctx, inv: dict[str, Any], sub_id: str) -> None:
    for item in ctx.account.iter_type("invoiceitem", newest_first=False):
        if item.get("invoice") or item["customer"] != inv["customer"] or \
                item["currency"] != inv["currency"]:
            continue
        item_sub = ((item.get("parent") or {}).get("subscription_details") or {}).get(
            "subscription")
        if item_sub and item_sub != sub_id:
            continue
        invoicing.line_for_item(ctx, inv, item)


def _finish(ctx: Ctx, inv: dict[str, Any]) -> dict[str, Any]:
    invoicing.recompute(ctx, inv)
    # The customer's balance would be applied at finalization (nothing is recorded here).
    from .collect import balance_for
    start = balance_for(ctx.get(inv["customer"], "customer"), inv["currency"])
    inv["starting_balance"] = start
    inv["ending_balance"] = min(int(inv["total"]) + start, 0)
    inv["amount_due"] = inv["amount_remaining"] = max(int(inv["total"]) + start, 0)
    inv["id"] = "upcoming_" + inv["id"]
    inv["lines"]["url"] = "/v1/invoices/upcoming/lines"
    inv["automatically_finalizes_at"] = None
    return inv
