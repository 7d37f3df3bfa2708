"""bookings-migration grader.

Gate `stack_kept`: package.json still depends on stripe 8.222.0 and better-sqlite3.

Then, in order, against the agent's server (restarted from its workdir) and the Stripe
account as the API shows it:

- migration (read from data/tours.db): every CSV booking's row exactly as the key says
  (`phone_rows`), the customer only the CSV knew (`new_customer`), and nothing extra
  (`clean_migration`: no other phone rows, one customer per email, the online rows as
  seeded; worth the migrated fraction, so an untouched table scores 0 there too), and,
  last of all, `node migrate.js` run twice more changes no row (`migration_rerun`);
- catalog: the grader changes the catalog first (a new tour, a yen price replaced), then
  `GET /api/products` must equal what Stripe says now (`products_listing`);
- bookings: the grader adds bookings of its own to the table (an online one paid, one
  paid and then refunded straight through the API, a phone one) and refunds a seeded
  online booking through the API (the Dashboard's way); every customer's
  `GET /api/customers/:id/bookings` must equal the table's bookings with each online
  one's state read from Stripe (`customer_bookings`), the two Dashboard refunds listed as
  refunded (`dashboard_refunds`), one refunded in part still complete
  (`partial_refund_complete`);
- refunds: refunding the grader's paid online booking refunds its PaymentIntent in full
  (`refund_online`); a second refund, a booking refunded from the Dashboard (the table
  still says complete), a phone booking, an unpaid booking and an unknown one are refused
  as specified with nothing refunded (`refund_refusals`, worth something
  only when a refund works);
- purchases: four purchases in four currencies with three card brands (one on the new
  tour and its new price, one for a customer without a Stripe customer yet), each a
  succeeded PaymentIntent whose `amount_received` is the live price times the guests, in
  the booking's currency, for the customer's Stripe customer, listed as complete
  (`purchase_currencies`); amount 0 saves the card with a SetupIntent and charges nothing
  (`save_card`); lost and velocity declines answer their codes and book nothing
  (`declines`), and a wrong amount is refused (`amount_checked`), both worth something
  only when a purchase works.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import key  # noqa: E402
import rerun  # noqa: E402

from stripebench.grading import (  # noqa: E402
    Grader,
    fixtures,
    stripe_client,
    workdir,
)
from stripebench.grading.bounded import Budget  # noqa: E402

# The agent's server: each request waits at most 8 s, all of them together 60 s, and a
# failure is an answer (status 0), never a grader error.
call = Budget(60.0, request_timeout=8.0).call

COLUMNS = ("customer_id", "product_id", "tour_date", "guests", "currency", "amount",
           "amount_paid", "status", "created_at")
VIEW = ("id", "product", "tour_date", "guests", "currency", "amount", "amount_paid",
        "source", "status")


def small_json(path: Path) -> Any:
    info = path.lstat()
    if not stat.S_ISREG(info.st_mode) or info.st_size > 1_000_000:
        raise ValueError(f"{path.name} is not a regular file of sane size")
    return json.loads(path.read_text())


def stack_kept(work: Path) -> bool:
    deps = small_json(work / "package.json").get("dependencies") or {}
    if deps.get("stripe") != "8.222.0" or "better-sqlite3" not in deps:
        raise ValueError(f"package.json must keep stripe 8.222.0 and better-sqlite3: {deps}")
    return True


def open_db(work: Path) -> sqlite3.Connection:
    path = work / "data" / "tours.db"
    info = path.lstat()
    if not stat.S_ISREG(info.st_mode):
        raise ValueError("data/tours.db is not a regular file")
    db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5)
    db.row_factory = sqlite3.Row
    db.execute("SELECT 1 FROM bookings LIMIT 1").fetchall()
    return db


class Bookings:
    """What the grader knows: the database, the Stripe account, the server."""

    def __init__(self, db: sqlite3.Connection, client: Any, url: str) -> None:
        self.db, self.client, self.url = db, client, url
        refs = fixtures()
        self.stripe_ids = {cid: refs[cid.replace("-", "").lower()]["id"]
                           for cid in ("C-100", "C-101", "C-102")}
        self.seeded_intents = {b: refs[r]["id"] for b, (*_, r) in key.ONLINE.items() if r}

    def rows(self, customer: str) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM bookings WHERE customer_id = ? "
                               "ORDER BY tour_date, id", (customer,)).fetchall()

    def row(self, booking: str) -> sqlite3.Row | None:
        found: sqlite3.Row | None = self.db.execute(
            "SELECT * FROM bookings WHERE id = ?", (booking,)).fetchone()
        return found

    def online_state(self, intent_id: str | None) -> tuple[str, int]:
        if not intent_id:
            return "incomplete", 0
        pi = self.client.v1.payment_intents.retrieve(intent_id,
                                                     params={"expand": ["latest_charge"]})
        if pi.status != "succeeded":
            return "incomplete", 0
        charge = pi.latest_charge
        refunded = charge is not None and charge.amount_refunded >= charge.amount
        return ("refunded" if refunded else "complete"), int(pi.amount_received)

    def expected_view(self, customer: str) -> dict[str, Any]:
        views = []
        for r in self.rows(customer):
            if r["source"] == "online":
                status, paid = self.online_state(r["payment_intent"])
            else:
                status, paid = r["status"], r["amount_paid"]
            views.append({"id": r["id"], "product": r["product_id"],
                          "tour_date": r["tour_date"], "guests": r["guests"],
                          "currency": r["currency"], "amount": r["amount"],
                          "amount_paid": paid, "source": r["source"], "status": status})
        return {"customer": customer,
                **{s: [v for v in views if v["status"] == s]
                   for s in ("complete", "refunded", "incomplete")}}

    def get(self, path: str) -> tuple[int, Any]:
        return call("GET", self.url + path)

    def post(self, path: str, body: Any = None) -> tuple[int, Any]:
        return call("POST", self.url + path, body if body is not None else {})

    def intents_of(self, stripe_customer: str | None, status: str | None = None) -> list[str]:
        if not stripe_customer:
            return []
        return [pi.id for pi in self.client.v1.payment_intents.list(
            params={"customer": stripe_customer, "limit": 100}).auto_paging_iter()
            if status is None or pi.status == status]

    def stripe_customer_of(self, customer: str) -> str | None:
        row = self.db.execute("SELECT stripe_customer_id FROM customers WHERE id = ?",
                              (customer,)).fetchone()
        return row[0] if row else None


MISSED: dict[str, str] = {}


def needs(score: float, what: str) -> float:
    """Refusing is worth something only when the thing refused works: else a server
    that refuses everything would earn it."""
    if score <= 0:
        raise ValueError(f"no {what} works, so refusing one proves nothing")
    return 1.0


def check(g: Grader, name: str, weight: float, fn: Callable[[], Any]) -> float:
    """g.check, with the cases a fraction missed as the check's message."""
    score = g.check(name, weight, fn)
    if name in MISSED and not g.results[-1].message:
        g.results[-1].message = MISSED[name]
    return score


