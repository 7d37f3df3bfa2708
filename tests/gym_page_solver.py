"""A checkout-gym solver that reads only what the pages show (plus the agent's catalog).

It stands in for a careful agent: it opens each challenge in Chromium, reads the embedded
Checkout frame's DOM (no hidden data, no API access to the sessions) and rebuilds the
create parameters. The task tests require it to score high, which proves the pages carry
what the answers need and keeps them doing so as the Checkout page changes.

Pages come in every Checkout locale. The solver reads them the way a reader of that
language would: it knows the page's own wording per language (the emulator's
translation tables stand in for knowing Korean or Finnish), never the session.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from stripebench.emulator.web.checkout.locales import Translator
from stripebench.emulator.web.checkout.view import PM_LABELS

# What the frame shows, gathered in one pass.
READ_PAGE = r"""
() => {
  const q = (s, r = document) => r.querySelector(s);
  const qa = (s, r = document) => [...r.querySelectorAll(s)];
  const text = (e) => (e ? e.textContent.trim().replace(/\s+/g, ' ') : null);
  const lines = qa('li.line').map((li) => {
    const input = q('.stepper input', li);
    const name = q('.line-name', li).firstChild.textContent.trim();
    return {name, optional: !!q('.line-name .tag', li),
            quantity: input ? +input.value : +(text(q('.line-qty', li)).match(/\d+/) || [1])[0],
            min: input ? +input.min : null, max: input ? +input.max : null,
            billed: text(q('.line-billed', li)), per: text(q('.per', li)),
            trial: text(q('.line-trial', li)), anchor: text(q('.line-anchor', li)),
            amount: text(q('.amount', li))};
  });
  const optional = qa('.optional-item').map((e) => ({name: text(q('.line-name', e)),
                                                    unit: text(q('.line-unit', e))}));
  const fields = qa('.custom-field').map((f) => {
    const label = q('label', f);
    const input = q('input, select', f);
    return {type: f.dataset.type, label: label.firstChild.textContent.trim(),
            optional: !!q('.optional', label),
            options: qa('option', f).filter((o) => o.value).map((o) => ({
              label: o.textContent.trim(), value: o.value,
              selected: o.hasAttribute('selected')})),
            minlength: input.getAttribute('minlength'),
            maxlength: input.getAttribute('maxlength'),
            value: input.tagName === 'INPUT' ? input.getAttribute('value') : null};
  });
  const texts = {};
  for (const p of ['shipping_address', 'submit', 'after_submit',
                   'terms_of_service_acceptance']) {
    const e = q('#custom-text-' + p);
    if (e) texts[p] = text(e);
  }
  return {
    mode: (document.body.className.match(/mode-(\w+)/) || [null, 'payment'])[1],
    lang: document.documentElement.lang,
    lines, optional, fields, texts,
    total: text(q('#total')) || text(q('#summary-amount')) || '',
    countries: qa('#shipping-country option').map((o) => o.value),
    shipping: qa('input[name=shipping_rate]').map((i) => {
      const card = i.closest('.radio-card');
      return {id: i.value, name: text(q('.radio-name', card)),
              sub: text(q('.radio-sub', card)), amount: text(q('.radio-amount', card))};
    }),
    promo: !!q('#promotion_code'), phone: !!q('#phone'), taxId: !!q('.tax-id'),
    taxIdRequired: !!q('.tax-id p.label') && !q('.tax-id input[type=checkbox]'),
    paymentTabs: qa('.pm-tab').map(text), reuse: !!q('#reuse-agreement'),
    billing: !!q('#billing-line1'), tax: !!q('.row.tax'),
    promotions: !!q('#consent-promotions'), terms: !!q('#consent-terms'),
    submit: q('#submit') ? q('#submit').dataset.label : null,
    bodyText: document.body.innerText,
  };
}
"""

UNITS = ("business_day", "hour", "week", "month", "day")


@cache
def estimates(lang: str) -> dict[str, dict[str, Any]]:
    """Every delivery estimate text the page can show in `lang` (1..10 of each unit)."""
    t = Translator(lang)
    bounds = [{"unit": u, "value": n} for u in UNITS for n in range(1, 11)]
    return {t.delivery({"minimum": low, "maximum": high}): {"minimum": low, "maximum": high}
            for low in bounds for high in bounds}


def money(text: str | None) -> int:
    """Minor units from a localized amount ("1.234,50 €", "$5.99", "Free" -> 0)."""
    digits = re.sub(r"[^\d.,]", "", text or "")
    if not digits:
        return 0
    whole, _, cents = re.sub(r"[.,](?=\d{3}\b)", "", digits).replace(",", ".").partition(".")
    return int(whole or 0) * 100 + int((cents + "00")[:2])


def currency_of(text: str) -> str:
    if "€" in text or "EUR" in text:
        return "eur"
    if "£" in text or "GBP" in text:
        return "gbp"
    return "usd"


def estimate(sub: str | None, lang: str) -> dict[str, Any] | None:
    return estimates(lang).get((sub or "").strip())


def date_of(text: str, lang: str) -> int | None:
    """The timestamp (UTC midnight) of the first date in `text`, in the page's format."""
    from datetime import UTC, datetime

    t = Translator(lang)
    pattern = re.escape(t.data["date"])
    months = "|".join(map(re.escape, t.data.get("months") or ["-"]))
    groups = (("dd", r"(?P<d>\d{2})"), ("mm", r"(?P<m>\d{2})"), ("d", r"(?P<d>\d{1,2})"),
              ("m", r"(?P<m>\d{1,2})"), ("y", r"(?P<y>\d{4})"), ("month", f"(?P<month>{months})"))
    for name, group in groups:
        pattern = pattern.replace(re.escape("{" + name + "}"), group)
    found = re.search(pattern, text)
    if not found:
        return None
    parts = found.groupdict()
    month = int(parts["m"]) if parts.get("m") else t.data["months"].index(parts["month"]) + 1
    return int(datetime(int(parts["y"]), month, int(parts["d"]), tzinfo=UTC).timestamp())


