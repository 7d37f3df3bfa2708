"""Finalizing invoices and collecting them: PaymentIntents, InvoicePayments, outcomes.

Payments go through the payments engineer's engine (`resources.payment_intents`:
`create_intent`, `confirm_intent` raising CardError on decline), so a declined card
declines here exactly as it does for a direct PaymentIntent. Whenever an invoice's
PaymentIntent succeeds (here, through Stripe.js, or `attach_payment`), the
`payment_intent.succeeded` listener settles the invoice.
"""

from __future__ import annotations

from typing import Any

from .. import events
from ..context import Ctx
from ..errors import CardError, InvalidRequest
from ..resources import payment_intents
from ..resources.customers import record_balance_transaction
from . import invoicing, timing
from .invoicing import FAILED_HOOKS, PAID_HOOKS, RETRY_DAYS

# An uncollectible invoice stays payable (or voidable): only the bookkeeping changed.
PAYABLE = ("open", "uncollectible")


def _payments() -> Any:
    return payment_intents


def finalize(ctx: Ctx, inv: dict[str, Any]) -> dict[str, Any]:
    """draft → open (or paid when nothing is due); creates the PaymentIntent to collect."""
    invoicing.require_draft(inv, "finalize")
    invoicing.recompute(ctx, inv)
    now = ctx.now()
    customer = ctx.maybe(inv["customer"], "customer") or {}
    if customer:
        sequence = int(customer.get("next_invoice_sequence") or 1)
        inv["number"] = f"{customer.get('invoice_prefix') or 'INV'}-{sequence:04d}"
        customer["next_invoice_sequence"] = sequence + 1
        ctx.put(customer)
        inv["customer_tax_ids"] = invoicing.customer_tax_ids(ctx, customer)
    inv["status"] = "open"
    inv["status_transitions"]["finalized_at"] = now
    inv["effective_at"] = now
    inv["automatically_finalizes_at"] = None
    inv["hosted_invoice_url"] = ctx.url("invoice.stripe.com", f"/i/{inv['id']}")
    inv["invoice_pdf"] = ctx.url("pay.stripe.com", f"/invoice/{inv['id']}/pdf")
    _apply_customer_balance(ctx, inv, customer)
    inv["amount_remaining"] = inv["amount_due"]
    if inv["collection_method"] == "send_invoice" and not inv.get("due_date"):
        inv["due_date"] = now + int(inv.get("days_until_due") or 30) * timing.DAY
    if inv["amount_due"] > 0:
        pi = _payments().create_intent(ctx, {
            "amount": inv["amount_due"], "currency": inv["currency"],
            "customer": inv["customer"], "description": _description(inv),
            "payment_method_types": ["card"],
        })
        pi["_invoice"] = inv["id"]
        ctx.put(pi)
        _record_payment(ctx, inv, pi, is_default=True)
        # Sent only when expanded (`expand[]=confirmation_secret`), as Stripe does.
        inv["_confirmation_secret"] = {"client_secret": pi["client_secret"],
                                       "type": "payment_intent"}
    if inv["amount_due"] == 0:
        # Nothing to collect: the invoice is paid as it is finalized.
        inv["status"] = "paid"
        inv["status_transitions"]["paid_at"] = now
    ctx.put(inv)
    ctx.emit("invoice.finalized", inv)
    if inv["amount_due"] == 0:
        _mark_paid(ctx, inv)
    return inv


def balance_for(customer: dict[str, Any], currency: str) -> int:
    """The customer's balance an invoice in `currency` can use (negative = credit)."""
    if customer.get("currency") not in (None, currency):
        return 0
    return int(customer.get("balance") or 0)


def _apply_customer_balance(ctx: Ctx, inv: dict[str, Any], customer: dict[str, Any]) -> None:
    """At finalization the customer's balance is applied, as Stripe does: a credit lowers
    `amount_due` (a debit raises it), and a negative total becomes credit. The change is an
    `applied_to_invoice` balance transaction; `starting_balance` / `ending_balance` record it."""
    start = balance_for(customer, inv["currency"]) if customer else 0
    due = int(inv["total"]) + start
    inv["starting_balance"] = start
    inv["ending_balance"] = min(due, 0)
    inv["amount_due"] = max(due, 0)
    if customer and inv["ending_balance"] != start:
        record_balance_transaction(ctx, customer, inv["ending_balance"] - start, inv["currency"],
                                   type_="applied_to_invoice", invoice=inv["id"])


