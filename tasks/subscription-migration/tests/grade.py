"""subscription-migration grader.

The answer key (MIGRATE, below) is the grader's own copy of billing.db's seed: nothing the
agent does to billing.db changes what is expected. What is graded is the Stripe account
as the API shows it after the agent stopped, billing.db's write-back columns, and then
what running the agent's `migrate.py` twice more does to both.

A legacy customer counts as migrated when one of the Stripe customers carrying its
`metadata.legacy_id` has a live subscription. `every_live_migrated` is the fraction of the
nine customers to migrate that are; every per-customer check is the fraction of the
migrated customers it holds for (0 when none is), so a migration that leaves a customer
out loses `every_live_migrated` and nothing else. The checks of what must *not* happen
(charges, duplicates, the canceled rows) are 1 when clean and something was migrated.

The re-runs: `python migrate.py` run twice more in the workdir (its own session, killed
with everything it started); each run must succeed and may migrate what was still
missing, but must not create a second customer or subscription for anything already
migrated, charge, invoice, create a coupon again, or attach a card to, or change the
default card of, a migrated customer. The requirement table is tests/requirements.toml.

Gate `catalog_untouched`: the seeded products and prices are unchanged.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable
from typing import Any, NamedTuple

import rerun
from stripebench.grading import (
    Grader,
    collateral_changes,
    final_snapshot,
    objects_of,
    seed_snapshot,
    stripe_client,
    workdir,
)


class Legacy(NamedTuple):
    customer: str
    email: str
    name: str
    brand: str
    subscription: str
    plan: str
    seats: int
    status: str            # what Stripe should say: active or trialing
    renews: str            # billing_cycle_anchor, 00:00 UTC
    trial_ends: str | None
    percent_off: int | None


MIGRATE = [
    Legacy("C1001", "ada@analytical.example", "Ada Lovelace", "visa", "S2001",
           "starter_monthly", 1, "active", "2026-01-09", None, None),
    Legacy("C1002", "grace@cobol.example", "Grace Hopper", "mastercard", "S2002",
           "team_monthly", 5, "active", "2026-01-17", None, None),
    Legacy("C1003", "alan@bletchley.example", "Alan Turing", "visa", "S2003",
           "team_yearly", 3, "active", "2026-08-02", None, None),
    Legacy("C1004", "katherine@langley.example", "Katherine Johnson", "amex", "S2005",
           "business_monthly", 1, "active", "2026-01-24", None, None),
    Legacy("C1005", "edsger@eindhoven.example", "Edsger Dijkstra", "visa", "S2006",
           "team_monthly", 2, "trialing", "2026-01-14", "2026-01-14", None),
    Legacy("C1006", "barbara@clu.example", "Barbara Liskov", "mastercard", "S2007",
           "team_yearly", 10, "active", "2026-05-20", None, 20),
    Legacy("C1007", "donald@taocp.example", "Donald Knuth", "visa", "S2008",
           "starter_yearly", 1, "trialing", "2026-01-21", "2026-01-21", None),
    Legacy("C1008", "frances@ptran.example", "Frances Allen", "mastercard", "S2009",
           "starter_monthly", 1, "active", "2026-01-05", None, None),
    Legacy("C1010", "radia@spanningtree.example", "Radia Perlman", "amex", "S2011",
           "team_monthly", 8, "active", "2026-01-28", None, None),
]
CANCELED_CUSTOMERS = {"C1009": "john@fortran.example"}
CANCELED_SUBSCRIPTIONS = ("S2004", "S2010")


def stamp(day: str) -> int:
    return int(dt.datetime.fromisoformat(day).replace(tzinfo=dt.UTC).timestamp())


class Account:
    """The account as the API shows it: customers by legacy id, their subscriptions."""

    def __init__(self) -> None:
        client = stripe_client()
        self.client = client
        self.customers = [c.to_dict() for c in client.v1.customers.list(
            params={"limit": 100}).auto_paging_iter()]
        self.subscriptions = [s.to_dict() for s in client.v1.subscriptions.list(
            params={"limit": 100, "status": "all", "expand": ["data.discounts"]}
        ).auto_paging_iter()]
        self.by_legacy: dict[str, list[dict[str, Any]]] = {}
        for customer in self.customers:
            legacy = (customer.get("metadata") or {}).get("legacy_id")
            self.by_legacy.setdefault(str(legacy), []).append(customer)

    def customer(self, legacy: Legacy) -> dict[str, Any] | None:
        """The legacy customer's Stripe customer: the only one with its legacy_id, or
        the only one of several that has a live subscription (duplicates themselves
        are `no_duplicates`' business)."""
        found = self.by_legacy.get(legacy.customer, [])
        if len(found) > 1:
            found = [c for c in found if self.subs_of(c["id"])]
        return found[0] if len(found) == 1 else None

    def subs_of(self, customer_id: str, live: bool = True) -> list[dict[str, Any]]:
        return [s for s in self.subscriptions if s["customer"] == customer_id
                and (not live or s["status"] not in ("canceled", "incomplete_expired"))]

    def subscription(self, legacy: Legacy) -> dict[str, Any] | None:
        """The legacy subscription's live Stripe subscription: the customer's only one,
        or the only one of several naming it in its metadata (None otherwise)."""
        customer = self.customer(legacy)
        subs = self.subs_of(customer["id"]) if customer else []
        if len(subs) > 1:
            subs = [s for s in subs if (s.get("metadata") or {}).get(
                "legacy_subscription_id") == legacy.subscription]
        return subs[0] if len(subs) == 1 else None

    def migrated(self, legacy: Legacy) -> bool:
        customer = self.customer(legacy)
        return customer is not None and bool(self.subs_of(customer["id"]))

    def coupon(self, discount: Any) -> dict[str, Any]:
        if isinstance(discount, str):
            raise ValueError(f"discount {discount} was not expanded")
        coupon = (discount.get("source") or {}).get("coupon") or discount.get("coupon")
        if isinstance(coupon, str):
            coupon = self.client.v1.coupons.retrieve(coupon).to_dict()
        return dict(coupon)


def share(fn: Callable[[Legacy], bool], account: Account, name: str) -> Callable[[], float]:
    """The fraction of the migrated customers for which fn holds (an error counts as no;
    0 when nobody was migrated)."""
    def run() -> float:
        passed, failed = 0, []
        migrated = [legacy for legacy in MIGRATE if account.migrated(legacy)]
        if not migrated:
            raise ValueError("no legacy customer was migrated")
        for legacy in migrated:
            try:
                ok = bool(fn(legacy))
            except Exception as exc:  # one broken record costs its share, not the check
                ok = False
                failed.append(f"{legacy.customer} ({type(exc).__name__}: {exc})")
            else:
                if not ok:
                    failed.append(legacy.customer)
            passed += ok
        if failed:
            print(f"   {name}: not met for", ", ".join(failed))
        return passed / len(migrated)
    return run


def main() -> None:
    g = Grader()
    g.gate("catalog_untouched", lambda: not collateral_changes(
        seed_snapshot(), final_snapshot(), types=["product", "price"]))
    account = Account()
    pms: dict[str, dict[str, Any]] = {}

    def customer_record(legacy: Legacy) -> bool:
        c = account.customer(legacy)
        return account.migrated(legacy) and c is not None and c.get("email") == legacy.email \
            and c.get("name") == legacy.name

    def default_method(legacy: Legacy) -> bool:
        c = account.customer(legacy)
        if not account.migrated(legacy) or c is None:
            return False
        pm_id = (c.get("invoice_settings") or {}).get("default_payment_method")
        if not pm_id:
            return False
        if pm_id not in pms:
            pms[pm_id] = account.client.v1.payment_methods.retrieve(pm_id).to_dict()
        pm = pms[pm_id]
        return pm.get("customer") == c["id"] and (pm.get("card") or {}).get("brand") \
            == legacy.brand

    def items(legacy: Legacy) -> bool:
        s = account.subscription(legacy)
        if s is None:
            return False
        lines = s["items"]["data"]
        return len(lines) == 1 and lines[0]["price"].get("lookup_key") == legacy.plan \
            and lines[0].get("quantity") == legacy.seats and (s.get("metadata") or {}).get("legacy_subscription_id") == legacy.subscription \
            and s.get("collection_method") == "charge_automatically"

    def anchor(legacy: Legacy) -> bool:
        s = account.subscription(legacy)
        return s is not None and s["billing_cycle_anchor"] == stamp(legacy.renews)

    def trial(legacy: Legacy) -> bool:
        s = account.subscription(legacy)
        if s is None:
            return False
        if legacy.trial_ends is None:
            return s.get("trial_end") is None
        return s.get("trial_end") == stamp(legacy.trial_ends) and s["status"] == "trialing"

    def discounts_as_due(legacy: Legacy) -> bool:
        s = account.subscription(legacy)
        c = account.customer(legacy)
        if s is None or c is None or c.get("discount"):
            return False
        found = s.get("discounts") or []
        if legacy.percent_off is None:
            return not found
        if len(found) != 1:
            return False
        coupon = account.coupon(found[0])
        return coupon.get("percent_off") == legacy.percent_off \
            and coupon.get("duration") == "forever" and coupon.get("valid", True)

    def customer_written(db: sqlite3.Connection) -> Callable[[Legacy], bool]:
        def written(legacy: Legacy) -> bool:
            c = account.customer(legacy)
            row = db.execute("SELECT stripe_customer_id FROM customers WHERE id = ?",
                             (legacy.customer,)).fetchone()
            return account.migrated(legacy) and c is not None and row is not None \
                and row[0] == c["id"]
        return written

    def subscription_written(db: sqlite3.Connection) -> Callable[[Legacy], bool]:
        def written(legacy: Legacy) -> bool:
            s = account.subscription(legacy)
            row = db.execute("SELECT stripe_subscription_id FROM subscriptions WHERE id = ?",
                             (legacy.subscription,)).fetchone()
            return s is not None and row is not None and row[0] == s["id"]
        return written

    def per_customer(name: str, weight: float, fn: Callable[[Legacy], bool]) -> None:
        g.check(name, weight, share(fn, account, name))

    per_customer("customer_records", 2, customer_record)
    per_customer("default_payment_methods", 1, default_method)
    per_customer("subscription_items", 2, items)
    per_customer("billing_anchors", 2, anchor)
    per_customer("trials", 1, trial)
    target = next(legacy for legacy in MIGRATE if legacy.percent_off)
    g.check("discount_applied", 1, lambda: discounts_as_due(target))
    per_customer("discounts_only_where_due", 1, discounts_as_due)

    db_path = workdir() / "billing.db"
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) if db_path.is_file() else None
    if db is None:
        g.check("customer_ids_written", 1, 0.0, "billing.db is gone")
        g.check("subscription_ids_written", 1, 0.0, "billing.db is gone")
    else:
        g.check("customer_ids_written", 1,
                share(customer_written(db), account, "customer_ids_written"))
        g.check("subscription_ids_written", 1,
                share(subscription_written(db), account, "subscription_ids_written"))

    migrated = sum(account.migrated(legacy) for legacy in MIGRATE) / len(MIGRATE)
    g.check("every_live_migrated", 10, migrated)

    def clean(fn: Callable[[], list[str]]) -> Callable[[], float]:
        def run() -> float:
            problems = fn()
            if problems:
                raise ValueError("; ".join(problems[:6]))
            return 1.0 if migrated else 0.0
        return run

    def charges() -> list[str]:
        final = final_snapshot()
        found = [f"{o['object']} {o['id']} ({o.get('amount')})" for kind in
                 ("charge", "payment_intent") for o in objects_of(final, kind)]
        found += [f"invoice {o['id']} due {o.get('amount_due')}"
                  for o in objects_of(final, "invoice") if o.get("amount_due")]
        return found

    def duplicates() -> list[str]:
        wanted = {legacy.customer for legacy in MIGRATE}
        found = [f"{len(cs)} customers with legacy_id {key}"
                 for key, cs in account.by_legacy.items() if key in wanted and len(cs) > 1]
        found += [f"customer {c['id']} has no legacy_id of a customer to migrate"
                  for key, cs in account.by_legacy.items() if key not in wanted
                  and key not in CANCELED_CUSTOMERS for c in cs]
        for legacy in MIGRATE:  # a canceled subscription migrated is canceled_not_migrated's
            for c in account.by_legacy.get(legacy.customer, []):
                subs = [s for s in account.subs_of(c["id"], live=False)
                        if (s.get("metadata") or {}).get("legacy_subscription_id")
                        not in CANCELED_SUBSCRIPTIONS]
                if len(subs) > 1:
                    found.append(f"{legacy.customer} has {len(subs)} subscriptions")
        return found

    def canceled() -> list[str]:
        found = [f"customer {c['id']} ({c.get('email')}) was migrated"
                 for c in account.customers
                 if (c.get("metadata") or {}).get("legacy_id") in CANCELED_CUSTOMERS
                 or c.get("email") in CANCELED_CUSTOMERS.values()]
        found += [f"subscription {s['id']} migrates canceled "
                  f"{s['metadata']['legacy_subscription_id']}" for s in account.subscriptions
                  if (s.get("metadata") or {}).get("legacy_subscription_id")
                  in CANCELED_SUBSCRIPTIONS]
        if db is not None:  # canceled rows keep NULL
            found += [f"billing.db gives canceled {row[0]} a Stripe id" for row in db.execute(
                "SELECT id FROM customers WHERE id IN ({}) AND stripe_customer_id IS NOT NULL"
                .format(",".join("?" * len(CANCELED_CUSTOMERS))), list(CANCELED_CUSTOMERS)
            ).fetchall() + db.execute(
                "SELECT id FROM subscriptions WHERE id IN ({}) AND stripe_subscription_id "
                "IS NOT NULL".format(",".join("?" * len(CANCELED_SUBSCRIPTIONS))),
                list(CANCELED_SUBSCRIPTIONS)).fetchall()]
        return found

    g.check("no_charges", 1, clean(charges))
    g.check("no_duplicates", 1, clean(duplicates))
    g.check("canceled_not_migrated", 1, clean(canceled))
    if db is not None:
        db.close()
    rerun.grade(g, account.client, [legacy.customer for legacy in MIGRATE
                                    if account.migrated(legacy)])
    g.write()


if __name__ == "__main__":
    main()
