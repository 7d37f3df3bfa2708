"""Task setup (outside the sandbox, after the fixtures): build the starter's database,
data/tours.db, from db/schema.sql: the tours, the customers (with the Stripe ids the
seeded account got, which differ per trial) and every booking, online and phone, as the
bookings migration left them."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import stripe

sys.path.insert(0, str(Path(__file__).resolve().parent))
import key  # noqa: E402


def by_booking(objects: Any) -> dict[str, str]:
    found = (o.to_dict() for o in objects.auto_paging_iter())
    return {o["metadata"]["booking_id"]: o["id"] for o in found
            if "booking_id" in o["metadata"]}


def main() -> int:
    work = Path(os.environ["STRIPEBENCH_WORKDIR"])
    client = stripe.StripeClient(os.environ["STRIPE_SECRET_KEY"],
                                 base_addresses={"api": os.environ["STRIPE_API_BASE"]})
    customers = {c["metadata"].get("customer_id"): c["id"] for c in
                 (c.to_dict() for c in
                  client.v1.customers.list(params={"limit": 100}).auto_paging_iter())}
    intents = by_booking(client.v1.payment_intents.list(params={"limit": 100}))
    setups = by_booking(client.v1.setup_intents.list(params={"limit": 100}))
    (work / "data").mkdir(exist_ok=True)
    path = work / "data" / "tours.db"
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.executescript((work / "db" / "schema.sql").read_text())
    db.executemany("INSERT INTO tours VALUES (?, ?)", sorted(key.TOURS.items()))
    for cid, email, name, ref in key.CUSTOMERS:
        db.execute("INSERT INTO customers VALUES (?, ?, ?, ?)",
                   (cid, email, name, customers[cid] if ref else None))
    for b in key.BOOKINGS:
        db.execute("INSERT INTO bookings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
                   (b.id, b.customer, b.product, b.tour_date, b.guests, b.currency, b.amount,
                    b.amount_paid, b.source, b.status,
                    intents[b.id] if b.intent_ref else None,
                    setups[b.id] if b.setup_ref else None, b.created_at))
    db.commit()
    db.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
