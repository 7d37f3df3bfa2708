"""Payment Links: a reusable URL that opens a new Checkout Session on every visit.

The link keeps the Checkout params it was made with; visiting `url`
(`https://buy.stripe.com/test_<id>`, or the plain path on the emulator port) creates a
hosted session with `payment_link` set and sends the browser there. `after_completion`
decides between redirecting to a URL and our confirmation page (with its custom message);
`restrictions.completed_sessions.limit` deactivates the link once reached.
"""

from __future__ import annotations

import copy
from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..events import changed
from ..listing import check_limit, paginate
from ..render import includable, public_copy
from ..router import api
from . import checkout_params as cp
from ._common import merge_metadata
from .checkout_sessions import build_session

# Params a link hands to every session it opens (mode-specific ones are filtered below).
SESSION_PARAMS = ("allow_promotion_codes", "automatic_tax", "billing_address_collection",
                  "consent_collection", "currency", "custom_fields", "custom_text",
                  "customer_creation", "invoice_creation", "name_collection", "optional_items",
                  "payment_intent_data", "payment_method_collection",
                  "phone_number_collection", "shipping_address_collection",
                  "shipping_options", "submit_type", "subscription_data",
                  "tax_id_collection")
PAYMENT_ONLY = ("customer_creation", "invoice_creation", "payment_intent_data", "submit_type")
SUBSCRIPTION_ONLY = ("subscription_data",)
UNSUPPORTED = ("application_fee_amount", "application_fee_percent", "on_behalf_of",
               "transfer_data")


def _mode(ctx: Ctx, items: list[dict[str, Any]]) -> str:
    recurring = any((ctx.get(i["price"], "price").get("recurring")) for i in items)
    return "subscription" if recurring else "payment"


def _after_completion(spec: dict[str, Any] | None) -> dict[str, Any]:
    spec = spec or {"type": "hosted_confirmation"}
    kind = spec["type"]
    if kind == "redirect" and not (spec.get("redirect") or {}).get("url"):
        raise InvalidRequest("Missing required param: after_completion[redirect][url].",
                             code="parameter_missing", param="after_completion[redirect][url]")
    return {"hosted_confirmation": {"custom_message": (spec.get("hosted_confirmation") or {})
                                    .get("custom_message")} if kind == "hosted_confirmation"
            else None,
            "redirect": {"url": spec["redirect"]["url"]} if kind == "redirect" else None,
            "type": kind}


def _apply(ctx: Ctx, link: dict[str, Any], params: dict[str, Any]) -> None:
    for name in UNSUPPORTED:
        if params.get(name) is not None:
            raise Unsupported(f"Payment Link `{name}` (Connect fees and transfers)",
                              param=name)
    session_params = link.setdefault("_session_params", {})
    for name in SESSION_PARAMS:
        if name in params:
            session_params[name] = params[name]
    if "payment_method_types" in params:
        session_params["allowed_payment_method_types"] = params["payment_method_types"]
        link["payment_method_types"] = params["payment_method_types"]
    for name in ("allow_promotion_codes", "billing_address_collection", "customer_creation",
                 "inactive_message", "payment_method_collection", "submit_type"):
        if name in params:
            link[name] = params[name]
    if "after_completion" in params:
        link["after_completion"] = _after_completion(params["after_completion"])
    if "metadata" in params:
        link["metadata"] = merge_metadata(link.get("metadata"), params["metadata"])
    for name in ("automatic_tax", "phone_number_collection", "tax_id_collection"):
        if name in params:
            value = dict(params[name] or {})
            if name == "automatic_tax":
                value.setdefault("liability", None)
            if name == "tax_id_collection":
                value.setdefault("required", "never")
            link[name] = value
    for name in ("consent_collection", "custom_text", "invoice_creation", "name_collection",
                 "optional_items", "payment_intent_data", "shipping_address_collection",
                 "subscription_data", "restrictions"):
        if name in params:
            link[name] = params[name]
    if "custom_fields" in params:
        link["custom_fields"] = cp.build_custom_fields(params["custom_fields"])
    if "custom_text" in params:
        link["custom_text"] = cp.build_custom_text(params["custom_text"])
    if "shipping_options" in params:
        link["shipping_options"] = cp.build_shipping_options(ctx, params["shipping_options"])
        session_params["shipping_options"] = [{"shipping_rate": o["shipping_rate"]}
                                              for o in link["shipping_options"]]


