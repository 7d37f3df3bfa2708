"""Charges: the record of each payment attempt, plus list/retrieve/update/search/capture.

PaymentIntents create charges through `attempt()`; a successful one writes a balance
transaction and, for the dispute test cards, opens a dispute. Capturing a charge that
belongs to a PaymentIntent goes through the intent (`POST /v1/charges/{id}/capture` lives
in payment_intents.py), so this module imports no intent module. Requests pinned before
2022-11-15 see `refunds` embedded on each charge.
"""

from __future__ import annotations

from typing import Any

from .. import cards
from ..context import Ctx
from ..errors import CardError, InvalidRequest, Unsupported
from ..events import changed
from ..listing import list_of, paginate
from ..render import includable, public_copy
from ..router import api
from ..search import field, search
from ..versions import response_change
from . import balance, disputes, payment_methods
from ._common import apply, merge_metadata
from .intent_params import check_amount

SEARCH_FIELDS = {"amount": field("amount"), "currency": field("currency"),
                 "customer": field("customer"), "status": field("status"),
                 "payment_intent": field("payment_intent"), "created": field("created"),
                 "refunded": field("refunded"), "disputed": field("disputed")}
STATEMENT_DESCRIPTOR = "STRIPEBENCH"  # the emulated account's static descriptor


def calculated_descriptor(statement_descriptor: str | None, suffix: str | None) -> str:
    """What the card network is sent: a charge's own descriptor, else the account's prefix
    (its static descriptor cut to 10 characters), `* ` and the suffix, 22 characters at
    most (https://docs.stripe.com/get-started/account/statement-descriptors)."""
    if statement_descriptor:
        return statement_descriptor
    if suffix:
        return f"{STATEMENT_DESCRIPTOR[:10]}* {suffix}"[:22]
    return STATEMENT_DESCRIPTOR


def card_payment_details(pm: dict[str, Any], amount: int, *,
                         three_d_secure: dict[str, Any] | None = None,
                         approved: bool = True) -> dict[str, Any]:
    card = pm.get("card") or {}
    test = cards.lookup_number(pm.get("_number") or "4242424242424242")
    checks: dict[str, str | None] = {"address_line1_check": None, "address_postal_code_check": None,
              "cvc_check": None}
    if pm.get("_cvc_given"):
        checks["cvc_check"] = test.cvc_check
    address = (pm.get("billing_details") or {}).get("address") or {}
    if address.get("line1"):
        checks["address_line1_check"] = test.address_check
    if address.get("postal_code"):
        checks["address_postal_code_check"] = test.address_check
    return {"type": "card", "card": {
        "amount_authorized": amount if approved else None,
        "authorization_code": "123456" if approved else None,
        "brand": card.get("brand"), "checks": checks, "country": card.get("country"),
        "exp_month": card.get("exp_month"), "exp_year": card.get("exp_year"),
        "extended_authorization": {"status": "disabled"},
        "fingerprint": card.get("fingerprint"), "funding": card.get("funding"),
        "incremental_authorization": {"status": "unavailable"}, "installments": None,
        "last4": card.get("last4"), "mandate": None,
        "multicapture": {"status": "unavailable"}, "network": card.get("brand"),
        "network_token": {"used": False}, "network_transaction_id": "0000000000000000",
        "overcapture": {"maximum_amount_capturable": amount, "status": "unavailable"},
        "regulated_status": "unregulated", "three_d_secure": three_d_secure, "wallet": None,
    }}


def outcome(decline: cards.Decline | None, risk_score: int) -> dict[str, Any]:
    if decline is None:
        return {"advice_code": None, "network_advice_code": None, "network_decline_code": None,
                "network_status": "approved_by_network", "reason": None,
                "risk_level": "normal", "risk_score": risk_score,
                "seller_message": "Payment complete.", "type": "authorized"}
    blocked = decline.outcome_type == "blocked"
    return {"advice_code": None if blocked else "try_again_later"
            if decline.code == "processing_error" else "do_not_try_again",
            "network_advice_code": None, "network_decline_code": None,
            "network_status": "not_sent_to_network" if blocked else "declined_by_network",
            "reason": "highest_risk_level" if blocked else decline.decline_code or None,
            "risk_level": decline.risk_level, "risk_score": 95 if blocked else risk_score,
            "rule": "block_if_high_risk" if blocked else None,
            "seller_message": decline.seller_message, "type": decline.outcome_type}


