"""PaymentIntents: create, update, confirm, capture, cancel, list, search.

Statuses follow Stripe: requires_payment_method -> requires_confirmation ->
(requires_action for 3D Secure) -> requires_capture (manual capture) | succeeded, or
back to requires_payment_method with `last_payment_error` after a decline; canceled
from any unfinished state. The pure flow lives in `intent_flow`; this module holds the
HTTP handlers and the functions other families call (Checkout, Billing).
"""

from __future__ import annotations

import copy
from typing import Any

from .. import versions
from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..events import changed
from ..listing import paginate
from ..render import public_copy
from ..router import api
from ..search import field, search
from ..versions import older_than, response_change
from . import charges, intent_flow, payment_methods
from ._common import apply, currency, merge_metadata
from .intent_params import (
    check_amount,
    check_client_secret,
    check_legacy_types,
    check_request,
    params_with,
)

SEARCH_FIELDS = {"amount": field("amount"), "currency": field("currency"),
                 "customer": field("customer"), "status": field("status"),
                 "created": field("created")}
UPDATABLE = ("description", "receipt_email", "shipping", "statement_descriptor",
             "statement_descriptor_suffix", "transfer_group", "application_fee_amount",
             "transfer_data")
CANCELABLE = ("requires_payment_method", "requires_capture", "requires_confirmation",
              "requires_action", "processing")
CONFIRMABLE = ("requires_payment_method", "requires_confirmation", "requires_action")