def _description(inv: dict[str, Any]) -> str:
    if invoicing.subscription_of(inv):
        return "Subscription creation" if inv["billing_reason"] == "subscription_create" \
            else "Subscription update"
    return f"Payment for Invoice {inv.get('number') or ''}".strip()


def _record_payment(ctx: Ctx, inv: dict[str, Any], pi: dict[str, Any],
                    is_default: bool) -> dict[str, Any]:
    record = ctx.new("invoice_payment", "inpay", amount_paid=None,
                     amount_requested=pi["amount"], currency=pi["currency"], invoice=inv["id"],
                     is_default=is_default, status="open",
                     payment={"type": "payment_intent", "payment_intent": pi["id"],
                              "charge": None, "payment_record": None},
                     status_transitions={"canceled_at": None, "paid_at": None})
    ctx.put(record)
    inv["_payments"].append(record["id"])
    return record


def default_payment_method(ctx: Ctx, inv: dict[str, Any]) -> str | None:
    if inv.get("default_payment_method"):
        return str(inv["default_payment_method"])
    sub = ctx.maybe(invoicing.subscription_of(inv), "subscription")
    if sub and sub.get("default_payment_method"):
        return str(sub["default_payment_method"])
    customer = ctx.maybe(inv["customer"], "customer") or {}
    method = (customer.get("invoice_settings") or {}).get("default_payment_method")
    return str(method) if method else None


def default_intent(ctx: Ctx, inv: dict[str, Any]) -> dict[str, Any] | None:
    for record_id in inv.get("_payments", []):
        record = ctx.maybe(record_id, "invoice_payment")
        if record and record["is_default"] and record["status"] == "open":
            return ctx.maybe(record["payment"]["payment_intent"], "payment_intent")
    return None


def attempt(ctx: Ctx, inv: dict[str, Any], payment_method: str | None = None,
            raise_on_decline: bool = False) -> bool:
    """Charge an open (or uncollectible) invoice's default PaymentIntent; True when the
    invoice is now paid."""
    if inv["status"] not in PAYABLE:
        raise InvalidRequest(f"Invoice is already {inv['status']}.", code="invoice_not_open"
                             if inv["status"] != "paid" else "invoice_already_paid")
    method = payment_method or default_payment_method(ctx, inv)
    if not method:
        message = ("This customer has no attached payment source or default payment method. "
                   "Please consider adding a default payment method.")
        if raise_on_decline:
            raise InvalidRequest(message, param="payment_method")
        _failed(ctx, inv, None)
        return False
    pi = default_intent(ctx, inv)
    if pi is None:
        pi = _payments().create_intent(ctx, {
            "amount": inv["amount_remaining"], "currency": inv["currency"],
            "customer": inv["customer"], "description": _description(inv),
            "payment_method_types": ["card"]})
        pi["_invoice"] = inv["id"]
        ctx.put(pi)
        _record_payment(ctx, inv, pi, is_default=True)
    inv["attempted"] = True
    inv["attempt_count"] = int(inv.get("attempt_count") or 0) + 1
    ctx.put(inv)
    sync_default_intent(ctx, inv)
    try:
        _payments().confirm_intent(ctx, pi, {"payment_method": method, "off_session": True})
    except CardError as exc:
        _failed(ctx, inv, exc)
        if raise_on_decline:
            raise
        return False
    settle_intent(ctx, pi["id"])
    return inv["status"] == "paid"


def _failed(ctx: Ctx, inv: dict[str, Any], exc: CardError | None) -> None:
    if not inv.get("attempted"):
        inv["attempted"] = True
        inv["attempt_count"] = int(inv.get("attempt_count") or 0) + 1
    retries = inv["attempt_count"] - 1
    automatic = inv["collection_method"] == "charge_automatically" and inv.get("auto_advance")
    if automatic and invoicing.subscription_of(inv) and retries < len(RETRY_DAYS) \
            and inv["billing_reason"] != "subscription_create":
        inv["next_payment_attempt"] = ctx.now() + RETRY_DAYS[retries] * timing.DAY
    else:
        inv["next_payment_attempt"] = None
    ctx.put(inv)
    ctx.emit("invoice.payment_failed", inv)
    if exc is not None and exc.code == "authentication_required":
        # The customer must authenticate on session (Stripe.js with the confirmation secret).
        ctx.emit("invoice.payment_action_required", inv)
    for hook in FAILED_HOOKS:
        hook(ctx, inv)