def attempt(ctx: Ctx, *, amount: int, currency: str, pm: dict[str, Any],
            decline: cards.Decline | None, capture: bool = True,
            payment_intent: str | None = None, customer: str | None = None,
            description: str | None = None, receipt_email: str | None = None,
            metadata: dict[str, Any] | None = None, shipping: Any = None,
            statement_descriptor: str | None = None,
            statement_descriptor_suffix: str | None = None,
            three_d_secure: dict[str, Any] | None = None) -> dict[str, Any]:
    """Create the Charge for one payment attempt: succeeded (maybe uncaptured) or failed.

    Emits charge.succeeded / charge.failed, writes the balance transaction of a captured
    charge, and opens a dispute for the dispute test cards.
    """
    test = cards.lookup_number(pm.get("_number") or "4242424242424242")
    risk_score = int(cards.fingerprint(test.number), 36) % 60 + 5 if test.number else 20
    charge = ctx.new("charge", "ch", amount=amount, currency=currency, customer=customer,
                     payment_intent=payment_intent, payment_method=pm["id"],
                     description=description, receipt_email=receipt_email,
                     metadata=dict(metadata or {}), shipping=shipping,
                     statement_descriptor=statement_descriptor,
                     statement_descriptor_suffix=statement_descriptor_suffix,
                     calculated_statement_descriptor=calculated_descriptor(
                         statement_descriptor, statement_descriptor_suffix),
                     billing_details=public_copy(pm.get("billing_details")),
                     payment_method_details=card_payment_details(
                         pm, amount, three_d_secure=three_d_secure, approved=decline is None),
                     outcome=outcome(decline, risk_score), fraud_details={},
                     amount_refunded=0, refunded=False, disputed=False)
    charge.pop("refunds", None)
    charge["_receipt_token"] = ctx.account.ids.token(24)
    charge["receipt_url"] = ctx.url("pay.stripe.com", f"/receipts/payment/{charge['id']}/"
                                    f"{charge['_receipt_token']}")
    if decline is not None:
        charge.update(status="failed", paid=False, captured=False, amount_captured=0,
                      failure_code=decline.code, failure_message=decline.message,
                      balance_transaction=None)
        ctx.put(charge)
        ctx.emit("charge.failed", charge)
        return charge
    charge.update(status="succeeded", paid=True, captured=capture,
                  amount_captured=amount if capture else 0, failure_code=None,
                  failure_message=None)
    if receipt_email:
        charge["receipt_number"] = f"{ctx.account.ids.token(4)}-{ctx.account.ids.token(4)}"
    if capture:
        _write_charge_txn(ctx, charge, test)
    ctx.put(charge)
    ctx.emit("charge.succeeded", charge)
    if capture and test.dispute:
        disputes.open_dispute(ctx, charge, test.dispute)
    return charge


def _write_charge_txn(ctx: Ctx, charge: dict[str, Any], test: cards.TestCard) -> None:
    amount = charge["amount_captured"]
    txn = balance.record(ctx, kind="charge", amount=amount, currency=charge["currency"],
                         source=charge["id"], fee=balance.stripe_fee(amount),
                         description=charge.get("description"),
                         available_now=test.bypass_pending)
    charge["balance_transaction"] = txn["id"]
    for hook in CAPTURED_HOOKS:
        hook(ctx, charge)


# Other families act on money that has just been captured (Connect's destination charges).
CAPTURED_HOOKS: list[Any] = []


def capture(ctx: Ctx, charge: dict[str, Any], amount: int | None = None) -> dict[str, Any]:
    """Capture an authorized charge (all of it or part; the rest is released)."""
    if charge.get("captured"):
        raise InvalidRequest(f"Charge {charge['id']} has already been captured.",
                             code="charge_already_captured")
    if charge["status"] != "succeeded":
        raise InvalidRequest(f"Charge {charge['id']} cannot be captured because it has a status "
                             f"of {charge['status']}.", code="charge_not_capturable")
    amount = charge["amount"] if amount is None else amount
    if amount > charge["amount"] or amount < 1:
        raise InvalidRequest(f"The amount to capture ({amount}) must be less than or equal to the "
                             f"authorized amount ({charge['amount']}).", param="amount",
                             code="amount_too_large")
    before = dict(charge)
    charge["captured"] = True
    charge["amount_captured"] = amount
    # Stripe reports the released remainder of a partial capture as refunded.
    charge["amount_refunded"] = charge["amount"] - amount
    test = test_card_of(ctx, charge)
    _write_charge_txn(ctx, charge, test)
    ctx.put(charge)
    ctx.emit("charge.captured", charge, changed(before, charge))
    if test.dispute:
        disputes.open_dispute(ctx, charge, test.dispute)
    return charge


def test_card_of(ctx: Ctx, charge: dict[str, Any]) -> cards.TestCard:
    pm = ctx.maybe(charge.get("payment_method"), "payment_method") or {}
    return cards.lookup_number(pm.get("_number") or "4242424242424242")