def fraction(name: str, cases: list[tuple[str, Callable[[], bool]]]) -> Callable[[], float]:
    """The share of cases that hold (an exception is a miss); the misses are kept as the
    check's message."""
    def run() -> float:
        good, missed = 0, []
        for label, fn in cases:
            try:
                ok = bool(fn())
            except Exception as exc:  # one broken case costs its share only
                ok, label = False, f"{label} ({type(exc).__name__}: {str(exc)[:300]})"
            good += ok
            if not ok:
                missed.append(label)
        if missed:
            MISSED[name] = f"missed {'; '.join(missed)}"[:3000]
        return good / len(cases)
    return run


# ---------------------------------------------------------------------------- migration

def migration_checks(g: Grader, db: sqlite3.Connection) -> None:
    def phone_row(ref: str) -> bool:
        row = db.execute("SELECT * FROM bookings WHERE id = ?", (ref,)).fetchone()
        if row is None:
            raise ValueError("missing")
        got = tuple(row[c] for c in COLUMNS)
        if got != tuple(key.PHONE[ref]) or row["source"] != "phone" or \
                row["payment_intent"] or row["setup_intent"]:
            raise ValueError(f"{dict(row)}")
        return True

    check(g, "phone_rows", 3, fraction("phone_rows",
                                      [(ref, lambda r=ref: phone_row(r)) for ref in key.PHONE]))

    def new_customer() -> bool:
        cid, email, name = key.NEW_CUSTOMER
        row = db.execute("SELECT * FROM customers WHERE id = ?", (cid,)).fetchone()
        if row is None or (row["email"], row["name"]) != (email, name) or \
                row["stripe_customer_id"]:
            raise ValueError(f"customer {cid}: {dict(row) if row else None}")
        return True

    check(g, "new_customer", 1, new_customer)
    migrated = sum(bool(db.execute("SELECT 1 FROM bookings WHERE id = ?", (ref,)).fetchone())
                   for ref in key.PHONE) / len(key.PHONE)

    def clean() -> float:
        problems = [f"phone row {r[0]} is not in the CSV" for r in db.execute(
            "SELECT id FROM bookings WHERE source = 'phone'") if r[0] not in key.PHONE]
        problems += [f"{r[1]} customers with email {r[0]}" for r in db.execute(
            "SELECT lower(email), count(*) FROM customers GROUP BY lower(email) "
            "HAVING count(*) > 1")]
        for booking, (customer, product, day, guests, currency, amount, _) in \
                key.ONLINE.items():
            row = db.execute("SELECT * FROM bookings WHERE id = ?", (booking,)).fetchone()
            if row is None or (row["customer_id"], row["product_id"], row["tour_date"],
                               row["guests"], row["currency"], row["amount"],
                               row["source"]) != (customer, product, day, guests, currency,
                                                  amount, "online"):
                problems.append(f"online booking {booking} changed")
        if problems:
            raise ValueError("; ".join(problems[:6]))
        return migrated

    check(g, "clean_migration", 1, clean)


