"""Invoices as a state machine: draft → open → paid / void / uncollectible.

Lines are stored inside the invoice (`lines` list); invoice items are their own objects
that a draft invoice pulls in as lines. Totals are recomputed on every change: subtotal
is the sum of lines, discounts come off (allocated over discountable lines), and
`amount_due` is what remains to be collected. Payments are PaymentIntents recorded as
InvoicePayments (`inpay_`); the invoice is paid once they cover `amount_due`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..resources.webhooks import listening
from . import taxes, timing

Hook = Callable[[Ctx, dict[str, Any]], None]
# Subscriptions react to invoice outcomes (activate, go past_due) through these.
PAID_HOOKS: list[Hook] = []
FAILED_HOOKS: list[Hook] = []
FINALIZE_DELAY = 3600  # subscription renewal drafts finalize about an hour after creation
RETRY_DAYS = (3, 5, 7)  # smart-retry-like schedule after the first failed attempt


def new_invoice(ctx: Ctx, customer: dict[str, Any], *, currency: str,
                subscription: dict[str, Any] | None = None, billing_reason: str = "manual",
                collection_method: str = "charge_automatically",
                days_until_due: int | None = None, auto_advance: bool | None = None,
                default_payment_method: str | None = None, description: str | None = None,
                metadata: dict[str, str] | None = None,
                period: tuple[int, int] | None = None, store: bool = True) -> dict[str, Any]:
    now = ctx.now()
    inv = ctx.new("invoice", "in")
    inv.update(
        account_country="US", account_name=ctx.account.settings.get("business_name"),
        amount_due=0, amount_paid=0, amount_remaining=0, attempt_count=0, attempted=False,
        auto_advance=auto_advance if auto_advance is not None else billing_reason != "manual",
        billing_reason=billing_reason, collection_method=collection_method, currency=currency,
        customer=customer["id"], customer_email=customer.get("email"),
        customer_name=customer.get("name"), customer_phone=customer.get("phone"),
        customer_address=customer.get("address"), customer_shipping=customer.get("shipping"),
        customer_tax_exempt=customer.get("tax_exempt") or "none",
        customer_tax_ids=customer_tax_ids(ctx, customer),
        default_payment_method=default_payment_method, description=description,
        discounts=[], metadata=dict(metadata or {}), period_start=period[0] if period else now,
        period_end=period[1] if period else now, status="draft", subtotal=0,
        subtotal_excluding_tax=0, total=0, total_excluding_tax=0, total_discount_amounts=[],
        total_taxes=[], total_pretax_credit_amounts=[], starting_balance=0,
        test_clock=customer.get("test_clock"),
        # Stripe stamps it at creation when no webhook is to be delivered.
        webhooks_delivered_at=None if _webhooks_listening(ctx) else now,
        issuer={"account": None, "type": "self"}, confirmation_secret=None,
        payment_settings={"default_mandate": None, "payment_method_options": None,
                          "payment_method_types": None},
        status_transitions={"finalized_at": None, "marked_uncollectible_at": None,
                            "paid_at": None, "voided_at": None})
    if collection_method == "send_invoice":
        inv["days_until_due"] = days_until_due
    if subscription is not None:
        inv["parent"] = {"type": "subscription_details", "quote_details": None,
                         "subscription_details": {"metadata": dict(subscription.get("metadata")
                                                                   or {}),
                                                  "subscription": subscription["id"]}}
        taxes.enable_on_invoice(inv, subscription, customer)
    inv["lines"] = {"object": "list", "data": [], "has_more": False, "total_count": 0,
                    "url": f"/v1/invoices/{inv['id']}/lines"}
    inv["_payments"] = []
    if inv["auto_advance"] and billing_reason != "subscription_create":
        inv["automatically_finalizes_at"] = now + FINALIZE_DELAY
    if store:
        ctx.put(inv)
    return inv


def customer_tax_ids(ctx: Ctx, customer: dict[str, Any]) -> list[dict[str, Any]]:
    """The customer's tax ids as an invoice shows them (kept as they were at finalization)."""
    return [{"type": t.get("type"), "value": t.get("value")}
            for t in ctx.account.iter_type("tax_id", newest_first=False)
            if t.get("customer") == customer.get("id")]


def _webhooks_listening(ctx: Ctx) -> bool:
    return listening(ctx, "invoice.created")


def subscription_of(inv: dict[str, Any]) -> str | None:
    parent = inv.get("parent") or {}
    details = parent.get("subscription_details") or {}
    sub = details.get("subscription")
    return sub if isinstance(sub, str) else None


