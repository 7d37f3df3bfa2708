"""invoicing-migration grader.

Gate `stack_kept`: package.json still depends on stripe 18.5.0 and better-sqlite3. Then,
against the Stripe account as the API shows it, data/tours.db and the agent's server:

- catalog: every tour is a Product with its id and name (`products_created`); every
  (tour, currency) the bookings show has one active one-time Price with the key's lookup
  key and the inferred unit amount (`prices_inferred`), and no other tour and currency
  has one (`no_invented_prices`, worth the inferred share);
- invoices (the key's twelve bookings that are not refunded): exactly one invoice that is
  not void with `metadata.booking_id`, for the customer's Stripe customer, in the
  booking's currency, one line at the tour's price times the guests, total = amount
  (`booking_invoices`); paid by the booking's own PaymentIntent (online), paid out of
  band with no payment (phone), or open with the whole amount remaining (incomplete)
  (`invoice_states`); `bookings.invoice_id` names it (`invoice_ids_written`); the
  refunded bookings have none (`refunded_not_invoiced`, worth the invoiced share);
- purchases: three in three currencies and card brands (two customers who had no Stripe
  customer before the task), each an invoice paid by a PaymentIntent whose
  `amount_received` is the price times the guests (`purchase_invoiced`); amount 0, an
  open invoice with the whole amount remaining and the card saved (`pay_later`); a lost
  card answers its codes and leaves no booking and no open invoice (`decline`); a wrong
  amount is refused with nothing booked or invoiced (`amount_checked`); the last two
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

from stripebench.grading import (  # noqa: E402
    Grader,
    fixtures,
    launch,
    objects_of,
    seed_snapshot,
    stripe_client,
    workdir,
)
from stripebench.grading.bounded import Budget  # noqa: E402

# The agent's server: each request waits at most 8 s, all of them together 60 s, and a
# failure is an answer (status 0), never a grader error.
call = Budget(60.0, request_timeout=8.0).call

# Invoices still say whether they were paid out of band before basil.
BEFORE_BASIL = "2025-02-24.acacia"
MISSED: dict[str, str] = {}


def plain(obj: Any) -> dict[str, Any]:
    """A StripeObject (or None) as a plain dict."""
    return obj.to_dict() if hasattr(obj, "to_dict") else dict(obj or {})


def check(g: Grader, name: str, weight: float, fn: Callable[[], Any]) -> float:
    """g.check, with the cases a fraction missed as the check's message."""
    score = g.check(name, weight, fn)
    if name in MISSED and not g.results[-1].message:
        g.results[-1].message = MISSED[name]
    return score


def needs(score: float, what: str) -> float:
    """Refusing is worth something only when the thing refused works."""
    if score <= 0:
        raise ValueError(f"no {what} works, so refusing one proves nothing")
    return 1.0


def fraction(name: str, cases: list[tuple[str, Callable[[], bool]]]) -> Callable[[], float]:
    """The share of cases that hold (an exception is a miss, named in the message)."""
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


def small_json(path: Path) -> Any:
    info = path.lstat()
    if not stat.S_ISREG(info.st_mode) or info.st_size > 1_000_000:
        raise ValueError(f"{path.name} is not a regular file of sane size")
    return json.loads(path.read_text())


def stack_kept(work: Path) -> bool:
    deps = small_json(work / "package.json").get("dependencies") or {}
    if deps.get("stripe") != "18.5.0" or "better-sqlite3" not in deps:
        raise ValueError(f"package.json must keep stripe 18.5.0 and better-sqlite3: {deps}")
    return True


def open_db(work: Path) -> sqlite3.Connection | None:
    path = work / "data" / "tours.db"
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return None
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5)
        db.row_factory = sqlite3.Row
        db.execute("SELECT invoice_id FROM bookings LIMIT 1").fetchall()
        return db
    except (OSError, sqlite3.Error):
        return None