# ---------------------------------------------------------------------------- catalog

def change_catalog(client: Any) -> dict[str, Any]:
    """A tour added and the glacier hike's yen price replaced: only a listing read from
    Stripe now is right."""
    puffin = client.v1.products.create(params={"name": "Puffin Island Boat Trip",
                                               "metadata": {"tour_code": "puffin_island"}})
    for currency, amount in (("eur", 4900), ("usd", 5400)):
        client.v1.prices.create(params={"product": puffin.id, "currency": currency,
                                        "unit_amount": amount})
    for old in client.v1.prices.list(params={"product": "prod_glacier_hike", "currency": "jpy",
                                              "active": True}).data:
        client.v1.prices.update(old.id, params={"active": False})
    client.v1.prices.create(params={"product": "prod_glacier_hike", "currency": "jpy",
                                    "unit_amount": 22000, "lookup_key": "glacier_hike_jpy",
                                    "transfer_lookup_key": True})
    return {"puffin": puffin.id}


def expected_products(client: Any) -> dict[str, Any]:
    products = [p for p in client.v1.products.list(
        params={"active": True, "limit": 100}).auto_paging_iter()]
    prices = [p for p in client.v1.prices.list(
        params={"active": True, "type": "one_time", "limit": 100}).auto_paging_iter()]
    listed = [{"id": p.id, "name": p.name,
               "prices": {pr.currency: pr.unit_amount for pr in prices if pr.product == p.id}}
              for p in products]
    return {"products": sorted(listed, key=lambda p: p["name"])}


# ---------------------------------------------------------------------------- bookings