@api("POST", "/v1/payment_links")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    link_id = ctx.new_id("plink")
    raw_items = params["line_items"]
    if not raw_items or len(raw_items) > 20:
        raise InvalidRequest("A Payment Link needs between 1 and 20 line items.",
                             param="line_items")
    for index, item in enumerate(raw_items):
        if item.get("quantity") is None:
            raise InvalidRequest(f"Missing required param: line_items[{index}][quantity].",
                                 code="parameter_missing", param=f"line_items[{index}][quantity]")
    items = _items(ctx, raw_items, link_id)
    mode = _mode(ctx, items)
    link = ctx.new("payment_link", "plink", id=link_id, active=True,
                   after_completion=_after_completion(None), allow_promotion_codes=False,
                   billing_address_collection="auto",
                   currency=ctx.get(items[0]["price"], "price")["currency"],
                   customer_creation="if_required", metadata={},
                   payment_method_collection="always", shipping_options=[],
                   submit_type="auto", custom_fields=[],
                   custom_text=cp.build_custom_text(None),
                   automatic_tax={"enabled": False, "liability": None},
                   phone_number_collection={"enabled": False},
                   tax_id_collection={"enabled": False, "required": "never"},
                   url=ctx.url("buy.stripe.com", f"/test_{link_id}"))
    link["_items"] = items
    link["_mode"] = mode
    _apply(ctx, link, params)
    if params.get("currency"):
        link["currency"] = params["currency"].lower()
    prices = "recurring" if mode == "subscription" else "one-time"
    for name in PAYMENT_ONLY if mode == "subscription" else SUBSCRIPTION_ONLY:
        if params.get(name) is not None and name != "submit_type":
            raise InvalidRequest(f"`{name}` cannot be used with {prices} prices.", param=name)
    ctx.put(link)
    ctx.emit("payment_link.created", link)
    return link


def _items(ctx: Ctx, raw: list[dict[str, Any]], link_id: str) -> list[dict[str, Any]]:
    mode = "subscription" if any(
        (ctx.maybe(i.get("price"), "price") or {}).get("recurring")
        or (i.get("price_data") or {}).get("recurring") for i in raw) else "payment"
    return cp.build_items(ctx, raw, mode, link_id)


def session_params(link: dict[str, Any]) -> dict[str, Any]:
    """The Checkout Session params a visit to this link creates a session with."""
    params = copy.deepcopy(link.get("_session_params") or {})
    mode = link["_mode"]
    for name in (SUBSCRIPTION_ONLY if mode == "payment" else PAYMENT_ONLY):
        params.pop(name, None)
    if mode == "subscription" and params.get("submit_type") not in (None, "auto", "subscribe"):
        params.pop("submit_type")
    params["mode"] = mode
    params["line_items"] = [{k: v for k, v in (("price", i["price"]),
                                                ("quantity", i["quantity"]),
                                                ("adjustable_quantity",
                                                 i.get("adjustable_quantity")))
                             if v is not None} for i in link["_items"]]
    after = link["after_completion"]
    if after["type"] == "redirect":
        params["success_url"] = after["redirect"]["url"]
    return params


def open_session(ctx: Ctx, link: dict[str, Any]) -> dict[str, Any]:
    """A visit: a fresh hosted Checkout Session for this link."""
    session = build_session(ctx, session_params(link), payment_link=link["id"])
    message = ((link.get("after_completion") or {}).get("hosted_confirmation") or {}).get(
        "custom_message")
    if message:
        session["_confirmation_message"] = message
    ctx.put(session)
    return session


