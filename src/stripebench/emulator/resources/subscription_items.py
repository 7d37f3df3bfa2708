"""Subscription items: the same changes as a subscription update, one item at a time."""

from __future__ import annotations

from typing import Any

from ..billing.changes import update_subscription
from ..context import Ctx
from ..listing import paginate
from ..router import api
from ._common import deleted

ITEM_FIELDS = ("price", "plan", "price_data", "quantity", "metadata", "discounts",
               "tax_rates", "billing_thresholds")
CHANGE_FIELDS = ("proration_behavior", "proration_date", "payment_behavior")


def _change(params: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    change = {k: params[k] for k in CHANGE_FIELDS if k in params}
    change["items"] = [{**item, **{k: params[k] for k in ITEM_FIELDS if k in params}}]
    return change


@api("POST", "/v1/subscription_items")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    sub = ctx.get(params["subscription"], "subscription", "subscription")
    update_subscription(ctx, sub, _change(params, {}))
    return ctx.get(sub["_item_ids"][-1], "subscription_item")


@api("GET", "/v1/subscription_items/{item}")
def retrieve(ctx: Ctx, params: dict[str, Any], item: str) -> dict[str, Any]:
    return ctx.get(item, "subscription_item")


@api("POST", "/v1/subscription_items/{item}")
def update(ctx: Ctx, params: dict[str, Any], item: str) -> dict[str, Any]:
    obj = ctx.get(item, "subscription_item")
    sub = ctx.get(obj["subscription"], "subscription")
    update_subscription(ctx, sub, _change(params, {"id": obj["id"]}))
    return ctx.get(obj["id"], "subscription_item")


@api("DELETE", "/v1/subscription_items/{item}")
def delete(ctx: Ctx, params: dict[str, Any], item: str) -> dict[str, Any]:
    obj = ctx.get(item, "subscription_item")
    sub = ctx.get(obj["subscription"], "subscription")
    change = {k: params[k] for k in CHANGE_FIELDS if k in params}
    change["items"] = [{"id": obj["id"], "deleted": True}]
    update_subscription(ctx, sub, change)
    return deleted(obj)


@api("GET", "/v1/subscription_items")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    sub = ctx.get(params["subscription"], "subscription", "subscription")
    ids = list(reversed(sub.get("_item_ids", [])))
    found = [i for i in (ctx.maybe(x, "subscription_item") for x in ids) if i]
    return paginate(ctx, found, params, "/v1/subscription_items")
