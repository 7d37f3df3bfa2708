"""Account Sessions for the Connect embedded components, for the signed-in groomer only."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import stripe
from flask import Blueprint, jsonify, session

sessions = Blueprint("connect_sessions", __name__)
STRIPE = stripe.StripeClient(
    os.environ.get("STRIPE_SECRET_KEY", ""),
    base_addresses={"api": os.environ.get("STRIPE_API_BASE", "https://api.stripe.com")})
DB_PATH = Path(os.environ.get("PLATFORM_DB", Path(__file__).resolve().parent / "platform.db"))


def signed_in_account() -> str | None:
    groomer_id = session.get("groomer_id")
    if groomer_id is None:
        return None
    with sqlite3.connect(DB_PATH) as conn:
        row = conn.execute("SELECT stripe_account_id FROM groomers WHERE id = ?",
                           (groomer_id,)).fetchone()
    return str(row[0]) if row else None


@sessions.post("/connect/sessions")
def create() -> Any:
    account = signed_in_account()
    if account is None:
        return jsonify(error="not signed in"), 403
    made = STRIPE.v1.account_sessions.create({
        "account": account,
        "components": {"payments": {"enabled": True, "features": {
            "dispute_management": True, "refund_management": False}}}})
    return jsonify(secret=made.client_secret)
