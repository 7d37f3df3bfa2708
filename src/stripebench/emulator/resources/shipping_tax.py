"""Shipping rates and tax rates."""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..events import changed
from ..listing import paginate
from ..router import api
from ._common import apply, currency, merge_metadata

# ------------------------------------------------------------------ shipping rates

def build_shipping_rate(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    fixed = params.get("fixed_amount")
    if (params.get("type") or "fixed_amount") == "fixed_amount" and not fixed:
        raise InvalidRequest("Missing required param: fixed_amount.", code="parameter_missing",
                             param="fixed_amount")
    fixed_amount = None
    if fixed:
        fixed_amount = {"amount": fixed["amount"], "currency": currency(fixed["currency"],
                                                                        "fixed_amount[currency]")}
        if fixed.get("currency_options"):
            fixed_amount["currency_options"] = {
                currency(k): {"amount": v["amount"],
                              "tax_behavior": v.get("tax_behavior", "unspecified")}
                for k, v in fixed["currency_options"].items()}
    rate = ctx.new("shipping_rate", "shr", active=True,
                   delivery_estimate=params.get("delivery_estimate"),
                   display_name=params["display_name"], fixed_amount=fixed_amount,
                   metadata=merge_metadata({}, params.get("metadata") or {}),
                   tax_behavior=params.get("tax_behavior", "unspecified"),
                   tax_code=params.get("tax_code"), type="fixed_amount")
    ctx.put(rate)
    return rate


@api("POST", "/v1/shipping_rates")
def create_shipping_rate(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return build_shipping_rate(ctx, params)


@api("GET", "/v1/shipping_rates/{shipping_rate_token}")
def retrieve_shipping_rate(ctx: Ctx, params: dict[str, Any],
                           shipping_rate_token: str) -> dict[str, Any]:
    return ctx.get(shipping_rate_token, "shipping_rate")


@api("POST", "/v1/shipping_rates/{shipping_rate_token}")
def update_shipping_rate(ctx: Ctx, params: dict[str, Any],
                         shipping_rate_token: str) -> dict[str, Any]:
    rate = ctx.get(shipping_rate_token, "shipping_rate")
    apply(rate, params, ("active", "tax_behavior", "metadata"))
    options = (params.get("fixed_amount") or {}).get("currency_options")
    if options and rate.get("fixed_amount"):
        current = rate["fixed_amount"].setdefault("currency_options", {})
        for code, opt in options.items():
            current[currency(code)] = {**current.get(code, {}), **opt}
    ctx.put(rate)
    return rate


@api("GET", "/v1/shipping_rates")
def list_shipping_rates(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    def where(r: dict[str, Any]) -> bool:
        if "active" in params and r["active"] != params["active"]:
            return False
        return not params.get("currency") or (
            (r.get("fixed_amount") or {}).get("currency") == params["currency"])
    return paginate(ctx, ctx.account.iter_type("shipping_rate"), params, "/v1/shipping_rates",
                    where)


# ------------------------------------------------------------------ tax rates

TAX_RATE_FIELDS = ("active", "country", "description", "display_name", "jurisdiction",
                   "state", "tax_type")


@api("POST", "/v1/tax_rates")
def create_tax_rate(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    percentage = float(params["percentage"])
    if not 0 <= percentage <= 100:
        raise InvalidRequest("Invalid percentage: must be between 0 and 100",
                             param="percentage")
    rate = ctx.new("tax_rate", "txr", active=params.get("active", True),
                   inclusive=params["inclusive"], percentage=percentage,
                   effective_percentage=percentage,
                   metadata=merge_metadata({}, params.get("metadata") or {}))
    apply(rate, params, TAX_RATE_FIELDS)
    ctx.put(rate)
    ctx.emit("tax_rate.created", rate)
    return rate


@api("GET", "/v1/tax_rates/{tax_rate}")
def retrieve_tax_rate(ctx: Ctx, params: dict[str, Any], tax_rate: str) -> dict[str, Any]:
    return ctx.get(tax_rate, "tax_rate")


@api("POST", "/v1/tax_rates/{tax_rate}")
def update_tax_rate(ctx: Ctx, params: dict[str, Any], tax_rate: str) -> dict[str, Any]:
    rate = ctx.get(tax_rate, "tax_rate")
    before = dict(rate)
    apply(rate, params, TAX_RATE_FIELDS + ("metadata",))
    ctx.put(rate)
    ctx.emit("tax_rate.updated", rate, changed(before, rate))
    return rate


@api("GET", "/v1/tax_rates")
def list_tax_rates(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    def where(r: dict[str, Any]) -> bool:
        return all(k not in params or r.get(k) == params[k] for k in ("active", "inclusive"))
    return paginate(ctx, ctx.account.iter_type("tax_rate"), params, "/v1/tax_rates", where)
