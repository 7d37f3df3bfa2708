"""Elements with Checkout Sessions: what Stripe.js `initCheckout` / `initCheckoutElementsSdk` calls.

A session created with `ui_mode=elements` (`custom` before 2026-03-25.dahlia) is paid on
the merchant's own page: Stripe.js reads it, changes it (email, quantities, promotion
codes, shipping option, addresses) and confirms it with a PaymentMethod it made from the
Payment Element. These endpoints take the publishable key and the session's
`client_secret`, and answer with the session as Stripe.js shows it (camelCase, amounts
formatted; see `StripeCheckoutSession` in @stripe/stripe-js's checkout.d.ts):

- `GET  /v1/payment_pages/{session}`: the session.
- `POST /v1/payment_pages/{session}`: one change (`action` = email, phone, quantity,
  promotion_code, remove_promotion_code, shipping_option, billing_address,
  shipping_address, individual_name, business_name, add_optional, remove_optional).
- `POST /v1/payment_pages/{session}/confirm`: pay. Completion runs the hosted page's code
  (`checkout_complete.pay_now`): PaymentIntent / subscription / SetupIntent, session
  complete, events and webhooks.
- `POST /v1/payment_pages/{session}/resume`: after the 3D Secure challenge.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..router import api
from . import checkout_cart as cart
from . import checkout_complete as complete
from . import checkout_sessions as sessions
from .checkout_pay import Outcome, card_needed

_S = {"type": "string"}
_ADDRESS = {"type": "object", "properties": {k: _S for k in (
    "city", "country", "line1", "line2", "postal_code", "state")}}
_CONTACT = {"type": "object", "properties": {"name": _S, "address": _ADDRESS}}
_SECRET = {"type": "object", "properties": {"client_secret": _S}, "required": ["client_secret"]}
_UPDATE = {"type": "object", "required": ["client_secret", "action"], "properties": {
    "client_secret": _S, "action": _S, "value": _S, "line_item": _S,
    "quantity": {"type": "integer"}, "address": _CONTACT}}
_CONFIRM = {"type": "object", "required": ["client_secret"], "properties": {
    "client_secret": _S, "payment_method": _S, "email": _S, "phone": _S,
    "billing_address": _CONTACT, "shipping_address": _CONTACT,
    "save_payment_method": {"type": "boolean"}}}


def _translator(session: dict[str, Any]) -> Any:
    from ..web.checkout.locales import Translator, pick_locale
    return Translator(pick_locale(session.get("locale"), ""))


def _open(ctx: Ctx, session_id: str, secret: str) -> dict[str, Any]:
    """The session this publishable key and client secret may drive from Stripe.js."""
    session = ctx.maybe(session_id, "checkout.session")
    if session is None or session.get("client_secret") != secret:
        raise InvalidRequest(f"No such checkout.session: '{session_id}'", status=404,
                             code="resource_missing", param="client_secret")
    sessions.expire_if_due(ctx, session)
    if session["ui_mode"] != "elements":
        raise InvalidRequest(
            f"This Checkout Session was created with ui_mode `{session['ui_mode']}`; "
            "stripe.initCheckout / initCheckoutElementsSdk need a session created with "
            "ui_mode `custom` (named `elements` from API version 2026-03-25.dahlia).",
            param="ui_mode")
    return session


# ------------------------------------------------ the session, as Stripe.js shows it

def _amount(t: Any, value: int | None, currency: str | None) -> dict[str, Any]:
    return {"minorUnitsAmount": int(value or 0), "amount": t.money(int(value or 0), currency)}


def _contact(raw: Any) -> dict[str, Any] | None:
    if not isinstance(raw, dict) or not raw.get("address"):
        return None
    return {"name": raw.get("name"), "address": dict(raw["address"])}


def _line_items(ctx: Ctx, t: Any, session: dict[str, Any]) -> list[dict[str, Any]]:
    currency = session.get("currency")
    out = []
    for line in sessions.line_item_objects(ctx, session):
        price = line["price"]
        recurring = price.get("recurring")
        quantity = int(line.get("quantity") or 1)
        out.append({
            "id": line["id"], "name": line["description"], "description": None,
            "quantity": quantity, "images": [],
            "unitAmount": _amount(t, line["amount_subtotal"] // max(quantity, 1), currency),
            "subtotal": _amount(t, line["amount_subtotal"], currency),
            "discount": _amount(t, line["amount_discount"], currency),
            "taxExclusive": _amount(t, line["amount_tax"], currency),
            "taxInclusive": _amount(t, 0, currency),
            "total": _amount(t, line["amount_total"], currency),
            "discountAmounts": None, "taxAmounts": None,
            "recurring": {"interval": recurring["interval"],
                          "intervalCount": recurring.get("interval_count") or 1,
                          "isProrated": False,
                          "usageType": recurring.get("usage_type") or "licensed"}
            if recurring else None,
            "adjustableQuantity": {"maximum": (line["adjustable_quantity"] or {}).get(
                "maximum") or 99, "minimum": (line["adjustable_quantity"] or {}).get(
                "minimum") or 0} if (line.get("adjustable_quantity") or {}).get("enabled")
            else None})
    return out


def _discounts(ctx: Ctx, t: Any, session: dict[str, Any]) -> list[dict[str, Any]]:
    totals = sessions.compute(ctx, session)
    currency = session.get("currency")
    out = []
    for entry in totals.discount_breakdown:
        coupon = ctx.maybe(entry["coupon"], "coupon") or {}
        promo = ctx.maybe(entry.get("promotion_code"), "promotion_code")
        duration = coupon.get("duration")
        recurring = ({"type": "forever"} if duration == "forever" else
                     {"type": "repeating", "durationInMonths": coupon.get("duration_in_months")}
                     if duration == "repeating" else None)
        out.append({**_amount(t, entry["amount"], currency),
                    "displayName": coupon.get("name") or coupon.get("id"),
                    "promotionCode": promo["code"] if promo else None,
                    "recurring": recurring, "percentOff": coupon.get("percent_off")})
    return out


def view(ctx: Ctx, session: dict[str, Any]) -> dict[str, Any]:
    """`StripeCheckoutSession` for this session, from its stored state."""
    from ..web.checkout.locales import ZERO_DECIMAL
    t = _translator(session)
    currency = session.get("currency")
    pending = session.get("_elements") or {}
    details = session.get("total_details") or {}
    total = int(session.get("amount_total") or 0)
    status: dict[str, Any] = {"type": session["status"]}
    if session["status"] == "complete":
        status["paymentStatus"] = session["payment_status"]
    email = pending.get("email") or session.get("customer_email") or session.get(
        "_prefill_email")
    shipping_needed = bool(session.get("shipping_address_collection"))
    phone_needed = bool((session.get("phone_number_collection") or {}).get("enabled"))
    can_confirm = session["status"] == "open" and bool(email) and (
        not shipping_needed or bool(pending.get("shipping_address"))) and (
        not phone_needed or bool(pending.get("phone")))
    selected = (session.get("shipping_cost") or {}).get("shipping_rate")
    options = []
    for option in session.get("shipping_options") or []:
        rate = ctx.maybe(option["shipping_rate"], "shipping_rate") or {}
        options.append({**_amount(t, option["shipping_amount"], currency),
                        "id": option["shipping_rate"], "currency": currency,
                        "displayName": rate.get("display_name"), "deliveryEstimate": None})
    chosen = next((o for o in options if o["id"] == selected), None)
    recurring = None
    item = next((li for li in _line_items(ctx, t, session) if li["recurring"]), None)
    if session["mode"] == "subscription" and item is not None:
        days = (session.get("_subscription_data") or {}).get("trial_period_days")
        recurring = {"interval": item["recurring"]["interval"],
                     "intervalCount": item["recurring"]["intervalCount"],
                     "trial": {"trialEnd": None, "trialPeriodDays": days} if days else None,
                     "dueNext": {"subtotal": item["subtotal"], "total": item["total"],
                                 "discount": item["discount"],
                                 "taxExclusive": item["taxExclusive"],
                                 "taxInclusive": item["taxInclusive"],
                                 "billingCycleAnchor": None}}
    names = session.get("name_collection")
    return {
        "id": session["id"], "status": status, "livemode": False, "currency": currency,
        "currencyOptions": None,
        "minorUnitsAmountDivisor": 1 if str(currency).lower() in ZERO_DECIMAL else 100,
        "email": email, "phoneNumber": pending.get("phone"),
        "billingAddress": _contact(pending.get("billing_address")),
        "shippingAddress": _contact(pending.get("shipping_address")),
        "businessName": pending.get("business_name"),
        "nameCollection": {"individualName": pending.get("individual_name"),
                           "businessName": pending.get("business_name")} if names else None,
        "canConfirm": can_confirm,
        "lastPaymentError": pending.get("last_error"),
        "lineItems": _line_items(ctx, t, session),
        "discountAmounts": _discounts(ctx, t, session) or None,
        "recurring": recurring, "savedPaymentMethods": None,
        "shipping": {"shippingOption": chosen, "taxAmounts": None} if chosen else None,
        "shippingOptions": options,
        "tax": {"status": "ready"}, "taxAmounts": None, "taxIdInfo": None, "surcharge": None,
        "optionalItems": None,
        "total": {
            "subtotal": _amount(t, session.get("amount_subtotal"), currency),
            "discount": _amount(t, details.get("amount_discount"), currency),
            "shippingRate": _amount(t, details.get("amount_shipping"), currency),
            "taxExclusive": _amount(t, details.get("amount_tax"), currency),
            "taxInclusive": _amount(t, 0, currency),
            "appliedBalance": _amount(t, 0, currency),
            "balanceAppliedToNextInvoice": False,
            "total": _amount(t, total, currency)}}


def _answer(ctx: Ctx, session: dict[str, Any], **extra: Any) -> dict[str, Any]:
    due = int(session.get("amount_total") or 0) if session["mode"] != "setup" else 0
    return {"object": "checkout.elements_session", "session": view(ctx, session),
            "payment_needed": session["status"] == "open" and card_needed(session, due),
            **extra}


@api("GET", "/v1/payment_pages/{session}", publishable=True, params=_SECRET, mutates=False)
def retrieve(ctx: Ctx, params: dict[str, Any], session: str) -> dict[str, Any]:
    obj = _open(ctx, session, params["client_secret"])
    sessions.refresh_totals(ctx, obj)
    return _answer(ctx, obj)


# ------------------------------------------------------------------ changes

def _buyer_error(message: str, code: str | None = None) -> dict[str, Any]:
    return {"message": message, "code": code}


def _apply(ctx: Ctx, session: dict[str, Any], params: dict[str, Any]) -> dict[str, Any] | None:
    """Apply one change; the buyer-facing error when it is refused."""
    t = _translator(session)
    pending = session.setdefault("_elements", {})
    action, value = params["action"], str(params.get("value") or "").strip()
    if action == "email":
        if not value:
            return _buyer_error("Your email address is incomplete.", "incompleteEmail")
        if not complete.EMAIL.match(value):
            return _buyer_error(t("err_email"), "invalidEmail")
        pending["email"] = value
    elif action == "phone":
        pending["phone"] = complete.e164(value) if value else None
    elif action in ("individual_name", "business_name"):
        pending[action] = value or None
    elif action in ("billing_address", "shipping_address"):
        contact = params.get("address")
        if contact and action == "shipping_address":
            allowed = (session.get("shipping_address_collection") or {}).get(
                "allowed_countries") or []
            country = (contact.get("address") or {}).get("country")
            if allowed and country not in allowed:
                return _buyer_error(t("err_country"))
        pending[action] = contact or None
    elif action in ("quantity", "promotion_code", "remove_promotion_code", "shipping_option",
                    "add_optional", "remove_optional"):
        try:
            _cart_change(ctx, session, action, value, params)
        except cart.CartError as exc:
            values = dict(exc.values)
            if "amount" in values:
                values["amount"] = t.money(*values["amount"])
            code = "invalidCode" if exc.field == "promotion_code" and exc.key == (
                "err_promo_invalid") else None
            return _buyer_error(t(exc.key, **values), code)
    else:
        raise InvalidRequest(f"Unknown Checkout change: {action}.", param="action")
    return None


def _cart_change(ctx: Ctx, session: dict[str, Any], action: str, value: str,
                 params: dict[str, Any]) -> None:
    if action == "quantity":
        item = str(params.get("line_item") or "")
        found = next((i for i in session.get("_items", []) if i["id"] == item), None)
        if found is None:
            raise InvalidRequest(f"No such line item: '{item}'", param="line_item")
        if not (found.get("adjustable_quantity") or {}).get("enabled"):
            raise InvalidRequest(f"The quantity of line item '{item}' cannot be changed: "
                                 "create the session with line_items[][adjustable_quantity]"
                                 "[enabled]=true.", param="line_item")
        cart.set_quantity(session, item, params.get("quantity"))
    elif action == "promotion_code":
        cart.apply_promotion_code(ctx, session, value)
    elif action == "remove_promotion_code":
        cart.remove_promotion_code(session)
    elif action == "shipping_option":
        cart.choose_shipping(session, value)
    else:  # add_optional / remove_optional, named by price as Stripe.js does
        optional = next((i for i in session.get("_items", [])
                         if i.get("optional") and i["price"] == value), None)
        if optional is None:
            raise InvalidRequest(f"No optional item with price '{value}'.", param="value")
        cart.set_optional(session, optional["id"], action == "add_optional")


@api("POST", "/v1/payment_pages/{session}", publishable=True, params=_UPDATE)
def update(ctx: Ctx, params: dict[str, Any], session: str) -> dict[str, Any]:
    obj = _open(ctx, session, params["client_secret"])
    if obj["status"] != "open":
        return _answer(ctx, obj, error=_buyer_error("This Checkout Session is no longer open."))
    error = _apply(ctx, obj, params)
    sessions.refresh_totals(ctx, obj)
    ctx.put(obj)
    return _answer(ctx, obj, error=error)


# ------------------------------------------------------------------ confirm

def _form(session: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """The confirm call as the hosted page's form, for `checkout_complete.pay_now`."""
    pending = session.get("_elements") or {}
    billing = params.get("billing_address") or pending.get("billing_address") or {}
    shipping = params.get("shipping_address") or pending.get("shipping_address") or {}
    return {"email": params.get("email") or pending.get("email") or session.get(
                "customer_email") or session.get("_prefill_email") or "",
            "phone": params.get("phone") or pending.get("phone") or "",
            "billing": billing.get("address") or {},
            "card": {"name": billing.get("name") or ""},
            "shipping": {**(shipping.get("address") or {}), "name": shipping.get("name")},
            "individual_name": pending.get("individual_name") or "",
            "business_name": pending.get("business_name") or "",
            "payment_method": params.get("payment_method") or "",
            "save_payment_method": bool(params.get("save_payment_method"))}


