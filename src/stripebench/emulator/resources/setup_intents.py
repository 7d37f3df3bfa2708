"""SetupIntents: save a card for later (zero-amount), with 3D Secure when the card asks.

Statuses: requires_payment_method -> requires_confirmation -> (requires_action) ->
succeeded; canceled. Success attaches the card to the customer and marks it ready for
off-session payments.
"""

from __future__ import annotations

import copy
from typing import Any

from .. import cards
from ..context import Ctx
from ..errors import CardError, InvalidRequest, Unsupported
from ..events import changed
from ..listing import paginate
from ..render import public_copy, render
from ..router import api
from ..versions import older_than
from . import confirmation_tokens, intent_flow, payment_methods
from ._common import merge_metadata
from .intent_params import check_client_secret, check_legacy_types, check_request, params_with

CANCELABLE = ("requires_payment_method", "requires_confirmation", "requires_action")


def create_setup_intent(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    """Create a SetupIntent (and confirm it with `confirm=true`). Emits setup_intent.created."""
    if params.get("customer"):
        ctx.get(params["customer"], "customer", "customer")
    types = params.get("payment_method_types") or params.get("allowed_payment_method_types")
    automatic = params.get("automatic_payment_methods")
    if types and [t for t in types if t != "card"]:
        raise Unsupported("SetupIntents for payment methods other than card",
                          param="payment_method_types")
    if types and automatic:
        raise InvalidRequest("You may only specify one of these parameters: "
                             "automatic_payment_methods, payment_method_types.",
                             param="automatic_payment_methods")
    if not types and automatic is None and not older_than(ctx.version, "2023-08-16"):
        automatic = {"enabled": True}
    if automatic:
        automatic = {"enabled": bool(automatic.get("enabled")),
                     "allow_redirects": automatic.get("allow_redirects", "always")}
    si = ctx.new("setup_intent", "seti", status="requires_payment_method",
                 customer=params.get("customer"), description=params.get("description"),
                 usage=params.get("usage") or "off_session",
                 payment_method_types=["card"],
                 allowed_payment_method_types=params.get("allowed_payment_method_types"),
                 automatic_payment_methods=automatic,
                 metadata=merge_metadata({}, params.get("metadata") or {}),
                 payment_method_options={"card": {
                     "mandate_options": None, "network": None,
                     "request_three_d_secure": "automatic",
                     **(((params.get("payment_method_options") or {}).get("card")) or {})}},
                 flow_directions=params.get("flow_directions"))
    si["client_secret"] = ctx.secret_for(si["id"])
    if params.get("payment_method"):
        si["payment_method"] = payment_methods.resolve(ctx, params["payment_method"])["id"]
        si["status"] = "requires_confirmation"
    ctx.put(si)
    ctx.emit("setup_intent.created", si)
    if params.get("confirm"):
        confirm_setup_intent(ctx, si, {k: params[k] for k in (
            "return_url", "payment_method_data", "mandate_data", "use_stripe_sdk",
            "confirmation_token") if k in params})
    return si


def confirm_setup_intent(ctx: Ctx, si: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Confirm a SetupIntent: succeeded (card saved), requires_action (3DS) or a 402 decline."""
    if si["status"] not in ("requires_payment_method", "requires_confirmation",
                            "requires_action"):
        raise InvalidRequest(
            f"You cannot confirm this SetupIntent because it has a status of {si['status']}. "
            "Only a SetupIntent with one of the following statuses may be confirmed: "
            "requires_confirmation, requires_payment_method, requires_action.",
            code="setup_intent_unexpected_state")
    confirmation_tokens.apply(ctx, si, params)
    pm = intent_flow.pick_payment_method(ctx, si, params)
    before = copy.deepcopy(si)
    si["payment_method"] = pm["id"]
    if params.get("return_url"):
        si["_return_url"] = params["return_url"]
    test = payment_methods.test_card(pm)
    if test.three_d_secure in ("required", "always") and si.get("_authenticated") != pm["id"]:
        si.update(status="requires_action", last_setup_error=None,
                  next_action=intent_flow.next_action(
                      ctx, si, None if params.get("use_stripe_sdk") else params.get("return_url")))
        ctx.put(si)
        ctx.emit("setup_intent.requires_action", si, changed(before, si))
        return si
    return _finish(ctx, si, pm, before, raise_error=True)


def _finish(ctx: Ctx, si: dict[str, Any], pm: dict[str, Any], before: dict[str, Any], *,
            raise_error: bool) -> dict[str, Any]:
    test = payment_methods.test_card(pm)
    decline = test.decline if test.number != cards.CHARGE_CUSTOMER_FAIL else None
    if decline is not None:
        si.update(status="requires_payment_method", payment_method=None, next_action=None,
                  last_setup_error=intent_flow.error_body("setup_intent", pm, decline, None,
                                                          ctx))
        ctx.put(si)
        ctx.emit("setup_intent.setup_failed", si, changed(before, si))
        if raise_error:
            raise CardError(decline.message, code=decline.code,
                            decline_code=decline.decline_code or None,
                            extra={"setup_intent": render(ctx, si),
                                   "payment_method": public_copy(pm)})
        return si
    if si.get("customer") and pm.get("customer") != si["customer"]:
        payment_methods.attach(ctx, pm, si["customer"])
    pm["_offsession_ready"] = True
    ctx.put(pm)
    attempt = ctx.new("setup_attempt", "setatt", setup_intent=si["id"], status="succeeded",
                      payment_method=pm["id"], customer=si.get("customer"), usage=si["usage"],
                      payment_method_details={"type": "card", "card": {
                          "brand": pm["card"]["brand"], "country": pm["card"]["country"],
                          "exp_month": pm["card"]["exp_month"],
                          "exp_year": pm["card"]["exp_year"], "last4": pm["card"]["last4"],
                          "fingerprint": pm["card"]["fingerprint"],
                          "three_d_secure": None}})
    ctx.put(attempt)
    si.update(status="succeeded", next_action=None, last_setup_error=None,
              latest_attempt=attempt["id"])
    ctx.put(si)
    ctx.emit("setup_intent.succeeded", si, changed(before, si))
    return si


def finish_authentication(ctx: Ctx, si: dict[str, Any], approved: bool) -> dict[str, Any]:
    """The customer completed (or failed) the 3D Secure challenge on the emulator's page."""
    if si["status"] != "requires_action":
        return si
    before = copy.deepcopy(si)
    pm = ctx.get(si["payment_method"], "payment_method")
    if not approved:
        si.update(status="requires_payment_method", payment_method=None, next_action=None,
                  last_setup_error=intent_flow.error_body(
                      "setup_intent", pm, cards.Decline(
                          "setup_intent_authentication_failure", "",
                          "We are unable to authenticate your payment method. Please choose a "
                          "different payment method and try again.", ""), None, ctx))
        ctx.put(si)
        ctx.emit("setup_intent.setup_failed", si, changed(before, si))
        return si
    si["_authenticated"] = pm["id"]
    return _finish(ctx, si, pm, before, raise_error=False)


def cancel_setup_intent(ctx: Ctx, si: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    if si["status"] not in CANCELABLE:
        raise InvalidRequest(
            f"You cannot cancel this SetupIntent because it has a status of {si['status']}.",
            code="setup_intent_unexpected_state")
    before = copy.deepcopy(si)
    si.update(status="canceled", next_action=None,
              cancellation_reason=params.get("cancellation_reason"))
    ctx.put(si)
    ctx.emit("setup_intent.canceled", si, changed(before, si))
    return si


# ------------------------------------------------------------------ API


@api("POST", "/v1/setup_intents", params=params_with("POST", "/v1/setup_intents",
                                                     card_data=True, legacy_types=True))
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    check_request(ctx, params)
    return create_setup_intent(ctx, params)


@api("GET", "/v1/setup_intents/{intent}", publishable=True)
def retrieve(ctx: Ctx, params: dict[str, Any], intent: str) -> dict[str, Any]:
    si = ctx.get(intent, "setup_intent")
    check_client_secret(ctx, si, params.get("client_secret"), "SetupIntent")
    return si


@api("POST", "/v1/setup_intents/{intent}",
     params=params_with("POST", "/v1/setup_intents/{intent}", legacy_types=True))
def update(ctx: Ctx, params: dict[str, Any], intent: str) -> dict[str, Any]:
    check_legacy_types(ctx, params)
    si = ctx.get(intent, "setup_intent")
    if si["status"] in ("succeeded", "canceled"):
        raise InvalidRequest(f"You cannot update this SetupIntent because it has a status of "
                             f"{si['status']}.", code="setup_intent_unexpected_state")
    if "customer" in params:
        if params["customer"]:
            ctx.get(params["customer"], "customer", "customer")
        si["customer"] = params["customer"]
    if "metadata" in params:
        si["metadata"] = merge_metadata(si["metadata"], params["metadata"])
    if "description" in params:
        si["description"] = params["description"]
    if params.get("payment_method"):
        si["payment_method"] = payment_methods.resolve(ctx, params["payment_method"])["id"]
        si["status"] = "requires_confirmation"
    ctx.put(si)  # Stripe has no setup_intent.updated event
    return si


@api("POST", "/v1/setup_intents/{intent}/confirm", publishable=True,
     params=params_with("POST", "/v1/setup_intents/{intent}/confirm", client_secret=True,
                        card_data=True))
def confirm(ctx: Ctx, params: dict[str, Any], intent: str) -> dict[str, Any]:
    si = ctx.get(intent, "setup_intent")
    check_client_secret(ctx, si, params.pop("client_secret", None), "SetupIntent")
    check_request(ctx, params)
    return confirm_setup_intent(ctx, si, params)


@api("POST", "/v1/setup_intents/{intent}/cancel")
def cancel(ctx: Ctx, params: dict[str, Any], intent: str) -> dict[str, Any]:
    return cancel_setup_intent(ctx, ctx.get(intent, "setup_intent"), params)


@api("GET", "/v1/setup_intents")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return paginate(ctx, ctx.account.iter_type("setup_intent"), params, "/v1/setup_intents",
                    exact={"customer": params.get("customer"),
                           "payment_method": params.get("payment_method")})


@api("GET", "/v1/setup_attempts")
def list_attempts(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    intent = ctx.get(params["setup_intent"], "setup_intent", "setup_intent")
    return paginate(ctx, ctx.account.iter_type("setup_attempt"), params, "/v1/setup_attempts",
                    exact={"setup_intent": intent["id"]})
