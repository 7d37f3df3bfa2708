"""Acme Notes' in-house subscription billing, on SQLite (billing.db).

    python billing.py list              every customer and their subscriptions
    python billing.py show C1006        one customer
    python billing.py due 2026-01-31    renewals due on or before a date (UTC)
    python billing.py init --force      rebuild billing.db from legacy/*.sql (loses changes)

Renewals were charged by a nightly job against our old card gateway (`card_token` is the
card on file); that job is switched off now that billing moves to Stripe.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DB = HERE / "billing.db"


def connect() -> sqlite3.Connection:
    db = sqlite3.connect(DB)
    db.row_factory = sqlite3.Row
    return db


def init(force: bool) -> None:
    if DB.exists() and not force:
        sys.exit("billing.db exists; `init --force` rebuilds it from legacy/*.sql")
    DB.unlink(missing_ok=True)
    with connect() as db:
        for name in ("schema.sql", "seed.sql"):
            db.executescript((HERE / "legacy" / name).read_text())


def describe(db: sqlite3.Connection, customer: sqlite3.Row) -> str:
    extra = f", {customer['discount_percent']}% off" if customer["discount_percent"] else ""
    lines = [f"{customer['id']}  {customer['name']} <{customer['email']}>  "
             f"card {customer['card_token']}{extra}"]
    for sub in db.execute("SELECT s.*, p.name AS plan_name, p.amount_cents FROM subscriptions s"
                          " JOIN plans p ON p.code = s.plan_code WHERE customer_id = ?"
                          " ORDER BY s.id", (customer["id"],)):
        when = (f"canceled {sub['canceled_on']}" if sub["status"] == "canceled"
                else f"renews {sub['next_renewal_on']}")
        trial = f", trial until {sub['trial_ends_on']}" if sub["trial_ends_on"] else ""
        lines.append(f"    {sub['id']}  {sub['plan_name']} x{sub['seats']} "
                     f"(${sub['amount_cents'] * sub['seats'] / 100:.2f})  "
                     f"{sub['status']}{trial}, {when}")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    command = argv[0] if argv else "list"
    if command == "init":
        init("--force" in argv)
        return
    with connect() as db:
        if command == "list":
            for customer in db.execute("SELECT * FROM customers ORDER BY id"):
                print(describe(db, customer))
        elif command == "show" and len(argv) == 2:
            customer = db.execute("SELECT * FROM customers WHERE id = ?", (argv[1],)).fetchone()
            if customer is None:
                sys.exit(f"no customer {argv[1]}")
            print(describe(db, customer))
        elif command == "due" and len(argv) == 2:
            for sub in db.execute("SELECT * FROM subscriptions WHERE status != 'canceled' AND "
                                  "next_renewal_on <= ? ORDER BY next_renewal_on", (argv[1],)):
                print(sub["next_renewal_on"], sub["id"], sub["customer_id"], sub["plan_code"])
        else:
            sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
