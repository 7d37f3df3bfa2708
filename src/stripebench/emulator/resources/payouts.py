"""Payouts from an account's available balance to its bank account.

Standard payouts arrive two days later on the account's simulated clock (pending →
paid, or → failed for Stripe's failing test bank numbers, which returns the money);
instant payouts are paid at once. Status moves when a payout is read or listed after
its arrival date, and the matching `payout.*` events are written then.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..events import changed
from ..listing import paginate
from ..router import api
from . import balance
from ._common import apply, currency, merge_metadata
from .transfers import available

ARRIVAL_DAYS = 2
# Stripe's test bank account numbers whose payouts fail, with the failure they give.
FAILING_ACCOUNTS = {
    "000111111116": ("no_account", "The bank account details on file are probably "
                     "incorrect. No bank account could be located with those details."),
    "000111111113": ("account_closed", "The bank account has been closed."),
    "000222222227": ("insufficient_funds", "Your Stripe account has insufficient funds to "
                     "cover the payout."),
    "000333333335": ("debit_not_authorized", "Debit transactions are not approved on the "
                     "bank account."),
    "000444444440": ("invalid_currency", "The bank was unable to process this payout "
                     "because of its currency."),
}


def _bank_accounts(ctx: Ctx) -> list[dict[str, Any]]:
    owner = ctx.store.accounts.get(ctx.account.parent or "")
    if owner is None:
        return []
    return [b for b in owner.iter_type("bank_account", newest_first=False)
            if b.get("account") == ctx.account.id]


def _destination(ctx: Ctx, params: dict[str, Any], cur: str) -> dict[str, Any] | None:
    banks = _bank_accounts(ctx)
    wanted = params.get("destination")
    if wanted:
        found = next((b for b in banks if b["id"] == wanted), None)
        if found is None:
            raise InvalidRequest(f"No such external account: '{wanted}'",
                                 code="resource_missing", param="destination", status=404)
        return found
    default = next((b for b in banks if b["currency"] == cur and b["default_for_currency"]),
                   None)
    if default is None and ctx.account.parent:
        raise InvalidRequest(f"You don't have any external accounts in that currency ({cur}).",
                             param="currency")
    return default


def settle(ctx: Ctx, payout: dict[str, Any]) -> dict[str, Any]:
    """Move a payout whose arrival date has passed to paid (or failed)."""
    if payout["status"] not in ("pending", "in_transit") or payout["arrival_date"] > ctx.now():
        return payout
    before = dict(payout)
    failure = payout.get("_failure")
    if failure:
        code, message = failure
        payout.update(status="failed", failure_code=code, failure_message=message)
        txn = balance.record(ctx, kind="payout_failure", amount=payout["amount"],
                             currency=payout["currency"], source=payout["id"],
                             available_now=True)
        payout["failure_balance_transaction"] = txn["id"]
        ctx.put(payout)
        ctx.emit("payout.failed", payout, changed(before, payout))
    else:
        payout["status"] = "paid"
        ctx.put(payout)
        ctx.emit("payout.paid", payout, changed(before, payout))
    return payout


@api("POST", "/v1/payouts")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    amount = int(params["amount"])
    cur = currency(params["currency"])
    if amount < 1:
        raise InvalidRequest("Amount must be at least 1.", param="amount")
    if available(ctx, cur) < amount:
        raise InvalidRequest("You have insufficient funds in your Stripe account for this "
                             "transfer. Your card balance is too low. You can use the "
                             "/v1/balance endpoint to view your Stripe balance (for more "
                             "details, see stripe.com/docs/api#balance).",
                             code="balance_insufficient", param="amount")
    method = params.get("method") or "standard"
    bank = _destination(ctx, params, cur)
    arrival = ctx.now() if method == "instant" else ctx.now() + ARRIVAL_DAYS * 86400
    payout = ctx.new("payout", "po", amount=amount, currency=cur, method=method,
                     arrival_date=arrival, automatic=False, type="bank_account",
                     destination=bank["id"] if bank else None, source_type="card",
                     status="pending", description=params.get("description"),
                     statement_descriptor=params.get("statement_descriptor"),
                     metadata=merge_metadata({}, params.get("metadata") or {}))
    if bank and bank.get("_account_number") in FAILING_ACCOUNTS:
        payout["_failure"] = list(FAILING_ACCOUNTS[bank["_account_number"]])
    txn = balance.record(ctx, kind="payout", amount=-amount, currency=cur,
                         source=payout["id"], available_now=True)
    payout["balance_transaction"] = txn["id"]
    ctx.put(payout)
    ctx.emit("payout.created", payout)
    return settle(ctx, payout) if method == "instant" else payout


@api("GET", "/v1/payouts/{payout}")
def retrieve(ctx: Ctx, params: dict[str, Any], payout: str) -> dict[str, Any]:
    return settle(ctx, ctx.get(payout, "payout"))


@api("POST", "/v1/payouts/{payout}")
def update(ctx: Ctx, params: dict[str, Any], payout: str) -> dict[str, Any]:
    obj = ctx.get(payout, "payout")
    before = dict(obj)
    apply(obj, params, ("metadata",))
    ctx.put(obj)
    ctx.emit("payout.updated", obj, changed(before, obj))
    return obj


@api("GET", "/v1/payouts")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    for payout in ctx.account.iter_type("payout"):
        settle(ctx, payout)

    def where(p: dict[str, Any]) -> bool:
        return all(params.get(k) is None or p.get(k) == params[k]
                   for k in ("status", "destination"))
    return paginate(ctx, ctx.account.iter_type("payout"), params, "/v1/payouts", where)


@api("POST", "/v1/payouts/{payout}/cancel")
def cancel(ctx: Ctx, params: dict[str, Any], payout: str) -> dict[str, Any]:
    obj = settle(ctx, ctx.get(payout, "payout"))
    if obj["status"] != "pending" or obj["method"] == "instant":
        raise InvalidRequest("Payouts can only be canceled while they are pending.",
                             param="payout")
    before = dict(obj)
    obj["status"] = "canceled"
    balance.record(ctx, kind="payout_cancel", amount=obj["amount"], currency=obj["currency"],
                   source=obj["id"], available_now=True)
    ctx.put(obj)
    ctx.emit("payout.canceled", obj, changed(before, obj))
    return obj
