"""InvoicePayments (`inpay_`): the PaymentIntents that pay (part of) an invoice."""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..listing import paginate
from ..router import api


@api("GET", "/v1/invoice_payments/{invoice_payment}")
def retrieve(ctx: Ctx, params: dict[str, Any], invoice_payment: str) -> dict[str, Any]:
    return ctx.get(invoice_payment, "invoice_payment")


@api("GET", "/v1/invoice_payments")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    payment = params.get("payment") or {}

    def where(r: dict[str, Any]) -> bool:
        if params.get("invoice") and r["invoice"] != params["invoice"]:
            return False
        if params.get("status") and r["status"] != params["status"]:
            return False
        if payment.get("type") and r["payment"]["type"] != payment["type"]:
            return False
        return not payment.get("payment_intent") or \
            r["payment"].get("payment_intent") == payment["payment_intent"]
    return paginate(ctx, ctx.account.iter_type("invoice_payment"), params,
                    "/v1/invoice_payments", where)