def _missing(session: dict[str, Any], form: dict[str, Any], due: int) -> str | None:
    if not form["email"]:
        return ("An email address is required: call updateEmail() or pass `email` to "
                "confirm().")
    if not complete.EMAIL.match(form["email"]):
        return "Your email address is invalid."
    if session.get("shipping_address_collection") and not form["shipping"].get("country"):
        return ("A shipping address is required: mount a Shipping Address Element, call "
                "updateShippingAddress() or pass `shippingAddress` to confirm().")
    if (session.get("phone_number_collection") or {}).get("enabled") and not form["phone"]:
        return "A phone number is required: call updatePhoneNumber() or pass `phoneNumber`."
    if card_needed(session, due) and not form["payment_method"]:
        return "A payment method is required."
    return None


def _failure(ctx: Ctx, session: dict[str, Any], outcome: Outcome) -> dict[str, Any]:
    """The confirm error as Stripe.js gives it: a decline names its decline code."""
    message = next(iter(outcome.errors.values()), None) or "Your payment failed."
    intent = _latest_intent(ctx, session)
    error = (intent or {}).get("last_payment_error") or (intent or {}).get(
        "last_setup_error")
    session.setdefault("_elements", {})["last_error"] = {"message": message}
    if error:
        return {"message": message, "code": "paymentFailed",
                "paymentFailed": {"declineCode": error.get("decline_code")}}
    return _buyer_error(message)


