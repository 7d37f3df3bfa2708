"""Generate checkout-gym challenges: Checkout Session create parameters from a seed.

    python tests/generate.py --seed 20261202 [--count 20]     # JSON on stdout

Challenges name catalog prices and shipping rates symbolically ({"lookup_key": ...},
{"shipping_rate_lookup": ...}); `resolve` turns them into an account's real ids. The
same seed always gives the same challenges; any other seed gives a fresh set, so a
private seed is an uncontaminated benchmark. It is the task's hidden set-up (prepare.py
runs it), never the reference solution's: the oracle knows the public seed's answers
(solution/answers.json, kept in step by tests/tasks/test_task_checkout_gym.py).

The generator covers the Checkout parameter space a page can show: modes, locales,
currencies, quantities (fixed and adjustable), optional items, shipping address
countries and options (catalog rates and inline rate data), custom fields of every type,
custom text in every position, automatic tax, tax id / phone / billing address
collection, consent, submit types, trials and billing cycle anchors, and subscriptions
mixing recurring and one-time items, payment method types (the pre-endive
`payment_method_types` or endive's `allowed_payment_method_types`), saving the card for
later (`payment_intent_data.setup_future_usage`), a required tax id and anchors without
proration. Difficulty sets how many features a page combines.
"""

from __future__ import annotations

import argparse
import json
import random
from typing import Any

PUBLIC_SEED = 20261202
DEFAULT_COUNT = 20
ANCHOR_BASE = 1_767_225_600  # 2026-01-01T00:00:00Z: trial accounts start their clocks here
DAY = 86_400

COUNTRIES = ["US", "CA", "GB", "FR", "DE", "NL", "AU", "JP", "IE", "SE"]
# Checkout's locales except `en` (the default page): half the draws take one of the fully
# translated ones, half any locale. A copy of the emulator's list (the set-up runs with
# the task's files only); a test keeps them in step.
FULL_LOCALES = ["fr", "de", "es", "ja", "ko"]
LOCALES = ["bg", "cs", "da", "de", "el", "en-GB", "es", "es-419", "et", "fi", "fil", "fr",
           "fr-CA", "hi-IN", "hr", "hu", "id", "it", "ja", "ko", "lt", "lv", "ms", "mt", "nb",
           "nl", "pl", "pt", "pt-BR", "ro", "ru", "sk", "sl", "sv", "th", "tr", "vi", "zh",
           "zh-HK", "zh-TW"]
# Payment methods a page may offer beside card, by kind of session and currency: only
# methods the session can take (iDEAL needs EUR; single-use methods such as Affirm cannot
# be saved, so subscriptions and setup leave them out), as Stripe requires.
PAYMENT_METHODS = {
    ("payment", "usd"): ["cashapp", "affirm", "klarna", "us_bank_account", "amazon_pay",
                         "paypal"],
    ("payment", "eur"): ["ideal", "bancontact", "eps", "sepa_debit", "klarna", "paypal", "p24"],
    ("payment", "gbp"): ["bacs_debit", "klarna", "paypal", "afterpay_clearpay", "revolut_pay"],
    ("reuse", "usd"): ["us_bank_account", "cashapp", "paypal"],
    ("reuse", "eur"): ["sepa_debit", "ideal", "bancontact", "paypal"],
    ("reuse", "gbp"): ["bacs_debit", "paypal", "revolut_pay"],
}
# Before 2026-09-30.endive sessions named their methods with `payment_method_types`;
# from endive with `allowed_payment_method_types`. The set-up creates a session that
# uses the old name at this version (the newest before endive).
PRE_ENDIVE_VERSION = "2026-08-26.dahlia"
INLINE_RATES = [  # shipping options the catalog does not hold: the agent writes rate data
    {"display_name": "Bike courier", "amount": 900,
     "estimate": (("hour", 2), ("hour", 6))},
    {"display_name": "Pick up at the Boulder store", "amount": 0,
     "estimate": (("day", 1), ("day", 2))},
    {"display_name": "Freight (oversize)", "amount": 4200,
     "estimate": (("week", 1), ("week", 3))},
    {"display_name": "Two-day", "amount": 2200,
     "estimate": (("business_day", 2), ("business_day", 2))},
]
DROPDOWNS = [
    ("Shoe size (EU)", ["38", "39", "40", "41", "42", "43", "44", "45"]),
    ("Colour", ["Slate", "Moss", "Ember", "Glacier", "Sand"]),
    ("How did you hear about us?", ["A friend", "Trail race", "Podcast", "Instagram",
                                    "Search engine"]),
    ("Gift wrap", ["No wrap", "Recycled paper", "Cotton bag"]),
    ("Preferred group run", ["Tuesday dawn", "Thursday evening", "Saturday long run"]),
]
TEXTS = ["Name on the race bib", "Engraving text", "Club nickname", "Delivery instructions",
         "Coach's name"]
