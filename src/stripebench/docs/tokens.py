"""Tokenisation tuned for API text.

Stripe vocabulary is full of compound names: `subscription_data.trial_period_days`,
`/v1/checkout/sessions/{session}/line_items`, `initEmbeddedCheckout`, `pm_card_visa`.
An agent may type the compound (`custom_fields`), its parts ("custom fields"), or a
camelCase spelling from Stripe.js or stripe-node. Each compound is therefore indexed both
whole and split into its parts; the FTS5 tokenizer (`porter unicode61 tokenchars '_'`)
then stems every term the same way for documents and queries.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[A-Za-z0-9_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

STOPWORDS = frozenset("""
a an and are as at be by can do does for from get got how i if in into is it its me my
of on or set should so that the their them then there these this to use using via was
we what when where which while why will with you your want need does don't not way
""".split())

# Query-side expansions: words agents use that the docs spell differently.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "3ds": ("3d", "secure", "authentication"),
    "3dsecure": ("3d", "secure"),
    "sca": ("authentication", "3d", "secure"),
    "otp": ("authentication",),
    "webhook": ("webhook", "event"),
    "webhooks": ("webhook", "event"),
    "signing": ("signature",),
    "verify": ("verify", "signature"),
    "paginate": ("pagination", "starting_after", "has_more"),
    "pagination": ("pagination", "starting_after", "auto_paging_iter"),
    "promo": ("promotion", "code"),
    "coupon": ("coupon", "discount"),
    "discount": ("discount", "coupon"),
    "decline": ("decline", "declined", "decline_code"),
    "declined": ("decline", "declined", "decline_code"),
    "upgrade": ("upgrade", "version"),
    "migrate": ("upgrade", "version"),
    "migration": ("upgrade", "version"),
    "retry": ("retry", "idempotency"),
    "duplicate": ("idempotency",),
    "prorate": ("proration", "proration_behavior"),
    "prorated": ("proration", "proration_behavior"),
    "prorations": ("proration", "proration_behavior"),
    "usage": ("usage", "meter", "metered"),
    "metered": ("meter", "metered", "meter_event"),
    "trial": ("trial", "trial_period_days", "trial_end"),
    "freetrial": ("trial",),
    "dropdown": ("dropdown", "options"),
    "embedded": ("embedded", "embedded_page"),
    "hosted": ("hosted", "hosted_page"),
    "connected": ("connect", "connected", "stripe_account"),
    "marketplace": ("connect",),
    "platform": ("connect", "platform"),
    "save": ("save", "setup", "setup_future_usage"),
    "saved": ("save", "setup", "setup_future_usage"),
    "card": ("card",),
    "refund": ("refund", "refunds"),
    "cancel": ("cancel", "cancel_at_period_end", "canceled"),
    "unsupported": ("unsupported", "emulator", "limit"),
    "emulator": ("emulator",),
    "sandbox": ("test", "mode"),
    "installment": ("partial", "payment"),
    "installments": ("partial", "payment"),
    "renew": ("renewal", "period"),
    "renews": ("renewal", "period"),
    "renewal": ("renewal", "period"),
    "authorize": ("authorize", "capture", "manual"),
    "authorise": ("authorize", "capture", "manual"),
    "reimburse": ("refund",),
    "chargeback": ("dispute",),
    "seller": ("connect", "connected", "account"),
    "sellers": ("connect", "connected", "account"),
    "portal": ("portal", "billing_portal"),
    "receipt": ("receipt", "receipt_url"),
}


def split_compound(word: str) -> list[str]:
    """`trial_period_days` -> [trial, period, days]; `initEmbeddedCheckout` -> [init, ...]."""
    parts: list[str] = []
    for chunk in word.split("_"):
        parts.extend(p.lower() for p in _CAMEL.findall(chunk))
    return [p for p in parts if p]


@lru_cache(maxsize=262144)
def _word_terms(raw: str) -> tuple[str, ...]:
    """Terms of one word (the vocabulary repeats a lot, so this is cached)."""
    word = raw.lower()
    parts = split_compound(raw)
    found = [word, *parts] if len(parts) > 1 else [word]
    return tuple(t for t in found if t not in STOPWORDS)


_CARD_NUMBER = re.compile(r"\b\d{4}(?:[ -]\d{4,6}){2,3}\b")


def terms(text: str) -> list[str]:
    """Index terms for `text`: every word lower-cased, compounds also split."""
    # Card numbers are written in groups ("4000 0000 0000 9995") but typed whole.
    out: list[str] = [re.sub(r"[ -]", "", m.group()) for m in _CARD_NUMBER.finditer(text)]
    for match in _WORD.finditer(text):
        raw = match.group().strip("_")
        if raw:
            out.extend(_word_terms(raw))
    return out


def index_text(text: str) -> str:
    return " ".join(terms(text))


def query_terms(query: str) -> list[str]:
    """Distinct terms of a query, with synonyms appended (the original terms first)."""
    base = list(dict.fromkeys(terms(query)))
    extra: list[str] = []
    for t in base:
        extra.extend(SYNONYMS.get(t, ()))
    return list(dict.fromkeys(base + [e for e in extra if e not in base]))


def content_terms(query: str) -> list[str]:
    """The plain words of a query that a useful answer should contain (for logging)."""
    distinct = list(dict.fromkeys(terms(query)))
    return [t for t in distinct if "_" not in t] or distinct
