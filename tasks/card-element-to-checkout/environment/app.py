"""Basecamp Goods: a small shop that takes card payments with the Card Element."""

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


def discount_for(code: str | None, subtotal: int) -> int:
    if not code:
        return 0
    row = db().execute("SELECT * FROM discount_codes WHERE code = ? AND active = 1",
                       (code.strip().upper(),)).fetchone()
    if row is None:
        return 0
    if row["percent_off"]:
        return subtotal * row["percent_off"] // 100
    return min(row["amount_off"] or 0, subtotal)


def totals() -> dict[str, int]:
    subtotal = sum(int(line["amount"]) for line in cart_lines())  # type: ignore[call-overload]
    discount = discount_for(session.get("discount_code"), subtotal)
    shipping = FLAT_SHIPPING if subtotal else 0
    return {"subtotal": subtotal, "discount": discount, "shipping": shipping,
            "total": subtotal - discount + shipping}


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


@app.post("/checkout/discount")
def apply_discount() -> object:
    code = request.form.get("code", "").strip().upper()
    if discount_for(code, 10_000) == 0:
        session["discount_error"] = f"{code} is not a valid discount code."
        session.pop("discount_code", None)
    else:
        session["discount_code"] = code
        session.pop("discount_error", None)
    return redirect(url_for("checkout"))


@app.get("/checkout")
def checkout() -> object:
    if not cart_lines():
        return redirect(url_for("view_cart"))
    return render_template("checkout.html", lines=cart_lines(), totals=totals(),
                           discount_code=session.get("discount_code"),
                           discount_error=session.pop("discount_error", None),
                           countries=SHIPPING_COUNTRIES,
                           publishable_key=os.environ.get("STRIPE_PUBLISHABLE_KEY", ""),
                           stripe_js_url=os.environ.get("STRIPE_JS_URL",
                                                        "https://js.stripe.com/v3/"))


@app.post("/pay")
def pay() -> object:
    """Create and confirm the PaymentIntent on the server (manual confirmation)."""
    data = request.get_json(force=True)
    try:
        if data.get("payment_intent_id"):
            intent = stripe.PaymentIntent.confirm(data["payment_intent_id"])
        else:
            shipping = data.get("shipping") or {}
            if shipping.get("country") not in SHIPPING_COUNTRIES:
                return jsonify(error="We only ship to the US, Canada and the UK."), 400
            session["shipping"] = shipping
            amounts = totals()
            intent = stripe.PaymentIntent.create(
                amount=amounts["total"], currency="usd",
                payment_method=data["payment_method_id"], confirmation_method="manual",
                confirm=True, receipt_email=shipping.get("email"),
                shipping={"name": shipping.get("name"),
                          "address": {"line1": shipping.get("line1"),
                                      "city": shipping.get("city"),
                                      "postal_code": shipping.get("postal_code"),
                                      "country": shipping.get("country")}},
                metadata={"discount_code": session.get("discount_code") or ""})
    except stripe.error.CardError as exc:
        return jsonify(error=exc.user_message or str(exc)), 402
    if intent.status == "requires_action":
        return jsonify(requires_action=True, client_secret=intent.client_secret)
    if intent.status != "succeeded":
        return jsonify(error=f"Payment {intent.status}"), 400
    return jsonify(order_id=record_order(intent))


def record_order(intent: stripe.PaymentIntent) -> int:
    amounts = totals()
    shipping = session.get("shipping") or {}
    charge = intent.charges.data[0]  # this API version embeds the charges
    cur = db().execute(
        "INSERT INTO orders (email, shipping_name, shipping_address, items, subtotal, "
        "discount_code, discount, shipping, total, stripe_reference) "
        "VALUES (?,?,?,?,?,?,?,?,?,?)",
        (shipping.get("email"), shipping.get("name"), json.dumps(shipping),
         json.dumps([{k: line[k] for k in ("sku", "quantity", "unit_amount")}
                     for line in cart_lines()]),
         amounts["subtotal"], session.get("discount_code"), amounts["discount"],
         amounts["shipping"], amounts["total"], charge.id))
    for line in cart_lines():
        db().execute("UPDATE products SET stock = stock - ? WHERE sku = ?",
                     (line["quantity"], line["sku"]))
    db().commit()
    session.pop("cart", None)
    session.pop("discount_code", None)
    return int(cur.lastrowid or 0)


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
