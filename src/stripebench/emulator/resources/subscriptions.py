"""Subscriptions: create, retrieve, update (prorations), cancel, resume, list, search.

The endpoints only; the engine is `billing/` (`billing.creating.create_subscription`,
re-exported here for Checkout, and `billing.changes.update_subscription`).
"""

from __future__ import annotations

from typing import Any

from ..billing import subscribing, timing
from ..billing import versions as _billing_versions  # noqa: F401 - registers version changes
from ..billing.changes import update_subscription
from ..billing.creating import create_subscription
from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..events import changed
from ..listing import paginate, range_filter
from ..router import api
from ..search import field, search

__all__ = ["create_subscription"]

SEARCH_FIELDS = {"status": field("status"), "created": field("created"),
                 "customer": field("customer")}


# ------------------------------------------------------------------ API

# Parameters the engine would not apply: refused rather than silently ignored.
UNSUPPORTED = ("application_fee_percent", "backdate_start_date", "billing_cycle_anchor_config",
               "billing_schedules", "billing_thresholds", "customer_account", "default_source",
               "default_tax_rates", "on_behalf_of", "pending_invoice_item_interval",
               "transfer_data")
UNSUPPORTED_ON_UPDATE = ("add_invoice_items", "trial_from_plan")


def refuse_unsupported(params: dict[str, Any], names: tuple[str, ...] = UNSUPPORTED) -> None:
    for name in names:
        if params.get(name) not in (None, "", [], {}, False):
            raise Unsupported(f"`{name}` on subscriptions", param=name)
    if (params.get("billing_mode") or {}).get("type") not in (None, "classic"):
        raise Unsupported("flexible billing mode", param="billing_mode[type]")
    types = (params.get("payment_settings") or {}).get("payment_method_types") or []
    if [t for t in types if t != "card"]:
        raise Unsupported("subscription payment method types other than card",
                          param="payment_settings[payment_method_types]")
    invoice_settings = params.get("invoice_settings") or {}
    if invoice_settings.get("account_tax_ids"):
        raise Unsupported("`invoice_settings[account_tax_ids]` on subscriptions",
                          param="invoice_settings[account_tax_ids]")
    if (invoice_settings.get("issuer") or {}).get("type") == "account":
        raise Unsupported("another account as the invoices' issuer",
                          param="invoice_settings[issuer][type]")


@api("POST", "/v1/subscriptions")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    refuse_unsupported(params)
    return create_subscription(ctx, params)


@api("GET", "/v1/subscriptions/{subscription_exposed_id}")
def retrieve(ctx: Ctx, params: dict[str, Any], subscription_exposed_id: str) -> dict[str, Any]:
    return ctx.get(subscription_exposed_id, "subscription")


@api("POST", "/v1/subscriptions/{subscription_exposed_id}")
def update(ctx: Ctx, params: dict[str, Any], subscription_exposed_id: str) -> dict[str, Any]:
    sub = ctx.get(subscription_exposed_id, "subscription")
    refuse_unsupported(params, UNSUPPORTED + UNSUPPORTED_ON_UPDATE)
    if params.get("payment_behavior") == "pending_if_incomplete":
        raise Unsupported("pending updates (`payment_behavior=pending_if_incomplete`)",
                          param="payment_behavior")
    return update_subscription(ctx, sub, params)


@api("DELETE", "/v1/subscriptions/{subscription_exposed_id}")
def cancel(ctx: Ctx, params: dict[str, Any], subscription_exposed_id: str) -> dict[str, Any]:
    sub = ctx.get(subscription_exposed_id, "subscription")
    if sub["status"] in ("canceled", "incomplete_expired"):
        raise InvalidRequest(f"A canceled subscription can only update its cancellation_details"
                             f" and metadata. Subscription: {sub['id']}", param="subscription")
    cctx = timing.for_customer(ctx, sub["customer"])
    return subscribing.cancel_now(cctx, sub, prorate=bool(params.get("prorate")),
                                  invoice_now_=bool(params.get("invoice_now")),
                                  details=params.get("cancellation_details"))


@api("POST", "/v1/subscriptions/{subscription}/resume")
def resume(ctx: Ctx, params: dict[str, Any], subscription: str) -> dict[str, Any]:
    sub = ctx.get(subscription, "subscription")
    if sub["status"] != "paused":
        raise InvalidRequest("This subscription cannot be resumed because it is not paused.",
                             param="subscription")
    cctx = timing.for_customer(ctx, sub["customer"])
    anchor = (params.get("billing_cycle_anchor") or {}).get("type", "now")
    subscribing.resume(cctx, sub, anchor, params.get("proration_behavior",
                                                     "create_prorations"))
    return ctx.get(sub["id"], "subscription")


@api("DELETE", "/v1/subscriptions/{subscription_exposed_id}/discount")
def delete_discount(ctx: Ctx, params: dict[str, Any],
                    subscription_exposed_id: str) -> dict[str, Any]:
    sub = ctx.get(subscription_exposed_id, "subscription")
    if not sub.get("discounts"):
        raise InvalidRequest("This subscription has no discount.", param="subscription")
    discount = ctx.get(sub["discounts"][0], "discount")
    before = dict(sub)
    sub["discounts"] = sub["discounts"][1:]
    subscribing.save(ctx, sub)
    ctx.emit("customer.subscription.updated", sub, changed(before, sub))
    return {"id": discount["id"], "object": "discount", "deleted": True,
            "source": discount.get("source"), "customer": discount.get("customer"),
            "subscription": sub["id"], "start": discount.get("start"), "end": None,
            "checkout_session": None, "invoice": None, "invoice_item": None,
            "promotion_code": discount.get("promotion_code"), "subscription_item": None}


ENDED = ("canceled", "incomplete_expired")


@api("GET", "/v1/subscriptions")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    status = params.get("status")
    price = params.get("price") or params.get("plan")

    def where(s: dict[str, Any]) -> bool:
        if status is None and s["status"] in ENDED:
            return False
        if status == "ended" and s["status"] not in ENDED:
            return False
        if status not in (None, "all", "ended") and s["status"] != status:
            return False
        for name in ("customer", "collection_method", "test_clock"):
            if params.get(name) and s.get(name) != params[name]:
                return False
        if price and not any(i["price"]["id"] == price for i in s["items"]["data"]):
            return False
        return range_filter(params.get("current_period_start"), s["_period"][0]) and \
            range_filter(params.get("current_period_end"), s["_period"][1])
    return paginate(ctx, ctx.account.iter_type("subscription"), params, "/v1/subscriptions",
                    where, exact={"customer": params.get("customer") or None})


@api("GET", "/v1/subscriptions/search")
def search_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return search(ctx, ctx.account.iter_type("subscription"), params,
                  "/v1/subscriptions/search", SEARCH_FIELDS)
