"""Request rules shared by the intent endpoints (PaymentIntents, SetupIntents,
ConfirmationTokens) and the legacy Charges API: amount limits, the client secret a
publishable key must show, the params Stripe.js and older versions send, and the params
refused as not emulated. Below every payments module: it imports none of them but
payment_methods."""

from __future__ import annotations

import copy
from typing import Any

from .. import schema
from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..versions import older_than
from .payment_methods import check_raw_card

MINIMUMS = {"usd": 50, "eur": 50, "gbp": 30, "cad": 50, "aud": 50, "chf": 50, "jpy": 50,
            "nzd": 50, "sgd": 50, "hkd": 400, "mxn": 1000, "brl": 50, "inr": 50, "dkk": 250,
            "nok": 300, "sek": 300, "pln": 200, "czk": 1500, "huf": 17500, "thb": 1000}
MAXIMUM = 99_999_999


def check_amount(value: Any, cur: str, param: str = "amount") -> int:
    """Stripe's minimum and maximum charge amounts (in the currency's smallest unit)."""
    if value is None:
        raise InvalidRequest(f"Missing required param: {param}.", code="parameter_missing",
                             param=param)
    amount = int(value)
    cur = str(cur).lower()
    minimum = MINIMUMS.get(cur, 50)
    if amount < minimum:
        shown = f"${minimum / 100:.2f}" if cur == "usd" else f"{minimum / 100:.2f}"
        raise InvalidRequest(f"Amount must be at least {shown} {cur}", code="amount_too_small",
                             param=param)
    if amount > MAXIMUM:
        raise InvalidRequest("Amount must be no more than $999,999.99", code="amount_too_large",
                             param=param)
    return amount


def check_client_secret(ctx: Ctx, obj: dict[str, Any], given: Any, kind: str) -> None:
    """Publishable-key calls must prove they hold the intent's client secret."""
    if ctx.key_kind != "publishable":
        return
    if not given:
        raise InvalidRequest("Missing required param: client_secret.", code="parameter_missing",
                             param="client_secret")
    if given != obj.get("client_secret"):
        raise InvalidRequest(f"The client_secret provided does not match any associated {kind} "
                             "on this account. Ensure the publishable key used belongs to the "
                             "same account that created the " + kind + ".",
                             param="client_secret", status=400)


_CARD_PARAM = {"type": "object", "properties": {
    k: {"type": "string"} for k in ("number", "exp_month", "exp_year", "cvc", "token")}}
TYPES_REMOVED_IN = "2026-09-30"


def params_with(method: str, template: str, *, client_secret: bool = False,
                card_data: bool = False, legacy_types: bool = False) -> dict[str, Any]:
    """The SDK's params for an endpoint plus what Stripe.js or older versions send:
    `client_secret`, raw card details in `payment_method_data[card]`, and the
    `payment_method_types` param removed in 2026-09-30.endive."""
    entry = schema.endpoint(method, template)
    spec: dict[str, Any] = (copy.deepcopy(entry["params"]) if entry
                            else {"type": "object", "properties": {}})
    props: dict[str, Any] = spec["properties"]
    if client_secret:
        props["client_secret"] = {"type": "string"}
    if card_data and "payment_method_data" in props:
        # Stripe accepts card details here (a token, or raw numbers from Stripe.js) though
        # the SDK's types leave card out.
        data = props["payment_method_data"]
        data["properties"]["card"] = _CARD_PARAM
        kind = data["properties"].get("type", {})
        if "card" not in kind.get("enum", ["card"]):
            kind["enum"] = sorted([*kind["enum"], "card"])
    if legacy_types:
        props["payment_method_types"] = {"type": "array", "items": {"type": "string"}}
    return spec


# Accepted by Stripe, without an emulation here: refused rather than silently dropped.
NOT_EMULATED = ("customer_account", "hooks", "payment_details", "payment_method_configuration")


def check_request(ctx: Ctx, params: dict[str, Any]) -> None:
    """Checks only API callers get (Checkout and Billing call the functions directly)."""
    for key in NOT_EMULATED:
        if params.get(key):
            raise Unsupported(f"the PaymentIntent parameter `{key}`", param=key)
    check_legacy_types(ctx, params)
    check_raw_card(ctx, (params.get("payment_method_data") or {}).get("card"),
                   "payment_method_data[card]")


def check_legacy_types(ctx: Ctx, params: dict[str, Any]) -> None:
    """`payment_method_types` is rejected from 2026-09-30.endive on (read-only since)."""
    if "payment_method_types" in params and not older_than(ctx.version, TYPES_REMOVED_IN):
        raise InvalidRequest(
            "The `payment_method_types` parameter is no longer supported on API version "
            f"{ctx.version}. Use dynamic payment methods, `excluded_payment_method_types` or "
            "`allowed_payment_method_types` instead.",
            code="payment_method_types_no_longer_supported", param="payment_method_types")