def limit_reached(ctx: Ctx, link: dict[str, Any]) -> bool:
    limit = ((link.get("restrictions") or {}).get("completed_sessions") or {}).get("limit")
    if not limit:
        return False
    done = sum(1 for s in ctx.account.iter_type("checkout.session")
               if s.get("payment_link") == link["id"] and s["status"] == "complete")
    return done >= int(limit)


@api("GET", "/v1/payment_links/{payment_link}")
def retrieve(ctx: Ctx, params: dict[str, Any], payment_link: str) -> dict[str, Any]:
    return ctx.get(payment_link, "payment_link", "payment_link")


@api("POST", "/v1/payment_links/{payment_link}")
def update(ctx: Ctx, params: dict[str, Any], payment_link: str) -> dict[str, Any]:
    link = ctx.get(payment_link, "payment_link", "payment_link")
    before = copy.deepcopy(link)
    if "active" in params:
        link["active"] = params["active"]
    if params.get("line_items") is not None:
        by_id = {i["id"]: i for i in link["_items"]}
        for index, change in enumerate(params["line_items"]):
            item = by_id.get(change.get("id"))
            if item is None:
                raise InvalidRequest(f"No such line item: '{change.get('id')}'",
                                     param=f"line_items[{index}][id]")
            if change.get("quantity") is not None:
                item["quantity"] = change["quantity"]
            if change.get("adjustable_quantity") is not None:
                item["adjustable_quantity"] = cp.build_items(
                    ctx, [{"price": item["price"], "quantity": item["quantity"],
                           "adjustable_quantity": change["adjustable_quantity"]}],
                    link["_mode"], link["id"])[0]["adjustable_quantity"]
    _apply(ctx, link, {k: v for k, v in params.items() if k not in ("active", "line_items")})
    ctx.put(link)
    ctx.emit("payment_link.updated", link, changed(before, link))
    return link


@api("GET", "/v1/payment_links")
def list_links(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    def where(link: dict[str, Any]) -> bool:
        return "active" not in params or link["active"] == params["active"]
    return paginate(ctx, ctx.account.iter_type("payment_link"), params, "/v1/payment_links",
                    where)


def _line_items(ctx: Ctx, link: dict[str, Any]) -> list[dict[str, Any]]:
    data = []
    for item in link["_items"]:
        price = ctx.get(item["price"], "price")
        product = ctx.maybe(price.get("product"), "product") or {}
        amount = (price.get("unit_amount") or 0) * int(item["quantity"] or 0)
        data.append({"id": item["id"], "object": "item",
                     "adjustable_quantity": item.get("adjustable_quantity"),
                     "amount_discount": 0, "amount_subtotal": amount, "amount_tax": 0,
                     "amount_total": amount, "currency": price["currency"],
                     "description": product.get("name"), "metadata": {},
                     "price": public_copy(price), "quantity": item["quantity"]})
    return data


@includable("payment_link", "line_items")
def include_line_items(ctx: Ctx, link: dict[str, Any]) -> dict[str, Any]:
    data = _line_items(ctx, link)
    return {"object": "list", "data": data[:10], "has_more": len(data) > 10,
            "url": f"/v1/payment_links/{link['id']}/line_items"}


@api("GET", "/v1/payment_links/{payment_link}/line_items")
def list_line_items(ctx: Ctx, params: dict[str, Any], payment_link: str) -> dict[str, Any]:
    link = ctx.get(payment_link, "payment_link", "payment_link")
    limit = check_limit(params)
    data = _line_items(ctx, link)
    ids = [d["id"] for d in data]
    start = ids.index(params["starting_after"]) + 1 if params.get("starting_after") in ids else 0
    page = data[start:start + limit]
    return {"object": "list", "data": page, "has_more": start + limit < len(data),
            "url": f"/v1/payment_links/{payment_link}/line_items"}