NUMERICS = ["Club member number", "Race entry number", "Strava athlete id", "Locker number"]
MESSAGES = {
    "shipping_address": ["We ship from Boulder, Colorado within one business day.",
                         "Oversize parcels may need a signature on delivery.",
                         "PO boxes cannot receive courier deliveries."],
    "submit": ["Orders placed before 2 pm ship the same day.",
               "You can return unworn gear within 60 days.",
               "Members get 10% back as store credit."],
    "after_submit": ["A receipt is on its way to your inbox.",
                     "Check your email for trail-club onboarding.",
                     "We will text you when your parcel leaves the shop."],
    "terms_of_service_acceptance": ["I agree to the Trail Club code of conduct.",
                                    "I accept the rental and returns terms."],
}
DIFFICULTY_FEATURES = {"easy": (0, 2), "medium": (3, 5), "hard": (6, 10)}


# The catalog fixtures.json creates (a test keeps the two in step), as the generator
# needs it: price lookup key -> (product, recurring interval or None), shipping rates by
# their `lookup` metadata (a copy: the generator names catalog objects symbolically).
PRICES: dict[str, tuple[str, str | None]] = {
    "trail_shoes": ("shoes", None), "merino_socks": ("socks", None),
    "insulated_bottle": ("bottle", None), "summit_headlamp": ("headlamp", None),
    "storm_shell": ("shell", None), "energy_gels": ("gels", None),
    "trail_map": ("map", None), "carbon_poles": ("poles", None),
    "club_monthly": ("club", "month"), "club_yearly": ("club", "year"),
    "coaching_monthly": ("coaching", "month"), "coaching_yearly": ("coaching", "year"),
    "protection_monthly": ("insurance", "month"), "protection_yearly": ("insurance", "year"),
    "magazine_monthly": ("magazine", "month"), "magazine_yearly": ("magazine", "year"),
}
RATES = ("standard", "express", "free", "overnight")


def catalog() -> dict[str, Any]:
    """Prices (with product and recurring interval) and shipping rates, by lookup key."""
    prices: dict[str, dict[str, Any]] = {}
    for key, (product, interval) in PRICES.items():
        prices[key] = {"product": product}
        if interval:
            prices[key]["recurring"] = {"interval": interval}
    return {"prices": prices, "rates": {key: {} for key in RATES}}


def _difficulties(rng: random.Random, count: int) -> list[str]:
    # Roughly 30% easy, 40% medium, 30% hard, in a seeded order.
    easy = round(count * 0.3)
    hard = round(count * 0.3)
    tiers = ["easy"] * easy + ["hard"] * hard + ["medium"] * (count - easy - hard)
    rng.shuffle(tiers)
    return tiers


def _quantity_block(rng: random.Random, quantity: int) -> dict[str, Any]:
    block: dict[str, Any] = {"enabled": True}
    if rng.random() < 0.6:
        block["minimum"] = rng.choice([m for m in (1, 2) if m <= quantity])
    if rng.random() < 0.7:
        block["maximum"] = rng.choice([m for m in (5, 10, 12, 20) if m >= quantity])
    return block


def _custom_field(rng: random.Random, kind: str, used: set[str], index: int) -> dict[str, Any]:
    if kind == "dropdown":
        label, values = rng.choice([d for d in DROPDOWNS if d[0] not in used])
        options = values[: rng.randint(2, len(values))] if len(values) > 3 else values
        field: dict[str, Any] = {
            "key": f"field{index}", "type": "dropdown",
            "label": {"type": "custom", "custom": label},
            "dropdown": {"options": [{"label": o, "value": f"opt{n}"}
                                     for n, o in enumerate(options)]}}
        if rng.random() < 0.4:
            field["dropdown"]["default_value"] = f"opt{rng.randrange(len(options))}"
    else:
        pool = TEXTS if kind == "text" else NUMERICS
        label = rng.choice([t for t in pool if t not in used])
        field = {"key": f"field{index}", "type": kind,
                 "label": {"type": "custom", "custom": label}}
        limits: dict[str, Any] = {}
        if rng.random() < 0.5:
            limits["minimum_length"] = rng.choice([2, 3, 4])
        if rng.random() < 0.5:
            limits["maximum_length"] = rng.choice([8, 12, 20, 30])
        if limits:
            field[kind] = limits
    if rng.random() < 0.35:
        field["optional"] = True
    used.add(field["label"]["custom"])
    return field


