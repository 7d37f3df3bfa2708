"""Cart changes a customer makes on the Checkout page before paying.

Adjusting a quantity (within the item's limits; the only item left in the cart cannot go
down to 0, as Stripe's adjustable quantities say), adding or removing an optional item,
entering a promotion code (validated as Stripe does: active, unexpired, redemptions
left, customer, first-time and minimum-amount restrictions, coupon product limits)
and choosing a shipping option all update the session, as they do on Stripe.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from .checkout_totals import cart_items, compute, coupon_applies
from .discounts import find_active_code, promotion_usable


class CartError(Exception):
    """A change the page refuses; `key` names the translated message, `values` fill it."""

    def __init__(self, field: str, key: str, **values: Any) -> None:
        super().__init__(key)
        self.field = field
        self.key = key
        self.values = values


def _item(session: dict[str, Any], item_id: str) -> dict[str, Any]:
    for item in session.get("_items", []):
        if item["id"] == item_id:
            return item
    raise CartError("form", "err_required")


def others_in_cart(session: dict[str, Any], item: dict[str, Any]) -> bool:
    """Whether the cart holds an item besides this one (at a quantity above 0)."""
    return any(other is not item and int(other.get("quantity") or 0) > 0
               for other in cart_items(session))


def quantity_limits(session: dict[str, Any], item: dict[str, Any]) -> tuple[int, int]:
    """(lowest, highest) quantity the customer may choose for an adjustable item now.

    Stripe: "If there is only one item in the cart then that item's quantity cannot go
    down to 0" (line_items.adjustable_quantity.minimum), so the only item left floors at 1.
    """
    adjustable = item.get("adjustable_quantity") or {}
    low = int(adjustable["minimum"]) if adjustable.get("minimum") is not None else 0
    high = int(adjustable["maximum"]) if adjustable.get("maximum") is not None else 99
    if not others_in_cart(session, item):
        low = max(low, 1)
    return low, max(low, high)


def set_quantity(session: dict[str, Any], item_id: str, quantity: Any) -> None:
    item = _item(session, item_id)
    adjustable = item.get("adjustable_quantity") or {}
    if not adjustable.get("enabled"):
        raise CartError("form", "err_required")
    try:
        wanted = int(quantity)
    except (TypeError, ValueError, OverflowError):
        return
    low, high = quantity_limits(session, item)
    if item.get("optional") and wanted <= 0 and others_in_cart(session, item):
        item["added"] = False  # an optional item at 0 leaves the cart
        item["quantity"] = max(1, low)
        return
    item["quantity"] = max(low, min(high, wanted))


def custom_limits(price: dict[str, Any], currency: str | None) -> tuple[int, int | None]:
    """(minimum, maximum) of a customer-chosen amount, in the session currency."""
    spec = price.get("custom_unit_amount") or {}
    if currency and currency != price.get("currency"):
        option = ((price.get("currency_options") or {}).get(currency) or {}).get(
            "custom_unit_amount") or spec
        spec = option
    return int(spec.get("minimum") or 1), (int(spec["maximum"]) if spec.get("maximum")
                                           else None)


def set_custom_amount(ctx: Ctx, session: dict[str, Any], item_id: str, amount: Any) -> None:
    item = _item(session, item_id)
    price = ctx.get(item["price"], "price")
    if not price.get("custom_unit_amount"):
        raise CartError("form", "err_required")
    try:
        wanted = int(amount)
    except (TypeError, ValueError):
        raise CartError(f"amount-{item_id}", "err_required") from None
    low, high = custom_limits(price, session.get("currency"))
    if wanted < low:
        raise CartError(f"amount-{item_id}", "err_amount_min", amount=(low, session["currency"]))
    if high is not None and wanted > high:
        raise CartError(f"amount-{item_id}", "err_amount_max", amount=(high, session["currency"]))
    item["custom_amount"] = wanted


def set_optional(session: dict[str, Any], item_id: str, added: bool) -> None:
    item = _item(session, item_id)
    if not item.get("optional"):
        raise CartError("form", "err_required")
    if not added and item.get("added") and not others_in_cart(session, item):
        return  # the only item left stays: a cart is never emptied
    item["added"] = added


def nothing_bought(session: dict[str, Any]) -> bool:
    """A payment or subscription session whose cart holds no item at a quantity above 0:
    Stripe's page never lets a cart get there, so completing one is refused."""
    return session.get("mode") != "setup" and bool(session.get("_items")) and not any(
        int(i.get("quantity") or 0) > 0 for i in cart_items(session))


def choose_shipping(session: dict[str, Any], rate_id: str) -> None:
    for option in session.get("shipping_options") or []:
        if option["shipping_rate"] == rate_id:
            session["shipping_cost"] = {"amount_subtotal": option["shipping_amount"],
                                        "amount_tax": 0,
                                        "amount_total": option["shipping_amount"],
                                        "shipping_rate": rate_id, "taxes": []}
            return
    raise CartError("form", "err_required")


def apply_promotion_code(ctx: Ctx, session: dict[str, Any], code: str) -> None:
    if not session.get("allow_promotion_codes"):
        raise CartError("promotion_code", "err_promo_invalid")
    promo = find_active_code(ctx, code or "")
    if promo is None or not promotion_usable(ctx, promo):
        raise CartError("promotion_code", "err_promo_invalid")
    if promo.get("customer") and promo["customer"] != session.get("customer"):
        raise CartError("promotion_code", "err_promo_customer")
    coupon = ctx.get(promo["promotion"]["coupon"], "coupon")
    restrictions = promo.get("restrictions") or {}
    if restrictions.get("first_time_transaction") and _has_paid_before(ctx, session):
        raise CartError("promotion_code", "err_promo_first_time")
    currency = session.get("currency")
    if coupon.get("amount_off") is not None and coupon.get("currency") != currency and (
            currency not in (coupon.get("currency_options") or {})):
        raise CartError("promotion_code", "err_promo_invalid")
    totals = compute(ctx, session)
    minimum = restrictions.get("minimum_amount")
    min_currency = restrictions.get("minimum_amount_currency")
    options = restrictions.get("currency_options") or {}
    if currency in options and options[currency].get("minimum_amount") is not None:
        minimum, min_currency = options[currency]["minimum_amount"], currency
    if minimum and min_currency == currency and totals.amount_subtotal < int(minimum):
        raise CartError("promotion_code", "err_promo_minimum", amount=(int(minimum), currency))
    if (coupon.get("applies_to") or {}).get("products") and not any(
            coupon_applies(coupon, line) for line in totals.lines):
        raise CartError("promotion_code", "err_promo_products")
    session["discounts"] = [{"coupon": None, "promotion_code": promo["id"]}]


def remove_promotion_code(session: dict[str, Any]) -> None:
    session["discounts"] = [d for d in session.get("discounts") or []
                            if not d.get("promotion_code")]


def _has_paid_before(ctx: Ctx, session: dict[str, Any]) -> bool:
    customer = session.get("customer")
    if not customer:
        return False
    return any(c.get("customer") == customer and c.get("status") == "succeeded"
               for c in ctx.account.iter_type("charge"))


def describe_cart(session: dict[str, Any]) -> list[tuple[str, int]]:
    """(price, quantity) pairs being bought, for logs and tests."""
    return [(i["price"], int(i.get("quantity") or 0)) for i in cart_items(session)]
