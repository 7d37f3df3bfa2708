"""Legacy Plans: a view over recurring prices, never a second store.

In Stripe a Plan and a recurring Price are one object seen two ways: a plan's id works
wherever a price id does (`items[][price]`, `items[][plan]`) and a recurring price's id
retrieves as a plan. So `/v1/plans` reads and writes the stored price and renders it with
`items.plan_view`, the same shape subscription items and pre-basil invoice lines carry.
Every plan write sends the plan event and the matching price event.
"""

from __future__ import annotations

from typing import Any

from ..billing.items import plan_view
from ..context import Ctx
from ..errors import InvalidRequest, Unsupported, missing
from ..events import changed
from ..listing import paginate
from ..render import hidden_unless_expanded
from ..router import api
from ..versions import request_change, response_change
from ._common import apply, deleted
from .products import build_price

# A plan's `tiers` is expandable, as a price's is.
hidden_unless_expanded("plan", "tiers")

BASIL = "2025-03-31.basil"  # removed `aggregate_usage` with legacy usage records

# Price params a plan spells differently; errors from the price code are renamed back.
_RENAMED = {"unit_amount": "amount", "unit_amount_decimal": "amount_decimal",
            "recurring[interval_count]": "interval_count", "product_data": "product"}


def _stored(ctx: Ctx, plan: str, param: str = "plan") -> dict[str, Any]:
    """The recurring price behind a plan id (a one-time price is no plan)."""
    price = ctx.maybe(plan, "price")
    if price is None or not price.get("recurring"):
        raise missing("plan", str(plan), param)
    return price


def _view(price: dict[str, Any]) -> dict[str, Any]:
    view = plan_view(price)
    assert view is not None  # _stored only returns recurring prices
    return view


def _price_params(params: dict[str, Any]) -> dict[str, Any]:
    """A plan create request in the Prices API's words."""
    recurring: dict[str, Any] = {"interval": params["interval"]}
    for name in ("interval_count", "usage_type", "trial_period_days", "meter"):
        if name in params:
            recurring[name] = params[name]
    out: dict[str, Any] = {"currency": params["currency"], "recurring": recurring}
    if "amount" in params:
        out["unit_amount"] = params["amount"]
    if "amount_decimal" in params:
        out["unit_amount_decimal"] = params["amount_decimal"]
    if "transform_usage" in params:
        out["transform_quantity"] = params["transform_usage"]
    for name in ("active", "billing_scheme", "tiers", "tiers_mode", "nickname", "metadata"):
        if name in params:
            out[name] = params[name]
    product = params.get("product")
    if isinstance(product, dict):
        out["product_data"] = product
    elif product is not None:
        out["product"] = product
    return out


@api("POST", "/v1/plans")
def create_plan(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    plan_id = params.get("id")
    if plan_id and ctx.account.objects.get(plan_id) is not None:
        raise InvalidRequest("Plan already exists.", param="id", code="resource_already_exists")
    if params.get("amount") is not None and params.get("amount_decimal") is not None:
        raise InvalidRequest("You may only specify one of these parameters: amount, "
                             "amount_decimal.", param="amount_decimal")
    inline = params.get("product")
    if isinstance(inline, dict) and inline.get("id") and \
            ctx.account.objects.get(inline["id"]) is not None:
        raise InvalidRequest("Product already exists.", param="product[id]",
                             code="resource_already_exists")
    try:
        price = build_price(ctx, _price_params(params), object_id=plan_id)
    except InvalidRequest as exc:
        if exc.param in _RENAMED:
            old, new = exc.param, _RENAMED[exc.param]
            exc.param = new
            exc.message = exc.message.replace(old, new)
        raise
    view = _view(price)
    ctx.emit("plan.created", view)
    return view


@api("GET", "/v1/plans/{plan}")
def retrieve_plan(ctx: Ctx, params: dict[str, Any], plan: str) -> dict[str, Any]:
    return _view(_stored(ctx, plan))


@api("POST", "/v1/plans/{plan}")
def update_plan(ctx: Ctx, params: dict[str, Any], plan: str) -> dict[str, Any]:
    price = _stored(ctx, plan)
    before_price, before_plan = dict(price), _view(price)
    if "product" in params and params["product"] != price["product"]:
        ctx.get(params["product"], "product", "product")
        if any(item.get("_price") == price["id"]
               for item in ctx.account.iter_type("subscription_item")):
            raise InvalidRequest("The product of a plan cannot be changed once the plan is "
                                 "used by a subscription.", param="product")
        price["product"] = params["product"]
    if "trial_period_days" in params:
        days = params["trial_period_days"]
        if days is not None and not 0 <= int(days) <= 730:
            raise InvalidRequest("trial_period_days must be between 0 and 730.",
                                 param="trial_period_days")
        price["recurring"] = {**price["recurring"], "trial_period_days": days}
    apply(price, params, ("active", "nickname", "metadata"))
    ctx.put(price)
    view = _view(price)
    ctx.emit("plan.updated", view, changed(before_plan, view))
    ctx.emit("price.updated", price, changed(before_price, price))
    return view


@api("DELETE", "/v1/plans/{plan}")
def delete_plan(ctx: Ctx, params: dict[str, Any], plan: str) -> dict[str, Any]:
    """Deleting a plan removes its price: new subscriptions cannot use it, existing
    subscriptions keep billing it (their items hold a copy)."""
    price = _stored(ctx, plan)
    view = _view(price)
    ctx.remove(price["id"])
    ctx.emit("plan.deleted", view)
    ctx.emit("price.deleted", price)
    return deleted(view)


@api("GET", "/v1/plans")
def list_plans(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    def where(view: dict[str, Any]) -> bool:
        return all(name not in params or view.get(name) == params[name]
                   for name in ("active", "product"))
    views = (_view(p) for p in ctx.account.iter_type("price") if p.get("recurring"))
    return paginate(ctx, views, params, "/v1/plans", where)


# ------------------------------------------------------------------ versions

def _aggregate_usage(usage_type: Any) -> str | None:
    """Before basil metered plans and prices named how usage adds up; the emulator bills
    metered prices from meters, which sum, so that is what they say."""
    return "sum" if usage_type == "metered" else None


@response_change(BASIL, "plan")
def plan_aggregate_usage(ctx: Ctx, obj: dict[str, Any]) -> None:
    obj["aggregate_usage"] = _aggregate_usage(obj.get("usage_type"))


@response_change(BASIL, "price")
def price_aggregate_usage(ctx: Ctx, obj: dict[str, Any]) -> None:
    recurring = obj.get("recurring")
    if isinstance(recurring, dict):
        recurring["aggregate_usage"] = _aggregate_usage(recurring.get("usage_type"))


@request_change(BASIL)
def refuse_aggregate_usage(ctx: Ctx, method: str, template: str,
                           params: dict[str, Any]) -> dict[str, Any]:
    """Legacy usage records are not emulated: a requested aggregation fails loudly."""
    if method == "POST" and template == "/v1/plans" and params.get("aggregate_usage"):
        raise Unsupported("`aggregate_usage` (legacy usage records; bill metered prices "
                          "from a billing meter)", param="aggregate_usage")
    recurring = params.get("recurring") if template == "/v1/prices" else None
    if method == "POST" and isinstance(recurring, dict) and recurring.get("aggregate_usage"):
        raise Unsupported("`recurring[aggregate_usage]` (legacy usage records; bill metered "
                          "prices from a billing meter)", param="recurring[aggregate_usage]")
    return params
