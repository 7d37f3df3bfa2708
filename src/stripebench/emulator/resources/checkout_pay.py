"""Paying for a Checkout Session: customer, PaymentMethod, then the mode's engine.

Payment mode confirms a PaymentIntent (the invoice's, with `invoice_creation`),
subscription mode asks the billing engine for a subscription and confirms its first
invoice's PaymentIntent on-session, setup mode confirms a SetupIntent. Each returns an
`Outcome`: inline errors (declines), a redirect (3D Secure, success/return URL) or done.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..billing import collect
from ..context import Ctx
from ..errors import StripeError
from . import (
    customers,
    invoice_items,
    invoices,
    payment_intents,
    payment_methods,
    setup_intents,
    subscriptions,
)
from .checkout_totals import cart_items, discount_coupon


def form_text(form: dict[str, Any], *path: str) -> str:
    value: Any = form
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return str(value or "").strip()


def card_needed(session: dict[str, Any], totals_due: int) -> bool:
    if session["mode"] == "setup":
        return True
    if session.get("payment_method_collection") == "if_required" and totals_due == 0:
        return False
    if session["mode"] == "subscription":
        return True
    return totals_due > 0



@dataclass
class Outcome:
    """What the page does next: show errors, follow a redirect, or report completion."""

    errors: dict[str, str] = field(default_factory=dict)
    redirect: str | None = None  # 3DS challenge or success/return URL
    complete: bool = False

    def body(self) -> dict[str, Any]:
        return {"errors": self.errors, "redirect": self.redirect, "complete": self.complete}



def _ensure_customer(ctx: Ctx, session: dict[str, Any], force: bool) -> dict[str, Any] | None:
    details = session["customer_details"]
    shipping = (session.get("collected_information") or {}).get("shipping_details")
    if session.get("customer"):
        customer = ctx.get(session["customer"], "customer")
        update = session.get("_customer_update") or {}
        changes: dict[str, Any] = {}
        if update.get("address") == "auto" and details["address"].get("country"):
            changes["address"] = details["address"]
        if update.get("name") == "auto" and details.get("name"):
            changes["name"] = details["name"]
        if update.get("shipping") == "auto" and shipping:
            changes["shipping"] = {"address": shipping["address"], "name": shipping["name"]}
        if changes:
            customer.update(changes)
            ctx.put(customer)
            ctx.emit("customer.updated", customer)
        return customer
    wanted = force or session["mode"] == "subscription" or session.get(
        "customer_creation") == "always"
    if not wanted:
        return None
    params: dict[str, Any] = {"email": details["email"], "name": details.get("name"),
                              "phone": details.get("phone")}
    if details["address"].get("country"):
        params["address"] = details["address"]
    if shipping:
        params["shipping"] = {"address": shipping["address"], "name": shipping["name"]}
    params = {k: v for k, v in params.items() if v}
    customer = customers.create(ctx, params)
    session["customer"] = customer["id"]
    return customer



def _payment_method(ctx: Ctx, form: dict[str, Any], session: dict[str, Any]) -> dict[str, Any]:
    if form_text(form, "payment_method"):  # Elements with Checkout: Stripe.js made it
        pm = payment_methods.resolve(ctx, form_text(form, "payment_method"))
        if pm.get("customer") and pm["customer"] != session.get("customer"):
            raise StripeError("This PaymentMethod belongs to another customer.")
        return pm
    month, _, year = form_text(form, "card", "expiry").partition("/")
    details = session["customer_details"]
    billing = {"address": {k: v for k, v in details["address"].items() if v},
               "email": details["email"], "name": form_text(form, "card", "name") or None,
               "phone": details.get("phone")}
    billing = {k: v for k, v in billing.items() if v}
    card = {"number": re.sub(r"\s+", "", form_text(form, "card", "number")),
            "exp_month": int(month.strip() or 0), "exp_year": int(year.strip() or 0),
            "cvc": form_text(form, "card", "cvc")}
    pm = payment_methods.from_card_params(ctx, card, billing_details=billing)
    redisplay = (session.get("_payment_method_data") or {}).get("allow_redisplay")
    if form.get("save_payment_method"):
        redisplay = "always"
    if redisplay:
        pm["allow_redisplay"] = redisplay
        ctx.put(pm)
    return pm


def return_url(ctx: Ctx, session: dict[str, Any]) -> str:
    kind = "embedded" if session["ui_mode"] != "hosted_page" else "pay"
    return ctx.url("checkout.stripe.com", f"/c/{kind}/{session['id']}/return")


def pay(ctx: Ctx, session: dict[str, Any], form: dict[str, Any], due: int) -> Outcome:
    data = session.get("_payment_intent_data") or {}
    save = bool(form.get("save_payment_method")) or bool(data.get("setup_future_usage"))
    # A no-cost order always gets a Customer: Stripe has no guest customers for them.
    customer = _ensure_customer(ctx, session, force=save or due == 0 or bool(
        (session.get("invoice_creation") or {}).get("enabled")))
    if due == 0:
        return finish(ctx, session, "no_payment_required")
    pm = _payment_method(ctx, form, session)
    pi = ctx.maybe(session.get("payment_intent"), "payment_intent")
    if pi is None and (session.get("invoice_creation") or {}).get("enabled"):
        assert customer is not None
        pi = _invoice_intent(ctx, session, customer, data, save)
    if pi is None or pi["status"] != "requires_payment_method":
        params: dict[str, Any] = {
            "amount": due, "currency": session["currency"], "payment_method_types": ["card"],
            "metadata": data.get("metadata") or {}}
        for key in ("capture_method", "description", "receipt_email", "statement_descriptor",
                    "statement_descriptor_suffix", "transfer_group", "on_behalf_of",
                    "application_fee_amount", "transfer_data"):
            if data.get(key) is not None:
                params[key] = data[key]
        usage = data.get("setup_future_usage") or ("off_session" if save else None)
        if usage:
            params["setup_future_usage"] = usage
        if customer is not None:
            params["customer"] = customer["id"]
        shipping = (session.get("collected_information") or {}).get("shipping_details")
        if shipping:
            params["shipping"] = {"address": shipping["address"], "name": shipping["name"]}
        elif data.get("shipping"):
            params["shipping"] = data["shipping"]
        pi = payment_intents.create_intent(ctx, params)
        session["payment_intent"] = pi["id"]
        ctx.put(session)
    else:
        pi["amount"] = due
        ctx.put(pi)
    payment_intents.confirm_intent(ctx, pi, {"payment_method": pm["id"],
                                             "return_url": return_url(ctx, session)})
    return after_intent(ctx, session, pi)


def _invoice_intent(ctx: Ctx, session: dict[str, Any], customer: dict[str, Any],
                    data: dict[str, Any], save: bool) -> dict[str, Any]:
    """invoice_creation: an invoice for what was bought; its PaymentIntent takes the payment.

    The invoice carries one item per line (after discounts), shipping and exclusive tax,
    so its total is the session's; when the PaymentIntent succeeds the billing engine's
    listener marks the invoice paid.
    """
    invoice_data = (session.get("invoice_creation") or {}).get("invoice_data") or {}
    params: dict[str, Any] = {"customer": customer["id"], "currency": session["currency"],
                              "metadata": invoice_data.get("metadata") or {}}
    for key in ("description", "footer", "custom_fields"):
        if invoice_data.get(key):
            params[key] = invoice_data[key]
    inv = invoices.create(ctx, params)
    stored = (session.get("_last_totals") or {}).get("lines", {})
    charges: list[tuple[str, int]] = []
    for item in cart_items(session):
        price = ctx.get(item["price"], "price")
        product = ctx.maybe(price.get("product"), "product") or {}
        amounts = stored.get(item["id"], {})
        charges.append((f"{product.get('name') or price['id']} × {item.get('quantity') or 1}",
                        amounts.get("amount_subtotal", 0) - amounts.get("amount_discount", 0)))
    if (session.get("total_details") or {}).get("amount_shipping"):
        charges.append(("Shipping", int(session["shipping_cost"]["amount_subtotal"])))
    exclusive_tax = int(session["amount_total"]) - sum(amount for _, amount in charges)
    if exclusive_tax > 0:  # tax added on top of lines and shipping
        charges.append(("Tax", exclusive_tax))
    for description, amount in charges:
        if amount:
            invoice_items.create(ctx, {"customer": customer["id"], "invoice": inv["id"],
                                       "amount": amount, "currency": session["currency"],
                                       "description": description})
    collect.finalize(ctx, inv)
    pi = collect.default_intent(ctx, inv)
    if pi is None:
        raise StripeError("The invoice for this Checkout Session has nothing to collect.")
    pi["metadata"] = {**(pi.get("metadata") or {}), **(data.get("metadata") or {})}
    for key in ("description", "receipt_email", "statement_descriptor"):
        if data.get(key):
            pi[key] = data[key]
    usage = data.get("setup_future_usage") or ("off_session" if save else None)
    if usage:
        pi["setup_future_usage"] = usage
    shipping = (session.get("collected_information") or {}).get("shipping_details")
    if shipping:
        pi["shipping"] = {"address": shipping["address"], "name": shipping["name"],
                          "carrier": None, "phone": None, "tracking_number": None}
    ctx.put(pi)
    session["payment_intent"] = pi["id"]
    session["invoice"] = inv["id"]
    ctx.put(session)
    return pi


def after_intent(ctx: Ctx, session: dict[str, Any], intent: dict[str, Any]) -> Outcome:
    """Where an intent left the session: challenge, inline decline, or completion."""
    status = intent["status"]
    if status == "requires_action":
        action = intent.get("next_action") or {}
        url = (action.get("redirect_to_url") or {}).get("url") or (
            action.get("use_stripe_sdk") or {}).get("stripe_js")
        ctx.put(session)
        return Outcome(redirect=url)
    if status in ("requires_payment_method", "canceled"):
        error = intent.get("last_payment_error") or intent.get("last_setup_error") or {}
        ctx.put(session)
        return Outcome(errors={"card-number": error.get("message")
                               or "Your card was declined."})
    if intent["object"] == "setup_intent":
        return finish(ctx, session, "no_payment_required")
    if session["mode"] == "subscription":
        return finish_subscription(ctx, session)
    paid = "paid" if status == "succeeded" else "unpaid"
    return finish(ctx, session, paid)


def subscribe(ctx: Ctx, session: dict[str, Any], form: dict[str, Any], due: int) -> Outcome:
    customer = _ensure_customer(ctx, session, force=True)
    assert customer is not None
    pm = None
    if card_needed(session, due):
        pm = _payment_method(ctx, form, session)
        payment_methods.attach(ctx, pm, customer["id"])
    sub = ctx.maybe(session.get("_pending_subscription"), "subscription")
    if sub is None:
        sub = subscriptions.create_subscription(ctx, subscription_params(ctx, session, customer,
                                                                         pm))
        session["_pending_subscription"] = sub["id"]
        ctx.put(session)
    elif pm is not None:
        sub["default_payment_method"] = pm["id"]
        ctx.put(sub)
    intent = _open_invoice_intent(ctx, sub)
    if intent is None:
        return finish_subscription(ctx, session)
    payment_intents.confirm_intent(ctx, intent, {"payment_method": pm["id"] if pm else None,
                                                 "return_url": return_url(ctx, session)})
    return after_intent(ctx, session, intent)


def subscription_params(ctx: Ctx, session: dict[str, Any], customer: dict[str, Any],
                        pm: dict[str, Any] | None) -> dict[str, Any]:
    """What Checkout asks the billing engine for (as `POST /v1/subscriptions` params)."""
    data = session.get("_subscription_data") or {}
    recurring: list[dict[str, Any]] = []
    one_time: list[dict[str, Any]] = []
    for item in cart_items(session):
        price = ctx.get(item["price"], "price")
        entry: dict[str, Any] = {"price": price["id"]}
        if item.get("quantity") is not None:
            entry["quantity"] = item["quantity"]
        if item.get("tax_rates"):
            entry["tax_rates"] = item["tax_rates"]
        (recurring if price.get("recurring") else one_time).append(entry)
    params: dict[str, Any] = {
        "customer": customer["id"], "items": recurring, "currency": session["currency"],
        "payment_behavior": "default_incomplete",
        "metadata": data.get("metadata") or {}}
    if one_time:
        params["add_invoice_items"] = one_time
    if (session.get("automatic_tax") or {}).get("enabled"):
        # The subscription's invoices are taxed where the session was (see billing/taxes).
        params["automatic_tax"] = {"enabled": True}
        shipping = (session.get("collected_information") or {}).get("shipping_details") or {}
        address = shipping.get("address") or {}
        if not address.get("country"):
            address = (session.get("customer_details") or {}).get("address") or {}
        if address.get("country"):
            params["_tax_location"] = [address["country"], address.get("state")]
    if pm is not None:
        params["default_payment_method"] = pm["id"]
    for key in ("trial_period_days", "trial_end", "billing_cycle_anchor", "description",
                "default_tax_rates", "trial_settings", "billing_mode", "invoice_settings",
                "pending_invoice_item_interval", "application_fee_percent", "on_behalf_of",
                "transfer_data"):
        if data.get(key) is not None:
            params[key] = data[key]
    if data.get("billing_cycle_anchor") is not None:
        params["proration_behavior"] = data.get("proration_behavior") or "create_prorations"
        params["_passed_anchor_bills_full"] = True  # the anchor may pass while the page is open
    discounts = [{k: v for k, v in d.items() if v and k in ("coupon", "promotion_code")}
                 for d in session.get("discounts") or []]
    if discounts:
        params["discounts"] = [{"promotion_code": d["promotion_code"]} if d.get(
            "promotion_code") else {"coupon": d["coupon"]} for d in discounts]
    return params


def _open_invoice_intent(ctx: Ctx, sub: dict[str, Any]) -> dict[str, Any] | None:
    inv = ctx.maybe(sub.get("latest_invoice"), "invoice")
    if inv is None or inv.get("status") != "open":
        return None
    intent = collect.default_intent(ctx, inv)
    if intent is not None and intent["status"] in ("requires_payment_method",
                                                   "requires_confirmation", "requires_action"):
        return intent
    return None


def finish_subscription(ctx: Ctx, session: dict[str, Any]) -> Outcome:
    sub = ctx.get(session["_pending_subscription"], "subscription")
    inv = ctx.maybe(sub.get("latest_invoice"), "invoice")
    session["subscription"] = sub["id"]
    session["invoice"] = inv["id"] if inv else None
    paid = inv is not None and inv.get("status") == "paid" and int(
        inv.get("amount_paid") or 0) > 0
    return finish(ctx, session, "paid" if paid else "no_payment_required")


def setup(ctx: Ctx, session: dict[str, Any], form: dict[str, Any]) -> Outcome:
    customer = _ensure_customer(ctx, session, force=False)
    pm = _payment_method(ctx, form, session)
    data = session.get("_setup_intent_data") or {}
    si = ctx.maybe(session.get("setup_intent"), "setup_intent")
    if si is None or si["status"] != "requires_payment_method":
        params: dict[str, Any] = {"payment_method_types": ["card"], "usage": "off_session",
                                  "metadata": data.get("metadata") or {}}
        if data.get("description"):
            params["description"] = data["description"]
        if customer is not None:
            params["customer"] = customer["id"]
        si = setup_intents.create_setup_intent(ctx, params)
        session["setup_intent"] = si["id"]
        ctx.put(session)
    setup_intents.confirm_setup_intent(ctx, si, {"payment_method": pm["id"],
                                                 "return_url": return_url(ctx, session)})
    return after_intent(ctx, session, si)



def completion_url(session: dict[str, Any]) -> str | None:
    if session["ui_mode"] == "hosted_page":
        url = session.get("success_url")
    elif session.get("redirect_on_completion") in ("never", "if_required"):
        url = None  # card payments never need a redirect: the page calls onComplete
    else:
        url = session.get("return_url")
    return url.replace("{CHECKOUT_SESSION_ID}", session["id"]) if url else None


def finish(ctx: Ctx, session: dict[str, Any], payment_status: str) -> Outcome:
    session["status"] = "complete"
    session["payment_status"] = payment_status
    session["url"] = None  # Stripe shows the page's URL only while the session is open
    # Subscription discounts are counted by the billing engine when it applies them.
    for entry in (session.get("discounts") or []) if session["mode"] != "subscription" else []:
        for obj in (ctx.maybe(entry.get("promotion_code"), "promotion_code"),
                    discount_coupon(ctx, entry)):
            if obj is not None:
                obj["times_redeemed"] = int(obj.get("times_redeemed") or 0) + 1
                ctx.put(obj)
    ctx.put(session)
    ctx.emit("checkout.session.completed", session)
    if payment_status == "unpaid" and session["mode"] == "payment":
        pi = ctx.maybe(session.get("payment_intent"), "payment_intent") or {}
        if pi.get("status") == "processing":
            session["_async_pending"] = True
    ctx.put(session)
    return Outcome(redirect=completion_url(session), complete=True)