class Account:
    """The Stripe side: customers by legacy id, invoices by booking, prices."""

    def __init__(self, client: Any, old: Any) -> None:
        self.client, self.old = client, old
        refs = fixtures()
        self.intents = {b.id: refs[b.intent_ref]["id"] for b in key.BOOKINGS if b.intent_ref}
        self.customers: dict[str, str | None] = {}
        emails: dict[str, list[str]] = {}
        for c in client.v1.customers.list(params={"limit": 100}).auto_paging_iter():
            emails.setdefault(str(c.email).lower(), []).append(c.id)
        for cid, email, _, ref in key.CUSTOMERS:
            found = [refs[ref]["id"]] if ref else emails.get(email, [])
            self.customers[cid] = found[0] if len(found) == 1 else None
        self.refresh()

    def refresh(self) -> None:
        self.invoices: dict[str, list[Any]] = {}
        for inv in self.client.v1.invoices.list(params={"limit": 100}).auto_paging_iter():
            booking = plain(inv.metadata).get("booking_id")
            if booking and inv.status != "void":
                self.invoices.setdefault(booking, []).append(inv)

    def invoice(self, booking: str) -> Any:
        found = self.invoices.get(booking, [])
        if len(found) != 1:
            raise ValueError(f"{len(found)} invoices that are not void")
        return found[0]

    def price_for(self, product: str, currency: str) -> Any:
        found = [p for p in self.client.v1.prices.list(params={
            "lookup_keys": [key.lookup_key(product, currency)], "active": True}).data]
        return found[0] if found else None

    def paid_payments(self, invoice: str) -> list[Any]:
        return [p for p in self.client.v1.invoice_payments.list(
            params={"invoice": invoice, "limit": 100}).data if p.status == "paid"]

    def line_ok(self, inv: Any, product: str, currency: str, guests: int,
                total: int) -> None:
        lines = self.client.v1.invoices.line_items.list(inv.id, params={"limit": 10}).data
        price = self.price_for(product, currency)
        details = (plain(lines[0].pricing).get("price_details") or {}) if lines else {}
        got = (len(lines), details.get("price") if details else None,
               lines[0].quantity if lines else None, inv.currency, inv.total)
        want = (1, price.id if price else "<no price>", guests, currency, total)
        if got != want:
            raise ValueError(f"invoice {inv.id}: lines/price/quantity/currency/total {got}, "
                             f"expected {want}")


# ---------------------------------------------------------------------------- catalog

def catalog_checks(g: Grader, a: Account) -> None:
    def product(pid: str) -> bool:
        p = a.client.v1.products.retrieve(pid)
        return bool(p.active) and p.name == key.TOURS[pid]

    check(g, "products_created", 1, fraction("products_created",
                                             [(p, lambda p=p: product(p)) for p in key.TOURS]))

    def price(product: str, currency: str, unit: int) -> bool:
        found = a.client.v1.prices.list(params={
            "lookup_keys": [key.lookup_key(product, currency)], "active": True}).data
        got = [(p.product, p.currency, p.unit_amount, p.type) for p in found]
        if got != [(product, currency, unit, "one_time")]:
            raise ValueError(f"{got}")
        return True

    inferred = check(g, "prices_inferred", 2, fraction("prices_inferred", [
        (key.lookup_key(*pc), lambda pc=pc, u=u: price(*pc, u)) for pc, u in
        sorted(key.PRICES.items())]))

    def invented() -> float:
        extra = [f"{p.product} {p.currency}" for p in a.client.v1.prices.list(
            params={"active": True, "limit": 100}).auto_paging_iter()
            if (p.product, p.currency) not in key.PRICES]
        if extra:
            raise ValueError("prices nobody booked: " + ", ".join(sorted(extra)[:6]))
        return inferred

    check(g, "no_invented_prices", 1, invented)


# ---------------------------------------------------------------------------- invoices

def invoice_checks(g: Grader, a: Account, db: sqlite3.Connection | None) -> None:
    def backed(b: key.Booking) -> bool:
        inv = a.invoice(b.id)
        if inv.customer != a.customers[b.customer] or not inv.customer:
            raise ValueError(f"invoice {inv.id} is for {inv.customer}")
        a.line_ok(inv, b.product, b.currency, b.guests, b.amount)
        return True

    check(g, "booking_invoices", 3, fraction("booking_invoices",
                                             [(b.id, lambda b=b: backed(b)) for b in key.INVOICED]))

    def state(b: key.Booking) -> bool:
        inv = a.invoice(b.id)
        paid = a.paid_payments(inv.id)
        got: tuple[Any, ...]
        want: tuple[Any, ...]
        if b.status == "incomplete":
            got = (inv.status, inv.amount_remaining, inv.amount_paid, len(paid))
            want = ("open", b.amount, 0, 0)
        elif b.source == "online":
            got = (inv.status, inv.amount_paid,
                   [p.payment.payment_intent for p in paid])
            want = ("paid", b.amount, [a.intents[b.id]])
        else:
            old = a.old.v1.invoices.retrieve(inv.id)
            got = (inv.status, inv.amount_paid, bool(old.paid_out_of_band), len(paid))
            want = ("paid", b.amount, True, 0)
        if got != want:
            raise ValueError(f"invoice {inv.id}: {got}, expected {want}")
        return True

    check(g, "invoice_states", 3, fraction("invoice_states",
                                           [(b.id, lambda b=b: state(b)) for b in key.INVOICED]))

    def written(b: key.Booking) -> bool:
        if db is None:
            raise ValueError("data/tours.db is unusable")
        row = db.execute("SELECT invoice_id FROM bookings WHERE id = ?", (b.id,)).fetchone()
        return row is not None and row[0] == a.invoice(b.id).id

    check(g, "invoice_ids_written", 1, fraction("invoice_ids_written",
                                                [(b.id, lambda b=b: written(b))
                                                 for b in key.INVOICED]))
    invoiced = sum(1 for b in key.INVOICED if b.id in a.invoices) / len(key.INVOICED)

    def refunded() -> float:
        problems = [f"refunded {b.id} has an invoice" for b in key.BOOKINGS
                    if b.status == "refunded" and b.id in a.invoices]
        problems += [f"{b} has {len(i)} invoices" for b, i in a.invoices.items()
                     if len(i) > 1]
        if problems:
            raise ValueError("; ".join(problems[:6]))
        return invoiced

    check(g, "refunded_not_invoiced", 1, refunded)


