"""Invoices service: is an invoice paid, and by which payment? For the billing team.

GET /healthz                                 200 when the service is up
GET /version                                 the Stripe SDK and API version it uses
GET /invoices/<invoice_id>/payment-status    one invoice's payment status
GET /customers/<customer_id>/invoices        every invoice of a customer, with totals
"""

import os

import stripe
from flask import Flask, jsonify

stripe.api_key = os.environ.get("STRIPE_SECRET_KEY", "")
stripe.api_version = "2022-08-01"
if os.environ.get("STRIPE_API_BASE"):
    stripe.api_base = os.environ["STRIPE_API_BASE"].rstrip("/")

app = Flask(__name__)


def status_view(invoice):
    intent = invoice.payment_intent  # expanded
    return {
        "id": invoice.id,
        "number": invoice.number,
        "customer": invoice.customer,
        "status": invoice.status,
        "paid": invoice.paid,
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
    return jsonify({"service": "invoices", "stripe_sdk": stripe.version.VERSION,
                    "api_version": stripe.api_version})


@app.get("/invoices/<invoice_id>/payment-status")
def payment_status(invoice_id):
    try:
        invoice = stripe.Invoice.retrieve(invoice_id, expand=["payment_intent"])
    except stripe.error.InvalidRequestError as exc:
        if exc.http_status == 404:
            return jsonify({"error": "not_found", "id": invoice_id}), 404
        raise
    return jsonify(status_view(invoice))


@app.get("/customers/<customer_id>/invoices")
def customer_invoices(customer_id):
    invoices = stripe.Invoice.list(customer=customer_id, limit=100,
                                   expand=["data.payment_intent"])
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
