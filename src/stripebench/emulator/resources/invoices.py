"""Invoices: create, update, finalize, pay, void, mark_uncollectible, lines, list, search,
attach_payment, delete (drafts). Previews live in `invoice_previews.py`."""

from __future__ import annotations

from typing import Any

from ..billing import collect, invoicing, timing
from ..billing.discounts import make_discounts
from ..billing.versions import requires_pending_items
from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..events import changed
from ..listing import check_limit, list_of, paginate, range_filter
from ..render import includable
from ..router import api
from ..search import field, search
from ._common import apply, currency, deleted, merge_metadata
from .customer_discounts import customer_discount
from .payment_methods import attach, resolve

SEARCH_FIELDS = {"created": field("created"), "currency": field("currency"),
                 "customer": field("customer"), "number": field("number"),
                 "status": field("status"), "subscription": lambda i: invoicing.subscription_of(
                     i), "total": field("total")}
UPDATABLE = ("auto_advance", "description", "footer", "statement_descriptor", "due_date",
             "custom_fields", "rendering", "shipping_details", "effective_at")


@api("POST", "/v1/invoices")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    if not params.get("customer"):
        raise InvalidRequest("Missing required param: customer.", code="parameter_missing",
                             param="customer")
    customer = ctx.get(params["customer"], "customer", "customer")
    cctx = timing.for_customer(ctx, customer)
    collection = params.get("collection_method", "charge_automatically")
    if collection == "send_invoice" and not (params.get("days_until_due") or
                                             params.get("due_date")):
        raise InvalidRequest("Invoices with `collection_method=send_invoice` require either "
                             "`days_until_due` or `due_date`.", param="days_until_due")
    if collection == "charge_automatically" and ("days_until_due" in params or
                                                 "due_date" in params):
        raise InvalidRequest("Invoices with `collection_method=charge_automatically` cannot "
                             "have `days_until_due` or `due_date`.", param="days_until_due")
    sub = None
    if params.get("subscription"):
        sub = cctx.get(params["subscription"], "subscription", "subscription")
    cur = currency(params.get("currency") or (sub or {}).get("currency") or
                   ctx.account.settings.get("default_currency") or "usd")
    if requires_pending_items(ctx) and not invoicing.pending_items(
            cctx, customer["id"], cur, sub["id"] if sub else None):
        raise InvalidRequest("Nothing to invoice for customer",
                             code="invoice_no_customer_line_items", param="customer")
    inv = invoicing.new_invoice(
        cctx, customer, currency=cur, subscription=sub, billing_reason="manual",
        collection_method=collection, days_until_due=params.get("days_until_due"),
        auto_advance=params.get("auto_advance", False),
        default_payment_method=params.get("default_payment_method"),
        description=params.get("description"),
        metadata=merge_metadata({}, params.get("metadata") or {}))
    apply(inv, params, ("footer", "statement_descriptor", "due_date", "custom_fields",
                        "shipping_details"))
    if params.get("auto_advance"):
        inv["automatically_finalizes_at"] = params.get("automatically_finalizes_at") or (
            cctx.now() + invoicing.FINALIZE_DELAY)
    if params.get("discounts"):
        inv["discounts"] = make_discounts(cctx, params["discounts"], customer, invoice=inv)
    elif "discounts" not in params:  # not given: the customer's discount (`discounts=` opts out)
        inherited = customer_discount(cctx, customer["id"], cctx.now())
        inv["discounts"] = [inherited] if inherited else []
    if params.get("pending_invoice_items_behavior") == "include":
        invoicing.pull_pending_items(cctx, inv, sub["id"] if sub else None)
    invoicing.save(cctx, inv)
    cctx.emit("invoice.created", inv)
    return inv


@api("GET", "/v1/invoices/{invoice}")
def retrieve(ctx: Ctx, params: dict[str, Any], invoice: str) -> dict[str, Any]:
    return ctx.get(invoice, "invoice")


