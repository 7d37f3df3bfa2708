"""Balance and balance transactions.

Every captured charge, refund and dispute writes a balance transaction (fees at the
US card rate: 2.9% + 30 cents on charges). Funds become available two days after the
charge on the simulated clock, or at once for the bypass-pending test cards. The
balance is the sum of the account's transactions per currency.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..listing import paginate
from ..router import api

PENDING_DAYS = 2
FEE_PERCENT_BP = 290  # basis points
FEE_FIXED = 30


def stripe_fee(amount: int) -> int:
    """Stripe's standard US card fee, rounded half up to the cent."""
    return (amount * FEE_PERCENT_BP + 5000) // 10000 + FEE_FIXED


def record(ctx: Ctx, *, kind: str, amount: int, currency: str, source: str, fee: int = 0,
           description: str | None = None, available_now: bool = False,
           reporting_category: str | None = None) -> dict[str, Any]:
    """Write one balance transaction (`txn_`) and return it."""
    txn = ctx.new("balance_transaction", "txn", amount=amount, currency=currency,
                  description=description, fee=fee, net=amount - fee, source=source, type=kind,
                  exchange_rate=None, balance_type="payments",
                  reporting_category=reporting_category or kind)
    txn["fee_details"] = ([{"amount": fee, "application": None, "currency": currency,
                            "description": "Stripe processing fees", "type": "stripe_fee"}]
                          if fee else [])
    txn["available_on"] = ctx.now() if available_now else ctx.now() + PENDING_DAYS * 86400
    txn["status"] = "available" if available_now else "pending"
    ctx.put(txn)
    return txn


def _refresh(ctx: Ctx, txn: dict[str, Any]) -> dict[str, Any]:
    """Pending funds become available once the simulated clock passes `available_on`."""
    if txn.get("status") == "pending" and txn["available_on"] <= ctx.now():
        txn["status"] = "available"
        ctx.put(txn)
    return txn


@api("GET", "/v1/balance")
def retrieve_balance(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    available: dict[str, int] = {}
    pending: dict[str, int] = {}
    for txn in ctx.account.iter_type("balance_transaction", newest_first=False):
        _refresh(ctx, txn)
        target = available if txn["status"] == "available" else pending
        target[txn["currency"]] = target.get(txn["currency"], 0) + txn["net"]
        other = pending if target is available else available
        other.setdefault(txn["currency"], 0)
    if not available and not pending:
        available["usd"] = pending["usd"] = 0

    def amounts(totals: dict[str, int]) -> list[dict[str, Any]]:
        return [{"amount": amount, "currency": cur, "source_types": {"card": amount}}
                for cur, amount in sorted(totals.items())]
    return {"object": "balance", "livemode": False, "available": amounts(available),
            "pending": amounts(pending),
            "connect_reserved": [{"amount": 0, "currency": c} for c in sorted(available)],
            "refund_and_dispute_prefunding": None}


@api("GET", "/v1/balance_transactions")
def list_transactions(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    kind = params.get("type")
    source = params.get("source")
    cur = params.get("currency")
    if params.get("payout"):
        raise InvalidRequest("Filtering balance transactions by payout is not supported by the "
                             "local Stripe emulator.", param="payout",
                             code="emulator_unsupported")

    def where(txn: dict[str, Any]) -> bool:
        _refresh(ctx, txn)
        return ((kind is None or txn["type"] == kind)
                and (source is None or txn["source"] == source)
                and (cur is None or txn["currency"] == cur))
    return paginate(ctx, ctx.account.iter_type("balance_transaction"), params,
                    "/v1/balance_transactions", where)


@api("GET", "/v1/balance_transactions/{id}")
def retrieve_transaction(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:
    return _refresh(ctx, ctx.get(id, "balance_transaction", kind="balance transaction"))
