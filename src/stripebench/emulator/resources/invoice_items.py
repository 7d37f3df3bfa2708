"""Invoice items: pending charges (or credits) that the next invoice picks up."""

from __future__ import annotations

from typing import Any

from ..billing import invoicing, items, timing
from ..context import Ctx
from ..errors import InvalidRequest
from ..events import changed
from ..listing import paginate
from ..router import api
from ._common import currency, deleted, merge_metadata, require
from .products import build_price


@api("POST", "/v1/invoiceitems")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    customer = ctx.get(require(params, "customer"), "customer", "customer")
    cctx = timing.for_customer(ctx, customer)
    inv = None
    if params.get("invoice"):
        inv = cctx.get(params["invoice"], "invoice", "invoice")
        invoicing.require_draft(inv, "add invoice items to")
        if inv["customer"] != customer["id"]:
            raise InvalidRequest("The invoice belongs to a different customer.",
                                 param="invoice")
    price = None
    pricing = params.get("pricing") or {}
    if pricing.get("price"):
        price = cctx.get(pricing["price"], "price", "pricing[price]")
    elif params.get("price_data"):
        price = build_price(cctx, dict(params["price_data"]))
    quantity = int(params.get("quantity") or 1)
    decimal = params.get("unit_amount_decimal")
    if price is not None:
        cur = currency(params.get("currency") or price["currency"])
        amount = timing.price_amount(price, quantity, cur)
    elif decimal is not None:
        cur = currency(require(params, "currency"))
        amount = timing.round_half_up(timing.Decimal(decimal) * quantity)
    elif params.get("amount") is not None:
        cur = currency(require(params, "currency"))
        amount = int(params["amount"])
        if params.get("quantity") not in (None, 1):
            raise InvalidRequest("When passing `amount`, `quantity` must be 1; pass "
                                 "`unit_amount_decimal` to bill several units.",
                                 param="quantity")
    else:
        raise InvalidRequest("You must specify either `amount`, `pricing[price]`, "
                             "`price_data` or `unit_amount_decimal`.", param="amount")
    if inv is not None and cur != inv["currency"]:
        raise InvalidRequest(f"The currency of the invoice item ({cur}) must match the "
                             f"invoice's ({inv['currency']}).", param="currency")
    sub = None
    if params.get("subscription"):
        sub = cctx.get(params["subscription"], "subscription", "subscription")
    period = params.get("period") or {}
    now = cctx.now()
    description = params.get("description") or (items.product_name(cctx, price)
                                                 if price else None)
    return invoicing.new_invoice_item(
        cctx, customer, currency=cur, amount=amount, description=description,
        period=(int(period.get("start", now)), int(period.get("end", now))), price=price,
        quantity=quantity, unit_amount_decimal=decimal, subscription=sub["id"] if sub else None,
        discountable=params.get("discountable", True),
        metadata=merge_metadata({}, params.get("metadata") or {}), invoice=inv)


@api("GET", "/v1/invoiceitems/{invoiceitem}")
def retrieve(ctx: Ctx, params: dict[str, Any], invoiceitem: str) -> dict[str, Any]:
    return ctx.get(invoiceitem, "invoiceitem")


@api("POST", "/v1/invoiceitems/{invoiceitem}")
def update(ctx: Ctx, params: dict[str, Any], invoiceitem: str) -> dict[str, Any]:
    item = ctx.get(invoiceitem, "invoiceitem")
    cctx = timing.for_customer(ctx, item["customer"])
    inv = cctx.maybe(item.get("invoice"), "invoice")
    if inv is not None and inv["status"] != "draft":
        raise InvalidRequest("This invoice item is on a finalized invoice and can no longer be "
                             "updated.", param="invoiceitem")
    before = dict(item)
    if "description" in params:
        item["description"] = params["description"]
    if "discountable" in params:
        item["discountable"] = params["discountable"]
    if "metadata" in params:
        item["metadata"] = merge_metadata(item.get("metadata"), params["metadata"])
    if "amount" in params:
        item["amount"] = item["net_amount"] = int(params["amount"])
    if "quantity" in params and item.get("pricing") and item["pricing"].get("price_details"):
        price = cctx.get(item["pricing"]["price_details"]["price"], "price")
        item["quantity"] = int(params["quantity"])
        item["quantity_decimal"] = str(item["quantity"])
        item["amount"] = item["net_amount"] = timing.price_amount(price, item["quantity"],
                                                                  item["currency"])
    cctx.put(item)
    if inv is not None:
        invoicing.line_for_item(cctx, inv, item)
        invoicing.save(cctx, inv)
    cctx.emit("invoiceitem.updated", item, changed(before, item))
    return item


@api("DELETE", "/v1/invoiceitems/{invoiceitem}")
def delete(ctx: Ctx, params: dict[str, Any], invoiceitem: str) -> dict[str, Any]:
    item = ctx.get(invoiceitem, "invoiceitem")
    inv = ctx.maybe(item.get("invoice"), "invoice")
    if inv is not None:
        if inv["status"] != "draft":
            raise InvalidRequest("This invoice item is on a finalized invoice and cannot be "
                                 "deleted.", param="invoiceitem")
        inv["lines"]["data"] = [ln for ln in inv["lines"]["data"]
                                if invoicing.line_item_id(ln) != item["id"]]
        invoicing.save(ctx, inv)
    ctx.remove(item["id"])
    ctx.emit("invoiceitem.deleted", item)
    return deleted(item)


@api("GET", "/v1/invoiceitems")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    def where(i: dict[str, Any]) -> bool:
        if params.get("customer") and i["customer"] != params["customer"]:
            return False
        if params.get("invoice") and i.get("invoice") != params["invoice"]:
            return False
        return "pending" not in params or (i.get("invoice") is None) == params["pending"]
    return paginate(ctx, ctx.account.iter_type("invoiceitem"), params, "/v1/invoiceitems",
                    where)
