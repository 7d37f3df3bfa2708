"""Task setup (outside the sandbox, after the fixtures): build the starter's database,
data/tours.db, from db/schema.sql with the Stripe ids the seeded account got (they differ
per trial): the customers and the online bookings' PaymentIntents and SetupIntent, found
by their metadata."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import stripe

CUSTOMERS = [("C-100", "ingrid.berg@example.com", "Ingrid Berg", True),
             ("C-101", "hiro.tanaka@example.jp", "Hiro Tanaka", True),
             ("C-102", "maggie.oneill@example.co.uk", "Maggie O'Neill", True),
             ("C-103", "sam.rivera@example.com", "Sam Rivera", False)]
# id, customer, product, tour date, guests, currency, amount, paid, status, created
ONLINE = [
    ("B-1001", "C-100", "prod_fjord_kayak", "2026-06-14", 2, "eur", 17800, 17800, "complete",
     "2026-01-05"),
    ("B-1002", "C-100", "prod_glacier_hike", "2026-05-30", 1, "eur", 12900, 12900, "refunded",
     "2026-01-08"),
    ("B-1003", "C-101", "prod_northern_lights", "2026-10-20", 3, "jpy", 31500, 31500,
     "complete", "2026-01-11"),
    ("B-1004", "C-101", "prod_whale_safari", "2026-08-15", 2, "jpy", 32000, 0, "incomplete",
     "2026-01-19"),
    ("B-1005", "C-102", "prod_glacier_hike", "2026-07-08", 2, "gbp", 22000, 22000, "complete",
     "2026-02-02"),
]


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
    for cid, email, name, on_stripe in CUSTOMERS:
        db.execute("INSERT INTO customers VALUES (?, ?, ?, ?)",
                   (cid, email, name, customers[cid] if on_stripe else None))
    for row in ONLINE:
        db.execute("INSERT INTO bookings VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'online', ?, ?, ?, ?)",
                   (*row[:9], intents.get(row[0]), setups.get(row[0]), row[9]))
    db.commit()
    db.close()
    missing = [b[0] for b in ONLINE if b[0] not in intents and b[0] not in setups]
    if missing:
        print(f"no Stripe payment found for {missing}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
