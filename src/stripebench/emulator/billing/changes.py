"""Subscription updates: item/price/quantity changes with prorations, trials, cancel flags.

Prorations follow Stripe's rule, to the second: for each changed item, a credit for
the unused time of the old price × quantity and a charge for the remaining time of the
new one, both over the current period, created as pending invoice items
(`create_prorations`), billed at once (`always_invoice`) or skipped (`none`). Changing
the billing interval resets the cycle: the new period starts now and is invoiced now.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..events import changed
from ..resources._common import merge_metadata
from . import items, pausing, subscribing, timing
from .creating import apply_cancel, automatic_tax
from .discounts import make_discounts
from .invoicing import pull_pending_items

UPDATABLE_WHEN_CANCELED = {"metadata", "cancellation_details", "expand"}


def update_subscription(ctx: Ctx, sub: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    cctx = timing.for_customer(ctx, sub["customer"])
    now = cctx.now()
    if sub["status"] in ("canceled", "incomplete_expired"):
        extra = set(params) - UPDATABLE_WHEN_CANCELED
        if extra:
            raise InvalidRequest("A canceled subscription can only update its "
                                 "cancellation_details and metadata.", param=sorted(extra)[0])
    if _anchor_type(params) == "now" and params.get("proration_date") is not None:
        raise InvalidRequest("You cannot specify `proration_date` when "
                             "`billing_cycle_anchor=now`.", param="proration_date")
    tax = None
    if "automatic_tax" in params:  # checked before anything changes
        tax = automatic_tax(params, cctx.get(sub["customer"], "customer"))
    before = subscribing.snapshot(sub)
    when = int(params.get("proration_date") or now)
    behavior = params.get("proration_behavior", "create_prorations")
    old_cycle = _cycle(cctx, sub)
    if "discounts" in params:  # before the items change: a bad coupon refuses the whole update
        customer = cctx.get(sub["customer"], "customer")
        sub["discounts"] = make_discounts(cctx, params["discounts"], customer, sub)
    prorations = _change_items(cctx, sub, params.get("items") or [], when,
                               behavior != "none")
    for name in ("description", "collection_method", "days_until_due"):
        if name in params:
            sub[name] = params[name]
    if "metadata" in params:
        sub["metadata"] = merge_metadata(sub.get("metadata"), params["metadata"])
    if "default_payment_method" in params:
        sub["default_payment_method"] = params["default_payment_method"]
    if "cancellation_details" in params:
        sub["cancellation_details"] = {**(sub.get("cancellation_details") or {}),
                                       **(params["cancellation_details"] or {})}
    if (params.get("trial_settings") or {}).get("end_behavior"):
        sub["trial_settings"] = {"end_behavior": {
            **((sub.get("trial_settings") or {}).get("end_behavior") or {}),
            **params["trial_settings"]["end_behavior"]}}
    save = (params.get("payment_settings") or {}).get("save_default_payment_method")
    if save:
        sub["payment_settings"] = {**(sub.get("payment_settings") or {}),
                                   "save_default_payment_method": save}
    if "pause_collection" in params:
        sub["pause_collection"] = pausing.from_params(params["pause_collection"], now)
    if tax is not None:  # applies from the next invoice on
        sub["automatic_tax"] = tax
    apply_cancel(sub, params, now)
    billed = None
    trial_end = params.get("trial_end")
    anchor = _anchor_type(params)
    if trial_end == "now" and sub["status"] == "trialing":
        billed = _restart_cycle(cctx, sub, now, "subscription_update")
    elif isinstance(trial_end, int):
        sub["trial_end"] = trial_end
        if sub["status"] == "trialing":
            subscribing.set_period(cctx, sub, sub["_period"][0], trial_end)
    elif anchor == "now" or _cycle(cctx, sub) != old_cycle:
        _drop_unused_charges(cctx, sub, prorations)
        if behavior != "none":
            _credit_unchanged_items(cctx, sub, prorations, now)
        billed = _restart_cycle(cctx, sub, now, "subscription_update")
    elif prorations and behavior == "always_invoice":
        billed = subscribing.invoice_now(cctx, sub,
                                         raise_on_decline=params.get("payment_behavior")
                                         == "error_if_incomplete")
    subscribing.save(cctx, sub)
    cctx.emit("customer.subscription.updated", sub, changed(before, sub))
    if billed is not None and sub.get("latest_invoice") != billed["id"]:
        sub["latest_invoice"] = billed["id"]
        subscribing.save(cctx, sub)
    return cctx.get(sub["id"], "subscription")


def _cycle(ctx: Ctx, sub: dict[str, Any]) -> tuple[str, int]:
    recurring = subscribing.cycle_price(ctx, sub)["recurring"]
    return recurring["interval"], int(recurring.get("interval_count") or 1)


def _change_items(ctx: Ctx, sub: dict[str, Any], specs: list[dict[str, Any]], when: int,
                  prorate: bool) -> list[tuple[str, dict[str, Any]]]:
    """Apply item changes; returns the proration invoice items made (item id, ii)."""
    made: list[tuple[str, dict[str, Any]]] = []
    _check_items(ctx, sub, specs)
    for n, spec in enumerate(specs):
        param = f"items[{n}]"
        if spec.get("id"):
            item = ctx.get(spec["id"], "subscription_item", f"{param}[id]")
            if item["subscription"] != sub["id"]:
                raise InvalidRequest(f"Subscription item {item['id']} does not belong to this "
                                     "subscription.", param=f"{param}[id]")
            old_price = items.price_of(ctx, item)
            old = (old_price, int(item.get("quantity") or 0))
            if spec.get("deleted"):
                if prorate:
                    made += [(item["id"], i) for i in subscribing.proration_items(
                        ctx, sub, item, old, None, when)]
                sub["_item_ids"] = [i for i in sub["_item_ids"] if i != item["id"]]
                ctx.remove(item["id"])
                continue
            price = items.resolve_price(ctx, spec, param) if (
                spec.get("price") or spec.get("plan") or spec.get("price_data")) else old_price
            quantity = int(spec["quantity"]) if spec.get("quantity") is not None else old[1]
            if "metadata" in spec:
                item["metadata"] = merge_metadata(item.get("metadata"), spec["metadata"])
            if (price["id"], quantity) != (old_price["id"], old[1]):
                items.set_price(item, price)
                item["quantity"] = None if items.is_metered(price) else quantity
                if prorate:
                    made += [(item["id"], i) for i in subscribing.proration_items(
                        ctx, sub, item, old, (price, quantity), when)]
            ctx.put(item)
            continue
        price = items.resolve_price(ctx, spec, param)
        if price["currency"] != sub["currency"] and sub["currency"] not in (
                price.get("currency_options") or {}):
            raise InvalidRequest("All prices on a subscription must have the same currency.",
                                 param=f"{param}[price]")
        item = items.new_item(ctx, sub, price, spec.get("quantity"), spec.get("metadata"))
        sub["_item_ids"].append(item["id"])
        if prorate:
            made += [(item["id"], i) for i in subscribing.proration_items(
                ctx, sub, item, None, (price, int(item.get("quantity") or 0)), when)]
    if not sub["_item_ids"]:
        raise InvalidRequest("A subscription must have at least one active plan.",
                             param="items")
    return made


def _check_items(ctx: Ctx, sub: dict[str, Any], specs: list[dict[str, Any]]) -> None:
    """Everything that can refuse the change, checked before anything changes: a refused
    request must leave the subscription's items (and its invoice items) as they were."""
    for n, spec in enumerate(specs):
        param = f"items[{n}]"
        if spec.get("id"):
            item = ctx.get(spec["id"], "subscription_item", f"{param}[id]")
            if item["subscription"] != sub["id"]:
                raise InvalidRequest(f"Subscription item {item['id']} does not belong to this "
                                     "subscription.", param=f"{param}[id]")
        if spec.get("deleted") or spec.get("price_data"):
            continue
        if spec.get("price") or spec.get("plan") or not spec.get("id"):
            price = items.resolve_price(ctx, spec, param)
            if not spec.get("id") and price["currency"] != sub["currency"] and sub[
                    "currency"] not in (price.get("currency_options") or {}):
                raise InvalidRequest("All prices on a subscription must have the same "
                                     "currency.", param=f"{param}[price]")
    dropped = {s.get("id") for s in specs if s.get("id") and s.get("deleted")}
    if not any(not s.get("id") for s in specs) and not set(sub["_item_ids"]) - dropped:
        raise InvalidRequest("A subscription must have at least one active plan. To cancel "
                             "a subscription, please use the cancel API endpoint.",
                             param="items")


