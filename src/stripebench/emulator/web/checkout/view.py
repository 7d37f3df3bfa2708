"""What the Checkout page shows: a view model built from a session and its totals.

Every option a session was created with that changes what a customer sees is turned
into text here (in the session's locale), so a person or an agent can read the
session back from the page: items, quantities and their limits, optional items,
intervals, trials, anchors, shipping options and estimates, discounts, tax, fields.
"""

from __future__ import annotations

from typing import Any

from ...context import Ctx
from ...resources.checkout_cart import custom_limits, quantity_limits
from ...resources.checkout_totals import (
    Totals,
    coupon_amount_off,
    customer_now,
    first_period_factor,
    line_amount,
    unit_amount,
)
from .countries import country_name
from .locales import ZERO_DECIMAL, Translator

FONTS = {"default": "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, sans-serif",
         "noto_sans_jp": "'Noto Sans JP', sans-serif", "ubuntu_mono": "'Ubuntu Mono', monospace",
         "inconsolata": "Inconsolata, monospace", "m_plus_1_code": "'M PLUS 1 Code', monospace"}
RADII = {"rounded": "6px", "rectangular": "0px", "pill": "999px"}
PM_LABELS = {"card": "Card", "klarna": "Klarna", "affirm": "Affirm", "afterpay_clearpay":
             "Afterpay / Clearpay", "alipay": "Alipay", "bancontact": "Bancontact", "eps": "EPS",
             "giropay": "giropay", "ideal": "iDEAL", "p24": "Przelewy24", "sepa_debit":
             "SEPA Direct Debit", "sofort": "Sofort", "us_bank_account": "US bank account",
             "wechat_pay": "WeChat Pay", "link": "Link", "cashapp": "Cash App Pay",
             "paypal": "PayPal", "revolut_pay": "Revolut Pay", "amazon_pay": "Amazon Pay",
             "bacs_debit": "Bacs Direct Debit", "acss_debit": "Pre-authorized debit",
             "au_becs_debit": "BECS Direct Debit", "boleto": "Boleto", "oxxo": "OXXO",
             "konbini": "Konbini", "pix": "Pix", "blik": "BLIK", "zip": "Zip",
             "mobilepay": "MobilePay", "twint": "TWINT", "multibanco": "Multibanco",
             "customer_balance": "Bank transfer", "swish": "Swish", "promptpay": "PromptPay",
             "paynow": "PayNow", "grabpay": "GrabPay", "fpx": "FPX", "kakao_pay": "Kakao Pay",
             "naver_pay": "Naver Pay", "kr_card": "Korean card", "payco": "PAYCO",
             "samsung_pay": "Samsung Pay"}


def merchant_name(ctx: Ctx, session: dict[str, Any]) -> str:
    branding = session.get("branding_settings") or {}
    settings = ctx.account.settings or {}
    return str(branding.get("display_name") or settings.get("business_name")
               or settings.get("display_name") or "Test merchant")


def branding(session: dict[str, Any]) -> dict[str, Any]:
    spec = session.get("branding_settings") or {}
    font = spec.get("font_family") or "default"
    font_css = FONTS.get(font) or f"'{font.replace('_', ' ').title()}', sans-serif"
    logo = (spec.get("logo") or {}).get("url")
    icon = (spec.get("icon") or {}).get("url")
    return {"background": spec.get("background_color") or "#ffffff",
            "button": spec.get("button_color") or "#0074d4",
            "radius": RADII.get(spec.get("border_style") or "rounded", "6px"),
            "box_radius": "12px" if spec.get("border_style") == "pill" else RADII.get(
                spec.get("border_style") or "rounded", "6px"),
            "border_style": spec.get("border_style") or "rounded",
            "font": font, "font_css": font_css, "logo": logo, "icon": icon,
            "custom": bool(spec)}


def _product_view(t: Translator, ctx: Ctx, price: dict[str, Any]) -> dict[str, Any]:
    product = ctx.maybe(price.get("product"), "product") or {}
    images = product.get("images") or []
    return {"name": product.get("name") or price.get("nickname") or price["id"],
            "description": product.get("description"),
            "image": images[0] if images else None,
            "unit_label": product.get("unit_label")}


