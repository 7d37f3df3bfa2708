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
from datetime import UTC, datetime
from typing import Any

from ..billing import collect
from ..cards import luhn_ok
from ..context import Ctx
from ..errors import CardError, StripeError
from . import checkout_sessions as sessions
from .checkout_cart import nothing_bought
from .checkout_pay import (
    Outcome,
    after_intent,
    card_needed,
    completion_url,
    finish_subscription,
    form_text,
    pay,
    setup,
    subscribe,
)
from .checkout_totals import cart_items

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
EU = {"AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE",
      "IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE"}
TAX_ID_TYPES = {"GB": "gb_vat", "US": "us_ein", "AU": "au_abn", "CA": "ca_bn", "JP": "jp_cn",
                "CH": "ch_vat", "NO": "no_vat", "IN": "in_gst", "NZ": "nz_gst", "SG": "sg_uen",
                "MX": "mx_rfc", "BR": "br_cnpj", "KR": "kr_brn", "ZA": "za_vat"}
ADDRESS_KEYS = ("city", "country", "line1", "line2", "postal_code", "state")


def validate(t: Any, session: dict[str, Any], form: dict[str, Any],
             due: int, now: int = 0) -> dict[str, str]:
    """Inline errors keyed by the page's field ids; `t` is the page's translator.

    `now` (the simulated clock) dates the card's expiry check.
    """
    errors: dict[str, str] = {}
    email = form_text(form, "email")
    if not email:
        errors["email"] = t("err_required")
    elif not EMAIL.match(email):
        errors["email"] = t("err_email")
    if (session.get("phone_number_collection") or {}).get("enabled"):
        if not form_text(form, "phone"):
            errors["phone"] = t("err_required")
        elif e164(form_text(form, "phone")) is None:
            errors["phone"] = t("err_phone")
    names = session.get("name_collection") or {}
    for kind, field_id in (("individual", "individual_name"), ("business", "business_name")):
        spec = names.get(kind) or {}
        if spec.get("enabled") and not spec.get("optional") and not form_text(form, field_id):
            errors[field_id] = t("err_required")
    collection = session.get("shipping_address_collection")
    if collection:
        for key in ("name", "line1", "city", "postal_code", "country"):
            if not form_text(form, "shipping", key):
                errors[f"shipping-{key}"] = t("err_required")
        country = form_text(form, "shipping", "country")
        if country and country not in collection["allowed_countries"]:
            errors["shipping-country"] = t("err_country")
    if card_needed(session, due) and form_text(form, "payment_method_type") in ("", "card"):
        _validate_card(t, form, errors, now)
        if session.get("billing_address_collection") == "required":
            for key in ("line1", "city", "postal_code", "country"):
                if not form_text(form, "billing", key):
                    errors[f"billing-{key}"] = t("err_required")
        elif not form_text(form, "billing", "country"):
            errors["billing-country"] = t("err_required")
    for item in cart_items(session):
        if item.get("custom") and item.get("custom_amount") is None:
            errors[f"amount-{item['id']}"] = t("err_required")
    for spec in session.get("custom_fields") or []:
        _validate_custom_field(t, spec, form_text(form, "custom_fields", spec["key"]), errors)
    consent = session.get("consent_collection") or {}
    if consent.get("terms_of_service") == "required" and not (form.get("consent") or {}).get(
            "terms_of_service"):
        errors["terms_of_service"] = t("err_terms")
    tax_ids = session.get("tax_id_collection") or {}
    if tax_ids.get("enabled"):
        as_business = bool(form.get("tax_id_enabled")) or tax_ids.get("required") == "if_supported"
        if as_business and tax_ids.get("required") == "if_supported" and not form_text(form,
                                                                                    "tax_id"):
            errors["tax_id"] = t("err_required")
        if form.get("tax_id_enabled") and not form_text(form, "business_name"):
            errors["business_name"] = t("err_required")
    return errors


def e164(phone: str) -> str | None:
    """A typed phone number as Stripe stores it (+ and 7–15 digits), or None if not one."""
    cleaned = re.sub(r"[\s().-]", "", phone)
    if not re.fullmatch(r"\+?\d{7,15}", cleaned):
        return None
    return cleaned if cleaned.startswith("+") else f"+{cleaned}"