@api("POST", "/v1/invoices/{invoice}")
def update(ctx: Ctx, params: dict[str, Any], invoice: str) -> dict[str, Any]:
    inv = ctx.get(invoice, "invoice")
    cctx = timing.for_customer(ctx, inv["customer"])
    before = dict(inv)
    if inv["status"] != "draft":
        allowed = {"metadata", "auto_advance", "description", "footer", "expand"}
        extra = sorted(set(params) - allowed)
        if extra:
            raise InvalidRequest(f"You can only update `{extra[0]}` on draft invoices.",
                                 param=extra[0])
    apply(inv, params, UPDATABLE + ("metadata",))
    for name in ("collection_method", "days_until_due", "default_payment_method"):
        if name in params:
            inv[name] = params[name]
    if "discounts" in params:
        customer = cctx.get(inv["customer"], "customer")
        inv["discounts"] = make_discounts(cctx, params["discounts"], customer, invoice=inv)
    if inv["status"] == "draft" and inv.get("auto_advance") and \
            not inv.get("automatically_finalizes_at"):
        inv["automatically_finalizes_at"] = cctx.now() + invoicing.FINALIZE_DELAY
    invoicing.save(cctx, inv)
    cctx.emit("invoice.updated", inv, changed(before, inv))
    return inv


@api("DELETE", "/v1/invoices/{invoice}")
def delete(ctx: Ctx, params: dict[str, Any], invoice: str) -> dict[str, Any]:
    inv = ctx.get(invoice, "invoice")
    if inv["status"] != "draft":
        raise InvalidRequest("You can only delete draft invoices. Use void for finalized "
                             "invoices.", param="invoice")
    if invoicing.subscription_of(inv):
        raise InvalidRequest("You can't delete invoices created by subscriptions; finalize "
                             "and void it instead.", param="invoice")
    for item in ctx.account.iter_type("invoiceitem"):
        if item.get("invoice") == inv["id"]:
            ctx.remove(item["id"])
    ctx.remove(inv["id"])
    ctx.emit("invoice.deleted", inv)
    return deleted(inv)


@api("POST", "/v1/invoices/{invoice}/finalize")
def finalize(ctx: Ctx, params: dict[str, Any], invoice: str) -> dict[str, Any]:
    inv = ctx.get(invoice, "invoice")
    cctx = timing.for_customer(ctx, inv["customer"])
    if inv["status"] != "draft":
        raise InvalidRequest("This invoice is already finalized, you can't re-finalize a "
                             "non-draft invoice.", param="invoice")
    if "auto_advance" in params:
        inv["auto_advance"] = params["auto_advance"]
    return collect.finalize(cctx, inv)


@api("POST", "/v1/invoices/{invoice}/pay")
def pay(ctx: Ctx, params: dict[str, Any], invoice: str) -> dict[str, Any]:
    inv = ctx.get(invoice, "invoice")
    cctx = timing.for_customer(ctx, inv["customer"])
    if inv["status"] == "draft":
        collect.finalize(cctx, inv)
    if inv["status"] == "paid":
        raise InvalidRequest("Invoice is already paid", code="invoice_already_paid")
    if inv["status"] not in collect.PAYABLE:
        raise InvalidRequest(f"This invoice can no longer be paid because it is "
                             f"{inv['status']}.", param="invoice", code="invoice_not_open")
    if params.get("paid_out_of_band"):
        collect.pay_out_of_band(cctx, inv)
        return inv
    method = params.get("payment_method")
    if method:
        pm = resolve(cctx, method)
        if not pm.get("customer"):
            attach(cctx, pm, inv["customer"])
        method = pm["id"]
    collect.attempt(cctx, inv, method, raise_on_decline=True)
    return inv


@api("POST", "/v1/invoices/{invoice}/void")
def void(ctx: Ctx, params: dict[str, Any], invoice: str) -> dict[str, Any]:
    inv = ctx.get(invoice, "invoice")
    collect.void(timing.for_customer(ctx, inv["customer"]), inv)
    return inv


