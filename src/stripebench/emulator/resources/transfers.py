"""Money between a platform and its connected accounts: transfers and their reversals,
destination charges (`transfer_data`, `application_fee_amount`, `on_behalf_of`) and the
application fees they collect.

A transfer debits the platform's balance (type `transfer`) and credits the connected
account with a payment (`py_...`, a Charge on that account, balance type `payment`).
Without `source_transaction` it needs the platform's available balance, as on Stripe.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest, missing
from ..events import changed
from ..listing import paginate
from ..router import api
from . import balance, charges
from ._common import apply, currency, merge_metadata
from .accounts import account_object, platform_of


def available(ctx: Ctx, cur: str) -> int:
    total = 0
    for txn in ctx.account.iter_type("balance_transaction", newest_first=False):
        if txn["currency"] == cur and (txn["status"] == "available"
                                       or txn["available_on"] <= ctx.now()):
            total += txn["net"]
    return total


def _credit_destination(ctx: Ctx, transfer: dict[str, Any], destination: str) -> None:
    connected = ctx.store.accounts[destination]
    inner = ctx.acting_as(connected)
    inner.account.clock.advance_to(ctx.now())
    payment = inner.new("charge", "py", amount=transfer["amount"],
                        currency=transfer["currency"], status="succeeded", paid=True,
                        captured=True, amount_captured=transfer["amount"],
                        amount_refunded=0, refunded=False, disputed=False,
                        source_transfer=transfer["id"], description=transfer["description"],
                        calculated_statement_descriptor=None, metadata={},
                        payment_method_details=None, outcome=None, fraud_details={})
    payment.pop("refunds", None)
    txn = balance.record(inner, kind="payment", amount=transfer["amount"],
                         currency=transfer["currency"], source=payment["id"],
                         available_now=transfer.get("_available_now", False))
    payment["balance_transaction"] = txn["id"]
    inner.put(payment)
    transfer["destination_payment"] = payment["id"]


def make_transfer(ctx: Ctx, *, amount: int, cur: str, destination: str,
                  source: dict[str, Any] | None = None, transfer_group: str | None = None,
                  description: str | None = None,
                  metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    account_object(ctx, destination, "destination")
    source_transaction = source["id"] if source else None
    if source:
        if amount > source["amount_captured"] - source["amount_refunded"]:
            raise InvalidRequest("Transfer amount exceeds the source transaction's available "
                                 "amount.", param="amount")
    elif available(ctx, cur) < amount:
        raise InvalidRequest(
            "You have insufficient available funds in your Stripe account. Try adding funds "
            "directly to your available balance by creating Charges using the "
            "4000000000000077 test card.", code="balance_insufficient")
    transfer = ctx.new("transfer", "tr", amount=amount, currency=cur,
                       destination=destination, source_transaction=source_transaction,
                       transfer_group=transfer_group or (source or {}).get("transfer_group"),
                       description=description, source_type="card",
                       metadata=merge_metadata({}, metadata or {}), reversals=None)
    transfer.pop("reversals", None)
    transfer["_available_now"] = source is None
    txn = balance.record(ctx, kind="transfer", amount=-amount, currency=cur,
                         source=transfer["id"], available_now=True)
    transfer["balance_transaction"] = txn["id"]
    _credit_destination(ctx, transfer, destination)
    ctx.put(transfer)
    ctx.emit("transfer.created", transfer)
    return transfer


@api("POST", "/v1/transfers")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    platform_of(ctx)
    amount = int(params["amount"])
    if amount < 1:
        raise InvalidRequest("Amount must be at least 1.", param="amount")
    return make_transfer(ctx, amount=amount, cur=currency(params["currency"]),
                         destination=params["destination"],
                         source=ctx.get(params["source_transaction"], "charge",
                                        "source_transaction")
                         if params.get("source_transaction") else None,
                         transfer_group=params.get("transfer_group"),
                         description=params.get("description"),
                         metadata=params.get("metadata"))


@api("GET", "/v1/transfers/{transfer}")
def retrieve(ctx: Ctx, params: dict[str, Any], transfer: str) -> dict[str, Any]:
    return ctx.get(transfer, "transfer")


@api("POST", "/v1/transfers/{transfer}")
def update(ctx: Ctx, params: dict[str, Any], transfer: str) -> dict[str, Any]:
    obj = ctx.get(transfer, "transfer")
    before = dict(obj)
    apply(obj, params, ("description", "metadata"))
    ctx.put(obj)
    ctx.emit("transfer.updated", obj, changed(before, obj))
    return obj


@api("GET", "/v1/transfers")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    def where(t: dict[str, Any]) -> bool:
        return all(params.get(k) is None or t.get(k) == params[k]
                   for k in ("destination", "transfer_group"))
    return paginate(ctx, ctx.account.iter_type("transfer"), params, "/v1/transfers", where)


# ------------------------------------------------------------------ reversals

def _reversals(ctx: Ctx, transfer_id: str) -> list[dict[str, Any]]:
    return [r for r in ctx.account.iter_type("transfer_reversal", newest_first=False)
            if r["transfer"] == transfer_id]


@api("POST", "/v1/transfers/{id}/reversals")
def create_reversal(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:  # noqa: A002
    transfer = ctx.get(id, "transfer")
    remaining = transfer["amount"] - transfer["amount_reversed"]
    amount = int(params.get("amount") or remaining)
    if amount > remaining or amount < 1:
        raise InvalidRequest(f"Amount ({amount}) is greater than the unreversed amount on the "
                             f"transfer ({remaining}).", param="amount")
    reversal = ctx.new("transfer_reversal", "trr", amount=amount,
                       currency=transfer["currency"], transfer=transfer["id"],
                       metadata=merge_metadata({}, params.get("metadata") or {}))
    txn = balance.record(ctx, kind="transfer_cancel", amount=amount,
                         currency=transfer["currency"], source=reversal["id"],
                         available_now=True)
    reversal["balance_transaction"] = txn["id"]
    connected = ctx.store.accounts.get(transfer["destination"])
    if connected is not None:
        inner = ctx.acting_as(connected)
        balance.record(inner, kind="payment_refund", amount=-amount,
                       currency=transfer["currency"], source=transfer["destination_payment"],
                       available_now=True)
    ctx.put(reversal)
    _count_back(ctx, transfer, amount, "amount_reversed", "reversed", "transfer.reversed")
    return reversal


def _count_back(ctx: Ctx, obj: dict[str, Any], amount: int, total: str, flag: str,
                event: str) -> None:
    """Add a reversal or refund to its transfer or fee: the running total, whether it is
    all of it, the event."""
    before = dict(obj)
    obj[total] += amount
    obj[flag] = obj[total] == obj["amount"]
    ctx.put(obj)
    ctx.emit(event, obj, changed(before, obj))


@api("GET", "/v1/transfers/{id}/reversals")
def list_reversals(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:  # noqa: A002
    ctx.get(id, "transfer")
    items = reversed(_reversals(ctx, id))
    return paginate(ctx, items, params, f"/v1/transfers/{id}/reversals")


@api("GET", "/v1/transfers/{transfer}/reversals/{id}")
def retrieve_reversal(ctx: Ctx, params: dict[str, Any], transfer: str,
                      id: str) -> dict[str, Any]:  # noqa: A002
    found = next((r for r in _reversals(ctx, transfer) if r["id"] == id), None)
    if found is None:
        raise missing("transfer reversal", id)
    return found


# ------------------------------------------------------------------ destination charges

def _destination_charge(ctx: Ctx, charge: dict[str, Any]) -> None:
    """A captured charge whose PaymentIntent names `transfer_data[destination]` moves the
    money on: a transfer to the connected account, and the application fee back."""
    intent = ctx.maybe(charge.get("payment_intent"), "payment_intent") or {}
    data = intent.get("transfer_data") or {}
    destination = data.get("destination")
    charge["on_behalf_of"] = intent.get("on_behalf_of")
    charge["transfer_group"] = intent.get("transfer_group")
    charge["application_fee_amount"] = intent.get("application_fee_amount")
    if not destination or ctx.account.parent:
        return
    amount = int(data.get("amount") or charge["amount_captured"])
    transfer = make_transfer(ctx, amount=amount, cur=charge["currency"],
                             destination=destination, source=charge,
                             transfer_group=intent.get("transfer_group"))
    charge["transfer"] = transfer["id"]
    charge["transfer_data"] = {"amount": data.get("amount"), "destination": destination}
    fee_amount = intent.get("application_fee_amount")
    if fee_amount:
        charge["application_fee"] = _collect_fee(ctx, charge, transfer, int(fee_amount))["id"]


def _collect_fee(ctx: Ctx, charge: dict[str, Any], transfer: dict[str, Any],
                 amount: int) -> dict[str, Any]:
    fee = ctx.new("application_fee", "fee", amount=amount, currency=charge["currency"],
                  account=transfer["destination"], charge=charge["id"],
                  originating_transaction=charge["id"], amount_refunded=0, refunded=False,
                  application="ca_local_platform")
    fee.pop("refunds", None)
    txn = balance.record(ctx, kind="application_fee", amount=amount,
                         currency=charge["currency"], source=fee["id"])
    fee["balance_transaction"] = txn["id"]
    connected = ctx.store.accounts[transfer["destination"]]
    balance.record(ctx.acting_as(connected), kind="application_fee", amount=-amount,
                   currency=charge["currency"], source=fee["id"])
    ctx.put(fee)
    ctx.emit("application_fee.created", fee)
    return fee


charges.CAPTURED_HOOKS.append(_destination_charge)


@api("GET", "/v1/application_fees")
def list_fees(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    def where(f: dict[str, Any]) -> bool:
        return params.get("charge") is None or f["charge"] == params["charge"]
    return paginate(ctx, ctx.account.iter_type("application_fee"), params,
                    "/v1/application_fees", where)


@api("GET", "/v1/application_fees/{id}")
def retrieve_fee(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:  # noqa: A002
    return ctx.get(id, "application_fee")


@api("POST", "/v1/application_fees/{id}/refunds")
def refund_fee(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:  # noqa: A002
    fee = ctx.get(id, "application_fee")
    remaining = fee["amount"] - fee["amount_refunded"]
    amount = int(params.get("amount") or remaining)
    if amount > remaining or amount < 1:
        raise InvalidRequest(f"Refund amount ({amount}) is greater than the unrefunded fee "
                             f"({remaining}).", param="amount")
    refund = ctx.new("fee_refund", "fr", amount=amount, currency=fee["currency"],
                     fee=fee["id"], metadata=merge_metadata({}, params.get("metadata") or {}))
    txn = balance.record(ctx, kind="application_fee_refund", amount=-amount,
                         currency=fee["currency"], source=refund["id"], available_now=True)
    refund["balance_transaction"] = txn["id"]
    connected = ctx.store.accounts.get(fee["account"])
    if connected is not None:
        balance.record(ctx.acting_as(connected), kind="application_fee_refund", amount=amount,
                       currency=fee["currency"], source=refund["id"], available_now=True)
    ctx.put(refund)
    _count_back(ctx, fee, amount, "amount_refunded", "refunded", "application_fee.refunded")
    return refund


@api("GET", "/v1/application_fees/{id}/refunds")
def list_fee_refunds(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:  # noqa: A002
    ctx.get(id, "application_fee")
    items = (r for r in ctx.account.iter_type("fee_refund") if r["fee"] == id)
    return paginate(ctx, items, params, f"/v1/application_fees/{id}/refunds")
