"""Acme Notes -> Stripe Billing. Idempotent: everything is looked up by listing before it
is created, and every create carries an idempotency key derived from the legacy ids."""

import datetime as dt
import os
import sqlite3
from pathlib import Path

import stripe

HERE = Path(__file__).resolve().parent
sc = stripe.StripeClient(os.environ["STRIPE_SECRET_KEY"],
                         base_addresses={"api": os.environ["STRIPE_API_BASE"]})


def midnight(day):
    return int(dt.datetime(*map(int, day.split("-")), tzinfo=dt.timezone.utc).timestamp())


def key(*parts):
    return "acme-migration-" + "-".join(parts)


def main():
    db = sqlite3.connect(HERE / "billing.db")
    db.row_factory = sqlite3.Row
    for table, column in (("customers", "stripe_customer_id"),
                          ("subscriptions", "stripe_subscription_id")):
        if column not in [r[1] for r in db.execute(f"PRAGMA table_info({table})")]:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
    db.commit()
    existing = {}
    for customer in sc.v1.customers.list(params={"limit": 100}).auto_paging_iter():
        legacy = (customer.to_dict().get("metadata") or {}).get("legacy_id")
        if legacy:
            existing.setdefault(legacy, customer)
    prices = {p.lookup_key: p.id for p in sc.v1.prices.list(
        params={"active": True, "limit": 100}).auto_paging_iter() if p.lookup_key}
    coupons = {(c.percent_off, c.duration): c.id for c in sc.v1.coupons.list(
        params={"limit": 100}).auto_paging_iter()}
    written_customers, written_subs = [], []
    live = db.execute("SELECT s.*, c.email, c.name, c.card_token, c.discount_percent "
                      "FROM subscriptions s JOIN customers c ON c.id = s.customer_id "
                      "WHERE s.status IN ('active', 'trialing', 'past_due') "
                      "ORDER BY s.id").fetchall()
    for sub in live:
        legacy = sub["customer_id"]
        customer = existing.get(legacy)
        if customer is None:
            customer = sc.v1.customers.create(
                params={"email": sub["email"], "name": sub["name"],
                        "metadata": {"legacy_id": legacy}},
                options={"idempotency_key": key(legacy, "customer")})
            existing[legacy] = customer
        cards = sc.v1.payment_methods.list(params={"customer": customer.id, "type": "card"})
        if not cards.data:
            card = sc.v1.payment_methods.attach(
                sub["card_token"], params={"customer": customer.id},
                options={"idempotency_key": key(legacy, "card")})
        else:
            card = cards.data[0]
        if (customer.to_dict().get("invoice_settings") or {}).get(
                "default_payment_method") != card.id:
            customer = sc.v1.customers.update(customer.id, params={
                "invoice_settings": {"default_payment_method": card.id}})
            existing[legacy] = customer
        written_customers.append((customer.id, legacy))
        found = [s for s in sc.v1.subscriptions.list(
            params={"customer": customer.id, "status": "all"}).auto_paging_iter()
            if (s.to_dict().get("metadata") or {}).get("legacy_subscription_id") == sub["id"]
            and s.status not in ("canceled", "incomplete_expired")]
        if found:
            written_subs.append((found[0].id, sub["id"]))
            continue
        params = {"customer": customer.id, "proration_behavior": "none",
                  "collection_method": "charge_automatically",
                  "items": [{"price": prices[sub["plan_code"]], "quantity": sub["seats"]}],
                  "metadata": {"legacy_subscription_id": sub["id"]}}
        if sub["status"] == "trialing":
            params["trial_end"] = midnight(sub["trial_ends_on"])
            if sub["trial_ends_on"] != sub["next_renewal_on"]:
                params["billing_cycle_anchor"] = midnight(sub["next_renewal_on"])
        else:
            params["billing_cycle_anchor"] = midnight(sub["next_renewal_on"])
        if sub["discount_percent"]:
            pct = sub["discount_percent"]
            if (pct, "forever") not in coupons:
                coupons[(pct, "forever")] = sc.v1.coupons.create(
                    params={"percent_off": pct, "duration": "forever"},
                    options={"idempotency_key": key("coupon", str(pct))}).id
            params["discounts"] = [{"coupon": coupons[(pct, "forever")]}]
        created = sc.v1.subscriptions.create(params=params,
                                             options={"idempotency_key": key(sub["id"])})
        written_subs.append((created.id, sub["id"]))
    with db:
        db.executemany("UPDATE customers SET stripe_customer_id = ? WHERE id = ?",
                       written_customers)
        db.executemany("UPDATE subscriptions SET stripe_subscription_id = ? WHERE id = ?",
                       written_subs)
    print(f"{len(written_subs)} subscriptions in Stripe")


main()