def _latest_intent(ctx: Ctx, session: dict[str, Any]) -> dict[str, Any] | None:
    if session["mode"] == "payment":
        return ctx.maybe(session.get("payment_intent"), "payment_intent")
    if session["mode"] == "setup":
        return ctx.maybe(session.get("setup_intent"), "setup_intent")
    sub = ctx.maybe(session.get("_pending_subscription"), "subscription")
    invoice = ctx.maybe((sub or {}).get("latest_invoice"), "invoice")
    if invoice is None:
        return None
    from ..billing import collect
    return collect.default_intent(ctx, invoice)


def _settle(ctx: Ctx, session: dict[str, Any], outcome: Outcome) -> dict[str, Any]:
    if outcome.complete:
        session.setdefault("_elements", {})["last_error"] = None
        ctx.put(session)
        return _answer(ctx, session, redirect=outcome.redirect)
    if outcome.redirect:  # 3D Secure: Stripe.js shows the challenge, then calls resume
        return _answer(ctx, session, next_action=outcome.redirect)
    error = _failure(ctx, session, outcome)
    ctx.put(session)
    return _answer(ctx, session, error=error)


@api("POST", "/v1/payment_pages/{session}/confirm", publishable=True, params=_CONFIRM)
def confirm(ctx: Ctx, params: dict[str, Any], session: str) -> dict[str, Any]:
    obj = _open(ctx, session, params["client_secret"])
    if obj["status"] != "open":
        return _answer(ctx, obj, error=_buyer_error("This Checkout Session is no longer open."))
    form = _form(obj, params)
    country, state = complete.tax_address(obj, form)
    totals = sessions.refresh_totals(ctx, obj, country, state)
    due = totals.amount_total if obj["mode"] != "setup" else 0
    missing = _missing(obj, form, due)
    if missing:
        return _answer(ctx, obj, error=_buyer_error(missing))
    return _settle(ctx, obj, complete.pay_now(ctx, obj, form, due))


@api("POST", "/v1/payment_pages/{session}/resume", publishable=True, params=_SECRET)
def resume(ctx: Ctx, params: dict[str, Any], session: str) -> dict[str, Any]:
    obj = _open(ctx, session, params["client_secret"])
    return _settle(ctx, obj, complete.resume(ctx, obj))
