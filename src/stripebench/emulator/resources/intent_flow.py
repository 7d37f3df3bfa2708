"""The confirmation flow shared by PaymentIntents and SetupIntents.

Confirming decides, from the test card behind the payment method: needs 3D Secure
(-> requires_action, or an `authentication_required` decline when off session), is
declined (failed Charge, back to requires_payment_method, 402), or succeeds. The 3DS
page calls `finish_authentication` when the customer approves or fails the challenge.
"""

from __future__ import annotations

import copy
from typing import Any

from .. import cards
from ..context import Ctx
from ..errors import CardError, InvalidRequest
from ..events import changed
from ..render import public_copy, render
from . import charges, confirmation_tokens, payment_methods

RETURN_URL_NEEDED = (
    "This PaymentIntent is configured to accept payment methods enabled in your Dashboard. "
    "Because some of these payment methods might redirect your customer off of your page, you "
    "must provide a `return_url`. If you don't want to accept redirect-based payment methods, "
    "set `automatic_payment_methods[enabled]` to `true` and "
    "`automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and "
    "Payment Intents.")


def check_return_url(ctx: Ctx, automatic: dict[str, Any] | None, params: dict[str, Any]) -> None:
    """A server-side confirm of an intent open to redirect-based methods needs a return_url.

    Only the API handlers call this: Checkout and Billing confirm internally.
    """
    apm = automatic or {}
    token = ctx.maybe(params.get("confirmation_token"), "confirmation_token") \
        if params.get("confirmation_token") else None
    if (ctx.key_kind == "secret" and apm.get("enabled") and apm.get("allow_redirects") != "never"
            and not params.get("return_url") and not params.get("off_session")
            and not params.get("use_stripe_sdk") and not (token and token.get("return_url"))):
        raise InvalidRequest(RETURN_URL_NEEDED, param="return_url")


def challenge_url(ctx: Ctx, intent: dict[str, Any]) -> str:
    """The emulator's 3D Secure page for this intent (web/threeds.py serves it)."""
    token = intent.get("_3ds_token")
    if not token:
        token = intent["_3ds_token"] = ctx.account.ids.token(24)
    return ctx.url("hooks.stripe.com", f"/3d_secure/authenticate/{intent['id']}/{token}")


def next_action(ctx: Ctx, intent: dict[str, Any], return_url: str | None) -> dict[str, Any]:
    url = challenge_url(ctx, intent)
    if return_url:
        return {"type": "redirect_to_url",
                "redirect_to_url": {"return_url": return_url, "url": url}}
    return {"type": "use_stripe_sdk",
            "use_stripe_sdk": {"type": "three_d_secure_redirect", "stripe_js": url,
                               "source": f"src_{intent['id'].split('_', 1)[1]}"}}


def needs_authentication(intent: dict[str, Any], pm: dict[str, Any], off_session: bool) -> bool:
    """Whether this use of the card triggers a 3D Secure challenge."""
    if intent.get("_authenticated") == pm["id"]:
        return False
    test = payment_methods.test_card(pm)
    requested = ((intent.get("payment_method_options") or {}).get("card") or {}).get(
        "request_three_d_secure")
    if test.three_d_secure == "always":
        return True
    if test.three_d_secure == "required":
        # Set up for off-session use (SetupIntent or setup_future_usage): later
        # merchant-initiated payments go through without a challenge.
        return not (off_session and (pm.get("_offsession_ready") or test.set_up))
    return requested in ("any", "challenge") and not off_session


def error_body(intent_type: str, pm: dict[str, Any] | None, decline: cards.Decline,
               charge_id: str | None, ctx: Ctx) -> dict[str, Any]:
    """`last_payment_error` / `last_setup_error`."""
    kind = "invalid_request_error" if decline.code.endswith("authentication_failure") \
        else "card_error"
    return {"type": kind, "code": decline.code,
            "decline_code": decline.decline_code or None, "message": decline.message,
            "doc_url": f"https://stripe.com/docs/error-codes/{decline.code.replace('_', '-')}",
            "charge": charge_id, "payment_method": public_copy(pm) if pm else None,
            "payment_method_type": "card" if pm else None, "param": None,
            "advice_code": None, "network_advice_code": None, "network_decline_code": None,
            "request_log_url": f"https://dashboard.stripe.com/test/logs/{ctx.request_id}"
            if ctx.request_id else None}