def _quantity_view(session: dict[str, Any], item: dict[str, Any]) -> dict[str, Any] | None:
    if not (item.get("adjustable_quantity") or {}).get("enabled"):
        return None
    low, high = quantity_limits(session, item)  # the only item left cannot go to 0
    adjustable = item["adjustable_quantity"]
    # The stepper and input enforce `min`; the range text shows what the session set.
    return {"min": low, "max": high,
            "range_min": adjustable.get("minimum") if adjustable.get("minimum") is not None
            else 0}


def _recurring_texts(t: Translator, ctx: Ctx, session: dict[str, Any],
                     price: dict[str, Any], amount: int, currency: str) -> dict[str, Any]:
    recurring = price.get("recurring")
    if not recurring:
        return {"interval": None, "billed": None, "trial": None, "then": None,
                "anchor": None}
    data = session.get("_subscription_data") or {}
    interval = t.interval(recurring)
    out: dict[str, Any] = {"interval": interval, "billed": t.billed(recurring), "trial": None,
                           "then": None, "anchor": None}
    money = t.money(amount, currency)
    if data.get("trial_period_days"):
        days = int(data["trial_period_days"])
        out["trial"] = t("days_free", n=days)
        out["then"] = t("then_price_starting", amount=money, interval=interval,
                        date=t.date(customer_now(ctx, session) + days * 86400))
    elif data.get("trial_end"):
        out["trial"] = t("free_until", date=t.date(int(data["trial_end"])))
        out["then"] = t("then_price_starting", amount=money, interval=interval,
                        date=t.date(int(data["trial_end"])))
    elif data.get("billing_cycle_anchor") and int(data["billing_cycle_anchor"]) > customer_now(
            ctx, session):  # a passed anchor bills the full period: no note
        anchor = int(data["billing_cycle_anchor"])
        if data.get("proration_behavior") == "none":
            out["anchor"] = t("anchor_no_proration", date=t.date(anchor))
        else:
            out["anchor"] = t("anchor_prorated", date=t.date(anchor))
        out["then"] = t("then_price_starting", amount=money, interval=interval,
                        date=t.date(anchor))
    return out


