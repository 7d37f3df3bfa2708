"""Subscriptions service: billing periods and counts, for the finance dashboard.

GET /healthz                                        200 when the service is up
GET /version                                        the Stripe SDK and API version it uses
GET /subscriptions/<subscription_id>/metrics        one subscription's period and amounts
GET /customers/<customer_id>/subscriptions/summary  how many subscriptions a customer has
"""

import os

import stripe
from flask import Flask, jsonify

stripe.api_key = os.environ.get("STRIPE_SECRET_KEY", "")
stripe.api_version = "2022-08-01"
if os.environ.get("STRIPE_API_BASE"):
    stripe.api_base = os.environ["STRIPE_API_BASE"].rstrip("/")

app = Flask(__name__)
DAY = 86400
MONTHS = {"day": 12 / 365, "week": 12 / 52, "month": 1, "year": 12}


def monthly(price, quantity):
    """The price's amount per month, in the smallest currency unit."""
    recurring = price.recurring
    if not recurring:
        return 0
    per_interval = price.unit_amount * quantity / recurring.interval_count
    return round(per_interval / MONTHS[recurring.interval])


@app.get("/healthz")
def healthz():
    return jsonify({"status": "ok"})


@app.get("/version")
def version():
    return jsonify({"service": "subscriptions", "stripe_sdk": stripe.version.VERSION,
                    "api_version": stripe.api_version})


@app.get("/subscriptions/<subscription_id>/metrics")
def metrics(subscription_id):
    try:
        sub = stripe.Subscription.retrieve(subscription_id)
    except stripe.error.InvalidRequestError as exc:
        if exc.http_status == 404:
            return jsonify({"error": "not_found", "id": subscription_id}), 404
        raise
    items = [{"price": item.price.id, "quantity": item.quantity,
              "interval": item.price.recurring.interval,
              "monthly_amount": monthly(item.price, item.quantity)}
             for item in sub["items"].data]
    return jsonify({
        "id": sub.id,
        "customer": sub.customer,
        "status": sub.status,
        "cancel_at_period_end": sub.cancel_at_period_end,
        "current_period_start": sub.current_period_start,
        "current_period_end": sub.current_period_end,
        "period_days": round((sub.current_period_end - sub.current_period_start) / DAY),
        "items": items,
        "monthly_amount": sum(i["monthly_amount"] for i in items),
    })


@app.get("/customers/<customer_id>/subscriptions/summary")
def summary(customer_id):
    every = stripe.Subscription.list(customer=customer_id, status="all", limit=3,
                                     include=["total_count"])
    active = stripe.Subscription.list(customer=customer_id, status="active", limit=1,
                                      include=["total_count"])
    return jsonify({
        "customer": customer_id,
        "total": every.total_count,
        "active": active.total_count,
        "latest": [s.id for s in every.data],
    })


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "5103")))