def add_own_bookings(b: Bookings) -> dict[str, str]:
    """Bookings the agent never saw: paid online (C-102), paid online and refunded
    through the API (C-100), taken by phone (C-102); and the seeded B-1003 refunded
    through the API, as from the Dashboard."""
    def paid(customer: str, amount: int, currency: str, booking: str) -> str:
        pi = b.client.v1.payment_intents.create(params={
            "amount": amount, "currency": currency, "customer": b.stripe_ids[customer],
            "payment_method": "pm_card_visa", "confirm": True,
            "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"},
            "metadata": {"booking_id": booking}})
        return str(pi.id)

    fresh = paid("C-102", 7900, "gbp", "B-5001")
    refunded = paid("C-100", 19800, "eur", "B-5002")
    b.client.v1.refunds.create(params={"payment_intent": refunded})
    partly = paid("C-100", 12900, "eur", "B-5003")  # refunded in part: still complete
    b.client.v1.refunds.create(params={"payment_intent": partly, "amount": 2900})
    b.client.v1.refunds.create(params={"payment_intent": b.seeded_intents["B-1003"]})
    insert = ("INSERT INTO bookings (id, customer_id, product_id, tour_date, guests, currency,"
              " amount, amount_paid, source, status, payment_intent, setup_intent, created_at)"
              " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, '2026-03-01')")
    b.db.execute(insert, ("B-5001", "C-102", "prod_fjord_kayak", "2026-09-12", 1, "gbp", 7900,
                          7900, "online", "complete", fresh))
    b.db.execute(insert, ("B-5002", "C-100", "prod_whale_safari", "2026-08-02", 2, "eur",
                          19800, 19800, "online", "complete", refunded))
    b.db.execute(insert, ("B-5003", "C-100", "prod_glacier_hike", "2026-09-05", 1, "eur",
                          12900, 12900, "online", "complete", partly))
    b.db.execute(insert, ("P-9001", "C-102", "prod_whale_safari", "2026-07-30", 1, "gbp", 8500,
                          8500, "phone", "complete", None))
    b.db.commit()
    return {"fresh": fresh, "refunded": refunded, "partly": partly}


def bookings_checks(g: Grader, b: Bookings) -> None:
    customers = [r[0] for r in b.db.execute("SELECT id FROM customers ORDER BY id")]

    def view(customer: str) -> bool:
        status, body = b.get(f"/api/customers/{customer}/bookings")
        want = b.expected_view(customer)
        if status != 200 or body != want:
            raise ValueError(f"got {status} {json.dumps(body)[:500]}; expected "
                             f"{json.dumps(want)[:500]}")
        return True

    def unknown() -> bool:
        status, body = b.get("/api/customers/C-999/bookings")
        return status == 404 and body == {"error": "not_found"}

    cases = [(c, lambda c=c: view(c)) for c in customers] + [("C-999", unknown)]
    check(g, "customer_bookings", 3, fraction("customer_bookings", cases))

    def refunded_listed(customer: str, booking: str) -> bool:
        status, body = b.get(f"/api/customers/{customer}/bookings")
        listed = [v.get("id") for v in body.get("refunded", []) if isinstance(v, dict)] \
            if status == 200 and isinstance(body, dict) and \
            isinstance(body.get("refunded"), list) else []
        return booking in listed

    check(g, "dashboard_refunds", 1, fraction("dashboard_refunds", [
        ("B-1003", lambda: refunded_listed("C-101", "B-1003")),
        ("B-5002", lambda: refunded_listed("C-100", "B-5002"))]))

    def partly_refunded() -> bool:
        """Refunded in full is refunded; 2900 of 12900 back is still complete, with
        what the PaymentIntent received as amount_paid."""
        status, body = b.get("/api/customers/C-100/bookings")
        if status != 200 or not isinstance(body, dict):
            raise ValueError(f"got {status}")
        found = {str(v.get("id")): (group, v.get("amount_paid")) for group in
                 ("complete", "refunded", "incomplete") for v in body.get(group) or []
                 if isinstance(v, dict)}
        if found.get("B-5003") != ("complete", 12900):
            raise ValueError(f"B-5003 (2900 of 12900 refunded) is {found.get('B-5003')}")
        return True

    check(g, "partial_refund_complete", 1, partly_refunded)


