"""Subscriptions service: billing periods and counts, for the finance dashboard.

GET /healthz                                        200 when the service is up
GET /version                                        the Stripe SDK and API version it uses
GET /subscriptions/<subscription_id>/metrics        one subscription's period and amounts
GET /customers/<customer_id>/subscriptions/summary  how many subscriptions a customer has
"""

import os

import stripe
from flask import Flask, jsonify

API_VERSION = "2026-10-28.endive"
_base = os.environ.get("STRIPE_API_BASE", "").rstrip("/")
client = stripe.StripeClient(os.environ.get("STRIPE_SECRET_KEY", ""),
                             stripe_version=API_VERSION,
                             base_addresses={"api": _base} if _base else None)

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
    return jsonify({"service": "subscriptions", "stripe_sdk": stripe.VERSION,
                    "api_version": API_VERSION})


@app.get("/subscriptions/<subscription_id>/metrics")
def metrics(subscription_id):
    try:
        sub = client.v1.subscriptions.retrieve(subscription_id)
    except stripe.InvalidRequestError as exc:
        if exc.http_status == 404:
            return jsonify({"error": "not_found", "id": subscription_id}), 404
        raise
    data = sub["items"].data
    items = [{"price": item.price.id, "quantity": item.quantity,
              "interval": item.price.recurring.interval,
              "monthly_amount": monthly(item.price, item.quantity)}
             for item in data]
    # Since 2025-03-31.basil the billing period lives on each item, not the subscription.
    start = min(item.current_period_start for item in data)
    end = max(item.current_period_end for item in data)
    return jsonify({
        "id": sub.id,
        "customer": sub.customer,
        "status": sub.status,
        "cancel_at_period_end": sub.cancel_at_period_end,
        "current_period_start": start,
        "current_period_end": end,
        "period_days": round((end - start) / DAY),
        "items": items,
        "monthly_amount": sum(i["monthly_amount"] for i in items),
    })


def count(params):
    """`include[]=total_count` is gone from lists: page through and count."""
    return sum(1 for _ in client.v1.subscriptions.list(
        {**params, "limit": 100}).auto_paging_iter())


@app.get("/customers/<customer_id>/subscriptions/summary")
def summary(customer_id):
    latest = client.v1.subscriptions.list({"customer": customer_id, "status": "all",
                                           "limit": 3})
    return jsonify({
        "customer": customer_id,
        "total": count({"customer": customer_id}),
        "active": count({"customer": customer_id, "status": "active"}),
        "latest": [s.id for s in latest.data],
    })


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "5103")))
