"""Each endpoint's JSON as the contract defines it, computed by the grader from the API
at the current version (the services' old code computed the same from the old shapes)."""

from __future__ import annotations

from typing import Any

DAY = 86400
MONTHS = {"day": 12 / 365, "week": 12 / 52, "month": 1, "year": 12}


def _d(obj: Any) -> dict[str, Any]:
    return obj.to_dict() if hasattr(obj, "to_dict") else dict(obj)


# ------------------------------------------------------------------ payments

def _card(charge: dict[str, Any]) -> dict[str, Any] | None:
    details = charge.get("payment_method_details") or {}
    if details.get("type") != "card":
        return None
    card = details["card"]
    return {k: card[k] for k in ("brand", "last4", "exp_month", "exp_year", "funding")}


def _charge(client: Any, charge: dict[str, Any] | None) -> dict[str, Any] | None:
    if charge is None:
        return None
    refunds = client.v1.refunds.list({"charge": charge["id"], "limit": 100})
    return {
        **{k: charge[k] for k in ("id", "amount", "amount_captured", "captured", "paid",
                                  "status", "receipt_url", "amount_refunded", "refunded")},
        "card": _card(charge),
        "refunds": [{k: r[k] for k in ("id", "amount", "status", "reason")}
                    for r in (_d(r) for r in refunds.auto_paging_iter())],
    }


def payment(client: Any, intent_id: str) -> dict[str, Any]:
    intent = _d(client.v1.payment_intents.retrieve(intent_id, {"expand": ["latest_charge"]}))
    return {**{k: intent[k] for k in ("id", "amount", "currency", "status", "customer",
                                      "description")},
            "charge": _charge(client, intent["latest_charge"])}


def customer_payments(client: Any, customer: str) -> dict[str, Any]:
    listed = client.v1.payment_intents.list({"customer": customer, "limit": 100})
    views = [payment(client, i.id) for i in listed.auto_paging_iter()]
    charges = [v["charge"] for v in views if v["charge"]]
    return {"customer": customer, "count": len(views),
            "captured": sum(c["amount_captured"] for c in charges),
            "refunded": sum(c["amount_refunded"] for c in charges), "payments": views}


# ------------------------------------------------------------------ invoices

def _paying_intent(client: Any, invoice_id: str) -> dict[str, Any] | None:
    """The invoice's payment: the paid one, else the default (as `payment_intent` was)."""
    records = [_d(r) for r in client.v1.invoice_payments.list(
        {"invoice": invoice_id, "limit": 100}).auto_paging_iter()]
    chosen = [r for r in records if r["status"] == "paid"] or \
        [r for r in records if r["is_default"]]
    intent_id = chosen[0]["payment"].get("payment_intent") if chosen else None
    return _d(client.v1.payment_intents.retrieve(intent_id)) if intent_id else None


def invoice_status(client: Any, invoice_id: str) -> dict[str, Any]:
    invoice = _d(client.v1.invoices.retrieve(invoice_id))
    intent = _paying_intent(client, invoice_id)
    return {
        **{k: invoice[k] for k in ("id", "number", "customer", "status", "currency",
                                   "amount_due", "amount_paid", "amount_remaining")},
        "paid": invoice["status"] == "paid",
        "paid_at": (invoice.get("status_transitions") or {}).get("paid_at"),
        "payment": None if intent is None else {
            "payment_intent": intent["id"], "status": intent["status"],
            "amount": intent["amount"], "amount_received": intent["amount_received"]},
    }


def customer_invoices(client: Any, customer: str) -> dict[str, Any]:
    listed = client.v1.invoices.list({"customer": customer, "limit": 100})
    views = [invoice_status(client, i.id) for i in listed.auto_paging_iter()
             if i.status != "draft"]
    return {"customer": customer, "paid": sum(1 for v in views if v["paid"]),
            "unpaid": sum(1 for v in views if not v["paid"]),
            "outstanding": sum(v["amount_remaining"] for v in views if v["status"] == "open"),
            "invoices": views}


# ------------------------------------------------------------------ subscriptions

def _monthly(price: dict[str, Any], quantity: int) -> int:
    recurring = price.get("recurring")
    if not recurring:
        return 0
    per_interval = price["unit_amount"] * quantity / recurring["interval_count"]
    return round(per_interval / MONTHS[recurring["interval"]])


def subscription_metrics(client: Any, subscription_id: str) -> dict[str, Any]:
    sub = _d(client.v1.subscriptions.retrieve(subscription_id))
    items = sub["items"]["data"]
    start = min(i["current_period_start"] for i in items)
    end = max(i["current_period_end"] for i in items)
    views = [{"price": i["price"]["id"], "quantity": i["quantity"],
              "interval": i["price"]["recurring"]["interval"],
              "monthly_amount": _monthly(i["price"], i["quantity"])} for i in items]
    return {"id": sub["id"], "customer": sub["customer"], "status": sub["status"],
            "cancel_at_period_end": sub["cancel_at_period_end"],
            "current_period_start": start, "current_period_end": end,
            "period_days": round((end - start) / DAY), "items": views,
            "monthly_amount": sum(v["monthly_amount"] for v in views)}


def subscription_summary(client: Any, customer: str) -> dict[str, Any]:
    every = [s.id for s in client.v1.subscriptions.list(
        {"customer": customer, "status": "all", "limit": 100}).auto_paging_iter()]
    active = [s.id for s in client.v1.subscriptions.list(
        {"customer": customer, "status": "active", "limit": 100}).auto_paging_iter()]
    return {"customer": customer, "total": len(every), "active": len(active),
            "latest": every[:3]}