def settle_intent(ctx: Ctx, intent_id: str) -> None:
    """A PaymentIntent succeeded: credit the invoice payment it belongs to."""
    for record in ctx.account.iter_type("invoice_payment"):
        if record["payment"].get("payment_intent") != intent_id or record["status"] != "open":
            continue
        pi = ctx.maybe(intent_id, "payment_intent") or {}
        inv = ctx.maybe(record["invoice"], "invoice")
        if inv is None or pi.get("status") != "succeeded":
            return
        cctx = timing.for_customer(ctx, inv["customer"])
        record["status"] = "paid"
        record["amount_paid"] = int(pi.get("amount_received") or pi["amount"])
        record["payment"]["charge"] = None
        record["status_transitions"]["paid_at"] = cctx.now()
        cctx.put(record)
        cctx.emit("invoice_payment.paid", record)
        inv["amount_paid"] = int(inv["amount_paid"]) + record["amount_paid"]
        inv["amount_remaining"] = max(inv["amount_due"] - inv["amount_paid"], 0)
        inv["_charge"] = pi.get("latest_charge")
        _credit_overpayment(cctx, inv)
        if inv["amount_paid"] >= inv["amount_due"] and inv["status"] in PAYABLE:
            _mark_paid(cctx, inv)
        else:
            cctx.put(inv)
            sync_default_intent(cctx, inv)
        return


def sync_default_intent(ctx: Ctx, inv: dict[str, Any]) -> None:
    """Stripe keeps the default payment's intent at the invoice's `amount_remaining`, so
    paying it after a partial payment collects only what is left."""
    pi = default_intent(ctx, inv)
    if pi is None or pi["amount"] == inv["amount_remaining"] or pi["status"] not in (
            "requires_payment_method", "requires_confirmation"):
        return
    pi["amount"] = inv["amount_remaining"]
    ctx.put(pi)
    for record_id in inv.get("_payments", []):
        record = ctx.maybe(record_id, "invoice_payment")
        if record and record["is_default"] and record["status"] == "open":
            record["amount_requested"] = inv["amount_remaining"]
            ctx.put(record)


def _credit_overpayment(ctx: Ctx, inv: dict[str, Any]) -> None:
    """Payments beyond `amount_due` (attached intents) go to the customer's credit balance,
    as Stripe does: `amount_overpaid`, an `invoice_overpaid` balance transaction and the
    `invoice.overpaid` event."""
    over = max(int(inv["amount_paid"]) - int(inv["amount_due"]), 0)
    new = over - int(inv.get("amount_overpaid") or 0)
    if new <= 0:
        return
    inv["amount_overpaid"] = over
    customer = ctx.maybe(inv["customer"], "customer")
    if customer is not None and customer.get("currency") in (None, inv["currency"]):
        record_balance_transaction(ctx, customer, -new, inv["currency"],
                                   type_="invoice_overpaid", invoice=inv["id"])
    ctx.put(inv)
    ctx.emit("invoice.overpaid", inv)


def _mark_paid(ctx: Ctx, inv: dict[str, Any], out_of_band: bool = False) -> None:
    inv["status"] = "paid"
    inv["amount_remaining"] = 0
    inv["next_payment_attempt"] = None
    inv["status_transitions"]["paid_at"] = ctx.now()
    inv["_paid_out_of_band"] = out_of_band
    # Payments still open are no longer needed: the default one (Stripe's own intent,
    # which only Stripe may cancel) is canceled with its PaymentIntent; attached
    # intents are the user's and are left as they are.
    _cancel_open_payments(ctx, inv, "automatic")
    ctx.put(inv)
    ctx.emit("invoice.paid", inv)
    if not out_of_band:  # Stripe sends payment_succeeded only for a payment attempt
        ctx.emit("invoice.payment_succeeded", inv)
    for hook in PAID_HOOKS:
        hook(ctx, inv)


