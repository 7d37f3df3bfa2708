"""Customers: create, retrieve, update, delete, list, search."""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..events import changed
from ..listing import paginate
from ..router import api
from ..search import field, search
from ._common import apply, deleted, merge_metadata

FIELDS = ("address", "balance", "description", "email", "name", "phone", "shipping",
          "preferred_locales", "tax_exempt", "invoice_prefix", "next_invoice_sequence",
          "business_name", "individual_name")
SEARCH_FIELDS = {"email": field("email"), "name": field("name"), "phone": field("phone"),
                 "created": field("created")}


@api("POST", "/v1/customers")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    customer = ctx.new("customer", "cus")
    customer["invoice_prefix"] = ctx.account.ids.token(8).upper()
    customer["next_invoice_sequence"] = 1
    customer["preferred_locales"] = []
    customer["tax_exempt"] = "none"
    customer["balance"] = 0
    customer["delinquent"] = False
    apply(customer, params, FIELDS)
    customer["metadata"] = merge_metadata({}, params.get("metadata") or {})
    settings = params.get("invoice_settings") or {}
    customer["invoice_settings"] = {"custom_fields": settings.get("custom_fields"),
                                    "default_payment_method": None,
                                    "footer": settings.get("footer"),
                                    "rendering_options": settings.get("rendering_options")}
    if params.get("test_clock"):
        clock = ctx.get(params["test_clock"], "test_helpers.test_clock", "test_clock",
                        kind="test_clock")
        customer["test_clock"] = clock["id"]
        customer["created"] = clock["frozen_time"]
    ctx.put(customer)
    for hook in CREATE_HOOKS:
        hook(ctx, customer, params)
    ctx.emit("customer.created", customer)
    return customer


# Other families extend customer creation (payment_method attach, tax ids, ...).
CREATE_HOOKS: list[Any] = []
UPDATE_HOOKS: list[Any] = []


@api("GET", "/v1/customers/{customer}")
def retrieve(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    found = ctx.account.objects.get(customer)
    if found is None or found.get("object") != "customer":
        removed = ctx.account.seq.get(customer) is not None
        if removed:
            return {"id": customer, "object": "customer", "deleted": True}
    return ctx.get(customer, "customer")


@api("POST", "/v1/customers/{customer}")
def update(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    obj = ctx.get(customer, "customer")
    before = dict(obj)
    apply(obj, params, FIELDS + ("metadata",))
    if "invoice_settings" in params:
        settings = params["invoice_settings"] or {}
        current = dict(obj.get("invoice_settings") or {})
        for key, value in settings.items():
            current[key] = value
        obj["invoice_settings"] = current
    for hook in UPDATE_HOOKS:
        hook(ctx, obj, params)
    ctx.put(obj)
    ctx.emit("customer.updated", obj, changed(before, obj))
    return obj


@api("DELETE", "/v1/customers/{customer}")
def delete(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    obj = ctx.get(customer, "customer")
    ctx.remove(customer)
    ctx.emit("customer.deleted", obj)
    return deleted(obj)


@api("GET", "/v1/customers")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    email = params.get("email")
    clock = params.get("test_clock")

    def where(c: dict[str, Any]) -> bool:
        return (email is None or c.get("email") == email) and (
            clock is None or c.get("test_clock") == clock)
    return paginate(ctx, ctx.account.iter_type("customer"), params, "/v1/customers", where)


@api("GET", "/v1/customers/search")
def search_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return search(ctx, ctx.account.iter_type("customer"), params, "/v1/customers/search",
                  SEARCH_FIELDS)
