"""Discount objects (`di_`) for coupons and promotion codes applied to subscriptions."""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..resources.discounts import coupon_usable, promotion_usable
from . import timing


def make_discounts(ctx: Ctx, specs: Any, customer: dict[str, Any],
                   sub: dict[str, Any] | None = None,
                   invoice: dict[str, Any] | None = None) -> list[str]:
    made: list[str] = []
    for n, spec in enumerate(specs or []):
        param = f"discounts[{n}]"
        if spec.get("discount"):
            made.append(ctx.get(spec["discount"], "discount", f"{param}[discount]")["id"])
            continue
        promo = None
        if spec.get("promotion_code"):
            promo = ctx.get(spec["promotion_code"], "promotion_code", f"{param}[promotion_code]")
            if not promotion_usable(ctx, promo):
                raise InvalidRequest(f"This promotion code cannot be redeemed: "
                                     f"{promo['code']}", param=f"{param}[promotion_code]")
            coupon = ctx.get(promo["promotion"]["coupon"], "coupon")
        elif spec.get("coupon"):
            coupon = ctx.get(spec["coupon"], "coupon", f"{param}[coupon]")
        else:
            raise InvalidRequest(f"Missing required param: {param}[coupon].",
                                 code="parameter_missing", param=f"{param}[coupon]")
        if not coupon_usable(ctx, coupon):
            raise InvalidRequest(f"Coupon expired: {coupon['id']}", param=f"{param}[coupon]")
        now = ctx.now()
        end = None
        if coupon.get("duration") == "repeating":
            end = timing.add_months(now, int(coupon["duration_in_months"]))
        discount = ctx.new("discount", "di", customer=customer["id"], start=now, end=end,
                           source={"coupon": coupon["id"], "type": "coupon"},
                           promotion_code=promo["id"] if promo else None,
                           subscription=sub["id"] if sub else None,
                           invoice=invoice["id"] if invoice else None)
        discount.pop("created", None)
        ctx.put(discount)
        coupon["times_redeemed"] = int(coupon.get("times_redeemed") or 0) + 1
        ctx.put(coupon)
        if promo is not None:
            promo["times_redeemed"] = int(promo.get("times_redeemed") or 0) + 1
            ctx.put(promo)
        made.append(discount["id"])
    return made
