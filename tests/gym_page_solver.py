"""A checkout-gym solver that reads only what the pages show (plus the agent's catalog).

It stands in for a careful agent: it opens each challenge in Chromium, reads the embedded
Checkout frame's DOM (no hidden data, no API access to the sessions) and rebuilds the
create parameters. The task tests require it to score high, which proves the pages carry
what the answers need and keeps them doing so as the Checkout page changes.
"""

from __future__ import annotations

import re
from typing import Any

from stripebench.emulator.web.checkout.locales import MONTHS

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
    billing: !!q('#billing-line1'), tax: !!q('.row.tax'),
    promotions: !!q('#consent-promotions'), terms: !!q('#consent-terms'),
    submit: q('#submit') ? q('#submit').dataset.label : null,
    bodyText: document.body.innerText,
  };
}
"""

UNITS = [("business_day", r"business|ouvr|werktag|h[aá]bil"), ("hour", r"hour|heure|stunde|hora"),
         ("week", r"week|semaine|woche|semana"), ("month", r"month|mois|monat|mes"),
         ("day", r"day|jour|tag|d[ií]a")]
YEARLY = re.compile(r"year|\ban\b|jahr|a[nñ]o", re.I)
SUBMIT = {"book": re.compile(r"^(book|réserver|buchen|reservar)$", re.I),
          "donate": re.compile(r"^(donate|faire un don|spenden|donar)$", re.I)}


def money(text: str | None) -> int:
    """Minor units from a localized amount ("1.234,50 €", "$5.99", "Free" -> 0)."""
    digits = re.sub(r"[^\d.,]", "", text or "")
    if not digits:
        return 0
    whole, _, cents = re.sub(r"[.,](?=\d{3}\b)", "", digits).replace(",", ".").partition(".")
    return int(whole or 0) * 100 + int((cents + "00")[:2])


def currency_of(text: str) -> str:
    if "€" in text:
        return "eur"
    if "£" in text or "GBP" in text:
        return "gbp"
    return "usd"


def unit_of(word: str) -> str:
    return next(unit for unit, pattern in UNITS if re.search(pattern, word, re.I))


def estimate(sub: str | None) -> dict[str, Any] | None:
    found = re.findall(r"(\d+)\s*([^\d]+?)(?=\s+(?:to|à|bis|a)\s+\d|$)", sub or "")
    if len(found) != 2:
        return None
    (low, low_unit), (high, high_unit) = found
    return {"minimum": {"unit": unit_of(low_unit), "value": int(low)},
            "maximum": {"unit": unit_of(high_unit), "value": int(high)}}


def anchor_date(text: str, lang: str) -> int | None:
    """The timestamp (UTC midnight) of a localized date such as "21 janvier 2026"."""
    from datetime import UTC, datetime

    months = MONTHS.get(lang, MONTHS["en"])
    for n, name in enumerate(months, start=1):
        if name.lower() in text.lower():
            day = re.search(r"\b(\d{1,2})\b(?!\d)", text.replace(str(_year(text)), ""))
            if day:
                return int(datetime(_year(text), n, int(day.group(1)), tzinfo=UTC).timestamp())
    return None


def _year(text: str) -> int:
    found = re.search(r"\b(20\d\d)\b", text)
    return int(found.group(1)) if found else 2026


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
    currency = currency_of(page["total"] + " ".join(str(x["amount"]) for x in page["lines"]))
    if currency != "usd":
        params["currency"] = currency
    if page["lang"] and page["lang"] != "en":
        params["locale"] = page["lang"]
    items = []
    for line in page["lines"]:
        if line["optional"]:
            continue
        recurring = bool(line["billed"] and not re.search(r"one|unique|einmal|único",
                                                          line["billed"], re.I)) or bool(
            line["per"])
        yearly = bool(YEARLY.search(f"{line['billed'] or ''} {line['per'] or ''}")) \
            if recurring else None
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
            when = anchor_date(line["anchor"], page["lang"])
            if when:
                params.setdefault("subscription_data", {})["billing_cycle_anchor"] = when
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
        window = estimate(rate["sub"])
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
    for kind, pattern in SUBMIT.items():
        if page["submit"] and pattern.match(page["submit"].strip()):
            params["submit_type"] = kind
    return params