@api("POST", "/v1/invoices/{invoice}/mark_uncollectible")
def mark_uncollectible(ctx: Ctx, params: dict[str, Any], invoice: str) -> dict[str, Any]:
    inv = ctx.get(invoice, "invoice")
    collect.mark_uncollectible(timing.for_customer(ctx, inv["customer"]), inv, "user_forgiven")
    return inv


@api("POST", "/v1/invoices/{invoice}/send")
def send(ctx: Ctx, params: dict[str, Any], invoice: str) -> dict[str, Any]:
    inv = ctx.get(invoice, "invoice")
    if inv["collection_method"] != "send_invoice" or inv["status"] != "open":
        raise InvalidRequest("You can only send open invoices with "
                             "collection_method=send_invoice.", param="invoice")
    timing.for_customer(ctx, inv["customer"]).emit("invoice.sent", inv)
    return inv


@api("POST", "/v1/invoices/{invoice}/attach_payment")
def attach_payment(ctx: Ctx, params: dict[str, Any], invoice: str) -> dict[str, Any]:
    inv = ctx.get(invoice, "invoice")
    if not params.get("payment_intent"):
        if params.get("payment_record"):
            raise Unsupported("payment records", param="payment_record")
        raise InvalidRequest("Missing required param: payment_intent.",
                             code="parameter_missing", param="payment_intent")
    pi = ctx.get(params["payment_intent"], "payment_intent", "payment_intent")
    collect.attach(timing.for_customer(ctx, inv["customer"]), inv, pi)
    return ctx.get(inv["id"], "invoice")


@api("GET", "/v1/invoices/{invoice}/lines")
def lines(ctx: Ctx, params: dict[str, Any], invoice: str) -> dict[str, Any]:
    inv = ctx.get(invoice, "invoice")
    return page_lines(ctx, inv["lines"]["data"], params, f"/v1/invoices/{inv['id']}/lines")


def page_lines(ctx: Ctx, data: list[dict[str, Any]], params: dict[str, Any],
               url: str) -> dict[str, Any]:
    limit = check_limit(params)
    start = 0
    if params.get("starting_after"):
        ids = [ln["id"] for ln in data]
        if params["starting_after"] not in ids:
            raise InvalidRequest(f"No such line item: '{params['starting_after']}'",
                                 param="starting_after", status=404)
        start = ids.index(params["starting_after"]) + 1
    page = data[start:start + limit]
    result = list_of(page, url, has_more=start + limit < len(data))
    return result


@api("GET", "/v1/invoices")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:

    def where(i: dict[str, Any]) -> bool:
        for name in ("customer", "status", "collection_method"):
            if params.get(name) and i.get(name) != params[name]:
                return False
        if params.get("subscription") and invoicing.subscription_of(i) != params["subscription"]:
            return False
        return range_filter(params.get("due_date"), i.get("due_date"))
    return paginate(ctx, ctx.account.iter_type("invoice"), params, "/v1/invoices", where,
                    exact={"customer": params.get("customer") or None})


@api("GET", "/v1/invoices/search")
def search_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return search(ctx, ctx.account.iter_type("invoice"), params, "/v1/invoices/search",
                  SEARCH_FIELDS)


@includable("invoice", "payments")
def invoice_payments(ctx: Ctx, inv: dict[str, Any]) -> dict[str, Any]:
    records = [r for r in (ctx.maybe(i, "invoice_payment") for i in inv.get("_payments", []))
               if r]
    return list_of(records, f"/v1/invoice_payments?invoice={inv['id']}")


@includable("invoice", "confirmation_secret")
def confirmation_secret(ctx: Ctx, inv: dict[str, Any]) -> dict[str, Any] | None:
    secret: dict[str, Any] | None = inv.get("_confirmation_secret")
    return secret