def _validate_card(t: Any, form: dict[str, Any], errors: dict[str, str], now: int) -> None:
    number = re.sub(r"\s+", "", form_text(form, "card", "number"))
    if len(number) < 12 or not number.isdigit():
        errors["card-number"] = t("err_card_number")
    else:
        if not luhn_ok(number):
            errors["card-number"] = t("err_card_invalid")
    expiry = re.match(r"^(\d{1,2})\s*/\s*(\d{2}|\d{4})$", form_text(form, "card", "expiry"))
    if not expiry:
        errors["card-expiry"] = t("err_expiry")
    else:
        month, year = int(expiry[1]), int(expiry[2])
        year += 2000 if year < 100 else 0
        today = datetime.fromtimestamp(now, UTC)
        if not 1 <= month <= 12:
            errors["card-expiry"] = t("err_expiry_invalid")
        elif year < today.year:
            errors["card-expiry"] = t("err_expiry_past")
        elif (year, month) < (today.year, today.month):
            errors["card-expiry"] = t("err_expiry_date_past")
    cvc = form_text(form, "card", "cvc")
    if not cvc.isdigit() or not 3 <= len(cvc) <= 4:
        errors["card-cvc"] = t("err_cvc")
    if not form_text(form, "card", "name"):
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
    if form_text(form, "tax_id"):
        country = billing.get("country") or ""
        kind = "eu_vat" if country in EU else TAX_ID_TYPES.get(country, "unknown")
        tax_ids.append({"type": kind, "value": form_text(form, "tax_id")})
    name = form_text(form, "card", "name") or form_text(form, "individual_name") or form_text(
        form, "shipping", "name") or None
    session["customer_details"] = {
        "address": billing, "business_name": form_text(form, "business_name") or None,
        "email": form_text(form, "email"),
        "individual_name": form_text(form, "individual_name") or None, "name": name,
        "phone": e164(form_text(form, "phone")), "tax_exempt": "none", "tax_ids": tax_ids}
    if session.get("shipping_address_collection"):
        session["collected_information"] = {
            "business_name": form_text(form, "business_name") or None,
            "individual_name": form_text(form, "individual_name") or None,
            "shipping_details": {"address": _address(form.get("shipping")),
                                 "name": form_text(form, "shipping", "name")}}
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


def submit(ctx: Ctx, t: Any, session: dict[str, Any], form: dict[str, Any]) -> Outcome:
    # The hosted page pays with the card typed on it, never a PaymentMethod named by the
    # browser (that path is Elements with Checkout's, whose Stripe.js made the card).
    form = {k: v for k, v in form.items() if k != "payment_method"}
    if session["status"] != "open":
        return Outcome(errors={"form": t("expired_title")})
    country, state = tax_address(session, form)
    totals = sessions.refresh_totals(ctx, session, country, state)
    due = totals.amount_total if session["mode"] != "setup" else 0
    errors = validate(t, session, form, due, ctx.now())
    if errors:
        return Outcome(errors=errors)
    return pay_now(ctx, session, form, due)


def pay_now(ctx: Ctx, session: dict[str, Any], form: dict[str, Any], due: int) -> Outcome:
    """Record the checked details and pay through the mode's engine (hosted page and
    Elements with Checkout Sessions alike); declines come back as inline errors."""
    if nothing_bought(session):  # never trust the page: a cart at quantity 0 is not paid
        return Outcome(errors={"form": "Your cart is empty: the only item's quantity cannot "
                                       "be 0."})
    record_details(ctx, session, form)
    if (session.get("automatic_tax") or {}).get("enabled"):
        session["automatic_tax"]["status"] = "complete"
    try:
        if session["mode"] == "payment":
            return pay(ctx, session, form, due)
        if session["mode"] == "subscription":
            return subscribe(ctx, session, form, due)
        return setup(ctx, session, form)
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
                return finish_subscription(ctx, session)
            intent = collect.default_intent(ctx, inv) if inv else None
    if intent is None:
        return Outcome(errors={"form": "Nothing to resume."})
    if intent["status"] == "requires_action":
        return Outcome(errors={"card-number": "Authentication was not completed."})
    return after_intent(ctx, session, intent)
