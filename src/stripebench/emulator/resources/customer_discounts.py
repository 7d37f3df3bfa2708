"""A customer's own discount: `coupon` / `promotion_code` on customers (before basil) and
`DELETE /v1/customers/{customer}/discount`.

The customer carries the Discount object inline in `discount` (its id also in `_discount`).
Subscriptions without discounts of their own and invoices created without `discounts`
inherit it (billing/subscribing.py, resources/invoices.py). 2025-03-31.basil removed the
singular `coupon` and `promotion_code` params from customers; the endpoint that deletes
the discount stays.
"""

from __future__ import annotations

from typing import Any

from ..billing.discounts import make_discounts
from ..context import Ctx
from ..errors import InvalidRequest, NotFound
from ..events import changed
from ..render import public_copy
from ..router import api
from ..versions import request_change
from . import customers
from .discounts import coupon_usable, promotion_usable

BASIL = "2025-03-31.basil"
_PENDING = "_customer_discount_request"
_TEMPLATES = ("/v1/customers", "/v1/customers/{customer}")


@request_change(BASIL)
def singular_coupon(ctx: Ctx, method: str, template: str,
                    params: dict[str, Any]) -> dict[str, Any]:
    """Before basil customers take `coupon` or `promotion_code`; `coupon=""` on an update
    removes the discount. Checked here, applied by the hooks below."""
    if method != "POST" or template not in _TEMPLATES or not (
            "coupon" in params or "promotion_code" in params):
        return params
    params = dict(params)
    coupon, promo = params.pop("coupon", None), params.pop("promotion_code", None)
    if coupon and promo:
        raise InvalidRequest("You may only specify one of these parameters: coupon, "
                             "promotion_code.", param="coupon")
    spec: dict[str, Any] | None = None
    if coupon:
        found = ctx.get(coupon, "coupon", "coupon")
        if not coupon_usable(ctx, found):
            raise InvalidRequest(f"Coupon expired: {coupon}", param="coupon")
        spec = {"coupon": coupon}
    elif promo:
        code = ctx.get(promo, "promotion_code", "promotion_code", kind="promotion code")
        if not promotion_usable(ctx, code):
            raise InvalidRequest(f"This promotion code cannot be redeemed: {code['code']}",
                                 param="promotion_code")
        spec = {"promotion_code": promo}
    elif template == "/v1/customers/{customer}" and coupon == "":
        spec = {}  # remove the discount
    if spec is not None:
        setattr(ctx, _PENDING, spec)
    return params


def _pending(ctx: Ctx) -> dict[str, Any] | None:
    spec: dict[str, Any] | None = getattr(ctx, _PENDING, None)
    return spec


def _attach(ctx: Ctx, customer: dict[str, Any], spec: dict[str, Any]) -> None:
    if not spec:
        customer["discount"], customer["_discount"] = None, None
        return
    [discount_id] = make_discounts(ctx, [spec], customer)
    discount = ctx.get(discount_id, "discount")
    customer["discount"] = public_copy(discount)
    customer["_discount"] = discount_id


def _on_create(ctx: Ctx, customer: dict[str, Any], params: dict[str, Any]) -> None:
    spec = _pending(ctx)
    if spec:
        _attach(ctx, customer, spec)
        ctx.put(customer)


def _after_create(ctx: Ctx, customer: dict[str, Any], params: dict[str, Any]) -> None:
    if _pending(ctx):
        ctx.emit("customer.discount.created", ctx.get(customer["_discount"], "discount"))


def _on_update(ctx: Ctx, customer: dict[str, Any], params: dict[str, Any]) -> None:
    spec = _pending(ctx)
    if spec is None:
        return
    old = ctx.maybe(customer.get("_discount"), "discount")
    _attach(ctx, customer, spec)
    if old is not None:
        ctx.emit("customer.discount.deleted", _deleted_view(old))
    if spec:
        ctx.emit("customer.discount.created", ctx.get(customer["_discount"], "discount"))


customers.CREATE_HOOKS.append(_on_create)
customers.CREATED_HOOKS.append(_after_create)
customers.UPDATE_HOOKS.append(_on_update)


def _deleted_view(discount: dict[str, Any]) -> dict[str, Any]:
    view = public_copy(discount)
    view["deleted"] = True
    return view


def customer_discount(ctx: Ctx, customer_id: Any, when: int) -> str | None:
    """The id of the customer's discount in force at `when`, if any."""
    customer = ctx.maybe(customer_id, "customer")
    discount = ctx.maybe((customer or {}).get("_discount"), "discount")
    if discount is None or (discount.get("end") is not None and discount["end"] <= when):
        return None
    return str(discount["id"])


def end_customer_discount(ctx: Ctx, discount_id: str) -> None:
    """A `once` coupon on the customer is used up by the first invoice it discounts."""
    discount = ctx.maybe(discount_id, "discount")
    customer = ctx.maybe((discount or {}).get("customer"), "customer")
    if discount is None or customer is None or customer.get("_discount") != discount_id:
        return
    discount["end"] = ctx.now()
    ctx.put(discount)
    before = dict(customer)
    customer["discount"], customer["_discount"] = None, None
    ctx.put(customer)
    ctx.emit("customer.discount.deleted", _deleted_view(discount))
    ctx.emit("customer.updated", customer, changed(before, customer))


@api("DELETE", "/v1/customers/{customer}/discount")
def delete_discount(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    obj = ctx.get(customer, "customer", "customer")
    discount = ctx.maybe(obj.get("_discount"), "discount")
    if discount is None:
        raise NotFound(f"No active discount for customer: {customer}", param="customer")
    before = dict(obj)
    obj["discount"], obj["_discount"] = None, None
    ctx.put(obj)
    view = _deleted_view(discount)
    ctx.emit("customer.discount.deleted", view)
    ctx.emit("customer.updated", obj, changed(before, obj))
    return view