def create_intent(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    """Create a PaymentIntent from API-style params (and confirm it when `confirm=true`).

    Used by `POST /v1/payment_intents` and by Checkout/Billing. Emits
    `payment_intent.created`. Raises `CardError` like `confirm_intent` when confirming.
    """
    cur = currency(params.get("currency"))
    amount = check_amount(params.get("amount"), cur)
    if params.get("automatic_payment_methods") and params.get("payment_method_types"):
        raise InvalidRequest("You may only specify one of these parameters: "
                             "automatic_payment_methods, payment_method_types.",
                             param="automatic_payment_methods")
    if params.get("return_url") and not params.get("confirm"):
        raise InvalidRequest("The parameter `return_url` cannot be passed when creating a "
                             "PaymentIntent unless `confirm` is set to true.", param="return_url")
    if params.get("confirmation_token") and not params.get("confirm"):
        raise InvalidRequest("The parameter `confirmation_token` cannot be passed when "
                             "creating a PaymentIntent unless `confirm` is set to true.",
                             param="confirmation_token")
    if params.get("customer"):
        ctx.get(params["customer"], "customer", "customer")
    types, automatic = _payment_method_types(ctx, params)
    pi = ctx.new("payment_intent", "pi", amount=amount, currency=cur,
                 status="requires_payment_method",
                 capture_method=params.get("capture_method") or (
                     "automatic" if older_than(ctx.version, "2024-04-10") else "automatic_async"),
                 confirmation_method=params.get("confirmation_method") or "automatic",
                 payment_method_types=types, automatic_payment_methods=automatic,
                 allowed_payment_method_types=params.get("allowed_payment_method_types"),
                 excluded_payment_method_types=params.get("excluded_payment_method_types"),
                 customer=params.get("customer"),
                 setup_future_usage=params.get("setup_future_usage"),
                 metadata=merge_metadata({}, params.get("metadata") or {}),
                 payment_method_options=_pm_options(types, params.get("payment_method_options")),
                 amount_details={"tip": {}})
    pi["client_secret"] = ctx.secret_for(pi["id"])
    apply(pi, params, UPDATABLE + ("on_behalf_of",))
    if params.get("payment_method"):
        pi["payment_method"] = payment_methods.resolve(ctx, params["payment_method"])["id"]
        pi["status"] = "requires_confirmation"
    ctx.put(pi)
    ctx.emit("payment_intent.created", pi)
    if params.get("confirm"):
        confirm_params: dict[str, Any] = {k: params[k] for k in (
            "return_url", "off_session", "error_on_requires_action", "payment_method_data",
            "mandate_data", "use_stripe_sdk", "confirmation_token") if k in params}
        confirm_intent(ctx, pi, confirm_params)
    return pi


def _payment_method_types(ctx: Ctx, params: dict[str, Any]) -> tuple[list[str], Any]:
    """(payment_method_types, automatic_payment_methods) for the intent's params."""
    types = params.get("payment_method_types") or params.get("allowed_payment_method_types")
    automatic = params.get("automatic_payment_methods")
    if params.get("allowed_payment_method_types") and (
            automatic or params.get("payment_method_types")
            or params.get("excluded_payment_method_types")):
        raise InvalidRequest("`allowed_payment_method_types` cannot be combined with "
                             "`payment_method_types`, `excluded_payment_method_types` or "
                             "`automatic_payment_methods`.",
                             param="allowed_payment_method_types")
    if types:
        if "card" not in types or (params.get("payment_method_types") and types != ["card"]):
            others = [t for t in types if t != "card"]
            raise Unsupported(f"payment method type '{others[0]}' (only card is emulated)",
                              param="payment_method_types" if params.get("payment_method_types")
                              else "allowed_payment_method_types")
        return ["card"], None
    if automatic is None and not older_than(ctx.version, "2023-08-16"):
        automatic = {"enabled": True}
    if automatic and automatic.get("enabled"):
        return ["card"], {"allow_redirects": automatic.get("allow_redirects", "always"),
                          "enabled": True}
    return ["card"], None if automatic is None else {"allow_redirects": None, "enabled": False}


def _pm_options(types: list[str], given: Any) -> dict[str, Any]:
    card = {"installments": None, "mandate_options": None, "network": None,
            "request_three_d_secure": "automatic"}
    card.update(((given or {}).get("card")) or {})
    return {"card": card}


def confirm_intent(ctx: Ctx, pi: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Confirm a PaymentIntent with its (or the given) payment method.

    Outcomes: `succeeded` (or `requires_capture` for manual capture); `requires_action`
    with `next_action` pointing at the emulator's 3D Secure page; or a decline: the
    failed Charge is created, the intent returns to `requires_payment_method` with
    `last_payment_error`, and `CardError` (402) is raised carrying the intent.
    """
    return intent_flow.confirm(ctx, pi, params)


def capture_intent(ctx: Ctx, pi: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Capture a `requires_capture` PaymentIntent (fully, or `amount_to_capture` of it)."""
    if pi["status"] != "requires_capture":
        raise InvalidRequest(
            f"This PaymentIntent could not be captured because it has a status of {pi['status']}."
            " Only a PaymentIntent with one of the following statuses may be captured: "
            "requires_capture.", code="payment_intent_unexpected_state")
    amount = params.get("amount_to_capture")
    amount = pi["amount_capturable"] if amount is None else int(amount)
    if amount > pi["amount_capturable"]:
        raise InvalidRequest(
            f"The amount_to_capture ({amount}) must be less than or equal to the "
            f"amount_capturable ({pi['amount_capturable']}).", code="amount_too_large",
            param="amount_to_capture")
    before = copy.deepcopy(pi)
    charge = ctx.get(pi["latest_charge"], "charge")
    charges.capture(ctx, charge, amount)
    pi.update(status="succeeded", amount_received=amount, amount_capturable=0)
    if "metadata" in params:
        pi["metadata"] = merge_metadata(pi["metadata"], params["metadata"])
    apply(pi, params, ("statement_descriptor", "statement_descriptor_suffix",
                       "application_fee_amount"))
    ctx.put(pi)
    ctx.emit("payment_intent.succeeded", pi, changed(before, pi))
    return pi


def cancel_intent(ctx: Ctx, pi: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Cancel an unfinished PaymentIntent; an uncaptured charge is released."""
    if pi["status"] not in CANCELABLE:
        raise InvalidRequest(
            f"You cannot cancel this PaymentIntent because it has a status of {pi['status']}. "
            "Only a PaymentIntent with one of the following statuses may be canceled: "
            f"{', '.join(CANCELABLE)}.", code="payment_intent_unexpected_state")
    before = copy.deepcopy(pi)
    if pi["status"] == "requires_capture" and pi.get("latest_charge"):
        charges.release(ctx, ctx.get(pi["latest_charge"], "charge"))
    pi.update(status="canceled", canceled_at=ctx.now(), next_action=None, amount_capturable=0,
              cancellation_reason=params.get("cancellation_reason"))
    ctx.put(pi)
    ctx.emit("payment_intent.canceled", pi, changed(before, pi))
    return pi


def update_intent(ctx: Ctx, pi: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Update an unfinished PaymentIntent (amount, customer, payment method, metadata...)."""
    if pi["status"] in ("succeeded", "canceled", "processing"):
        raise InvalidRequest(
            f"This PaymentIntent's {next(iter(params), 'fields')} could not be updated because "
            f"it has a status of {pi['status']}. You may only update the "
            f"{next(iter(params), 'fields')} of a PaymentIntent with one of the following "
            "statuses: requires_payment_method, requires_confirmation, requires_action.",
            code="payment_intent_unexpected_state")
    if "currency" in params:
        pi["currency"] = currency(params["currency"])
    if "amount" in params:
        if pi["status"] == "requires_capture":
            raise InvalidRequest("You cannot update the amount of a PaymentIntent with a status "
                                 "of requires_capture.", code="payment_intent_unexpected_state",
                                 param="amount")
        pi["amount"] = check_amount(params["amount"], pi["currency"])
    if "customer" in params:
        if params["customer"]:
            ctx.get(params["customer"], "customer", "customer")
        pi["customer"] = params["customer"]
    if "metadata" in params:
        pi["metadata"] = merge_metadata(pi["metadata"], params["metadata"])
    if "setup_future_usage" in params:
        pi["setup_future_usage"] = params["setup_future_usage"]
    if "capture_method" in params:
        pi["capture_method"] = params["capture_method"]
    if params.get("payment_method_types"):
        pi["payment_method_types"], pi["automatic_payment_methods"] = _payment_method_types(
            ctx, {"payment_method_types": params["payment_method_types"]})
    if "payment_method_options" in params:
        pi["payment_method_options"] = _pm_options(pi["payment_method_types"],
                                                   params["payment_method_options"])
    apply(pi, params, UPDATABLE)
    if params.get("payment_method"):
        pi["payment_method"] = payment_methods.resolve(ctx, params["payment_method"])["id"]
    if pi["status"] in ("requires_action", "requires_confirmation") or (
            pi["status"] == "requires_payment_method" and pi.get("payment_method")):
        if "payment_method" in params or "amount" in params or pi["status"] != "requires_action":
            pi["status"] = "requires_confirmation" if pi.get("payment_method") else pi["status"]
            pi["next_action"] = None
    ctx.put(pi)
    return pi


# ------------------------------------------------------------------ API


@api("POST", "/v1/payment_intents", params=params_with("POST", "/v1/payment_intents",
                                                       card_data=True, legacy_types=True))
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    check_request(ctx, params)
    if params.get("confirm"):
        intent_flow.check_return_url(ctx, _payment_method_types(ctx, params)[1], params)
    return create_intent(ctx, params)


@api("GET", "/v1/payment_intents/{intent}", publishable=True)
def retrieve(ctx: Ctx, params: dict[str, Any], intent: str) -> dict[str, Any]:
    pi = ctx.get(intent, "payment_intent")
    check_client_secret(ctx, pi, params.get("client_secret"), "PaymentIntent")
    return pi


@api("POST", "/v1/payment_intents/{intent}",
     params=params_with("POST", "/v1/payment_intents/{intent}", legacy_types=True))
def update(ctx: Ctx, params: dict[str, Any], intent: str) -> dict[str, Any]:
    check_legacy_types(ctx, params)
    # Stripe has no payment_intent.updated event: updates are silent.
    return update_intent(ctx, ctx.get(intent, "payment_intent"), params)


@api("POST", "/v1/payment_intents/{intent}/confirm", publishable=True,
     params=params_with("POST", "/v1/payment_intents/{intent}/confirm", client_secret=True,
                        card_data=True, legacy_types=True))
def confirm(ctx: Ctx, params: dict[str, Any], intent: str) -> dict[str, Any]:
    check_request(ctx, params)
    if params.get("payment_method_types"):
        update_intent(ctx, ctx.get(intent, "payment_intent"),
                      {"payment_method_types": params.pop("payment_method_types")})
    pi = ctx.get(intent, "payment_intent")
    check_client_secret(ctx, pi, params.pop("client_secret", None), "PaymentIntent")
    if pi["status"] in CONFIRMABLE:
        intent_flow.check_return_url(ctx, pi.get("automatic_payment_methods"), params)
    return confirm_intent(ctx, pi, params)


@api("POST", "/v1/payment_intents/{intent}/capture")
def capture(ctx: Ctx, params: dict[str, Any], intent: str) -> dict[str, Any]:
    return capture_intent(ctx, ctx.get(intent, "payment_intent"), params)


@api("POST", "/v1/payment_intents/{intent}/cancel")
def cancel(ctx: Ctx, params: dict[str, Any], intent: str) -> dict[str, Any]:
    return cancel_intent(ctx, ctx.get(intent, "payment_intent"), params)


@api("POST", "/v1/charges/{charge}/capture")
def capture_charge(ctx: Ctx, params: dict[str, Any], charge: str) -> dict[str, Any]:
    """A charge of a PaymentIntent is captured through its intent; a legacy one directly."""
    obj = ctx.get(charge, "charge")
    if obj.get("payment_intent"):
        intent = ctx.get(obj["payment_intent"], "payment_intent")
        capture_intent(ctx, intent, {"amount_to_capture": params.get("amount")}
                       if params.get("amount") else {})
        return ctx.get(charge, "charge")
    return charges.capture(ctx, obj, params.get("amount"))


@api("GET", "/v1/payment_intents")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return paginate(ctx, ctx.account.iter_type("payment_intent"), params, "/v1/payment_intents",
                    exact={"customer": params.get("customer")})


@api("GET", "/v1/payment_intents/search")
def search_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return search(ctx, ctx.account.iter_type("payment_intent"), params,
                  "/v1/payment_intents/search", SEARCH_FIELDS)


@response_change("2022-11-15", "payment_intent")
def _embed_charges(ctx: Ctx, pi: dict[str, Any]) -> None:
    """Before 2022-11-15 a PaymentIntent carried a `charges` list. As in Stripe, it holds
    only the latest charge, even after earlier failed attempts (the charges list filtered
    by `payment_intent` has them all)."""
    if "charges" in pi or not pi.get("id"):
        return
    data = []
    latest = pi.get("latest_charge")
    if isinstance(latest, dict):
        latest = latest.get("id")
    for charge in charges.charges_for_intent(ctx, pi["id"]):
        if charge.get("id") != latest:
            continue
        rendered = public_copy(charge)
        versions.downgrade(ctx, rendered)
        data.append(rendered)
    pi["charges"] = {"object": "list", "data": data, "has_more": False,
                     "total_count": len(data), "url": f"/v1/charges?payment_intent={pi['id']}"}
