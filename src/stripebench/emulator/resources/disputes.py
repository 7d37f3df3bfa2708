"""Disputes: opened by the dispute test cards after a successful charge.

The disputed amount and a 15.00 fee leave the balance at once (as Stripe does).
Evidence can be updated and submitted; as in Stripe's test mode, evidence text
`winning_evidence` wins the dispute and `losing_evidence` loses it. Closing accepts it.
"""

from __future__ import annotations

import copy
from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..events import changed
from ..listing import paginate
from ..render import public_copy
from ..router import api
from . import balance
from ._common import merge_metadata

DISPUTE_FEE = 1500
EVIDENCE_FIELDS = (
    "access_activity_log", "billing_address", "cancellation_policy",
    "cancellation_policy_disclosure", "cancellation_rebuttal", "customer_communication",
    "customer_email_address", "customer_name", "customer_purchase_ip", "customer_signature",
    "duplicate_charge_documentation", "duplicate_charge_explanation", "duplicate_charge_id",
    "enhanced_evidence", "product_description", "receipt", "refund_policy",
    "refund_policy_disclosure", "refund_refusal_explanation", "service_date",
    "service_documentation", "shipping_address", "shipping_carrier", "shipping_date",
    "shipping_documentation", "shipping_tracking_number", "uncategorized_file",
    "uncategorized_text")


def open_dispute(ctx: Ctx, charge: dict[str, Any], reason: str) -> dict[str, Any]:
    """File a dispute against `charge` (emits charge.dispute.created / funds_withdrawn)."""
    inquiry = reason == "general"
    card = (charge.get("payment_method_details") or {}).get("card") or {}
    dispute = ctx.new("dispute", "dp", amount=charge["amount_captured"] or charge["amount"],
                      currency=charge["currency"], charge=charge["id"],
                      payment_intent=charge.get("payment_intent"), reason=reason,
                      status="warning_needs_response" if inquiry else "needs_response",
                      is_charge_refundable=False,
                      evidence={k: {} if k == "enhanced_evidence" else None
                                for k in EVIDENCE_FIELDS},
                      evidence_details={"due_by": ctx.now() + 7 * 86400,
                                        "enhanced_eligibility": {}, "has_evidence": False,
                                        "past_due": False, "submission_count": 0,
                                        "submission_method": "not_submitted"},
                      payment_method_details={"type": "card", "card": {
                          "brand": card.get("brand"), "network": card.get("network"),
                          "case_type": "inquiry" if inquiry else "chargeback",
                          "network_reason_code": "10.4" if reason == "fraudulent" else "13.1"}},
                      network_reason_code="10.4" if reason == "fraudulent" else "13.1",
                      enhanced_eligibility_types=[])
    txns = []
    if not inquiry:
        txn = balance.record(ctx, kind="adjustment", amount=-dispute["amount"],
                             currency=dispute["currency"], source=dispute["id"],
                             fee=DISPUTE_FEE, description=f"Chargeback withdrawal for "
                             f"{charge['id']}", available_now=True, reporting_category="dispute")
        txns.append(public_copy(txn))
    dispute["balance_transactions"] = txns
    ctx.put(dispute)
    before = dict(charge)
    charge["disputed"] = True
    ctx.put(charge)
    ctx.emit("charge.dispute.created", dispute)
    if not inquiry:
        ctx.emit("charge.dispute.funds_withdrawn", dispute)
    ctx.emit("charge.updated", charge, changed(before, charge))
    return dispute


def _settle(ctx: Ctx, dispute: dict[str, Any], won: bool) -> None:
    before = copy.deepcopy(dispute)
    inquiry = dispute["status"].startswith("warning")
    if inquiry:
        dispute["status"] = "warning_closed"
    else:
        dispute["status"] = "won" if won else "lost"
        if won:
            txn = balance.record(ctx, kind="adjustment", amount=dispute["amount"],
                                 currency=dispute["currency"], source=dispute["id"],
                                 fee=-DISPUTE_FEE, description="Chargeback reversal",
                                 available_now=True, reporting_category="dispute_reversal")
            dispute["balance_transactions"].append(public_copy(txn))
    ctx.put(dispute)
    if won and not inquiry:
        ctx.emit("charge.dispute.funds_reinstated", dispute)
    ctx.emit("charge.dispute.closed", dispute, changed(before, dispute))


@api("GET", "/v1/disputes/{dispute}")
def retrieve(ctx: Ctx, params: dict[str, Any], dispute: str) -> dict[str, Any]:
    return ctx.get(dispute, "dispute")


@api("POST", "/v1/disputes/{dispute}")
def update(ctx: Ctx, params: dict[str, Any], dispute: str) -> dict[str, Any]:
    obj = ctx.get(dispute, "dispute")
    if obj["status"] not in ("needs_response", "warning_needs_response"):
        raise InvalidRequest(f"This dispute is already closed or under review (status "
                             f"{obj['status']}); its evidence cannot be changed.",
                             param="evidence")
    before = copy.deepcopy(obj)
    if params.get("evidence"):
        obj["evidence"] = {**obj["evidence"], **params["evidence"]}
        obj["evidence_details"]["has_evidence"] = True
    if "metadata" in params:
        obj["metadata"] = merge_metadata(obj.get("metadata"), params["metadata"])
    ctx.put(obj)
    ctx.emit("charge.dispute.updated", obj, changed(before, obj))
    if params.get("submit", True) and params.get("evidence"):
        obj["evidence_details"]["submission_count"] += 1
        obj["evidence_details"]["submission_method"] = "manual"  # through the API
        text = str(obj["evidence"].get("uncategorized_text") or "")
        if "winning_evidence" in text or "losing_evidence" in text:
            _settle(ctx, obj, won="winning_evidence" in text)
        else:
            obj["status"] = "under_review"
            ctx.put(obj)
    return obj


@api("POST", "/v1/disputes/{dispute}/close")
def close(ctx: Ctx, params: dict[str, Any], dispute: str) -> dict[str, Any]:
    obj = ctx.get(dispute, "dispute")
    if obj["status"] in ("won", "lost", "warning_closed"):
        raise InvalidRequest("This dispute is already closed.")
    _settle(ctx, obj, won=False)
    return obj


@api("GET", "/v1/disputes")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return paginate(ctx, ctx.account.iter_type("dispute"), params, "/v1/disputes", exact={
        "charge": params.get("charge"), "payment_intent": params.get("payment_intent")})
