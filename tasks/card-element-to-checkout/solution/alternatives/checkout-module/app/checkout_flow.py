"""Embedded Checkout for Basecamp Goods: the session, the page that mounts it, the way back."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from typing import Any

import stripe
from flask import Flask, jsonify, redirect, render_template, request, session, url_for

STRIPE = stripe.StripeClient(
    os.environ.get("STRIPE_SECRET_KEY", ""),
    base_addresses={"api": os.environ.get("STRIPE_API_BASE", "https://api.stripe.com")})
STANDARD_SHIPPING = {"display_name": "Standard", "type": "fixed_amount",
                     "fixed_amount": {"amount": 600, "currency": "usd"}}


def register(app: Flask, db: Callable[[], sqlite3.Connection],
             products: Callable[[], list[sqlite3.Row]],
             cart_lines: Callable[[], list[dict[str, Any]]]) -> None:
    def checkout() -> Any:
        if not cart_lines():
            return redirect(url_for("view_cart"))
        return render_template("checkout.html",
                               publishable_key=os.environ.get("STRIPE_PUBLISHABLE_KEY", ""),
                               stripe_js_url=os.environ.get("STRIPE_JS_URL",
                                                            "https://js.stripe.com/v3/"))

    def checkout_session() -> Any:
        lines = cart_lines()
        if not lines:
            return jsonify(error="empty cart"), 400
        by_sku = {row["sku"]: row["stripe_lookup_key"] for row in products()}
        found = STRIPE.v1.prices.list({"lookup_keys": list(by_sku.values())}).data
        price_of = {p.lookup_key: p.id for p in found}
        made = STRIPE.v1.checkout.sessions.create({
            "ui_mode": "embedded_page", "mode": "payment",
            "line_items": [{"price": price_of[by_sku[line["sku"]]],
                            "quantity": line["quantity"],
                            "adjustable_quantity": {"enabled": True}} for line in lines],
            "allow_promotion_codes": True,
            "shipping_address_collection": {"allowed_countries": ["US", "CA", "GB"]},
            "shipping_options": [{"shipping_rate_data": STANDARD_SHIPPING}],
            "return_url": request.host_url + "order/complete?session_id={CHECKOUT_SESSION_ID}",
        })
        return jsonify(secret=made.client_secret)

    def complete() -> Any:
        found = STRIPE.v1.checkout.sessions.retrieve(request.args.get("session_id", ""))
        if found.status != "complete":
            return redirect(url_for("checkout"))
        items = STRIPE.v1.checkout.sessions.line_items.list(found.id, {"limit": 100}).data
        sku_of = {row["stripe_lookup_key"]: row["sku"] for row in products()}
        lines = [{"sku": sku_of.get(i.price.lookup_key, i.price.id), "quantity": i.quantity,
                  "unit_amount": i.price.unit_amount} for i in items]
        details = found.to_dict()
        shipping = (details.get("collected_information") or {}).get("shipping_details") \
            or details.get("shipping_details") or details.get("shipping") or {}
        amounts = details.get("total_details") or {}
        inserted = db().execute(
            "INSERT INTO orders (email, shipping_name, shipping_address, items, subtotal, "
            "discount, shipping, total, stripe_reference) SELECT ?,?,?,?,?,?,?,?,? "
            "WHERE NOT EXISTS (SELECT 1 FROM orders WHERE stripe_reference = ?)",
            ((details.get("customer_details") or {}).get("email"), shipping.get("name"),
             json.dumps(shipping.get("address") or {}), json.dumps(lines),
             details["amount_subtotal"], amounts.get("amount_discount", 0),
             amounts.get("amount_shipping", 0), details["amount_total"], found.id, found.id))
        if inserted.rowcount:
            for line in lines:
                db().execute("UPDATE products SET stock = stock - ? WHERE sku = ?",
                             (line["quantity"], line["sku"]))
        db().commit()
        session.pop("cart", None)
        order_id = db().execute("SELECT id FROM orders WHERE stripe_reference = ?",
                                (found.id,)).fetchone()["id"]
        return render_template("return.html", session_id=found.id, order_id=order_id)

    app.add_url_rule("/checkout", "checkout", checkout)
    app.add_url_rule("/api/checkout-session", "checkout_session", checkout_session)
    app.add_url_rule("/order/complete", "checkout_return", complete)
