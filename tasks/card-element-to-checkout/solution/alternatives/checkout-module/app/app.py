"""Basecamp Goods: a small shop that takes payments with embedded Stripe Checkout."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import stripe
from flask import Flask, abort, g, jsonify, redirect, render_template, request, session, url_for

HERE = Path(__file__).resolve().parent
DB_PATH = Path(os.environ.get("SHOP_DB", HERE / "shop.db"))
SHIPPING_COUNTRIES = {"US": "United States", "CA": "Canada", "GB": "United Kingdom"}
FLAT_SHIPPING = 600  # cents, every order

stripe.api_key = os.environ.get("STRIPE_SECRET_KEY", "")
stripe.api_version = "2020-08-27"
if os.environ.get("STRIPE_API_BASE"):
    stripe.api_base = os.environ["STRIPE_API_BASE"].rstrip("/")

app = Flask(__name__)
app.secret_key = os.environ.get("SHOP_SECRET", "basecamp-goods-dev-secret")


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
    conn.executescript((HERE / "schema.sql").read_text())
    conn.executescript((HERE / "seed.sql").read_text())
    conn.commit()
    conn.close()


def products() -> list[sqlite3.Row]:
    return db().execute("SELECT * FROM products ORDER BY unit_amount").fetchall()


# ------------------------------------------------------------------ cart and pricing

def cart() -> dict[str, int]:
    return session.setdefault("cart", {})


def cart_lines() -> list[dict[str, object]]:
    lines = []
    for row in products():
        quantity = cart().get(row["sku"], 0)
        if quantity > 0:
            lines.append({"sku": row["sku"], "name": row["name"], "quantity": quantity,
                          "unit_amount": row["unit_amount"],
                          "amount": row["unit_amount"] * quantity})
    return lines


def totals() -> dict[str, int]:
    subtotal = sum(int(line["amount"]) for line in cart_lines())  # type: ignore[call-overload]
    return {"subtotal": subtotal}


@app.template_filter("money")
def money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


# ------------------------------------------------------------------ pages

@app.get("/")
def index() -> str:
    return render_template("index.html", products=products(), cart_count=sum(cart().values()))


@app.post("/cart/add")
def cart_add() -> object:
    sku = request.form["sku"]
    if db().execute("SELECT 1 FROM products WHERE sku = ?", (sku,)).fetchone() is None:
        abort(404)
    cart()[sku] = cart().get(sku, 0) + max(1, int(request.form.get("quantity", 1)))
    session.modified = True
    return redirect(url_for("view_cart"))


@app.get("/cart")
def view_cart() -> str:
    return render_template("cart.html", lines=cart_lines(), totals=totals())


@app.post("/cart/update")
def cart_update() -> object:
    for sku in list(cart()):
        quantity = int(request.form.get(f"quantity_{sku}", cart()[sku]))
        if quantity <= 0:
            cart().pop(sku)
        else:
            cart()[sku] = quantity
    session.modified = True
    return redirect(url_for("view_cart"))


import checkout_flow  # noqa: E402 - its routes need the app above

checkout_flow.register(app, db, products, cart_lines)


@app.get("/orders/<int:order_id>")
def order(order_id: int) -> str:
    row = db().execute("SELECT * FROM orders WHERE id = ?", (order_id,)).fetchone()
    if row is None:
        abort(404)
    return render_template("order.html", order=row, items=json.loads(row["items"]))


@app.get("/healthz")
def healthz() -> object:
    return jsonify(ok=True)


init_db()

if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "4242")))
