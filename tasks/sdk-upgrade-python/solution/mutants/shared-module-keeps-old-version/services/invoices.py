"""Invoices service: is an invoice paid, and by which payment? For the billing team.

GET /healthz                                 200 when the service is up
GET /version                                 the Stripe SDK and API version it uses
GET /invoices/<invoice_id>/payment-status    one invoice's payment status
GET /customers/<customer_id>/invoices        every invoice of a customer, with totals
"""

import os

import stripe
from flask import Flask, jsonify

from stripe_client import API_VERSION, client

app = Flask(__name__)


def paying_intent(invoice_id):
    """The invoice's payment: the one that paid it, else its default one (what the
    invoice's `payment_intent` named before 2025-03-31.basil)."""
    records = list(client.v1.invoice_payments.list(
        {"invoice": invoice_id, "limit": 100,
         "expand": ["data.payment.payment_intent"]}).auto_paging_iter())
    chosen = [r for r in records if r.status == "paid"] or [r for r in records if r.is_default]
    if not chosen:
        return None
    return getattr(chosen[0].payment, "payment_intent", None)


def status_view(invoice):
    intent = paying_intent(invoice.id)
    return {
        "id": invoice.id,
        "number": invoice.number,
        "customer": invoice.customer,
        "status": invoice.status,
        "paid": invoice.status == "paid",  # `paid` was removed in 2025-03-31.basil
        "currency": invoice.currency,
        "amount_due": invoice.amount_due,
        "amount_paid": invoice.amount_paid,
        "amount_remaining": invoice.amount_remaining,
        "paid_at": invoice.status_transitions.paid_at,
        "payment": None if intent is None else {
            "payment_intent": intent.id,
            "status": intent.status,
            "amount": intent.amount,
            "amount_received": intent.amount_received,
        },
    }


@app.get("/healthz")
def healthz():
    return jsonify({"status": "ok"})


@app.get("/version")
def version():
    return jsonify({"service": "invoices", "stripe_sdk": stripe.VERSION,
                    "api_version": API_VERSION})


@app.get("/invoices/<invoice_id>/payment-status")
def payment_status(invoice_id):
    try:
        invoice = client.v1.invoices.retrieve(invoice_id)
    except stripe.InvalidRequestError as exc:
        if exc.http_status == 404:
            return jsonify({"error": "not_found", "id": invoice_id}), 404
        raise
    return jsonify(status_view(invoice))


@app.get("/customers/<customer_id>/invoices")
def customer_invoices(customer_id):
    invoices = client.v1.invoices.list({"customer": customer_id, "limit": 100})
    views = [status_view(i) for i in invoices.auto_paging_iter() if i.status != "draft"]
    return jsonify({
        "customer": customer_id,
        "paid": sum(1 for v in views if v["paid"]),
        "unpaid": sum(1 for v in views if not v["paid"]),
        "outstanding": sum(v["amount_remaining"] for v in views if v["status"] == "open"),
        "invoices": views,
    })


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "5102")))