def payment_type(label: str, lang: str) -> str | None:
    if label == Translator(lang)("card"):
        return "card"
    return next((k for k, v in PM_LABELS.items() if v == label), None)


def price_for(catalog: list[dict[str, Any]], name: str, yearly: bool | None) -> str | None:
    for price in catalog:
        if price["product"]["name"] != name:
            continue
        interval = (price.get("recurring") or {}).get("interval")
        if yearly is None or (interval == "year") == yearly:
            return str(price["id"])
    return None


def solve_page(page: dict[str, Any], prices: list[dict[str, Any]],
               rate_ids: set[str]) -> dict[str, Any]:
    params: dict[str, Any] = {"mode": page["mode"]}
    lang = page["lang"] or "en"
    t = Translator(lang)
    yearly_texts = {t.billed({"interval": "year"}), t.interval({"interval": "year"})}
    currency = currency_of(page["total"] + " ".join(str(x["amount"]) for x in page["lines"]))
    if currency != "usd":
        params["currency"] = currency
    if page["lang"] and page["lang"] != "en":
        params["locale"] = page["lang"]
    items = []
    for line in page["lines"]:
        if line["optional"]:
            continue
        recurring = bool(line["billed"] and line["billed"] != t("one_time")) or bool(
            line["per"])
        yearly = (line["billed"] in yearly_texts or any(
            text in (line["per"] or "") for text in yearly_texts)) if recurring else None
        price = price_for(prices, line["name"], yearly)
        item: dict[str, Any] = {"price": price, "quantity": line["quantity"]}
        if line["min"] is not None:
            item["adjustable_quantity"] = {"enabled": True, "minimum": line["min"],
                                           "maximum": line["max"]}
        items.append(item)
        if line["trial"]:
            days = re.search(r"\d+", line["trial"])
            if days:
                params.setdefault("subscription_data", {})["trial_period_days"] = int(
                    days.group(0))
        if line["anchor"]:
            when = date_of(line["anchor"], lang)
            if when:
                data = params.setdefault("subscription_data", {})
                data["billing_cycle_anchor"] = when
                if line["anchor"] == t("anchor_no_proration", date=t.date(when)):
                    data["proration_behavior"] = "none"
    if items:
        params["line_items"] = items
    optional = []
    for extra in page["optional"]:
        parts = extra["unit"].split("·")
        item = {"price": price_for(prices, extra["name"], None),
                "quantity": int(re.search(r"\d+", parts[1]).group(0))}  # type: ignore[union-attr]
        if len(parts) > 2:
            low, high = re.findall(r"\d+", parts[2])[:2]
            item["adjustable_quantity"] = {"enabled": True, "minimum": int(low),
                                           "maximum": int(high)}
        optional.append(item)
    if optional:
        params["optional_items"] = optional
    if page["countries"]:
        params["shipping_address_collection"] = {"allowed_countries": page["countries"]}
    options = []
    for rate in page["shipping"]:
        if rate["id"] in rate_ids:
            options.append({"shipping_rate": rate["id"]})
            continue
        data: dict[str, Any] = {"display_name": rate["name"], "type": "fixed_amount",
                                "fixed_amount": {"amount": money(rate["amount"]),
                                                 "currency": currency}}
        window = estimate(rate["sub"], lang)
        if window:
            data["delivery_estimate"] = window
        options.append({"shipping_rate_data": data})
    if options:
        params["shipping_options"] = options
    fields = []
    for n, raw in enumerate(page["fields"]):
        field: dict[str, Any] = {"key": f"f{n}", "type": raw["type"],
                                 "label": {"type": "custom", "custom": raw["label"]}}
        if raw["optional"]:
            field["optional"] = True
        if raw["type"] == "dropdown":
            field["dropdown"] = {"options": [{"label": o["label"], "value": o["value"]}
                                             for o in raw["options"]]}
            chosen = [o["value"] for o in raw["options"] if o["selected"]]
            if chosen:
                field["dropdown"]["default_value"] = chosen[0]
        else:
            limits = {k: int(raw[attr]) for k, attr in (("minimum_length", "minlength"),
                                                        ("maximum_length", "maxlength"))
                      if raw[attr]}
            if limits:
                field[raw["type"]] = limits
        fields.append(field)
    if fields:
        params["custom_fields"] = fields
    if page["texts"]:
        params["custom_text"] = {k: {"message": v} for k, v in page["texts"].items()}
    consent = {}
    if page["promotions"]:
        consent["promotions"] = "auto"
    if page["terms"]:
        consent["terms_of_service"] = "required"
    if consent:
        params["consent_collection"] = consent
    flags = [("promo", "allow_promotion_codes", True),
             ("phone", "phone_number_collection", {"enabled": True}),
             ("taxId", "tax_id_collection", {"enabled": True}),
             ("tax", "automatic_tax", {"enabled": True}),
             ("billing", "billing_address_collection", "required")]
    for shown, name, value in flags:
        if page[shown]:
            params[name] = value
    if page["taxIdRequired"]:
        params["tax_id_collection"]["required"] = "if_supported"
    for kind in ("book", "donate"):
        if page["submit"] and page["submit"].strip() == t(f"submit_{kind}"):
            params["submit_type"] = kind
    types = [payment_type(label, lang) for label in page["paymentTabs"]]
    if len(types) > 1:
        params["payment_method_types"] = types
    if page["reuse"] and page["mode"] == "payment":
        params["payment_intent_data"] = {"setup_future_usage": "off_session"}
    return params