# ---------------------------------------------------------------------------- purchases

PURCHASES = [  # customer, product, currency, guests, card, brand
    ("C-101", "prod_glacier_hike", "jpy", 2, "pm_card_visa", "visa"),
    ("C-104", "prod_fjord_kayak", "gbp", 1, "pm_card_mastercard", "mastercard"),
    ("C-103", "prod_northern_lights", "usd", 2, "pm_card_amex", "amex"),
]


def purchase_checks(g: Grader, a: Account, db: sqlite3.Connection | None,
                    url: str) -> None:
    def body(customer: str, product: str, currency: str, guests: int, card: str,
             amount: int) -> dict[str, Any]:
        return {"customer": customer, "product": product, "currency": currency,
                "guests": guests, "tour_date": "2026-09-05", "payment_method": card,
                "amount": amount}

    def row(booking: Any) -> sqlite3.Row:
        if db is None:
            raise ValueError("data/tours.db is unusable")
        found: sqlite3.Row | None = db.execute("SELECT * FROM bookings WHERE id = ?",
                                               (str(booking),)).fetchone()
        if found is None or not found["invoice_id"]:
            raise ValueError(f"booking {booking} has no invoice_id in the table")
        return found

    def stripe_customer(customer: str) -> str:
        found = db.execute("SELECT stripe_customer_id FROM customers WHERE id = ?",
                           (customer,)).fetchone() if db is not None else None
        if not found or not found[0]:
            raise ValueError(f"{customer} has no Stripe customer in the table")
        return str(found[0])

    answered: list[bool] = []

    def purchase(customer: str, product: str, currency: str, guests: int, card: str,
                 brand: str) -> bool:
        total = key.PRICES[(product, currency)] * guests
        status, answer = call("POST", url + "/api/purchase",
                              body(customer, product, currency, guests, card, total))
        booking = answer.get("booking") if isinstance(answer, dict) else None
        if status != 201 or not isinstance(booking, dict):
            raise ValueError(f"got {status} {str(answer)[:300]}")
        answered.append(True)
        if (booking.get("status"), booking.get("amount"), booking.get("amount_paid")) != \
                ("complete", total, total):
            raise ValueError(f"the booking answered is {booking}")
        r = row(booking.get("id"))
        inv = a.client.v1.invoices.retrieve(r["invoice_id"])
        if plain(inv.metadata).get("booking_id") != booking["id"] or \
                inv.customer != stripe_customer(customer):
            raise ValueError(f"invoice {inv.id} names {inv.metadata} / {inv.customer}")
        a.line_ok(inv, product, currency, guests, total)
        paid = a.paid_payments(inv.id)
        if (inv.status, inv.amount_paid, len(paid)) != ("paid", total, 1):
            raise ValueError(f"invoice {inv.id}: {inv.status}, paid {inv.amount_paid}, "
                             f"{len(paid)} paid payments")
        pi = a.client.v1.payment_intents.retrieve(paid[0].payment.payment_intent,
                                                  params={"expand": ["payment_method"]})
        got = (pi.status, pi.amount_received, pi.currency, pi.customer,
               pi.payment_method.card.brand if pi.payment_method else None)
        if got != ("succeeded", total, currency, inv.customer, brand):
            raise ValueError(f"PaymentIntent {pi.id}: {got}")
        return True

    check(g, "purchase_invoiced", 3, fraction("purchase_invoiced", [
        (f"{p[0]} {p[2]}", lambda p=p: purchase(*p)) for p in PURCHASES]))
    ok = float(bool(answered))

    def open_invoices(stripe_id: str) -> list[str]:
        return [i.id for i in a.client.v1.invoices.list(
            params={"customer": stripe_id, "limit": 100}).auto_paging_iter()
            if i.status in ("draft", "open")]

    def pay_later() -> bool:
        status, answer = call("POST", url + "/api/purchase",
                              body("C-100", "prod_whale_safari", "eur", 2, "pm_card_visa", 0))
        booking = answer.get("booking") if isinstance(answer, dict) else None
        if status != 201 or not isinstance(booking, dict):
            raise ValueError(f"got {status} {str(answer)[:300]}")
        if (booking.get("status"), booking.get("amount"), booking.get("amount_paid")) != \
                ("incomplete", 19800, 0):
            raise ValueError(f"the booking answered is {booking}")
        r = row(booking.get("id"))
        inv = a.client.v1.invoices.retrieve(r["invoice_id"])
        a.line_ok(inv, "prod_whale_safari", "eur", 2, 19800)
        got = (inv.status, inv.amount_remaining, inv.amount_paid, inv.customer,
               len(a.paid_payments(inv.id)))
        if got != ("open", 19800, 0, a.customers["C-100"], 0):
            raise ValueError(f"invoice {inv.id}: {got}")
        if not r["setup_intent"]:
            raise ValueError("no SetupIntent in the table")
        seti = a.client.v1.setup_intents.retrieve(r["setup_intent"])
        if (seti.status, seti.customer) != ("succeeded", a.customers["C-100"]):
            raise ValueError(f"SetupIntent {seti.id}: {seti.status} for {seti.customer}")
        return True

    check(g, "pay_later", 1, pay_later)

    def bookings_of(customer: str) -> int:
        if db is None:
            raise ValueError("data/tours.db is unusable")
        return int(db.execute("SELECT count(*) FROM bookings WHERE customer_id = ?",
                              (customer,)).fetchone()[0])

    def declined() -> bool:
        stripe_id = str(a.customers["C-102"])
        before = (bookings_of("C-102"), open_invoices(stripe_id))
        status, answer = call("POST", url + "/api/purchase", body(
            "C-102", "prod_glacier_hike", "gbp", 1, "pm_card_visa_chargeDeclinedLostCard",
            11000))
        if (status, answer) != (402, {"error": "card_declined", "decline_code": "lost_card"}):
            raise ValueError(f"got {status} {str(answer)[:300]}")
        after = (bookings_of("C-102"), open_invoices(stripe_id))
        if after != before:
            raise ValueError(f"bookings and open invoices went from {before} to {after}")
        return True

    check(g, "decline", 1, lambda: needs(ok, "purchase answer") * declined())

    def amount_checked() -> bool:
        stripe_id = str(a.customers["C-101"])
        before = (bookings_of("C-101"), open_invoices(stripe_id))
        status, answer = call("POST", url + "/api/purchase", body(
            "C-101", "prod_whale_safari", "jpy", 2, "pm_card_visa", 31000))
        if (status, answer) != (400, {"error": "invalid_amount"}):
            raise ValueError(f"got {status} {str(answer)[:300]}")
        after = (bookings_of("C-101"), open_invoices(stripe_id))
        if after != before:
            raise ValueError(f"bookings and open invoices went from {before} to {after}")
        return True

    check(g, "amount_checked", 1, lambda: needs(ok, "purchase answer") * amount_checked())


