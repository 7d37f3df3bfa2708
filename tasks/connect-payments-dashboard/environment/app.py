"""Pawsome Pros: a marketplace platform for independent pet groomers.

Groomers sign up with the quickstart, which opens a Stripe connected account for them
(prefilled with test data) and seeds a few test payments from their clients, so the
dashboard has something to show. The Payments page is still a placeholder.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import stripe
from flask import Flask, abort, g, redirect, render_template, request, session, url_for

HERE = Path(__file__).resolve().parent
DB_PATH = Path(os.environ.get("PLATFORM_DB", HERE / "platform.db"))
PUBLISHABLE_KEY = os.environ.get("STRIPE_PUBLISHABLE_KEY", "")

client = stripe.StripeClient(
    os.environ.get("STRIPE_SECRET_KEY", ""),
    base_addresses={"api": os.environ.get("STRIPE_API_BASE", "https://api.stripe.com")})

app = Flask(__name__)
app.secret_key = os.environ.get("PLATFORM_SECRET", "pawsome-pros-dev-secret")

# The quickstart's seeded client payments: (client email, amount in cents, test card).
SEED_PAYMENTS = (
    ("maya.fernandez@example.com", 6500, "pm_card_visa"),
    ("oliver.grant@example.com", 4800, "pm_card_mastercard"),
    ("priya.shah@example.com", 9200, "pm_card_createDispute"),
    ("sam.okafor@example.com", 3500, "pm_card_visa"),
    ("lena.kowalski@example.com", 7000, "pm_card_amex"),
)
REFUNDED = "sam.okafor@example.com"


# ------------------------------------------------------------------ database

def db() -> sqlite3.Connection:
    if "db" not in g:
        g.db = sqlite3.connect(DB_PATH)
        g.db.row_factory = sqlite3.Row
    return g.db


@app.teardown_appcontext
def close_db(_: object) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


def init_db() -> None:
    conn = sqlite3.connect(DB_PATH)
    conn.executescript("""
        CREATE TABLE IF NOT EXISTS groomers (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            email TEXT NOT NULL UNIQUE,
            business_name TEXT NOT NULL,
            stripe_account_id TEXT NOT NULL,
            created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
        );
    """)
    conn.commit()
    conn.close()


def current_groomer() -> sqlite3.Row | None:
    groomer_id = session.get("groomer_id")
    if groomer_id is None:
        return None
    row: sqlite3.Row | None = db().execute("SELECT * FROM groomers WHERE id = ?",
                                           (groomer_id,)).fetchone()
    return row


# ------------------------------------------------------------------ Stripe

def open_connected_account(email: str, business_name: str) -> str:
    """A Custom connected account the platform onboards itself, prefilled with test data."""
    account = client.v1.accounts.create(params={
        "country": "US", "email": email, "business_type": "individual",
        "controller": {"fees": {"payer": "application"},
                       "losses": {"payments": "application"},
                       "requirement_collection": "application",
                       "stripe_dashboard": {"type": "none"}},
        "capabilities": {"card_payments": {"requested": True},
                         "transfers": {"requested": True}},
        "business_profile": {"name": business_name, "mcc": "0742",
                             "url": "https://pawsome.example/groomers"},
        "individual": {"first_name": "Test", "last_name": "Groomer", "email": email,
                       "phone": "+15555550142", "dob": {"day": 1, "month": 1, "year": 1901},
                       "ssn_last_4": "0000",
                       "address": {"line1": "address_full_match", "city": "Portland",
                                   "state": "OR", "postal_code": "97205", "country": "US"}},
        "external_account": "btok_us_verified",
        "tos_acceptance": {"date": 1767225600, "ip": "127.0.0.1"},
    })
    return account.id


def seed_payments(account_id: str) -> None:
    """Test payments from the groomer's clients, made directly on the connected account."""
    on_account: Any = {"stripe_account": account_id}
    for email, amount, card in SEED_PAYMENTS:
        customer = client.v1.customers.create(params={"email": email}, options=on_account)
        intent = client.v1.payment_intents.create(params={
            "amount": amount, "currency": "usd", "customer": customer.id,
            "receipt_email": email, "confirm": True, "payment_method": card,
            "description": "Grooming appointment",
            "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"},
        }, options=on_account)
        if email == REFUNDED:
            client.v1.refunds.create(params={"payment_intent": intent.id}, options=on_account)


# ------------------------------------------------------------------ pages

@app.get("/healthz")
def healthz() -> str:
    return "ok"


@app.get("/")
def index() -> str:
    return render_template("index.html", groomer=current_groomer())


@app.post("/signup")
def signup() -> Any:
    email = (request.form.get("email") or "").strip().lower()
    business_name = (request.form.get("business_name") or "").strip()
    if "@" not in email or not business_name:
        return render_template("index.html", groomer=None,
                               error="Enter your email and your business name."), 400
    existing = db().execute("SELECT id FROM groomers WHERE email = ?", (email,)).fetchone()
    if existing is not None:
        session["groomer_id"] = existing["id"]
        return redirect(url_for("dashboard"))
    account_id = open_connected_account(email, business_name)
    seed_payments(account_id)
    cursor = db().execute(
        "INSERT INTO groomers (email, business_name, stripe_account_id) VALUES (?, ?, ?)",
        (email, business_name, account_id))
    db().commit()
    session["groomer_id"] = cursor.lastrowid
    return redirect(url_for("dashboard"))


@app.post("/logout")
def logout() -> Any:
    session.clear()
    return redirect(url_for("index"))


@app.get("/dashboard")
def dashboard() -> str:
    groomer = current_groomer()
    if groomer is None:
        abort(401)
    account = client.v1.accounts.retrieve(groomer["stripe_account_id"])
    return render_template("dashboard.html", groomer=groomer, account=account)


@app.get("/payments")
def payments() -> str:
    groomer = current_groomer()
    if groomer is None:
        abort(401)
    return render_template("payments.html", groomer=groomer)


if __name__ == "__main__":
    init_db()
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "4242")), debug=False)