def add_line(ctx: Ctx, inv: dict[str, Any], *, amount: int, description: str | None,
             price: dict[str, Any] | None, quantity: int | None, period: tuple[int, int],
             proration: bool = False, subscription: str | None = None,
             subscription_item: str | None = None, invoice_item: str | None = None,
             discountable: bool = True, metadata: dict[str, str] | None = None,
             unit_amount_decimal: str | None = None) -> dict[str, Any]:
    line_id = f"il_{invoice_item[3:]}" if invoice_item else ctx.new_id("il")
    line: dict[str, Any] = ctx.new("line_item", "il", id=line_id)
    line.update(
        amount=amount, currency=inv["currency"], description=description,
        discount_amounts=[], discountable=discountable, discounts=[], invoice=inv["id"],
        metadata=dict(metadata or {}), period={"start": period[0], "end": period[1]},
        pretax_credit_amounts=[], quantity=quantity, subtotal=amount, taxes=[],
        subscription=subscription)
    line.pop("created", None)
    if price is not None:
        decimal = unit_amount_decimal or (str(price["unit_amount"]) if price.get(
            "unit_amount") is not None else price.get("unit_amount_decimal"))
        line["pricing"] = {"type": "price_details", "unit_amount_decimal": decimal,
                           "price_details": {"price": price["id"], "product": price["product"]}}
    else:
        line["pricing"] = None
    details = {"proration": proration, "proration_details": {"credited_items": None},
               "subscription": subscription}
    if invoice_item:
        line["parent"] = {"type": "invoice_item_details", "subscription_item_details": None,
                          "invoice_item_details": {"invoice_item": invoice_item, **details}}
    else:
        line["parent"] = {"type": "subscription_item_details", "invoice_item_details": None,
                          "subscription_item_details": {
                              "invoice_item": None, "subscription_item": subscription_item,
                              **details}}
    inv["lines"]["data"].append(line)
    return line


