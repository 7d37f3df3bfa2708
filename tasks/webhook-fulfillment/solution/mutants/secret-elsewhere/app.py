"""Steep & Co: a small tea shop that sells through Stripe's hosted Checkout.

Orders are fulfilled from verified `checkout.session.completed` (paid) and
`checkout.session.async_payment_succeeded` webhooks, and from the success page when it
is loaded first; either way exactly once per Checkout Session (a unique order row is
the lock: stock and email follow only from the insert that created it).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import stripe
from flask import Flask, abort, g, redirect, render_template, request

HERE = Path(__file__).resolve().parent
DB_PATH = Path(os.environ.get("SHOP_DB", HERE / "shop.db"))
SHOP_URL = os.environ.get("SHOP_URL", "http://127.0.0.1:4242").rstrip("/")

client = stripe.StripeClient(
    os.environ.get("STRIPE_SECRET_KEY", ""),
    base_addresses={"api": os.environ.get("STRIPE_API_BASE", "https://api.stripe.com")})

app = Flask(__name__)


# ------------------------------------------------------------------ database

def db() -> sqlite3.Connection:
    if "db" not in g:
        g.db = sqlite3.connect(DB_PATH, timeout=10)
        g.db.row_factory = sqlite3.Row
    return g.db


@app.teardown_appcontext
def close_db(_: object) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


def init_db() -> None:
    conn = sqlite3.connect(DB_PATH)
    conn.executescript((HERE / "schema.sql").read_text())
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS orders_one_per_session "
                 "ON orders (checkout_session_id)")
    if conn.execute("SELECT COUNT(*) FROM products").fetchone()[0] == 0:
        conn.executescript((HERE / "seed.sql").read_text())
    conn.commit()
    conn.close()


# ------------------------------------------------------------------ fulfilment

def fulfil(session: Any) -> None:
    """Record the order, take the stock, queue the confirmation email: once per session."""
    sku = session["metadata"]["sku"]
    details = session["customer_details"] or {}
    email = details["email"] if "email" in details else ""
    conn = db()
    inserted = conn.execute(
        "INSERT OR IGNORE INTO orders (checkout_session_id, sku, quantity, amount_total, email) "
        "VALUES (?, ?, 1, ?, ?)", (session["id"], sku, session["amount_total"], email or ""))
    if inserted.rowcount == 0:
        conn.commit()
        return  # already fulfilled
    conn.execute("UPDATE products SET stock = stock - 1 WHERE sku = ?", (sku,))
    conn.execute("INSERT INTO outbox (recipient, subject) VALUES (?, ?)",
                 (email, f"Your Steep & Co order ({sku})"))
    conn.commit()


# ------------------------------------------------------------------ pages

@app.get("/healthz")
def healthz() -> str:
    return "ok"


@app.get("/")
def index() -> str:
    products = db().execute("SELECT * FROM products ORDER BY name").fetchall()
    return render_template("index.html", products=products)


@app.post("/buy/<sku>")
def buy(sku: str) -> Any:
    product = db().execute("SELECT * FROM products WHERE sku = ?", (sku,)).fetchone()
    if product is None:
        abort(404)
    prices = client.v1.prices.list(params={"lookup_keys": [product["stripe_lookup_key"]]})
    if not prices.data:
        abort(500, "no Stripe price for this product")
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment",
        "line_items": [{"price": prices.data[0].id, "quantity": 1}],
        "metadata": {"sku": sku},
        "success_url": f"{SHOP_URL}/success?session_id={{CHECKOUT_SESSION_ID}}",
        "cancel_url": f"{SHOP_URL}/",
    })
    return redirect(str(session.url), code=303)


@app.get("/success")
def success() -> str:
    session_id = request.args.get("session_id", "")
    session = client.v1.checkout.sessions.retrieve(session_id)
    if session.payment_status == "paid":
        fulfil(session)
    return render_template("success.html", session=session)


def webhook_secret() -> str:
    return (HERE / ".env.webhook").read_text().strip()


@app.post("/webhook")
def webhook() -> Any:
    payload = request.get_data()
    try:
        event = stripe.Webhook.construct_event(
            payload, request.headers.get("Stripe-Signature", ""), webhook_secret())
    except (ValueError, stripe.SignatureVerificationError):
        return {"error": "invalid signature"}, 400
    session = event["data"]["object"]
    if event["type"] == "checkout.session.completed" and session["payment_status"] == "paid":
        fulfil(session)
    elif event["type"] == "checkout.session.async_payment_succeeded":
        fulfil(session)
    return {"received": True}


if __name__ == "__main__":
    init_db()
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "4242")), debug=False,
            threaded=True)