def _anchor_type(params: dict[str, Any]) -> Any:
    anchor = params.get("billing_cycle_anchor")
    return anchor.get("type") if isinstance(anchor, dict) else anchor


def _credit_unchanged_items(ctx: Ctx, sub: dict[str, Any],
                            prorations: list[tuple[str, dict[str, Any]]], now: int) -> None:
    """A cycle reset also credits the unused time of the items this update left alone
    (the changed ones already have their credit)."""
    prorated = {item_id for item_id, _ in prorations}
    for item in subscribing.live_items(ctx, sub):
        if item["id"] in prorated:
            continue
        current = (items.price_of(ctx, item), int(item.get("quantity") or 0))
        subscribing.proration_items(ctx, sub, item, current, None, now)


def _drop_unused_charges(ctx: Ctx, sub: dict[str, Any],
                         prorations: list[tuple[str, dict[str, Any]]]) -> None:
    """On a cycle reset the new period is billed in full, so only the credits stay."""
    for _, invoice_item in prorations:
        if invoice_item["amount"] > 0 and not invoice_item.get("invoice"):
            ctx.remove(invoice_item["id"])


def _restart_cycle(ctx: Ctx, sub: dict[str, Any], now: int, reason: str) -> dict[str, Any]:
    """A new billing period starting now, invoiced at once (trial end, anchor reset)."""
    sub["billing_cycle_anchor"] = now
    if sub["status"] == "trialing":
        sub["status"] = "active"
        sub["trial_end"] = now
    subscribing.set_period(ctx, sub, now, subscribing.next_period_end(ctx, sub, now))
    inv = subscribing.subscription_invoice(ctx, sub, reason, (now, now))
    subscribing.cycle_lines(ctx, sub, inv, (sub["_period"][0], sub["_period"][1]), None)
    pull_pending_items(ctx, inv, sub["id"], only_subscription=True)
    sub["latest_invoice"] = inv["id"]
    subscribing.save(ctx, sub)
    subscribing.finalize_and_collect(ctx, sub, inv)
    return inv