def refund_checks(g: Grader, b: Bookings, fresh: str) -> None:
    def refunds_of(intent: str) -> list[Any]:
        return list(b.client.v1.refunds.list(params={"payment_intent": intent}).data)

    def refund() -> bool:
        status, body = b.post("/api/bookings/B-5001/refund")
        if status != 200 or not isinstance(body, dict):
            raise ValueError(f"got {status} {str(body)[:300]}")
        booking = body.get("booking") or {}
        done = refunds_of(fresh)
        if len(done) != 1 or body.get("refund") != done[0].id or done[0].amount != 7900 \
                or done[0].status != "succeeded":
            raise ValueError(f"Stripe holds refunds {[(r.id, r.amount) for r in done]}; "
                             f"the answer named {body.get('refund')!r}")
        want = {"id": "B-5001", "product": "prod_fjord_kayak", "tour_date": "2026-09-12",
                "guests": 1, "currency": "gbp", "amount": 7900, "amount_paid": 7900,
                "source": "online", "status": "refunded"}
        if {k: booking.get(k) for k in VIEW} != want:
            raise ValueError(f"the booking answered is {booking}")
        return True

    ok = check(g, "refund_online", 2, refund)

    def refused(booking: str, status_wanted: int, error: str,
                intent: str = fresh) -> Callable[[], bool]:
        def run() -> bool:
            before = len(refunds_of(intent))
            status, body = b.post(f"/api/bookings/{booking}/refund")
            if status != status_wanted or not isinstance(body, dict) or \
                    body.get("error") != error:
                raise ValueError(f"got {status} {str(body)[:200]}")
            if error == "phone_booking" and not (isinstance(body.get("message"), str)
                                                 and body["message"].strip()):
                raise ValueError("no message")
            return len(refunds_of(intent)) == before
        return run

    check(g, "refund_refusals", 1, lambda: needs(ok, "a refund") * fraction(
        "refund_refusals", [
        ("again", refused("B-5001", 409, "already_refunded")),
        # refunded from the Dashboard: the table still says complete, Stripe does not
        ("dashboard", refused("B-1003", 409, "already_refunded",
                              b.seeded_intents["B-1003"])),
        ("phone", refused("P-9001", 409, "phone_booking")),
        ("unpaid", refused("B-1004", 409, "not_paid")),
        ("unknown", refused("B-0404", 404, "not_found"))])())


# ---------------------------------------------------------------------------- purchases

PURCHASES = [  # customer, product, currency, guests, card, brand, unit price
    ("C-101", "prod_glacier_hike", "jpy", 2, "pm_card_visa", "visa", 22000),
    ("C-100", "prod_whale_safari", "eur", 3, "pm_card_mastercard", "mastercard", 9900),
    ("C-102", "puffin", "usd", 1, "pm_card_amex", "amex", 5400),
    ("C-103", "prod_fjord_kayak", "usd", 2, "pm_card_visa", "visa", 9900),
]
SAM = "sam.rivera@example.com"