def line_for_item(ctx: Ctx, inv: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """Turn an invoice item into a line of `inv` (replacing its earlier line, if any)."""
    inv["lines"]["data"] = [ln for ln in inv["lines"]["data"]
                            if line_item_id(ln) != item["id"]]
    price = None
    pricing = item.get("pricing") or {}
    if pricing.get("price_details"):
        price = ctx.maybe(pricing["price_details"]["price"], "price")
    parent = (item.get("parent") or {}).get("subscription_details") or {}
    return add_line(ctx, inv, amount=item["amount"], description=item.get("description"),
                    price=price, quantity=item.get("quantity"),
                    period=(item["period"]["start"], item["period"]["end"]),
                    proration=bool(item.get("proration")), subscription=parent.get(
                        "subscription"), invoice_item=item["id"],
                    discountable=item.get("discountable", True),
                    metadata=item.get("metadata"),
                    unit_amount_decimal=pricing.get("unit_amount_decimal"))


def line_item_id(line: dict[str, Any]) -> str | None:
    details = (line.get("parent") or {}).get("invoice_item_details") or {}
    item = details.get("invoice_item")
    return item if isinstance(item, str) else None


def pending_items(ctx: Ctx, customer: str, currency: str, subscription: str | None = None,
                  only_subscription: bool = False) -> list[dict[str, Any]]:
    """The customer's pending invoice items (oldest first) an invoice would take."""
    found = []
    for item in ctx.account.iter_type("invoiceitem", newest_first=False):
        if item.get("invoice") or item["customer"] != customer:
            continue
        if item["currency"] != currency:
            continue
        item_sub = ((item.get("parent") or {}).get("subscription_details") or {}).get(
            "subscription")
        if only_subscription and item_sub != subscription:
            continue
        if item_sub and subscription and item_sub != subscription:
            continue
        found.append(item)
    return found


def pull_pending_items(ctx: Ctx, inv: dict[str, Any], subscription: str | None = None,
                       only_subscription: bool = False) -> None:
    """Pending invoice items of the customer (oldest first) become lines of `inv`."""
    for item in pending_items(ctx, inv["customer"], inv["currency"], subscription,
                              only_subscription):
        item["invoice"] = inv["id"]
        ctx.put(item)
        line_for_item(ctx, inv, item)


# ------------------------------------------------------------------ totals

def recompute(ctx: Ctx, inv: dict[str, Any]) -> None:
    lines = inv["lines"]["data"]
    subtotal = sum(int(ln["amount"]) for ln in lines)
    discount_total = 0
    inv["total_discount_amounts"] = []
    for line in lines:
        line["discount_amounts"] = []
    base = sum(int(ln["amount"]) for ln in lines if ln.get("discountable") and ln["amount"] > 0)
    for discount_id in inv.get("discounts") or []:
        discount = ctx.maybe(discount_id, "discount")
        coupon = ctx.maybe(((discount or {}).get("source") or {}).get("coupon"), "coupon")
        if coupon is None or base - discount_total <= 0:
            continue
        remaining = base - discount_total
        if coupon.get("percent_off") is not None:
            off = timing.round_half_up(timing.Decimal(str(coupon["percent_off"])) * base / 100)
        else:
            off = coupon_amount_off(coupon, inv["currency"])
        off = min(off, remaining)
        discount_total += off
        inv["total_discount_amounts"].append({"amount": off, "discount": discount_id})
        _allocate(lines, off, discount_id, base)
    exclusive_tax, inclusive_tax = taxes.apply(ctx, inv)
    inv["subtotal"] = subtotal
    inv["subtotal_excluding_tax"] = subtotal - inclusive_tax
    inv["total"] = subtotal - discount_total + exclusive_tax
    inv["total_excluding_tax"] = subtotal - discount_total - inclusive_tax
    inv["lines"]["total_count"] = len(lines)
    if inv["status"] == "draft":
        inv["amount_due"] = max(inv["total"], 0)
        inv["amount_remaining"] = inv["amount_due"]


def coupon_amount_off(coupon: dict[str, Any], currency: str) -> int:
    if coupon.get("currency") == currency:
        return int(coupon["amount_off"])
    option = (coupon.get("currency_options") or {}).get(currency)
    return int(option["amount_off"]) if option else 0


def _allocate(lines: list[dict[str, Any]], off: int, discount_id: str, base: int) -> None:
    eligible = [ln for ln in lines if ln.get("discountable") and ln["amount"] > 0]
    given = 0
    for index, line in enumerate(eligible):
        share = off - given if index == len(eligible) - 1 else \
            timing.round_half_up(timing.Decimal(off) * line["amount"] / base)
        given += share
        line["discount_amounts"].append({"amount": share, "discount": discount_id})
        if discount_id not in line["discounts"]:
            line["discounts"].append(discount_id)


def save(ctx: Ctx, inv: dict[str, Any]) -> dict[str, Any]:
    recompute(ctx, inv)
    return ctx.put(inv)


def require_draft(inv: dict[str, Any], action: str) -> None:
    if inv["status"] != "draft":
        raise InvalidRequest(f"You can only {action} draft invoices. This invoice is "
                             f"{inv['status']}.", param="invoice")


def new_invoice_item(ctx: Ctx, customer: dict[str, Any], *, currency: str, amount: int,
                     description: str | None, period: tuple[int, int],
                     price: dict[str, Any] | None = None, quantity: int = 1,
                     unit_amount_decimal: str | None = None, proration: bool = False,
                     subscription: str | None = None, subscription_item: str | None = None,
                     discountable: bool = True, metadata: dict[str, str] | None = None,
                     invoice: dict[str, Any] | None = None) -> dict[str, Any]:
    """A pending invoice item (or one added straight to the draft `invoice`)."""
    item = ctx.new("invoiceitem", "ii")
    pricing = None
    if price is not None or unit_amount_decimal is not None:
        pricing = {"type": "price_details", "unit_amount_decimal": unit_amount_decimal or (
            str(price["unit_amount"]) if price and price.get("unit_amount") is not None
            else (price or {}).get("unit_amount_decimal")),
            "price_details": {"price": price["id"], "product": price["product"]}
            if price else None}
    parent = None
    if subscription:
        parent = {"type": "subscription_details", "subscription_details": {
            "subscription": subscription, "subscription_item": subscription_item}}
    item.update(amount=amount, currency=currency, customer=customer["id"], date=ctx.now(),
                description=description, discountable=discountable and not proration,
                discounts=[], invoice=invoice["id"] if invoice else None,
                metadata=dict(metadata or {}), net_amount=amount, parent=parent,
                period={"start": period[0], "end": period[1]}, pricing=pricing,
                proration=proration, quantity=quantity, quantity_decimal=str(quantity),
                tax_rates=[], test_clock=customer.get("test_clock"))
    item.pop("created", None)
    ctx.put(item)
    if invoice is not None:
        line_for_item(ctx, invoice, item)
        save(ctx, invoice)
    ctx.emit("invoiceitem.created", item)
    return item
