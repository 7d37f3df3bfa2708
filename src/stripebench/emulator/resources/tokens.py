"""Card tokens (`POST /v1/tokens` with card details; Stripe.js `createToken`).

A token is single-use: turning it into a PaymentMethod (`card[token]`) marks it used.
The `tok_visa`-style test tokens are reusable names resolved in payment_methods.
"""

from __future__ import annotations

from typing import Any

from .. import cards
from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..router import api
from . import payment_methods


@api("POST", "/v1/tokens", publishable=True)
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    for other in ("bank_account", "pii", "account", "person", "cvc_update", "customer"):
        if params.get(other):
            raise Unsupported(f"tokens for '{other}'", param=other)
    card = params.get("card")
    if not card:
        raise InvalidRequest("Missing required param: card.", code="parameter_missing",
                             param="card")
    if isinstance(card, str):
        raise Unsupported("re-tokenizing a saved card", param="card")
    payment_methods.check_raw_card(ctx, card, "card")
    test = cards.lookup_number(card.get("number"), "card[number]")
    check_expiry = payment_methods._check_expiry  # noqa: SLF001 - shared validation
    month, year = check_expiry(ctx, card.get("exp_month"), card.get("exp_year"), "card")
    details = payment_methods.card_details(test, month, year)
    token = ctx.new("token", "tok", type="card", used=False, client_ip=None)
    token["card"] = {
        "id": ctx.new_id("card"), "object": "card", "brand": cards.brand_label(test.brand),
        "country": test.country, "exp_month": month, "exp_year": year,
        "fingerprint": details["fingerprint"], "funding": test.funding, "last4": test.last4,
        "name": card.get("name"), "address_zip": card.get("address_zip"),
        "address_line1": card.get("address_line1"), "address_line2": card.get("address_line2"),
        "address_city": card.get("address_city"), "address_state": card.get("address_state"),
        "address_country": card.get("address_country"), "cvc_check": "unchecked"
        if card.get("cvc") else None, "metadata": {}, "tokenization_method": None,
        "dynamic_last4": None, "address_line1_check": None, "address_zip_check": None,
        # What the PaymentMethod made from the same card says.
        "networks": {"preferred": details["networks"]["preferred"]},
        "regulated_status": details["regulated_status"],
    }
    token["_number"] = test.number
    ctx.put(token)
    return token


@api("GET", "/v1/tokens/{token}")
def retrieve(ctx: Ctx, params: dict[str, Any], token: str) -> dict[str, Any]:
    return ctx.get(token, "token")
