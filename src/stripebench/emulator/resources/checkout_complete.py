"""Completing a Checkout Session from what the customer entered on the page.

The page posts the form; `submit` checks it (Stripe-like inline errors), records the
customer's details on the session, then pays through the same engines the API uses:
a card PaymentMethod from the typed number, then a PaymentIntent (payment mode), a
subscription with its first invoice (subscription mode) or a SetupIntent (setup mode).
Declines come back as inline errors and leave the session open; 3D Secure cards send
the browser to the emulator's challenge page, whose return lands on `resume`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..context import Ctx
from ..errors import CardError, StripeError
from . import checkout_sessions as sessions

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
EU = {"AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE",
      "IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE"}
TAX_ID_TYPES = {"GB": "gb_vat", "US": "us_ein", "AU": "au_abn", "CA": "ca_bn", "JP": "jp_cn",
                "CH": "ch_vat", "NO": "no_vat", "IN": "in_gst", "NZ": "nz_gst", "SG": "sg_uen",
                "MX": "mx_rfc", "BR": "br_cnpj", "KR": "kr_brn", "ZA": "za_vat"}
ADDRESS_KEYS = ("city", "country", "line1", "line2", "postal_code", "state")


@dataclass
class Outcome:
    """What the page does next: show errors, follow a redirect, or report completion."""

    errors: dict[str, str] = field(default_factory=dict)
    redirect: str | None = None  # 3DS challenge or success/return URL
    complete: bool = False

    def body(self) -> dict[str, Any]:
        return {"errors": self.errors, "redirect": self.redirect, "complete": self.complete}


# ------------------------------------------------------------------ validation

def _text(form: dict[str, Any], *path: str) -> str:
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


def validate(t: Any, session: dict[str, Any], form: dict[str, Any],
             due: int) -> dict[str, str]:
    """Inline errors keyed by the page's field ids; `t` is the page's translator."""
    errors: dict[str, str] = {}
    email = _text(form, "email")
    if not email:
        errors["email"] = t("err_required")
    elif not EMAIL.match(email):
        errors["email"] = t("err_email")
    if (session.get("phone_number_collection") or {}).get("enabled") and not _text(form,
                                                                                   "phone"):
        errors["phone"] = t("err_required")
    names = session.get("name_collection") or {}
    for kind, field_id in (("individual", "individual_name"), ("business", "business_name")):
        spec = names.get(kind) or {}
        if spec.get("enabled") and not spec.get("optional") and not _text(form, field_id):
            errors[field_id] = t("err_required")
    collection = session.get("shipping_address_collection")
    if collection:
        for key in ("name", "line1", "city", "postal_code", "country"):
            if not _text(form, "shipping", key):
                errors[f"shipping-{key}"] = t("err_required")
        country = _text(form, "shipping", "country")
        if country and country not in collection["allowed_countries"]:
            errors["shipping-country"] = t("err_country")
    if card_needed(session, due) and _text(form, "payment_method_type") in ("", "card"):
        _validate_card(t, form, errors)
        if session.get("billing_address_collection") == "required":
            for key in ("line1", "city", "postal_code", "country"):
                if not _text(form, "billing", key):
                    errors[f"billing-{key}"] = t("err_required")
        elif not _text(form, "billing", "country"):
            errors["billing-country"] = t("err_required")
    for spec in session.get("custom_fields") or []:
        _validate_custom_field(t, spec, _text(form, "custom_fields", spec["key"]), errors)
    consent = session.get("consent_collection") or {}
    if consent.get("terms_of_service") == "required" and not (form.get("consent") or {}).get(
            "terms_of_service"):
        errors["terms_of_service"] = t("err_terms")
    tax_ids = session.get("tax_id_collection") or {}
    if tax_ids.get("enabled"):
        as_business = bool(form.get("tax_id_enabled")) or tax_ids.get("required") == "if_supported"
        if as_business and tax_ids.get("required") == "if_supported" and not _text(form,
                                                                                    "tax_id"):
            errors["tax_id"] = t("err_required")
        if form.get("tax_id_enabled") and not _text(form, "business_name"):
            errors["business_name"] = t("err_required")
    return errors


def _validate_card(t: Any, form: dict[str, Any], errors: dict[str, str]) -> None:
    number = re.sub(r"\s+", "", _text(form, "card", "number"))
    if len(number) < 12 or not number.isdigit():
        errors["card-number"] = t("err_card_number")
    else:
        from ..cards import luhn_ok
        if not luhn_ok(number):
            errors["card-number"] = t("err_card_invalid")
    if not re.match(r"^\d{1,2}\s*/\s*\d{2,4}$", _text(form, "card", "expiry")):
        errors["card-expiry"] = t("err_expiry")
    cvc = _text(form, "card", "cvc")
    if not cvc.isdigit() or not 3 <= len(cvc) <= 4:
        errors["card-cvc"] = t("err_cvc")
    if not _text(form, "card", "name"):
        errors["card-name"] = t("err_required")


def _validate_custom_field(t: Any, spec: dict[str, Any], value: str,
                           errors: dict[str, str]) -> None:
    field_id = f"custom-{spec['key']}"
    if not value:
        if not spec.get("optional"):
            errors[field_id] = t("err_required")
        return
    if spec["type"] == "dropdown":
        values = [o["value"] for o in spec["dropdown"]["options"]]
        if value not in values:
            errors[field_id] = t("err_required")
        return
    limits = spec.get(spec["type"]) or {}
    if spec["type"] == "numeric" and not value.isdigit():
        errors[field_id] = t("err_numeric")
        return
    if limits.get("minimum_length") and len(value) < limits["minimum_length"]:
        errors[field_id] = t("err_too_short", min=limits["minimum_length"])
    elif limits.get("maximum_length") and len(value) > limits["maximum_length"]:
        errors[field_id] = t("err_too_long", max=limits["maximum_length"])


# ------------------------------------------------------------------ recording the details

def _address(raw: Any) -> dict[str, Any]:
    raw = raw if isinstance(raw, dict) else {}
    return {k: (str(raw.get(k)).strip() or None) if raw.get(k) else None for k in ADDRESS_KEYS}


def tax_address(session: dict[str, Any], form: dict[str, Any]) -> tuple[str | None, str | None]:
    """Stripe Tax uses the shipping address when one is collected, else the billing one."""
    source = form.get("shipping") if session.get("shipping_address_collection") else None
    if not source or not source.get("country"):
        source = form.get("billing") or {}
    return (source.get("country") or None), (source.get("state") or None)


def record_details(ctx: Ctx, session: dict[str, Any], form: dict[str, Any]) -> None:
    billing = _address(form.get("billing"))
    tax_ids = []
    if _text(form, "tax_id"):
        country = billing.get("country") or ""
        kind = "eu_vat" if country in EU else TAX_ID_TYPES.get(country, "unknown")
        tax_ids.append({"type": kind, "value": _text(form, "tax_id")})
    name = _text(form, "card", "name") or _text(form, "individual_name") or _text(
        form, "shipping", "name") or None
    session["customer_details"] = {
        "address": billing, "business_name": _text(form, "business_name") or None,
        "email": _text(form, "email"),
        "individual_name": _text(form, "individual_name") or None, "name": name,
        "phone": _text(form, "phone") or None, "tax_exempt": "none", "tax_ids": tax_ids}
    if session.get("shipping_address_collection"):
        session["collected_information"] = {
            "business_name": _text(form, "business_name") or None,
            "individual_name": _text(form, "individual_name") or None,
            "shipping_details": {"address": _address(form.get("shipping")),
                                 "name": _text(form, "shipping", "name")}}
    values = form.get("custom_fields") or {}
    for spec in session.get("custom_fields") or []:
        value = str(values.get(spec["key"]) or "").strip() or None
        spec[spec["type"]]["value"] = value
    consent = session.get("consent_collection") or {}
    given = form.get("consent") or {}
    if consent.get("terms_of_service") == "required" or consent.get("promotions") == "auto":
        session["consent"] = {
            "promotions": ("opt_in" if given.get("promotions") else "opt_out")
            if consent.get("promotions") == "auto" else None,
            "terms_of_service": "accepted" if given.get("terms_of_service") else None}


def _ensure_customer(ctx: Ctx, session: dict[str, Any], force: bool) -> dict[str, Any] | None:
    from . import customers
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


# ------------------------------------------------------------------ paying

def _payment_method(ctx: Ctx, form: dict[str, Any], session: dict[str, Any]) -> dict[str, Any]:
    from . import payment_methods
    month, _, year = _text(form, "card", "expiry").partition("/")
    details = session["customer_details"]
    billing = {"address": {k: v for k, v in details["address"].items() if v},
               "email": details["email"], "name": _text(form, "card", "name") or None,
               "phone": details.get("phone")}
    billing = {k: v for k, v in billing.items() if v}
    card = {"number": re.sub(r"\s+", "", _text(form, "card", "number")),
            "exp_month": int(month.strip() or 0), "exp_year": int(year.strip() or 0),
            "cvc": _text(form, "card", "cvc")}
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


def submit(ctx: Ctx, t: Any, session: dict[str, Any], form: dict[str, Any]) -> Outcome:
    if session["status"] != "open":
        return Outcome(errors={"form": t("expired_title")})
    country, state = tax_address(session, form)
    totals = sessions.refresh_totals(ctx, session, country, state)
    due = totals.amount_total if session["mode"] != "setup" else 0
    errors = validate(t, session, form, due)
    if errors:
        return Outcome(errors=errors)
    record_details(ctx, session, form)
    if (session.get("automatic_tax") or {}).get("enabled"):
        session["automatic_tax"]["status"] = "complete"
    try:
        if session["mode"] == "payment":
            return _pay(ctx, session, form, due)
        if session["mode"] == "subscription":
            return _subscribe(ctx, session, form, due)
        return _setup(ctx, session, form)
    except CardError as exc:
        ctx.put(session)
        field_id = "card-number"
        if exc.code in ("invalid_expiry_month", "invalid_expiry_year", "expired_card"):
            field_id = "card-expiry"
        elif exc.code in ("invalid_cvc", "incorrect_cvc"):
            field_id = "card-cvc"
        return Outcome(errors={field_id: exc.message})
    except StripeError as exc:
        ctx.put(session)
        return Outcome(errors={"form": exc.message})


def _pay(ctx: Ctx, session: dict[str, Any], form: dict[str, Any], due: int) -> Outcome:
    from . import payment_intents
    data = session.get("_payment_intent_data") or {}
    save = bool(form.get("save_payment_method")) or bool(data.get("setup_future_usage"))
    customer = _ensure_customer(ctx, session, force=save or bool(
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
    from ..billing import collect
    from . import invoice_items, invoices
    invoice_data = (session.get("invoice_creation") or {}).get("invoice_data") or {}
    params: dict[str, Any] = {"customer": customer["id"], "currency": session["currency"],
                              "metadata": invoice_data.get("metadata") or {}}
    for key in ("description", "footer", "custom_fields"):
        if invoice_data.get(key):
            params[key] = invoice_data[key]
    inv = invoices.create(ctx, params)
    stored = (session.get("_last_totals") or {}).get("lines", {})
    charges: list[tuple[str, int]] = []
    from .checkout_totals import cart_items
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
        return _finish_subscription(ctx, session)
    paid = "paid" if status == "succeeded" else "unpaid"
    return finish(ctx, session, paid)


def _subscribe(ctx: Ctx, session: dict[str, Any], form: dict[str, Any], due: int) -> Outcome:
    from . import payment_intents, payment_methods, subscriptions
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
        return _finish_subscription(ctx, session)
    payment_intents.confirm_intent(ctx, intent, {"payment_method": pm["id"] if pm else None,
                                                 "return_url": return_url(ctx, session)})
    return after_intent(ctx, session, intent)


def subscription_params(ctx: Ctx, session: dict[str, Any], customer: dict[str, Any],
                        pm: dict[str, Any] | None) -> dict[str, Any]:
    """What Checkout asks the billing engine for (as `POST /v1/subscriptions` params)."""
    from .checkout_totals import cart_items
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
    if pm is not None:
        params["default_payment_method"] = pm["id"]
    for key in ("trial_period_days", "trial_end", "billing_cycle_anchor", "description",
                "default_tax_rates"):
        if data.get(key) is not None:
            params[key] = data[key]
    if data.get("billing_cycle_anchor") is not None:
        params["proration_behavior"] = data.get("proration_behavior") or "create_prorations"
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
    from ..billing import collect
    intent = collect.default_intent(ctx, inv)
    if intent is not None and intent["status"] in ("requires_payment_method",
                                                   "requires_confirmation", "requires_action"):
        return intent
    return None


def _finish_subscription(ctx: Ctx, session: dict[str, Any]) -> Outcome:
    sub = ctx.get(session["_pending_subscription"], "subscription")
    inv = ctx.maybe(sub.get("latest_invoice"), "invoice")
    session["subscription"] = sub["id"]
    session["invoice"] = inv["id"] if inv else None
    paid = inv is not None and inv.get("status") == "paid" and int(
        inv.get("amount_paid") or 0) > 0
    return finish(ctx, session, "paid" if paid else "no_payment_required")


def _setup(ctx: Ctx, session: dict[str, Any], form: dict[str, Any]) -> Outcome:
    from . import setup_intents
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


# ------------------------------------------------------------------ the end

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
    for entry in session.get("discounts") or []:
        for object_id, kind in ((entry.get("promotion_code"), "promotion_code"),
                                (entry.get("coupon"), "coupon")):
            obj = ctx.maybe(object_id, kind)
            if obj is not None and kind == "promotion_code":
                obj["times_redeemed"] = int(obj.get("times_redeemed") or 0) + 1
                ctx.put(obj)
            elif obj is not None and not session.get("subscription"):
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


def resume(ctx: Ctx, session: dict[str, Any]) -> Outcome:
    """Back from the 3D Secure page: finish, or show why it failed."""
    if session["status"] != "open":
        return Outcome(redirect=completion_url(session), complete=session["status"] == "complete")
    intent = None
    if session["mode"] == "payment":
        intent = ctx.maybe(session.get("payment_intent"), "payment_intent")
    elif session["mode"] == "setup":
        intent = ctx.maybe(session.get("setup_intent"), "setup_intent")
    else:
        sub = ctx.maybe(session.get("_pending_subscription"), "subscription")
        if sub is not None:
            inv = ctx.maybe(sub.get("latest_invoice"), "invoice")
            if inv is not None and inv.get("status") == "paid":
                return _finish_subscription(ctx, session)
            from ..billing import collect
            intent = collect.default_intent(ctx, inv) if inv else None
    if intent is None:
        return Outcome(errors={"form": "Nothing to resume."})
    if intent["status"] == "requires_action":
        return Outcome(errors={"card-number": "Authentication was not completed."})
    return after_intent(ctx, session, intent)