def summary(t: Translator, ctx: Ctx, session: dict[str, Any], totals: Totals) -> dict[str, Any]:
    currency = session.get("currency") or "usd"
    lines = []
    for line in totals.lines:
        product = _product_view(t, ctx, line.price)
        texts = _recurring_texts(t, ctx, session, line.price, line.full_amount, currency)
        custom = None
        if line.price.get("custom_unit_amount"):
            low, high = custom_limits(line.price, currency)
            exponent = 0 if currency in ZERO_DECIMAL else 2
            chosen = line.item.get("custom_amount")
            custom = {"min_text": t.money(low, currency),
                      "max_text": t.money(high, currency) if high else None,
                      "exponent": exponent,
                      "value": "" if chosen is None else (
                          str(chosen) if exponent == 0 else f"{chosen / 100:.2f}")}
        lines.append({
            "id": line.item["id"], **product, "quantity": line.quantity, "custom": custom,
            "adjustable": _quantity_view(session, line.item), "optional": line.item.get("optional"),
            "unit_text": t("each", amount=t.money(line.unit_amount, currency)),
            "full_text": t.money(line.full_amount, currency),
            "amount_text": t.money(line.amount_subtotal, currency),
            "discount_text": t.money(-line.amount_discount, currency)
            if line.amount_discount else None,
            "one_time": bool(session["mode"] == "subscription" and not line.recurring),
            **texts})
    optional = []
    for item in session.get("_items", []):
        if not item.get("optional") or item.get("added"):
            continue
        price = ctx.account.objects.get(item["price"]) or {}
        product = _product_view(t, ctx, price)
        amount = line_amount(price, int(item["quantity"]), currency)
        texts = _recurring_texts(t, ctx, session, price, amount, currency)
        optional.append({"id": item["id"], **product, "quantity": item["quantity"],
                         "adjustable": _quantity_view(session, item),
                         "price_text": t.money(unit_amount(price, currency), currency),
                         **texts})
    discounts = []
    for entry in totals.discount_breakdown:
        coupon = ctx.maybe(entry["coupon"], "coupon") or {}
        promo = ctx.maybe(entry.get("promotion_code"), "promotion_code")
        if coupon.get("percent_off") is not None:
            pct = coupon["percent_off"]
            detail = t("discount_off", percent=int(pct) if float(pct).is_integer() else pct)
        else:
            detail = t("amount_off", amount=t.money(coupon_amount_off(coupon, currency),
                                                    currency))
        duration = coupon.get("duration")
        if session["mode"] == "subscription" and duration == "repeating":
            detail += f" · {coupon.get('duration_in_months')} mo"
        elif session["mode"] == "subscription" and duration == "forever":
            detail += " · ∞"
        discounts.append({"name": coupon.get("name") or coupon.get("id"),
                          "code": promo["code"] if promo else None,
                          "detail": detail, "removable": promo is not None,
                          "amount_text": t.money(-entry["amount"], currency)})
    shipping_options = []
    selected = (session.get("shipping_cost") or {}).get("shipping_rate")
    for option in session.get("shipping_options") or []:
        rate = ctx.maybe(option["shipping_rate"], "shipping_rate") or {}
        amount = option["shipping_amount"]
        fixed = rate.get("fixed_amount") or {}
        if fixed.get("currency") != currency:
            amount = ((fixed.get("currency_options") or {}).get(currency) or {}).get(
                "amount", amount)
        shipping_options.append({
            "id": option["shipping_rate"], "name": rate.get("display_name"),
            "amount_text": t.money(amount, currency) if amount else t("free"),
            "estimate": t.delivery(rate.get("delivery_estimate")),
            "selected": option["shipping_rate"] == selected})
    automatic = (session.get("automatic_tax") or {}).get("enabled")
    manual_tax = any(ln.item.get("tax_rates") for ln in totals.lines)
    tax_label = t("tax")
    if totals.tax_rule is not None:
        name = t(f"taxname_{totals.tax_rule.tax_type}")
        tax_label = f"{name} ({_pct(totals.tax_rule.percentage)}%)"
    tax_rates = []
    for entry in totals.tax_breakdown:
        manual = ctx.maybe((entry.get("rate") or {}).get("id"), "tax_rate")
        if manual is not None:
            tax_rates.append({"label": f"{manual.get('display_name')} "
                                       f"({_pct(manual['percentage'])}%"
                                       f"{', incl.' if manual['inclusive'] else ''})",
                              "amount_text": t.money(entry["amount"], currency)})
    is_sub = session["mode"] == "subscription"
    data = session.get("_subscription_data") or {}
    # A trial (not an anchor deferring the first charge) makes the button "Start trial".
    trialing = is_sub and bool(data.get("trial_period_days") or data.get("trial_end")) and any(
        first_period_factor(ctx, session, ln.recurring) == 0
        for ln in totals.lines if ln.recurring)
    return {
        "currency": currency.upper(), "lines": lines, "optional": optional,
        "subtotal_text": t.money(totals.amount_subtotal, currency),
        "discounts": discounts, "shipping_options": shipping_options,
        "shipping_text": t.money(totals.amount_shipping, currency) if selected else None,
        "tax": {"automatic": automatic, "manual": manual_tax, "label": tax_label,
                "pending": automatic and totals.tax_rule is None,
                "text": t.money(totals.amount_tax, currency), "rates": tax_rates},
        "total_label": t("total_due_today") if is_sub else t("total_due"),
        "total_text": t.money(totals.amount_total, currency),
        "total_amount": totals.amount_total, "trialing": trialing,
        "promo": {"allowed": bool(session.get("allow_promotion_codes")),
                  "applied": any(d["code"] for d in discounts)},
        "recurring_after_text": t.money(totals.recurring_after, currency),
    }


def _pct(value: Any) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() else f"{number:g}"


