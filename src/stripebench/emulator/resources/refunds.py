"""Refunds: full or partial, by charge or by PaymentIntent; over-refunds are rejected.

Card refunds succeed at once (negative balance transaction, `charge.refunded`), except
for the refund-failure test card, whose refund fails (`refund.failed`) and gives the
amount back to the charge.
"""

from __future__ import annotations

import copy
from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..events import changed
from ..listing import paginate
from ..router import api
from . import balance, charges
from ._common import merge_metadata


def _money(amount: int, currency: str) -> str:
    return f"${amount / 100:.2f}" if currency == "usd" else f"{amount / 100:.2f} {currency}"


def create_refund(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    """Refund a charge (or a PaymentIntent's charge); emits refund.created, charge.refunded."""
    if params.get("charge") and params.get("payment_intent"):
        raise InvalidRequest("You can only specify one of these parameters: charge, "
                             "payment_intent.", param="payment_intent")
    if params.get("payment_intent"):
        pi = ctx.get(params["payment_intent"], "payment_intent", "payment_intent")
        if pi["status"] == "requires_capture":
            raise InvalidRequest("This PaymentIntent has an uncaptured charge; cancel the "
                                 "PaymentIntent instead of refunding it.",
                                 code="charge_not_refundable", param="payment_intent")
        charge = ctx.maybe(pi.get("latest_charge"), "charge")
        if charge is None or pi["status"] != "succeeded":
            raise InvalidRequest(f"This PaymentIntent ({pi['id']}) does not have a successful "
                                 "charge to refund.", code="charge_not_refundable",
                                 param="payment_intent")
    elif params.get("charge"):
        charge = ctx.get(params["charge"], "charge", "charge")
    else:
        raise InvalidRequest("One of the following params should be provided for this request: "
                             "payment_intent or charge.", code="parameter_missing",
                             param="charge")
    if charge["status"] != "succeeded":
        raise InvalidRequest(f"Charge {charge['id']} has a status of {charge['status']} and "
                             "cannot be refunded.", code="charge_not_refundable")
    if not charge.get("captured"):
        raise InvalidRequest(f"Charge {charge['id']} has not been captured; cancel its "
                             "PaymentIntent to release the authorization.",
                             code="charge_not_refundable")
    if charge.get("disputed"):
        raise InvalidRequest(f"Charge {charge['id']} has been charged back; cannot issue a "
                             "refund.", code="charge_disputed")
    remaining = charge["amount"] - charge["amount_refunded"]
    if remaining <= 0:
        raise InvalidRequest(f"Charge {charge['id']} has already been refunded.",
                             code="charge_already_refunded")
    amount = params.get("amount")
    amount = remaining if amount is None else int(amount)
    if amount <= 0:
        raise InvalidRequest("Refund amount must be a positive integer.", param="amount")
    if amount > remaining:
        raise InvalidRequest(
            f"Refund amount ({_money(amount, charge['currency'])}) is greater than unrefunded "
            f"amount on charge ({_money(remaining, charge['currency'])})",
            code="amount_too_large", param="amount")
    refund = ctx.new("refund", "re", amount=amount, currency=charge["currency"],
                     charge=charge["id"], payment_intent=charge.get("payment_intent"),
                     reason=params.get("reason"), status="succeeded",
                     metadata=merge_metadata({}, params.get("metadata") or {}),
                     instructions_email=params.get("instructions_email"),
                     destination_details={"type": "card", "card": {
                         "reference": None, "reference_status": "pending",
                         "reference_type": "acquirer_reference_number", "type": "refund"}})
    txn = balance.record(ctx, kind="refund", amount=-amount, currency=charge["currency"],
                         source=refund["id"], description="REFUND FOR CHARGE",
                         available_now=True)
    refund["balance_transaction"] = txn["id"]
    if charge.get("receipt_email"):
        refund["receipt_number"] = charge.get("receipt_number")
    ctx.put(refund)
    before = dict(charge)
    charge["amount_refunded"] += amount
    charge["refunded"] = charge["amount_refunded"] >= charge["amount"]
    ctx.put(charge)
    ctx.emit("refund.created", refund)
    ctx.emit("charge.refunded", charge, changed(before, charge))
    if charges.test_card_of(ctx, charge).refund_fails:
        _fail(ctx, refund, charge)
    return refund


def _fail(ctx: Ctx, refund: dict[str, Any], charge: dict[str, Any]) -> None:
    before = copy.deepcopy(refund)
    txn = balance.record(ctx, kind="refund_failure", amount=refund["amount"],
                         currency=refund["currency"], source=refund["id"],
                         description="REFUND FAILURE", available_now=True)
    refund.update(status="failed", failure_reason="expired_or_canceled_card",
                  failure_balance_transaction=txn["id"])
    ctx.put(refund)
    charge["amount_refunded"] -= refund["amount"]
    charge["refunded"] = False
    ctx.put(charge)
    ctx.emit("refund.failed", refund, changed(before, refund))
    ctx.emit("charge.refund.updated", refund, changed(before, refund))


@api("POST", "/v1/refunds")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    for unsupported in ("origin", "customer", "refund_application_fee", "reverse_transfer"):
        if params.get(unsupported):
            raise Unsupported(f"refunds with '{unsupported}'", param=unsupported)
    return create_refund(ctx, params)


@api("GET", "/v1/refunds/{refund}")
def retrieve(ctx: Ctx, params: dict[str, Any], refund: str) -> dict[str, Any]:
    return ctx.get(refund, "refund")


@api("POST", "/v1/refunds/{refund}")
def update(ctx: Ctx, params: dict[str, Any], refund: str) -> dict[str, Any]:
    obj = ctx.get(refund, "refund")
    before = copy.deepcopy(obj)
    if "metadata" in params:
        obj["metadata"] = merge_metadata(obj.get("metadata"), params["metadata"])
    ctx.put(obj)
    ctx.emit("refund.updated", obj, changed(before, obj))
    return obj


@api("POST", "/v1/refunds/{refund}/cancel")
def cancel(ctx: Ctx, params: dict[str, Any], refund: str) -> dict[str, Any]:
    obj = ctx.get(refund, "refund")
    raise InvalidRequest(f"Refund {obj['id']} has a status of {obj['status']}; only refunds "
                         "with a status of requires_action can be canceled.",
                         code="refund_unexpected_state")


@api("GET", "/v1/refunds")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return paginate(ctx, ctx.account.iter_type("refund"), params, "/v1/refunds", exact={
        "charge": params.get("charge"), "payment_intent": params.get("payment_intent")})


@api("GET", "/v1/charges/{charge}/refunds", params={"type": "object", "properties": {
    "limit": {"type": "integer"}, "starting_after": {"type": "string"},
    "ending_before": {"type": "string"}}})
def list_for_charge(ctx: Ctx, params: dict[str, Any], charge: str) -> dict[str, Any]:
    ctx.get(charge, "charge")
    return paginate(ctx, ctx.account.iter_type("refund"), params,
                    f"/v1/charges/{charge}/refunds", exact={"charge": charge})