def purchase_checks(g: Grader, b: Bookings, puffin: str) -> None:
    def body(customer: str, product: str, currency: str, guests: int, card: str,
             amount: int) -> dict[str, Any]:
        return {"customer": customer, "product": product, "currency": currency,
                "guests": guests, "tour_date": "2026-08-20", "payment_method": card,
                "amount": amount}

    def purchase(customer: str, product: str, currency: str, guests: int, card: str,
                 brand: str, unit: int) -> bool:
        product = puffin if product == "puffin" else product
        total = unit * guests
        status, answer = b.post("/api/purchase", body(customer, product, currency, guests,
                                                      card, total))
        booking = answer.get("booking") if isinstance(answer, dict) else None
        if status != 201 or not isinstance(booking, dict):
            raise ValueError(f"got {status} {str(answer)[:300]}")
        want = {"product": product, "tour_date": "2026-08-20", "guests": guests,
                "currency": currency, "amount": total, "amount_paid": total,
                "source": "online", "status": "complete"}
        if {k: booking.get(k) for k in want} != want:
            raise ValueError(f"the booking answered is {booking}")
        row = b.row(str(booking.get("id")))
        if row is None or not row["payment_intent"]:
            raise ValueError(f"booking {booking.get('id')} has no PaymentIntent in the table")
        pi = b.client.v1.payment_intents.retrieve(row["payment_intent"],
                                                  params={"expand": ["payment_method"]})
        stripe_customer = b.stripe_customer_of(customer)
        if customer != "C-103" and stripe_customer != b.stripe_ids[customer]:
            raise ValueError(f"{customer}'s Stripe customer changed to {stripe_customer}")
        if customer == "C-103":
            if not stripe_customer or b.client.v1.customers.retrieve(
                    stripe_customer).email != SAM:
                raise ValueError(f"C-103's Stripe customer is {stripe_customer!r}")
        got = (pi.status, pi.amount_received, pi.currency, pi.customer,
               pi.payment_method.card.brand if pi.payment_method else None)
        if got != ("succeeded", total, currency, stripe_customer, brand):
            raise ValueError(f"PaymentIntent {pi.id}: {got}")
        status, listed = b.get(f"/api/customers/{customer}/bookings")
        ids = [v.get("id") for v in (listed.get("complete") or [])
               if isinstance(v, dict)] if isinstance(listed, dict) else []
        if booking["id"] not in ids:
            raise ValueError(f"{booking['id']} is not listed as complete")
        return True

    ok = check(g, "purchase_currencies", 3, fraction("purchase_currencies", [
        (f"{p[0]} {p[2]}", lambda p=p: purchase(*p)) for p in PURCHASES]))

    def save_card() -> bool:
        stripe_customer = b.stripe_ids["C-102"]
        intents = b.intents_of(stripe_customer)
        status, answer = b.post("/api/purchase", body("C-102", "prod_whale_safari", "gbp", 2,
                                                      "pm_card_mastercard", 0))
        booking = answer.get("booking") if isinstance(answer, dict) else None
        if status != 201 or not isinstance(booking, dict):
            raise ValueError(f"got {status} {str(answer)[:300]}")
        if (booking.get("status"), booking.get("amount"), booking.get("amount_paid")) != \
                ("incomplete", 17000, 0):
            raise ValueError(f"the booking answered is {booking}")
        row = b.row(str(booking.get("id")))
        if row is None or not row["setup_intent"]:
            raise ValueError("no SetupIntent in the table")
        seti = b.client.v1.setup_intents.retrieve(row["setup_intent"],
                                                  params={"expand": ["payment_method"]})
        got = (seti.status, seti.customer, seti.usage, seti.payment_method.customer,
               seti.payment_method.card.brand)
        if got != ("succeeded", stripe_customer, "off_session", stripe_customer, "mastercard"):
            raise ValueError(f"SetupIntent {seti.id}: {got}")
        if b.intents_of(stripe_customer) != intents:
            raise ValueError("a PaymentIntent was created")
        return True

    check(g, "save_card", 1, save_card)

    def declined(card: str, code: str) -> Callable[[], bool]:
        def run() -> bool:
            before = len(b.rows("C-100"))
            status, answer = b.post("/api/purchase", body("C-100", "prod_fjord_kayak", "eur",
                                                          1, card, 8900))
            if (status, answer) != (402, {"error": "card_declined", "decline_code": code}):
                raise ValueError(f"got {status} {str(answer)[:300]}")
            return len(b.rows("C-100")) == before
        return run

    check(g, "declines", 1, lambda: needs(ok, "a purchase") * fraction(
        "declines", [
        ("lost", declined("pm_card_visa_chargeDeclinedLostCard", "lost_card")),
        ("velocity", declined("pm_card_visa_chargeDeclinedVelocityLimitExceeded",
                              "card_velocity_exceeded"))])())

    def amount_checked() -> bool:
        stripe_customer = b.stripe_ids["C-101"]
        before = (len(b.rows("C-101")), b.intents_of(stripe_customer, "succeeded"))
        status, answer = b.post("/api/purchase", body("C-101", "prod_whale_safari", "jpy", 2,
                                                      "pm_card_visa", 31000))
        if (status, answer) != (400, {"error": "invalid_amount"}):
            raise ValueError(f"got {status} {str(answer)[:300]}")
        return (len(b.rows("C-101")), b.intents_of(stripe_customer, "succeeded")) == before

    check(g, "amount_checked", 1, lambda: needs(ok, "a purchase") * amount_checked())


