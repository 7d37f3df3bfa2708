"""Stripe webhooks for Steep & Co: verified, then fulfilled once per Checkout Session."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import stripe
from flask import Blueprint, request

PAID_EVENTS = {"checkout.session.completed", "checkout.session.async_payment_succeeded"}


def make_blueprint(secret_file: Path, db_path: Path,
                   record: Callable[[sqlite3.Connection, Any], None]) -> Blueprint:
    hooks = Blueprint("stripe_webhooks", __name__)

    @hooks.route("/webhook", methods=["POST"])
    def receive() -> Any:
        try:
            event = stripe.Webhook.construct_event(
                request.get_data(), request.headers.get("Stripe-Signature", ""),
                secret_file.read_text().strip())
        except (ValueError, stripe.SignatureVerificationError):
            return "bad signature", 400
        if event.type not in PAID_EVENTS:
            return "", 204
        session = event.data.object
        if event.type == "checkout.session.completed" and session.payment_status != "paid":
            return "", 204
        conn = sqlite3.connect(db_path, timeout=10, isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            seen = conn.execute("SELECT 1 FROM orders WHERE checkout_session_id = ?",
                                (session.id,)).fetchone()
            if seen is None:
                record(conn, session)
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise
        finally:
            conn.close()
        return "", 204

    return hooks