# ---------------------------------------------------------------------------- charges, re-runs

def nobody_charged(a: Account) -> bool:
    """The migration charged nobody: no charge, and no PaymentIntent that took or holds
    money, beyond the seeded ones (finalized invoices may carry unpaid intents)."""
    seeded = {o["id"] for kind in ("payment_intent", "charge", "invoice")
              for o in objects_of(seed_snapshot(), kind)}
    # "nobody charged again" says something only of a migration that happened: with no
    # invoice made, a do-nothing would pass it
    if not any(i.id not in seeded for i in a.client.v1.invoices.list(
            params={"limit": 100}).auto_paging_iter()):
        raise ValueError("nothing was migrated: no invoice was made")
    new = [p.id for p in a.client.v1.payment_intents.list(params={"limit": 100})
           .auto_paging_iter() if p.id not in seeded
           and p.status in ("succeeded", "processing", "requires_capture")]
    new += [c.id for c in a.client.v1.charges.list(params={"limit": 100}).auto_paging_iter()
            if c.id not in seeded]
    if new:
        raise ValueError(f"the migration charged: {', '.join(sorted(new)[:6])}")
    return True


def state(a: Account, db: sqlite3.Connection | None) -> dict[str, Any]:
    """Everything a migration run could create, charge, attach or change."""
    c = a.client

    def every(listing: Any, fields: Callable[[Any], tuple[Any, ...]]) -> list[Any]:
        return sorted((fields(o) for o in listing.auto_paging_iter()), key=repr)

    invoices = every(c.v1.invoices.list(params={"limit": 100}), lambda i: (
        i.id, i.status, i.customer, i.total, i.amount_paid, i.amount_remaining,
        plain(i.metadata).get("booking_id"), len(a.paid_payments(i.id))))
    tables = {} if db is None else {
        name: [tuple(r) for r in db.execute(f"SELECT * FROM {name} ORDER BY id")]
        for name in ("bookings", "customers")}
    return {"invoices": invoices, **tables,
            "invoice_items": every(c.v1.invoice_items.list(params={"limit": 100}),
                                   lambda i: (i.id, i.invoice, i.quantity)),
            "products": every(c.v1.products.list(params={"limit": 100}),
                              lambda p: (p.id, p.name, p.active)),
            "prices": every(c.v1.prices.list(params={"limit": 100}),
                            lambda p: (p.id, p.active, p.unit_amount, p.lookup_key)),
            "customers": every(c.v1.customers.list(params={"limit": 100}), lambda k: (k.id,)),
            "payment_intents": every(c.v1.payment_intents.list(params={"limit": 100}),
                                     lambda p: (p.id, p.status, p.amount_received))}


