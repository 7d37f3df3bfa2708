"""Payments service: what happened to a payment, for the support dashboard.

GET /healthz                              200 when the service is up
GET /version                              the Stripe SDK and API version it uses
GET /payments/<payment_intent_id>         one payment: its charge, card and refunds
GET /customers/<customer_id>/payments     every payment of a customer, with totals
"""

import os

import stripe
from flask import Flask, jsonify

from stripe_client import API_VERSION, client

app = Flask(__name__)


def card_view(charge):
    details = charge.payment_method_details
    if not details or details.type != "card":
        return None
    card = details.card
    return {"brand": card.brand, "last4": card.last4, "exp_month": card.exp_month,
            "exp_year": card.exp_year, "funding": card.funding}


def charge_view(charge):
    if charge is None:
        return None
    # Since 2022-11-15 a charge no longer embeds its refunds: list them.
    refunds = client.v1.refunds.list({"charge": charge.id, "limit": 100})
    return {
        "id": charge.id,
        "amount": charge.amount,
        "amount_captured": charge.amount_captured,
        "captured": charge.captured,
        "paid": charge.paid,
        "status": charge.status,
        "receipt_url": charge.receipt_url,
        "amount_refunded": charge.amount_refunded,
        "refunded": charge.refunded,
        "card": card_view(charge),
        "refunds": [{"id": r.id, "amount": r.amount, "status": r.status, "reason": r.reason}
                    for r in refunds.auto_paging_iter()],
    }


def payment_view(intent):
    # `charges` is gone from PaymentIntents; `latest_charge` (expanded) is the one we want.
    return {
        "id": intent.id,
        "amount": intent.amount,
        "currency": intent.currency,
        "status": intent.status,
        "customer": intent.customer,
        "description": intent.description,
        "charge": charge_view(intent.latest_charge),
    }


@app.get("/healthz")
def healthz():
    return jsonify({"status": "ok"})


@app.get("/version")
def version():
    return jsonify({"service": "payments", "stripe_sdk": stripe.VERSION,
                    "api_version": API_VERSION})


@app.get("/payments/<intent_id>")
def payment(intent_id):
    try:
        intent = client.v1.payment_intents.retrieve(intent_id, {"expand": ["latest_charge"]})
    except stripe.InvalidRequestError as exc:
        if exc.http_status == 404:
            return jsonify({"error": "not_found", "id": intent_id}), 404
        raise
    return jsonify(payment_view(intent))


@app.get("/customers/<customer_id>/payments")
def customer_payments(customer_id):
    intents = client.v1.payment_intents.list({"customer": customer_id, "limit": 100,
                                              "expand": ["data.latest_charge"]})
    payments = [payment_view(i) for i in intents.auto_paging_iter()]
    charges = [p["charge"] for p in payments if p["charge"]]
    return jsonify({
        "customer": customer_id,
        "count": len(payments),
        "captured": sum(c["amount_captured"] for c in charges),
        "refunded": sum(c["amount_refunded"] for c in charges),
        "payments": payments,
    })


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "5101")))