SECTIONS = {
    "migration": {"phone_rows": 3, "new_customer": 1, "clean_migration": 1},
    "catalog": {"products_listing": 2},
    "bookings": {"customer_bookings": 3, "dashboard_refunds": 1, "partial_refund_complete": 1},
    "refunds": {"refund_online": 2, "refund_refusals": 1},
    "purchase": {"purchase_currencies": 3, "save_card": 1, "declines": 1,
                 "amount_checked": 1},
    "rerun": {"migration_rerun": 1},
}


def section(g: Grader, name: str, run: Callable[[], None]) -> None:
    """Run a section's checks. If the section itself breaks (the grader cannot add its
    bookings to the agent's table, a catalog the agent broke...), its checks that have
    not scored yet score 0 with the reason: a broken submission is a score, never a
    grader error."""
    try:
        run()
    except Exception as exc:  # noqa: BLE001 - anything the submission provokes
        done = {r.name for r in g.results}
        for check_name, weight in SECTIONS[name].items():
            if check_name not in done:
                g.check(check_name, weight, 0.0, f"{type(exc).__name__}: {exc}"[:500])


def main() -> None:
    g = Grader()
    work = workdir()
    if not g.gate("stack_kept", lambda: stack_kept(work)):
        g.write()
        return
    try:
        db = open_db(work)
    except (OSError, ValueError, sqlite3.Error) as exc:
        for checks in SECTIONS.values():
            for name, weight in checks.items():
                g.check(name, weight, 0.0, f"data/tours.db is unusable: {exc}")
        g.write()
        return
    client = stripe_client()
    b = Bookings(db, client, os.environ["WEB_URL"].rstrip("/"))
    section(g, "migration", lambda: migration_checks(g, db))
    made: dict[str, str] = {}

    def catalog() -> None:
        made.update(change_catalog(client))

        def listing() -> bool:
            status, body = b.get("/api/products")
            want = expected_products(client)
            if status != 200 or body != want:
                raise ValueError(f"got {status} {json.dumps(body)[:600]}; expected "
                                 f"{json.dumps(want)[:600]}")
            return True

        check(g, "products_listing", 2, listing)

    section(g, "catalog", catalog)

    def bookings() -> None:
        try:
            made.update(add_own_bookings(b))
        except sqlite3.Error as exc:
            # a refused insert leaves its transaction open, holding the table's write lock
            # (the migration's re-run would then find the database busy)
            b.db.rollback()
            raise ValueError(f"the grader could not add its bookings to the table: {exc}") \
                from None
        bookings_checks(g, b)

    section(g, "bookings", bookings)
    def refunds() -> None:
        if "fresh" not in made:
            raise ValueError("the grader's own paid booking is not in the table")
        refund_checks(g, b, made["fresh"])

    section(g, "refunds", refunds)
    section(g, "purchase", lambda: purchase_checks(g, b, made["puffin"]))
    # last: the agent's migrate.js runs beside the grader, and its strays are killed
    section(g, "rerun", lambda: check(g, "migration_rerun", 1,
                                      lambda: rerun.rerun_changes_nothing(db, work)))
    g.write()


if __name__ == "__main__":
    main()
