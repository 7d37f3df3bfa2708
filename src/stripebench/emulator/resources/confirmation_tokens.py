"""ConfirmationTokens: the payment details a page collected, for the server to confirm.

Stripe.js `createConfirmationToken({elements})` posts the Payment Element's card to
`POST /v1/confirmation_tokens` (publishable key); tests on the server make one with
`POST /v1/test_helpers/confirmation_tokens` (`payment_method=pm_card_visa` or
`payment_method_data`). The server then creates or confirms a PaymentIntent or
SetupIntent with `confirmation_token=ctoken_...`: the token's card, `return_url`,
`setup_future_usage` and `shipping` are used as if passed to that confirm. A token is
good for one confirmation and for 12 hours.
"""

from __future__ import annotations

from typing import Any

from .. import shape
from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..router import api
from . import payment_methods
from .intent_params import params_with

LIFETIME = 12 * 3600


def _preview(pm: dict[str, Any]) -> dict[str, Any]:
    spec = shape.field_spec("confirmation_token") or {}
    declared = set((spec.get("payment_method_preview") or {}).get("fields") or {})
    return {k: v for k, v in pm.items() if k in declared and not k.startswith("_")}


def create_token(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    data = params.get("payment_method_data")
    if data and params.get("payment_method"):
        raise InvalidRequest("You cannot pass both `payment_method` and "
                             "`payment_method_data`.", param="payment_method_data")
    if params.get("payment_method_options"):
        raise Unsupported("payment_method_options on ConfirmationTokens",
                          param="payment_method_options")
    if data:
        pm = payment_methods.from_payment_method_data(ctx, data)
    elif params.get("payment_method"):
        pm = payment_methods.resolve(ctx, params["payment_method"])
    else:
        raise InvalidRequest("Missing required param: payment_method_data.",
                             code="parameter_missing", param="payment_method_data")
    token = ctx.new("confirmation_token", "ctoken", expires_at=ctx.now() + LIFETIME,
                    return_url=params.get("return_url"),
                    setup_future_usage=params.get("setup_future_usage"),
                    shipping=params.get("shipping"), use_stripe_sdk=ctx.key_kind == "publishable",
                    payment_method_preview=_preview(pm), _payment_method=pm["id"])
    ctx.put(token)
    return token


def _token_params() -> dict[str, Any]:
    spec = params_with("POST", "/v1/test_helpers/confirmation_tokens", card_data=True)
    spec["properties"]["client_context"] = {"type": "object", "properties": {}}
    return spec


@api("POST", "/v1/confirmation_tokens", publishable=True, params=_token_params())
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    """What Stripe.js `createConfirmationToken` calls."""
    params.pop("client_context", None)
    return create_token(ctx, params)


@api("POST", "/v1/test_helpers/confirmation_tokens", params=_token_params())
def create_for_test(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    params.pop("client_context", None)
    return create_token(ctx, params)


@api("GET", "/v1/confirmation_tokens/{confirmation_token}")
def retrieve(ctx: Ctx, params: dict[str, Any], confirmation_token: str) -> dict[str, Any]:
    return ctx.get(confirmation_token, "confirmation_token")


def apply(ctx: Ctx, intent: dict[str, Any], params: dict[str, Any]) -> None:
    """Replace `confirmation_token` in confirm params by what the token carries."""
    token_id = params.pop("confirmation_token", None)
    if not token_id:
        return
    if params.get("payment_method") or params.get("payment_method_data"):
        raise InvalidRequest("You cannot pass `payment_method` or `payment_method_data` "
                             "together with `confirmation_token`.", param="confirmation_token")
    token = ctx.get(str(token_id), "confirmation_token", param="confirmation_token")
    used_by = token.get("payment_intent") or token.get("setup_intent")
    if used_by and used_by != intent.get("id"):
        raise InvalidRequest(f"ConfirmationToken {token['id']} has already been used to "
                             f"confirm {used_by}.", param="confirmation_token",
                             code="confirmation_token_unexpected_state")
    if token.get("expires_at") and token["expires_at"] < ctx.now():
        raise InvalidRequest(f"ConfirmationToken {token['id']} has expired.",
                             param="confirmation_token", code="expired_confirmation_token")
    params["payment_method"] = token["_payment_method"]
    for key in ("return_url", "setup_future_usage", "shipping"):
        if token.get(key) and not params.get(key):
            if key == "setup_future_usage" and intent.get("object") == "setup_intent":
                continue
            params[key] = token[key]
    token["payment_intent" if intent.get("object") == "payment_intent"
          else "setup_intent"] = intent.get("id")
    ctx.put(token)
