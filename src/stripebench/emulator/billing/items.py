"""Subscription items: their prices, legacy `plan` view, amounts and invoice lines."""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..render import public_copy
from ..resources.products import build_price
from . import timing

SYMBOLS = {"usd": "$", "eur": "€", "gbp": "£", "jpy": "¥", "cad": "CA$", "aud": "A$"}
ZERO_DECIMAL = {"jpy", "krw", "vnd", "clp", "isk", "ugx", "xaf", "xof"}


def money(amount: Any, currency: str) -> str:
    symbol = SYMBOLS.get(currency, currency.upper() + " ")
    if currency in ZERO_DECIMAL:
        return f"{symbol}{int(amount)}"
    return f"{symbol}{float(amount) / 100:.2f}"


def plan_view(price: dict[str, Any]) -> dict[str, Any] | None:
    """The legacy Plan shape Stripe still sends next to a recurring price (`tiers` is
    rendered only when expanded, see resources/plans.py)."""
    recurring = price.get("recurring")
    if not recurring:
        return None
    return {"id": price["id"], "object": "plan", "active": price.get("active", True),
            "amount": price.get("unit_amount"), "amount_decimal": price.get(
                "unit_amount_decimal"), "billing_scheme": price.get("billing_scheme"),
            "created": price.get("created"), "currency": price["currency"],
            "interval": recurring["interval"], "interval_count": recurring.get(
                "interval_count", 1), "livemode": False, "metadata": price.get("metadata", {}),
            "meter": recurring.get("meter"), "nickname": price.get("nickname"),
            "product": price["product"], "tiers": price.get("tiers"),
            "tiers_mode": price.get("tiers_mode"),
            "transform_usage": price.get("transform_quantity"),
            "trial_period_days": recurring.get("trial_period_days"),
            "usage_type": recurring.get("usage_type", "licensed")}


def resolve_price(ctx: Ctx, spec: dict[str, Any], param: str) -> dict[str, Any]:
    """An item's price: `price`, legacy `plan`, or inline `price_data`."""
    if spec.get("price") or spec.get("plan"):
        price = ctx.get(spec.get("price") or spec.get("plan"), "price", f"{param}[price]")
    elif spec.get("price_data"):
        data = dict(spec["price_data"])
        price = build_price(ctx, data)
    else:
        raise InvalidRequest(f"Missing required param: {param}[price].",
                             code="parameter_missing", param=f"{param}[price]")
    if not price.get("recurring"):
        raise InvalidRequest(f"The price specified is set to `type=one_time` but this field "
                             f"only accepts prices with `type=recurring`. Price: {price['id']}",
                             param=f"{param}[price]")
    if not price.get("active", True):
        raise InvalidRequest(f"The price specified is inactive. This field only accepts "
                             f"active prices. Price: {price['id']}", param=f"{param}[price]")
    return price


def is_metered(price: dict[str, Any]) -> bool:
    return (price.get("recurring") or {}).get("usage_type") == "metered"


def new_item(ctx: Ctx, sub: dict[str, Any], price: dict[str, Any], quantity: int | None,
             metadata: dict[str, str] | None = None) -> dict[str, Any]:
    item = ctx.new("subscription_item", "si")
    set_price(item, price)
    item.update(subscription=sub["id"], quantity=None if is_metered(price) else (
        quantity if quantity is not None else 1), metadata=dict(metadata or {}),
        discounts=[], tax_rates=[], current_period_start=sub["_period"][0],
        current_period_end=sub["_period"][1])
    ctx.put(item)
    return item


def set_price(item: dict[str, Any], price: dict[str, Any]) -> None:
    item["price"] = public_copy(price)
    item["plan"] = plan_view(price)
    item["_price"] = price["id"]


def price_of(ctx: Ctx, item: dict[str, Any]) -> dict[str, Any]:
    return ctx.maybe(item.get("_price"), "price") or item["price"]


def product_name(ctx: Ctx, price: dict[str, Any]) -> str:
    product = ctx.maybe(price.get("product"), "product")
    return str(product["name"]) if product else str(price.get("product"))


def full_amount(ctx: Ctx, item: dict[str, Any], currency: str) -> int:
    price = price_of(ctx, item)
    if is_metered(price):
        return 0
    return timing.price_amount(price, int(item.get("quantity") or 0), currency)


def describe(ctx: Ctx, price: dict[str, Any], quantity: int, currency: str) -> str:
    recurring = price.get("recurring") or {}
    count = int(recurring.get("interval_count") or 1)
    interval = recurring.get("interval", "month")
    every = interval if count == 1 else f"{count} {interval}s"
    unit = timing.unit_amount(price, currency)
    if price.get("billing_scheme") == "tiered":
        return f"{quantity} × {product_name(ctx, price)} (Tier pricing / {every})"
    return f"{quantity} × {product_name(ctx, price)} (at {money(unit, currency)} / {every})"


def proration_text(ctx: Ctx, word: str, price: dict[str, Any], quantity: int, when: int) -> str:
    """A proration line in Stripe's words: "Unused time on Gold after 11 Jan 2026" for one
    unit, "Remaining time on 2 × Gold after ..." for several (the count only above one)."""
    name = product_name(ctx, price)
    what = f"{quantity} × {name}" if quantity > 1 else name
    return f"{word} time on {what} after {timing.proration_date(when)}"
