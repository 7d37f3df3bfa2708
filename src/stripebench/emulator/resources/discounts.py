"""Coupons and promotion codes (classic `coupon` shape before 2025-09-30.clover)."""

from __future__ import annotations

import re
from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..events import changed
from ..listing import paginate
from ..render import hidden_unless_expanded, public_copy
from ..router import api
from ..versions import request_change, response_change
from ._common import apply, currency, deleted, merge_metadata

CLOVER = "2025-09-30.clover"


# ------------------------------------------------------------------ coupons

hidden_unless_expanded("coupon", "applies_to", "currency_options")

@api("POST", "/v1/coupons")
def create_coupon(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    percent = params.get("percent_off")
    amount = params.get("amount_off")
    if (percent is None) == (amount is None):
        raise InvalidRequest("You must specify exactly one of percent_off or amount_off.",
                             param="percent_off" if percent is None else "amount_off")
    if percent is not None and not 0 < float(percent) <= 100:
        raise InvalidRequest("Invalid percent_off: must be greater than 0 and at most 100",
                             param="percent_off")
    if amount is not None and not params.get("currency"):
        raise InvalidRequest("You must pass currency when passing amount_off.",
                             param="currency")
    duration = params.get("duration", "once")
    if duration == "repeating" and not params.get("duration_in_months"):
        raise InvalidRequest("You must specify duration_in_months when duration is repeating.",
                             param="duration_in_months")
    coupon_id = params.get("id") or ctx.account.ids.token(8)
    if coupon_id in ctx.account.objects:
        raise InvalidRequest("Coupon already exists.", param="id",
                             code="resource_already_exists")
    options = None
    if params.get("currency_options"):
        options = {currency(k): {"amount_off": v["amount_off"]}
                   for k, v in params["currency_options"].items()}
    coupon = ctx.new(
        "coupon", "coupon", id=coupon_id, amount_off=amount,
        applies_to=params.get("applies_to"),
        currency=currency(params["currency"]) if params.get("currency") else None,
        currency_options=options, duration=duration,
        duration_in_months=params.get("duration_in_months") if duration == "repeating" else None,
        max_redemptions=params.get("max_redemptions"),
        metadata=merge_metadata({}, params.get("metadata") or {}), name=params.get("name"),
        percent_off=percent, redeem_by=params.get("redeem_by"), times_redeemed=0, valid=True)
    ctx.put(coupon)
    ctx.emit("coupon.created", coupon)
    return coupon


@api("GET", "/v1/coupons/{coupon}")
def retrieve_coupon(ctx: Ctx, params: dict[str, Any], coupon: str) -> dict[str, Any]:
    return ctx.get(coupon, "coupon")


@api("POST", "/v1/coupons/{coupon}")
def update_coupon(ctx: Ctx, params: dict[str, Any], coupon: str) -> dict[str, Any]:
    obj = ctx.get(coupon, "coupon")
    before = dict(obj)
    apply(obj, params, ("name", "metadata"))
    if params.get("currency_options"):
        if obj.get("amount_off") is None:
            raise InvalidRequest("currency_options can only be set on coupons with amount_off.",
                                 param="currency_options")
        options = dict(obj.get("currency_options") or {})
        for code, option in params["currency_options"].items():
            options[currency(code, f"currency_options[{code}]")] = {
                "amount_off": option["amount_off"]}
        obj["currency_options"] = options
    ctx.put(obj)
    ctx.emit("coupon.updated", obj, changed(before, obj))
    return obj


@api("DELETE", "/v1/coupons/{coupon}")
def delete_coupon(ctx: Ctx, params: dict[str, Any], coupon: str) -> dict[str, Any]:
    obj = ctx.get(coupon, "coupon")
    ctx.remove(coupon)
    ctx.emit("coupon.deleted", obj)
    return deleted(obj)


@api("GET", "/v1/coupons")
def list_coupons(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return paginate(ctx, ctx.account.iter_type("coupon"), params, "/v1/coupons")


def coupon_usable(ctx: Ctx, coupon: dict[str, Any]) -> bool:
    if coupon.get("redeem_by") and ctx.now() > coupon["redeem_by"]:
        return False
    limit = coupon.get("max_redemptions")
    return not (limit is not None and coupon.get("times_redeemed", 0) >= limit)


# ------------------------------------------------------------------ promotion codes

@request_change(CLOVER)
def promotion_code_coupon_param(ctx: Ctx, method: str, template: str,
                                params: dict[str, Any]) -> dict[str, Any]:
    """Before clover, promotion codes took a top-level `coupon`."""
    if template == "/v1/promotion_codes" and method == "POST" and "promotion" in params:
        raise InvalidRequest("Received unknown parameter: promotion", code="parameter_unknown",
                             param="promotion")
    if template == "/v1/promotion_codes" and method == "POST" and "coupon" in params:
        params = dict(params)
        params["promotion"] = {"type": "coupon", "coupon": params.pop("coupon")}
    return params


@response_change(CLOVER, "promotion_code")
def promotion_code_coupon_field(ctx: Ctx, obj: dict[str, Any]) -> None:
    promotion = obj.pop("promotion", None) or {}
    coupon = promotion.get("coupon")
    if isinstance(coupon, str):
        coupon = ctx.maybe(coupon, "coupon") or coupon
        coupon = public_copy(coupon) if isinstance(coupon, dict) else coupon
    obj["coupon"] = coupon


# The characters the SDK documents for `code` (letters, digits, dashes).
CODE = re.compile(r"[A-Za-z0-9-]{1,500}")


def find_active_code(ctx: Ctx, code: str) -> dict[str, Any] | None:
    wanted = code.strip().upper()
    for promo in ctx.account.iter_type("promotion_code"):
        if promo["active"] and promo["code"].upper() == wanted:
            return promo
    return None


@api("POST", "/v1/promotion_codes")
def create_promotion_code(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    promotion = params["promotion"]
    coupon_id = promotion.get("coupon")
    if not coupon_id:
        raise InvalidRequest("Missing required param: promotion[coupon].",
                             code="parameter_missing", param="promotion[coupon]")
    coupon = ctx.get(coupon_id, "coupon", "promotion[coupon]")
    if params.get("customer_account"):
        raise Unsupported("promotion codes restricted to a `customer_account`",
                          param="customer_account")
    code = params.get("code") or ctx.account.ids.token(8).upper()
    if not CODE.fullmatch(code):
        raise InvalidRequest(f"Invalid code: {code}. Promotion codes may contain only letters "
                             "(a-z, A-Z), digits (0-9) and dashes (-), up to 500 characters.",
                             param="code")
    if params.get("active", True) and find_active_code(ctx, code):
        raise InvalidRequest("An active promotion code with `code: "
                             f"{code}` already exists.", param="code")
    if params.get("customer"):
        ctx.get(params["customer"], "customer", "customer")
    restrictions = params.get("restrictions") or {}
    promo = ctx.new(
        "promotion_code", "promo", active=params.get("active", True), code=code,
        customer=params.get("customer"), expires_at=params.get("expires_at"),
        max_redemptions=params.get("max_redemptions"),
        metadata=merge_metadata({}, params.get("metadata") or {}),
        promotion={"coupon": coupon["id"], "type": "coupon"},
        restrictions={"currency_options": restrictions.get("currency_options") or {},
                      "first_time_transaction": restrictions.get("first_time_transaction", False),
                      "minimum_amount": restrictions.get("minimum_amount"),
                      "minimum_amount_currency": restrictions.get("minimum_amount_currency")},
        times_redeemed=0)
    ctx.put(promo)
    ctx.emit("promotion_code.created", promo)
    return promo


@api("GET", "/v1/promotion_codes/{promotion_code}")
def retrieve_promotion_code(ctx: Ctx, params: dict[str, Any],
                            promotion_code: str) -> dict[str, Any]:
    return ctx.get(promotion_code, "promotion_code")


@api("POST", "/v1/promotion_codes/{promotion_code}")
def update_promotion_code(ctx: Ctx, params: dict[str, Any],
                          promotion_code: str) -> dict[str, Any]:
    promo = ctx.get(promotion_code, "promotion_code")
    before = dict(promo)
    if params.get("active") and not promo["active"] and find_active_code(ctx, promo["code"]):
        raise InvalidRequest("An active promotion code with `code: "
                             f"{promo['code']}` already exists.", param="active")
    apply(promo, params, ("active", "metadata"))
    if params.get("restrictions", {}).get("currency_options"):
        promo["restrictions"]["currency_options"] = params["restrictions"]["currency_options"]
    ctx.put(promo)
    ctx.emit("promotion_code.updated", promo, changed(before, promo))
    return promo


@api("GET", "/v1/promotion_codes")
def list_promotion_codes(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    def where(p: dict[str, Any]) -> bool:
        if "active" in params and p["active"] != params["active"]:
            return False
        if params.get("code") and p["code"].upper() != params["code"].upper():
            return False
        if params.get("coupon") and p["promotion"]["coupon"] != params["coupon"]:
            return False
        return not params.get("customer") or p.get("customer") == params["customer"]
    return paginate(ctx, ctx.account.iter_type("promotion_code"), params, "/v1/promotion_codes",
                    where)


def promotion_usable(ctx: Ctx, promo: dict[str, Any]) -> bool:
    if not promo["active"]:
        return False
    if promo.get("expires_at") and ctx.now() > promo["expires_at"]:
        return False
    limit = promo.get("max_redemptions")
    if limit is not None and promo.get("times_redeemed", 0) >= limit:
        return False
    coupon = ctx.maybe(promo["promotion"]["coupon"], "coupon")
    return coupon is not None and coupon_usable(ctx, coupon)