def run_migration(work: Path) -> str:
    """`npm run migrate` as npm runs a script (sh -c, node_modules/.bin first on PATH),
    in a room of its own (stripebench.grading.launch), killed whole after 90 s; '' or
    what went wrong."""
    scripts = small_json(work / "package.json").get("scripts") or {}
    script = scripts.get("migrate")
    if not isinstance(script, str) or not script.strip():
        return "package.json has no migrate script"
    env = {"PATH": f"{work / 'node_modules' / '.bin'}:{os.environ['PATH']}",
           "npm_config_cache": "/tmp/npm-cache-grading"}
    done = launch.run(["sh", "-c", script], cwd=work, env=env, timeout=90)
    if done.timed_out:
        return "npm run migrate did not finish in 90 s"
    if done.exit_code != 0:
        return f"npm run migrate exited {done.exit_code}: " + done.output[-400:]
    return ""


def rerun_changes_nothing(work: Path, a: Account, db: sqlite3.Connection | None) -> bool:
    """Run the migration twice more on the state it left: it must succeed and change
    nothing in Stripe or in the tables."""
    before = state(a, db)
    for n in (1, 2):
        failed = run_migration(work)
        if failed:
            raise ValueError(f"run {n} again: {failed}")
    after = state(a, db)
    changed = [k for k in before if before[k] != after[k]]
    if changed:
        raise ValueError("running the migration again changed: " + ", ".join(changed))
    return True


SECTIONS = {
    "catalog": {"products_created": 1, "prices_inferred": 2, "no_invented_prices": 1},
    "invoices": {"booking_invoices": 3, "invoice_states": 3, "invoice_ids_written": 1,
                 "refunded_not_invoiced": 1},
    "charges": {"nobody_charged_again": 1},
    "rerun": {"rerun_changes_nothing": 2},
    "purchase": {"purchase_invoiced": 3, "pay_later": 1, "decline": 1, "amount_checked": 1},
}


def section(g: Grader, name: str, run: Callable[[], None]) -> None:
    """Run a section's checks; if the section itself breaks, its checks that have not
    scored yet score 0 with the reason (a score, never a grader error)."""
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
    # A changed stack zeroes the total; the rest is still graded and reported.
    g.gate("stack_kept", lambda: stack_kept(work))
    db = open_db(work)
    account = Account(stripe_client(), stripe_client(BEFORE_BASIL))
    section(g, "catalog", lambda: catalog_checks(g, account))
    section(g, "invoices", lambda: invoice_checks(g, account, db))
    section(g, "charges", lambda: check(g, "nobody_charged_again", 1,
                                        lambda: nobody_charged(account)))
    section(g, "rerun", lambda: check(g, "rerun_changes_nothing", 2,
                                      lambda: rerun_changes_nothing(work, account, db)))
    section(g, "purchase", lambda: purchase_checks(g, account, db,
                                                   os.environ["WEB_URL"].rstrip("/")))
    g.write()


if __name__ == "__main__":
    main()