def release(ctx: Ctx, charge: dict[str, Any]) -> None:
    """An uncaptured charge whose PaymentIntent is canceled: the authorization is released."""
    before = dict(charge)
    charge["amount_refunded"] = charge["amount"]
    charge["refunded"] = True
    ctx.put(charge)
    ctx.emit("charge.refunded", charge, changed(before, charge))


def charges_for_intent(ctx: Ctx, intent_id: str) -> list[dict[str, Any]]:
    return [c for c in ctx.account.iter_type("charge") if c.get("payment_intent") == intent_id]


# ------------------------------------------------------------------ API


@api("GET", "/v1/charges/{charge}")
def retrieve(ctx: Ctx, params: dict[str, Any], charge: str) -> dict[str, Any]:
    return ctx.get(charge, "charge")


@api("POST", "/v1/charges/{charge}")
def update(ctx: Ctx, params: dict[str, Any], charge: str) -> dict[str, Any]:
    obj = ctx.get(charge, "charge")
    before = dict(obj)
    if params.get("fraud_details"):
        obj["fraud_details"] = {**(obj.get("fraud_details") or {}), **params["fraud_details"]}
    apply(obj, params, ("customer", "description", "metadata", "receipt_email", "shipping",
                        "transfer_group"))
    ctx.put(obj)
    ctx.emit("charge.updated", obj, changed(before, obj))
    return obj


@api("POST", "/v1/charges")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    """The legacy Charges API with a card token or a customer's saved card."""
    source = params.get("source")
    if source is None and params.get("customer"):
        customer = ctx.get(params["customer"], "customer", "customer")
        source = (customer.get("invoice_settings") or {}).get("default_payment_method")
    if not source:
        raise InvalidRequest("Must provide source or customer.", param="source",
                             code="parameter_missing")
    if not str(source).startswith(("tok_", "pm_", "card_")):
        raise Unsupported(f"charging the source '{source}'", param="source")
    pm = payment_methods.resolve(ctx, source, "source")
    amount = check_amount(params.get("amount"), params.get("currency", "usd"))
    test = payment_methods.test_card(pm)
    decline = test.decline
    if test.three_d_secure == "always":
        decline = cards.AUTH_REQUIRED
    elif test.decline_after_auth:
        decline = test.decline_after_auth
    charge = attempt(ctx, amount=amount, currency=str(params["currency"]).lower(), pm=pm,
                     decline=decline, capture=params.get("capture", True),
                     customer=params.get("customer"), description=params.get("description"),
                     receipt_email=params.get("receipt_email"),
                     metadata=merge_metadata({}, params.get("metadata") or {}),
                     shipping=params.get("shipping"),
                     statement_descriptor=params.get("statement_descriptor"),
                     statement_descriptor_suffix=params.get("statement_descriptor_suffix"))
    if decline is not None:
        raise CardError(decline.message, code=decline.code,
                        decline_code=decline.decline_code or None,
                        extra={"charge": charge["id"]})
    return charge


@api("GET", "/v1/charges")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return paginate(ctx, ctx.account.iter_type("charge"), params, "/v1/charges", exact={
        "payment_intent": params.get("payment_intent"), "customer": params.get("customer")})


@api("GET", "/v1/charges/search")
def search_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return search(ctx, ctx.account.iter_type("charge"), params, "/v1/charges/search",
                  SEARCH_FIELDS)


# ------------------------------------------------------------------ refunds on a charge


def refunds_list(ctx: Ctx, charge: dict[str, Any]) -> dict[str, Any]:
    refunds = [r for r in ctx.account.iter_type("refund") if r.get("charge") == charge["id"]]
    return list_of(refunds, f"/v1/charges/{charge['id']}/refunds")


@includable("charge", "refunds")
def _include_refunds(ctx: Ctx, charge: dict[str, Any]) -> dict[str, Any]:
    return refunds_list(ctx, charge)


@response_change("2022-11-15", "charge")
def _embed_refunds(ctx: Ctx, charge: dict[str, Any]) -> None:
    """Before 2022-11-15 every charge carried its refunds list."""
    if "refunds" not in charge and charge.get("id") in ctx.account.objects:
        embedded = public_copy(refunds_list(ctx, ctx.account.objects[charge["id"]]))
        # The embedded list carried a total_count and the ten most recent refunds.
        embedded["total_count"] = len(embedded["data"])
        embedded["has_more"] = len(embedded["data"]) > 10
        embedded["data"] = embedded["data"][:10]
        charge["refunds"] = embedded