def _shipping_option(rng: random.Random, cat: dict[str, Any], used: set[str],
                     currency: str) -> dict[str, Any]:
    if rng.random() < 0.7:
        key = rng.choice([k for k in cat["rates"] if k not in used])
        used.add(key)
        return {"shipping_rate": {"shipping_rate_lookup": key}}
    rate = rng.choice([r for r in INLINE_RATES if r["display_name"] not in used])
    used.add(rate["display_name"])
    (lo_unit, lo), (hi_unit, hi) = rate["estimate"]
    return {"shipping_rate_data": {
        "display_name": rate["display_name"], "type": "fixed_amount",
        "fixed_amount": {"amount": rate["amount"], "currency": currency},
        "delivery_estimate": {"minimum": {"unit": lo_unit, "value": lo},
                              "maximum": {"unit": hi_unit, "value": hi}}}}


def _pick_features(rng: random.Random, mode: str, difficulty: str) -> list[str]:
    pool = ["locale", "currency", "promotion_codes", "custom_field", "custom_field",
            "custom_text_submit", "custom_text_after", "automatic_tax", "tax_id",
            "phone", "billing_address", "consent_promotions", "terms", "payment_methods"]
    if mode == "payment":
        pool += ["shipping", "shipping", "adjustable", "optional_items", "submit_type",
                 "custom_field", "more_items", "save_for_later"]
    elif mode == "subscription":
        pool += ["trial", "anchor", "anchor", "one_time_item", "adjustable", "more_items",
                 "shipping_address"]
    else:
        pool = ["locale", "currency", "custom_field", "custom_text_submit",
                "custom_text_after", "phone", "billing_address", "payment_methods"]
    low, high = DIFFICULTY_FEATURES[difficulty]
    count = min(rng.randint(low, high), len(pool))
    picked = rng.sample(pool, count)
    if "trial" in picked and "anchor" in picked:  # one or the other: keeps pages readable
        picked.remove("anchor")
    return picked


