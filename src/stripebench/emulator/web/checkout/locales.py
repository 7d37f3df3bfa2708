"""Page strings, money, dates and billing intervals for the Checkout page, per locale.

Each locale Checkout accepts (the `locale` enum of `checkout.sessions.create`) has a file
in translations/<locale>.json: its page strings, number style, date pattern and currency
symbols. A regional locale (`en-GB`, `pt-BR`, `zh-TW` ...) names its `base` and only
overrides what differs. A string missing from a locale falls back to its base, then to
English, never to a key name. en, fr, de, es, ja and ko translate every string; the others
translate the page's own labels (LABELS) and the messages a shopper meets most (MESSAGES:
card and field errors, the confirmation and expiry pages) and fall back to English for the
rest.
"""

from __future__ import annotations

import datetime
import json
from functools import cache
from pathlib import Path
from typing import Any

TRANSLATIONS = Path(__file__).parent / "translations"
ZERO_DECIMAL = {"bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx",
                "vnd", "vuv", "xaf", "xof", "xpf"}
# The locales checkout.sessions.create accepts (besides `auto`).
LOCALES = ("bg", "cs", "da", "de", "el", "en", "en-GB", "es", "es-419", "et", "fi", "fil",
           "fr", "fr-CA", "hi-IN", "hr", "hu", "id", "it", "ja", "ko", "lt", "lv", "ms", "mt",
           "nb", "nl", "pl", "pt", "pt-BR", "ro", "ru", "sk", "sl", "sv", "th", "tr", "vi",
           "zh", "zh-HK", "zh-TW")
# The labels of the page itself: every locale translates these.
LABELS = ("contact", "email", "phone", "shipping_address", "shipping_method",
          "billing_address", "payment_method", "card", "card_information", "card_number",
          "expiration", "expiration_placeholder", "cvc", "cardholder_name", "country",
          "address_line1", "address_line2", "city", "state", "postal_code", "name",
          "optional", "submit_pay", "submit_subscribe", "submit_start_trial", "submit_save",
          "submit_donate", "submit_book", "processing", "subtotal", "total_due",
          "total_due_today", "shipping", "tax", "add_promo", "promotion_code", "apply",
          "remove", "back", "powered_by", "terms", "privacy", "pay_merchant", "subscribe_to",
          "per_month", "per_year", "complete_title", "expired_title", "qty", "full_name")

# Inline errors and status pages: every locale translates these too.
MESSAGES = ("err_required", "err_email", "err_card_number", "err_card_invalid", "err_expiry",
            "err_expiry_past", "err_expiry_invalid", "err_expiry_date_past", "err_cvc",
            "err_phone", "err_promo_invalid", "complete_body", "expired_body", "complete_setup")


@cache
def _file(locale: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((TRANSLATIONS / f"{locale}.json").read_text("utf-8"))
    return data


@cache
def locale_data(locale: str) -> dict[str, Any]:
    """The locale's settings with its base's (and English's) filled in underneath."""
    own = _file(locale)
    base = locale_data(own["base"]) if "base" in own else (
        {} if locale == "en" else locale_data("en"))
    merged = {**base, **{k: v for k, v in own.items() if k not in ("strings", "symbols")}}
    merged["strings"] = {**base.get("strings", {}), **own.get("strings", {})}
    merged["symbols"] = {**base.get("symbols", {}), **own.get("symbols", {})}
    return merged


# The fully translated locales (every string, not only LABELS), their tables as written.
COMPLETE = ("en", "fr", "de", "es", "ja", "ko")
STRINGS: dict[str, dict[str, str]] = {loc: _file(loc)["strings"] for loc in COMPLETE}
EN = STRINGS["en"]
# Month names of the locales whose dates spell the month out.
MONTHS: dict[str, list[str]] = {loc: locale_data(loc)["months"] for loc in LOCALES
                                if "{month}" in locale_data(loc)["date"]}


def pick_locale(requested: str | None, accept_language: str = "") -> str:
    """The page language: the session's locale, else (for auto/none) the browser's."""
    candidates = []
    if requested and requested != "auto":
        candidates.append(requested)
    else:
        candidates += [part.split(";")[0].strip() for part in accept_language.split(",")]
    by_lower = {tag.lower(): tag for tag in LOCALES}
    for candidate in candidates:
        tag = candidate.lower()
        if tag in by_lower:
            return by_lower[tag]
        base = tag.split("-")[0]
        if base in by_lower:
            return by_lower[base]
    return "en"


class Translator:
    def __init__(self, locale: str) -> None:
        self.locale = locale if locale in LOCALES else "en"
        self.data = locale_data(self.locale)
        self.table: dict[str, str] = self.data["strings"]

    def __call__(self, key: str, **values: Any) -> str:
        text = self.table[key]
        return text.format(**values) if values else text

    def money(self, amount: int | None, currency: str | None) -> str:
        if amount is None or not currency:
            return ""
        cur = currency.lower()
        style = self.data["number"]
        digits = 0 if cur in ZERO_DECIMAL else 2
        negative = amount < 0
        value = abs(amount)
        whole, frac = (value, 0) if digits == 0 else divmod(value, 100)
        grouped = f"{whole:,}".replace(",", style["group"])
        number = grouped if digits == 0 else f"{grouped}{style['decimal']}{frac:02d}"
        symbol = self.data["symbols"].get(cur) or f"{cur.upper()} "
        if style["symbol_after"]:
            text = f"{number}\u00a0{symbol.strip()}"
        else:
            text = f"{symbol}{number}"
        return f"-{text}" if negative else text

    def date(self, timestamp: int) -> str:
        day = datetime.datetime.fromtimestamp(timestamp, datetime.UTC).date()
        pattern: str = self.data["date"]
        month = self.data["months"][day.month - 1] if "{month}" in pattern else ""
        return pattern.format(d=day.day, m=day.month, y=day.year, month=month,
                              dd=f"{day.day:02d}", mm=f"{day.month:02d}")

    def interval(self, recurring: dict[str, Any]) -> str:
        """'per month', 'every 3 months' ..."""
        unit = recurring["interval"]
        count = int(recurring.get("interval_count") or 1)
        if count == 1:
            return self(f"per_{unit}")
        return self(f"every_n_{unit}", n=count)

    def billed(self, recurring: dict[str, Any]) -> str:
        """'Billed monthly', 'Billed every 3 months' ..."""
        unit = recurring["interval"]
        count = int(recurring.get("interval_count") or 1)
        if count == 1:
            return self(f"billed_{unit}")
        return self("billed_every", interval=self(f"every_n_{unit}", n=count))

    def delivery(self, estimate: dict[str, Any] | None) -> str:
        if not estimate:
            return ""

        def part(bound: dict[str, Any] | None) -> str | None:
            if not bound:
                return None
            if int(bound["value"]) == 1:
                return self(f"unit_{bound['unit']}_one")
            return self(f"unit_{bound['unit']}", n=bound["value"])
        low, high = part(estimate.get("minimum")), part(estimate.get("maximum"))
        if low and high:
            return self("delivery_range", min=low, max=high)
        if low:
            return self("delivery_min", min=low)
        return self("delivery_max", max=high) if high else ""