def pick_payment_method(ctx: Ctx, intent: dict[str, Any], params: dict[str, Any]
                        ) -> dict[str, Any]:
    if params.get("payment_method_data"):
        return payment_methods.from_payment_method_data(ctx, params["payment_method_data"])
    chosen = params.get("payment_method") or intent.get("payment_method")
    if not chosen:
        raise InvalidRequest(
            f"You cannot confirm this {_kind(intent)} because it's missing a payment method. "
            f"You can either update the {_kind(intent)} with a payment method and then confirm "
            "it again, or confirm it again directly with a payment method.",
            code=f"{intent['object']}_unexpected_state")
    pm = payment_methods.resolve(ctx, chosen)
    if pm.get("_consumed"):
        raise InvalidRequest(payment_methods.REUSE_MESSAGE, param="payment_method",
                             code="payment_method_unexpected_state")
    customer = intent.get("customer")
    if pm.get("customer") and pm["customer"] != customer:
        if customer:
            raise InvalidRequest("The provided PaymentMethod is attached to another customer "
                                 f"({pm['customer']}), not to {customer}.",
                                 param="payment_method")
        raise InvalidRequest(f"The provided PaymentMethod {pm['id']} is attached to a customer; "
                             f"pass customer={pm['customer']} to use it.",
                             param="payment_method")
    return pm


def _kind(intent: dict[str, Any]) -> str:
    return "PaymentIntent" if intent["object"] == "payment_intent" else "SetupIntent"