def challenge(rng: random.Random, number: int, difficulty: str,
              cat: dict[str, Any]) -> dict[str, Any]:
    mode = rng.choices(["payment", "subscription", "setup"], weights=[60, 32, 8])[0]
    features = _pick_features(rng, mode, difficulty)
    params: dict[str, Any] = {"mode": mode}
    currency = "usd"
    if mode == "setup" or "currency" in features:
        currency = rng.choice(["eur", "gbp"] if mode != "setup" else ["usd", "eur", "gbp"])
        params["currency"] = currency
    one_time = [k for k, p in cat["prices"].items() if "recurring" not in p]
    recurring = [k for k, p in cat["prices"].items() if "recurring" in p]
    if mode == "payment":
        count = rng.randint(2, 4) if "more_items" in features else rng.randint(1, 2)
        keys = rng.sample(one_time, count)
        items = [{"price": {"lookup_key": k}, "quantity": rng.choice([1, 1, 2, 3])} for k in keys]
        if "adjustable" in features:
            for item in rng.sample(items, rng.randint(1, len(items))):
                item["adjustable_quantity"] = _quantity_block(rng, item["quantity"])
        params["line_items"] = items
        if "optional_items" in features:
            rest = [k for k in one_time if k not in keys]
            optional = []
            for k in rng.sample(rest, rng.randint(1, 2)):
                item = {"price": {"lookup_key": k}, "quantity": 1}
                if rng.random() < 0.5:
                    item["adjustable_quantity"] = _quantity_block(rng, item["quantity"])
                optional.append(item)
            params["optional_items"] = optional
    elif mode == "subscription":
        interval = rng.choice(["month", "year"])
        same = [k for k in recurring if cat["prices"][k]["recurring"]["interval"] == interval]
        products = {cat["prices"][k]["product"] for k in same}
        by_product = {p: [k for k in same if cat["prices"][k]["product"] == p]
                      for p in sorted(products)}
        count = rng.randint(2, 3) if "more_items" in features else 1
        keys = [rng.choice(by_product[p]) for p in rng.sample(sorted(by_product), count)]
        items = [{"price": {"lookup_key": k}, "quantity": 1} for k in keys]
        if "adjustable" in features:
            items[0]["adjustable_quantity"] = _quantity_block(rng, 1)
        if "one_time_item" in features:
            items.append({"price": {"lookup_key": rng.choice(one_time)},
                          "quantity": rng.choice([1, 2])})
        params["line_items"] = items
        sub: dict[str, Any] = {}
        if "trial" in features:
            sub["trial_period_days"] = rng.choice([7, 14, 30])
        if "anchor" in features:
            # Within the first month: Stripe refuses an anchor past the next natural
            # billing date (1 February for a monthly price bought on 1 January).
            sub["billing_cycle_anchor"] = ANCHOR_BASE + DAY * rng.randint(10, 30)
            # The first period free ("none") or prorated: the page says which. The
            # default, create_prorations, is sometimes written out.
            behaviour = rng.choices([None, "none", "create_prorations"], [4, 5, 1])[0]
            if behaviour:
                sub["proration_behavior"] = behaviour
        if sub:
            params["subscription_data"] = sub
    if "locale" in features:
        params["locale"] = rng.choice(FULL_LOCALES if rng.random() < 0.5 else LOCALES)
    if "payment_methods" in features:
        kind = "payment" if mode == "payment" else "reuse"
        extra = PAYMENT_METHODS[(kind, currency)]
        types = ["card"] + rng.sample(extra, rng.randint(1, min(3, len(extra))))
        name = rng.choice(["payment_method_types", "allowed_payment_method_types"])
        params[name] = types
    if "save_for_later" in features:
        params["payment_intent_data"] = {
            "setup_future_usage": rng.choice(["off_session", "on_session"])}
    if "promotion_codes" in features:
        params["allow_promotion_codes"] = True
    if "shipping" in features or "shipping_address" in features:
        params["shipping_address_collection"] = {
            "allowed_countries": sorted(rng.sample(COUNTRIES, rng.randint(1, 5)))}
        if mode == "payment":
            used: set[str] = set()
            params["shipping_options"] = [_shipping_option(rng, cat, used, currency)
                                          for _ in range(rng.randint(1, 3))]
    fields = []
    used_labels: set[str] = set()
    for n in range(features.count("custom_field")):
        kind = rng.choice(["dropdown", "text", "numeric"])
        fields.append(_custom_field(rng, kind, used_labels, n + 1))
    if fields:
        params["custom_fields"] = fields
    text: dict[str, Any] = {}
    if "custom_text_submit" in features:
        text["submit"] = {"message": rng.choice(MESSAGES["submit"])}
    if "custom_text_after" in features:
        text["after_submit"] = {"message": rng.choice(MESSAGES["after_submit"])}
    if "shipping_address_collection" in params and rng.random() < 0.5:
        text["shipping_address"] = {"message": rng.choice(MESSAGES["shipping_address"])}
    if "terms" in features:
        params.setdefault("consent_collection", {})["terms_of_service"] = "required"
        if rng.random() < 0.5:
            text["terms_of_service_acceptance"] = {
                "message": rng.choice(MESSAGES["terms_of_service_acceptance"])}
    if text:
        params["custom_text"] = text
    if "consent_promotions" in features:
        params.setdefault("consent_collection", {})["promotions"] = "auto"
    if "automatic_tax" in features:
        params["automatic_tax"] = {"enabled": True}
    if "tax_id" in features:
        params["tax_id_collection"] = {"enabled": True}
        if rng.random() < 0.5:
            params["tax_id_collection"]["required"] = rng.choice(["if_supported",
                                                                  "if_supported", "never"])
    if "phone" in features:
        params["phone_number_collection"] = {"enabled": True}
    if "billing_address" in features:
        params["billing_address_collection"] = "required"
    if "submit_type" in features:
        # "pay" would draw the same button as the default ("auto"): not recoverable.
        params["submit_type"] = rng.choice(["book", "donate"])
    return {"number": number, "difficulty": difficulty, "params": params}


def generate(seed: int = PUBLIC_SEED, count: int = DEFAULT_COUNT) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cat = catalog()
    return [challenge(rng, n + 1, tier, cat)
            for n, tier in enumerate(_difficulties(rng, count))]


def resolve(value: Any, price_ids: dict[str, str], rate_ids: dict[str, str]) -> Any:
    """Replace symbolic catalog references with an account's ids."""
    if isinstance(value, dict):
        if set(value) == {"lookup_key"}:
            return price_ids[value["lookup_key"]]
        if set(value) == {"shipping_rate_lookup"}:
            return rate_ids[value["shipping_rate_lookup"]]
        return {k: resolve(v, price_ids, rate_ids) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, price_ids, rate_ids) for v in value]
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=PUBLIC_SEED)
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT)
    args = parser.parse_args()
    print(json.dumps(generate(args.seed, args.count), indent=2))


if __name__ == "__main__":
    main()
