"""Migrate Acme Notes' live subscriptions to Stripe Billing (safe to run again)."""

from __future__ import annotations

import calendar
import os
import sqlite3
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import stripe

stripe.api_key = os.environ["STRIPE_SECRET_KEY"]
stripe.api_base = os.environ["STRIPE_API_BASE"]
DB = Path(__file__).with_name("billing.db")


@dataclass
class Row:
    customer: str
    email: str
    name: str
    card: str
    discount: int | None
    subscription: str
    plan: str
    seats: int
    status: str
    renews: str
    trial_ends: str | None
    stripe_customer: str | None
    stripe_subscription: str | None


def utc_midnight(day: str) -> int:
    return calendar.timegm(date.fromisoformat(day).timetuple())


def live_rows(db: sqlite3.Connection) -> list[Row]:
    return [Row(*r) for r in db.execute(
        "SELECT c.id, c.email, c.name, c.card_token, c.discount_percent, s.id, s.plan_code, "
        "s.seats, s.status, s.next_renewal_on, s.trial_ends_on, c.stripe_customer_id, "
        "s.stripe_subscription_id FROM subscriptions s JOIN customers c "
        "ON c.id = s.customer_id WHERE s.status != 'canceled' ORDER BY c.id, s.id")]


def customer_for(row: Row) -> stripe.Customer:
    if row.stripe_customer:
        return stripe.Customer.retrieve(row.stripe_customer)
    hits = stripe.Customer.search(query=f"metadata['legacy_id']:'{row.customer}'").data
    if hits:
        return hits[0]
    return stripe.Customer.create(email=row.email, name=row.name,
                                  metadata={"legacy_id": row.customer})


def with_card(customer: stripe.Customer, row: Row) -> None:
    if customer.invoice_settings.default_payment_method:
        return
    card = stripe.PaymentMethod.attach(row.card, customer=customer.id)
    stripe.Customer.modify(customer.id,
                           invoice_settings={"default_payment_method": card.id})


def subscription_for(customer: stripe.Customer, row: Row) -> stripe.Subscription:
    if row.stripe_subscription:
        return stripe.Subscription.retrieve(row.stripe_subscription)
    hits = [s for s in stripe.Subscription.search(
        query=f"metadata['legacy_subscription_id']:'{row.subscription}'").data
        if s.status not in ("canceled", "incomplete_expired")]
    if hits:
        return hits[0]
    price = stripe.Price.list(lookup_keys=[row.plan]).data[0]
    extra: dict = {}
    if row.status == "trialing" and row.trial_ends:
        extra["trial_end"] = utc_midnight(row.trial_ends)
        if row.trial_ends != row.renews:
            extra["billing_cycle_anchor"] = utc_midnight(row.renews)
    else:
        extra["billing_cycle_anchor"] = utc_midnight(row.renews)
    if row.discount:
        coupon_id = f"acme-{row.discount}-forever"
        try:
            stripe.Coupon.retrieve(coupon_id)
        except stripe.InvalidRequestError:
            stripe.Coupon.create(id=coupon_id, percent_off=row.discount, duration="forever")
        extra["discounts"] = [{"coupon": coupon_id}]
    return stripe.Subscription.create(
        customer=customer.id, items=[{"price": price.id, "quantity": row.seats}],
        metadata={"legacy_subscription_id": row.subscription},
        collection_method="charge_automatically", proration_behavior="none", **extra)


def main() -> None:
    db = sqlite3.connect(DB)
    for table, column in (("customers", "stripe_customer_id"),
                          ("subscriptions", "stripe_subscription_id")):
        try:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
        except sqlite3.OperationalError:
            pass  # already there
    for row in live_rows(db):
        customer = customer_for(row)
        with_card(customer, row)
        sub = subscription_for(customer, row)
        with db:
            db.execute("UPDATE customers SET stripe_customer_id = ? WHERE id = ?",
                       (customer.id, row.customer))
            db.execute("UPDATE subscriptions SET stripe_subscription_id = ? WHERE id = ?",
                       (sub.id, row.subscription))
        print(row.subscription, "->", sub.id, sub.status)


if __name__ == "__main__":
    main()