def confirm(ctx: Ctx, pi: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Confirm a PaymentIntent (see payment_intents.confirm_intent)."""
    if pi["status"] not in ("requires_payment_method", "requires_confirmation",
                            "requires_action"):
        raise InvalidRequest(
            f"You cannot confirm this PaymentIntent because it has a status of {pi['status']}. "
            "Only a PaymentIntent with one of the following statuses may be confirmed: "
            "requires_confirmation, requires_payment_method, requires_action.",
            code="payment_intent_unexpected_state")
    confirmation_tokens.apply(ctx, pi, params)
    for key in ("receipt_email", "shipping", "setup_future_usage", "capture_method"):
        if key in params:
            pi[key] = params[key]
    if params.get("payment_method_options"):
        card = dict(pi["payment_method_options"].get("card") or {})
        card.update(params["payment_method_options"].get("card") or {})
        pi["payment_method_options"]["card"] = card
    off_session = bool(params.get("off_session"))
    return_url = params.get("return_url")
    pm = pick_payment_method(ctx, pi, params)
    before = copy.deepcopy(pi)
    pi["payment_method"] = pm["id"]
    pi["_off_session"] = off_session
    if return_url:
        pi["_return_url"] = return_url
    if needs_authentication(pi, pm, off_session):
        if off_session or params.get("error_on_requires_action"):
            return _decline(ctx, pi, pm, cards.AUTH_REQUIRED, before, raise_error=True)
        via_sdk = bool(params.get("use_stripe_sdk"))  # Stripe.js shows 3DS in a modal
        pi.update(status="requires_action",
                  next_action=next_action(ctx, pi, None if via_sdk else return_url),
                  last_payment_error=None)
        ctx.put(pi)
        ctx.emit("payment_intent.requires_action", pi, changed(before, pi))
        return pi
    return process(ctx, pi, pm, before, raise_error=True)


def process(ctx: Ctx, pi: dict[str, Any], pm: dict[str, Any], before: dict[str, Any], *,
            raise_error: bool) -> dict[str, Any]:
    """Run the charge for an authenticated (or unchallenged) confirmation."""
    test = payment_methods.test_card(pm)
    decline = test.decline
    authenticated = pi.get("_authenticated") == pm["id"]
    if test.decline_after_auth:  # reached only past any challenge the card needs
        decline = test.decline_after_auth
    if decline is not None:
        return _decline(ctx, pi, pm, decline, before, raise_error=raise_error)
    # payment_method_options[card][capture_method] overrides the intent's capture_method
    card_options = (pi.get("payment_method_options") or {}).get("card") or {}
    manual = (card_options.get("capture_method") or pi.get("capture_method")) == "manual"
    three_ds = ({"authentication_flow": "challenge", "result": "authenticated",
                 "result_reason": None, "version": "2.2.0"} if authenticated else None)
    charge = charges.attempt(ctx, amount=pi["amount"], currency=pi["currency"], pm=pm,
                             decline=None, capture=not manual, three_d_secure=three_ds,
                             **_from_intent(pi))
    pi.update(latest_charge=charge["id"], last_payment_error=None, next_action=None,
              status="requires_capture" if manual else "succeeded",
              amount_capturable=pi["amount"] if manual else 0,
              amount_received=0 if manual else pi["amount"])
    _save_card(ctx, pi, pm, authenticated)
    ctx.put(pi)
    event = "payment_intent.amount_capturable_updated" if manual else "payment_intent.succeeded"
    ctx.emit(event, pi, changed(before, pi))
    return pi


def _save_card(ctx: Ctx, intent: dict[str, Any], pm: dict[str, Any],
               authenticated: bool) -> None:
    """setup_future_usage attaches the card to the customer, ready for off-session use."""
    customer = intent.get("customer")
    if intent.get("setup_future_usage") and customer:
        if pm.get("customer") != customer:
            payment_methods.attach(ctx, pm, customer)
        pm["_offsession_ready"] = True
        ctx.put(pm)
    elif not pm.get("customer"):
        pm["_consumed"] = True  # used once without a customer: Stripe won't reuse it
        ctx.put(pm)


def _from_intent(pi: dict[str, Any]) -> dict[str, Any]:
    """What a charge copies from its PaymentIntent, failed or not."""
    return {"payment_intent": pi["id"], "customer": pi.get("customer"),
            "description": pi.get("description"), "receipt_email": pi.get("receipt_email"),
            "metadata": pi.get("metadata"), "shipping": pi.get("shipping"),
            "statement_descriptor": pi.get("statement_descriptor"),
            "statement_descriptor_suffix": pi.get("statement_descriptor_suffix")}


def _decline(ctx: Ctx, pi: dict[str, Any], pm: dict[str, Any], decline: cards.Decline,
             before: dict[str, Any], *, raise_error: bool) -> dict[str, Any]:
    charge = charges.attempt(ctx, amount=pi["amount"], currency=pi["currency"], pm=pm,
                             decline=decline, **_from_intent(pi))
    pi.update(status="requires_payment_method", payment_method=None, next_action=None,
              latest_charge=charge["id"],
              last_payment_error=error_body("payment_intent", pm, decline, charge["id"], ctx))
    pi.pop("_authenticated", None)
    ctx.put(pi)
    ctx.emit("payment_intent.payment_failed", pi, changed(before, pi))
    if raise_error:
        raise CardError(decline.message, code=decline.code,
                        decline_code=decline.decline_code or None,
                        extra={"charge": charge["id"], "payment_intent": render(ctx, pi),
                               "payment_method": public_copy(pm),
                               "payment_method_type": "card"})
    return pi


def finish_authentication(ctx: Ctx, intent: dict[str, Any], approved: bool) -> dict[str, Any]:
    """The customer completed (or failed) the 3D Secure challenge on the emulator's page
    (SetupIntents: `setup_intents.finish_authentication`)."""
    if intent["status"] != "requires_action":
        return intent
    before = copy.deepcopy(intent)
    pm = ctx.get(intent["payment_method"], "payment_method")
    if not approved:
        intent.update(status="requires_payment_method", payment_method=None, next_action=None,
                      last_payment_error=error_body("payment_intent", pm, cards.AUTH_FAILED,
                                                    None, ctx))
        ctx.put(intent)
        ctx.emit("payment_intent.payment_failed", intent, changed(before, intent))
        return intent
    intent["_authenticated"] = pm["id"]
    if intent.get("confirmation_method") == "manual":
        intent.update(status="requires_confirmation", next_action=None)
        ctx.put(intent)
        return intent
    return process(ctx, intent, pm, before, raise_error=False)