def heading(t: Translator, ctx: Ctx, session: dict[str, Any], summary_view: dict[str, Any],
            merchant: str) -> dict[str, Any]:
    """The big title and amount at the top of the summary column."""
    lines = summary_view["lines"]
    if session["mode"] == "setup":
        currency = session.get("currency")
        return {"title": t("setup_title", merchant=merchant),
                "amount": t("currency_code", code=currency.upper()) if currency else None,
                "sub": t("setup_body", merchant=merchant)}
    if session["mode"] == "subscription":
        recurring = [ln for ln in lines if ln["interval"]]
        first = recurring[0] if recurring else lines[0]
        name = first["name"] if len(recurring) == 1 else merchant
        if first.get("trial"):
            return {"title": t("try_product", name=name), "amount": first["trial"],
                    "sub": first["then"]}
        return {"title": t("subscribe_to", name=name),
                "amount": first["full_text"] if len(lines) == 1 else summary_view["total_text"],
                "sub": first["interval"] if len(lines) == 1 else summary_view["total_label"]}
    return {"title": t("pay_merchant", merchant=merchant), "amount": summary_view["total_text"],
            "sub": None}


def submit_label(t: Translator, session: dict[str, Any], summary_view: dict[str, Any]) -> str:
    if session["mode"] == "setup":
        return t("submit_save")
    kind = session.get("submit_type") or "auto"
    if session["mode"] == "subscription":
        if summary_view.get("trialing") and kind != "subscribe":
            return t("submit_start_trial")
        return t("submit_subscribe")
    return t({"book": "submit_book", "donate": "submit_donate"}.get(kind, "submit_pay"))


def form_view(t: Translator, ctx: Ctx, session: dict[str, Any],
              merchant: str) -> dict[str, Any]:
    customer = ctx.maybe(session.get("customer"), "customer") or {}
    email = session.get("customer_email") or customer.get("email") or ""
    collection = session.get("shipping_address_collection")
    countries = [{"code": c, "name": country_name(c)}
                 for c in (collection or {}).get("allowed_countries", [])]
    custom_fields = []
    for spec in session.get("custom_fields") or []:
        limits = spec.get(spec["type"]) or {}
        low, high = limits.get("minimum_length"), limits.get("maximum_length")
        hint = None
        if low and high:
            hint = t("length_range", min=low, max=high)
        elif low:
            hint = t("length_min", min=low)
        elif high:
            hint = t("length_max", max=high)
        if spec["type"] == "numeric":
            hint = f"{t('numbers_only')}" + (f" · {hint}" if hint else "")
        custom_fields.append({
            "key": spec["key"], "label": spec["label"]["custom"], "type": spec["type"],
            "optional": spec.get("optional"), "hint": hint,
            "options": (spec.get("dropdown") or {}).get("options") or [],
            "default": limits.get("default_value") if spec["type"] != "dropdown"
            else (spec.get("dropdown") or {}).get("default_value"),
            "minlength": low, "maxlength": high})
    text = session.get("custom_text") or {}
    consent = session.get("consent_collection") or {}
    reuse = (consent.get("payment_method_reuse_agreement") or {}).get("position", "auto")
    pid = session.get("_payment_intent_data") or {}
    future_use = session["mode"] in ("subscription", "setup") or bool(pid.get(
        "setup_future_usage"))
    saved = session.get("saved_payment_method_options") or {}
    tax_ids = session.get("tax_id_collection") or {}
    names = session.get("name_collection") or {}
    types = session.get("payment_method_types") or ["card"]
    return {
        "email": email, "email_locked": bool(email),
        "phone": (session.get("phone_number_collection") or {}).get("enabled"),
        "individual_name": names.get("individual"), "business_name": names.get("business"),
        "shipping": bool(collection), "countries": countries,
        "billing_required": session.get("billing_address_collection") == "required",
        "custom_fields": custom_fields,
        "text": {k: (v or {}).get("message") for k, v in text.items()},
        "terms": consent.get("terms_of_service") == "required",
        "promotions": consent.get("promotions") == "auto",
        "reuse_text": t("reuse_agreement", merchant=merchant)
        if future_use and reuse != "hidden" else None,
        "save_pm": saved.get("payment_method_save") == "enabled",
        "tax_id": tax_ids.get("enabled"),
        "tax_id_required": tax_ids.get("required") == "if_supported",
        "invoice": bool((session.get("invoice_creation") or {}).get("enabled")),
        "payment_methods": [{"type": pm, "label": t("card") if pm == "card"
                             else PM_LABELS.get(pm, pm)} for pm in types],
        "needs_card": session["mode"] != "setup" or True,
        "pm_collection_if_required": session.get("payment_method_collection") == "if_required",
    }