def pay_out_of_band(ctx: Ctx, inv: dict[str, Any]) -> None:
    inv["amount_paid"] = inv["amount_remaining"] + int(inv["amount_paid"])
    inv["amount_paid_off_stripe"] = inv["amount_remaining"]
    _mark_paid(ctx, inv, out_of_band=True)


def void(ctx: Ctx, inv: dict[str, Any]) -> None:
    if inv["status"] not in ("open", "uncollectible"):
        raise InvalidRequest(f"You can only pass in open or uncollectible invoices. This "
                             f"invoice is {inv['status']}.", param="invoice")
    inv["status"] = "void"
    inv["status_transitions"]["voided_at"] = ctx.now()
    inv["next_payment_attempt"] = None
    moved = int(inv.get("ending_balance") or 0) - int(inv.get("starting_balance") or 0)
    customer = ctx.maybe(inv["customer"], "customer")
    if moved and customer is not None:
        record_balance_transaction(ctx, customer, -moved, inv["currency"],
                                   type_="unapplied_from_invoice", invoice=inv["id"])
    _cancel_open_payments(ctx, inv, "void_invoice", every_intent=True)
    ctx.put(inv)
    ctx.emit("invoice.voided", inv)


def mark_uncollectible(ctx: Ctx, inv: dict[str, Any], reason: str) -> None:
    """open → uncollectible; `reason` fills `status_details` (shown from endive)."""
    if inv["status"] != "open":
        raise InvalidRequest(f"You can only mark open invoices as uncollectible. This invoice "
                             f"is {inv['status']}.", param="invoice")
    before = dict(inv)
    inv["status"] = "uncollectible"
    inv["status_transitions"]["marked_uncollectible_at"] = ctx.now()
    inv["next_payment_attempt"] = None
    inv["status_details"] = {"uncollectible": {"reason": reason}}
    ctx.put(inv)
    ctx.emit("invoice.marked_uncollectible", inv, events.changed(before, inv))


def _cancel_open_payments(ctx: Ctx, inv: dict[str, Any], reason: str,
                          every_intent: bool = False) -> None:
    """Cancel the invoice's open InvoicePayments and the PaymentIntents behind them.

    Only the default payment's intent is canceled unless `every_intent` (voiding).
    """
    for record_id in inv.get("_payments", []):
        record = ctx.maybe(record_id, "invoice_payment")
        if not record or record["status"] != "open":
            continue
        record["status"] = "canceled"
        record["status_transitions"]["canceled_at"] = ctx.now()
        ctx.put(record)
        if not (record["is_default"] or every_intent):
            continue
        pi = ctx.maybe(record["payment"]["payment_intent"], "payment_intent")
        if pi and pi["status"] in ("requires_payment_method", "requires_confirmation",
                                   "requires_action"):
            before = dict(pi)
            pi["status"] = "canceled"
            pi["canceled_at"] = ctx.now()
            pi["cancellation_reason"] = reason
            ctx.put(pi)
            ctx.emit("payment_intent.canceled", pi, events.changed(before, pi))


def attach(ctx: Ctx, inv: dict[str, Any], pi: dict[str, Any]) -> None:
    """`attach_payment`: one more PaymentIntent counts towards this invoice."""
    if inv["status"] != "open":
        raise InvalidRequest(f"You can only attach payments to open invoices. This invoice is "
                             f"{inv['status']}.", param="invoice")
    if pi.get("_invoice") and pi["_invoice"] != inv["id"]:
        raise InvalidRequest("This PaymentIntent is already attached to another invoice.",
                             param="payment_intent")
    if pi["currency"] != inv["currency"]:
        raise InvalidRequest("The PaymentIntent's currency must match the invoice's.",
                             param="payment_intent")
    pi["_invoice"] = inv["id"]
    ctx.put(pi)
    _record_payment(ctx, inv, pi, is_default=False)
    ctx.put(inv)
    if pi["status"] == "succeeded":
        settle_intent(ctx, pi["id"])


def _on_event(ctx: Ctx, event: dict[str, Any]) -> None:
    if event["type"] == "payment_intent.succeeded":
        settle_intent(ctx, event["data"]["object"]["id"])


events.LISTENERS.append(_on_event)
