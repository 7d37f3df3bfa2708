"""subscription-gym: per family, the preconditions the grader builds and what it checks.

Every challenge runs on a test clock of its own, frozen at the challenge's `start` (a UTC
midnight): the grader creates the clock, the customer, the prices (and the running
subscription or meter a family starts from), POSTs the request to the agent's endpoint,
then advances the clock and compares invoices, amounts, statuses and timestamps with
values it computes itself from Stripe's documented rules. A challenge passes only if
every check holds; the first mismatch is its message.

Rules relied on (docs.stripe.com):
- prorations credit and charge `amount × remaining / period`, to the second, over the
  current period (billing/subscriptions/prorations);
- a future `billing_cycle_anchor` prorates the first invoice over the period ending at the
  anchor (billing/subscriptions/billing-cycle);
- failed subscription payments are retried by Smart Retries / the retry schedule, the
  invoice stays open meanwhile and the subscription is `past_due`
  (billing/revenue-recovery/smart-retries);
- renewal invoices finalize about an hour after they are created
  (billing/subscriptions/webhooks#understand), hence the `+ 2 h` on every advance.
"""

from __future__ import annotations

import calendar
import datetime as dt
import time
from collections.abc import Callable
from typing import Any

DAY = 86_400
HOUR = 3_600


class Mismatch(AssertionError):
    """The agent's result differs from what the challenge asks."""


def add_months(ts: int, months: int) -> int:
    day = dt.datetime.fromtimestamp(ts, dt.UTC)
    month0 = day.month - 1 + months
    year, month = day.year + month0 // 12, month0 % 12 + 1
    last = calendar.monthrange(year, month)[1]
    return int(day.replace(year=year, month=month, day=min(day.day, last)).timestamp())


def prorate(amount: int, frm: int, start: int, end: int) -> int:
    """amount × (end - frm) / (end - start), rounded half up (Stripe's proration)."""
    num, den = amount * (end - frm), end - start
    return (2 * num + den) // (2 * den)


def percent_of(amount: int, percent: int) -> int:
    return (2 * amount * percent + 100) // 200


def plan_line(plan: dict[str, Any], quantity: int) -> str:
    """A subscription line's description, in Stripe's words: "2 × Gold (at $20.00 / month)"."""
    amount = plan["amount"]
    return (f"{quantity} × {plan['name']} (at ${amount // 100}.{amount % 100:02d} / "
            f"{plan.get('interval') or 'month'})")


def descriptions(invoice: dict[str, Any]) -> list[str]:
    return [line.get("description") or "" for line in invoice["lines"]["data"]]


def expect(what: str, actual: Any, wanted: Any) -> None:
    if actual != wanted:
        raise Mismatch(f"{what}: expected {wanted!r}, got {actual!r}")


def secret_of(answer: dict[str, Any], key: str, prefix: str) -> str:
    """A client secret the answer must carry (an absent one never matches an absent one)."""
    value = answer.get(key)
    if not isinstance(value, str) or not value.startswith(prefix) or "_secret_" not in value:
        raise Mismatch(f"{key}: expected a {prefix}..._secret_... client secret, got {value!r}")
    return value


def field(obj: Any, *path: str) -> Any:
    for key in path:
        if obj is None:
            return None
        obj = obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)
    return obj


class Gym:
    """One challenge's world: its clock, its objects and the call to the agent."""

    def __init__(self, client: Any, number: int, params: dict[str, Any],
                 call: Callable[[int, dict[str, Any]], dict[str, Any]]) -> None:
        self.c = client
        self.number = number
        self.p = params
        self._call = call
        self.now = int(params["start"])
        self.clock = client.v1.test_helpers.test_clocks.create(
            {"frozen_time": self.now, "name": f"subscription-gym challenge {number}"})
        self.prices = [self._price(plan) for plan in params.get("plans", [])]

    def _price(self, plan: dict[str, Any]) -> str:
        body: dict[str, Any] = {"currency": "usd", "unit_amount": plan["amount"],
                                "product_data": {"name": plan["name"]}}
        if plan.get("interval"):
            body["recurring"] = {"interval": plan["interval"]}
        return str(self.c.v1.prices.create(body).id)

    def customer(self, card: str | None = "pm_card_visa") -> str:
        body: dict[str, Any] = {"test_clock": self.clock.id,
                                "email": f"gym{self.number}@example.com",
                                "name": f"Gym customer {self.number}"}
        if card:
            body.update(payment_method=card, invoice_settings={"default_payment_method": card})
        return str(self.c.v1.customers.create(body).id)

    def running(self, price: int = 0, quantity: int | None = None) -> tuple[str, str]:
        """A customer with a card, subscribed at `start`, then `days_in` days later."""
        customer = self.customer()
        sub = self.c.v1.subscriptions.create({"customer": customer, "items": [
            {"price": self.prices[price], "quantity": quantity or self.p["quantity"]}]})
        self.advance(self.now + self.p["days_in"] * DAY)
        return customer, str(sub.id)

    def advance(self, to: int) -> None:
        clock = self.c.v1.test_helpers.test_clocks.advance(self.clock.id, {"frozen_time": to})
        for _ in range(60):  # Stripe advances asynchronously; the emulator is done at once
            if clock.status == "ready":
                break
            time.sleep(0.5)
            clock = self.c.v1.test_helpers.test_clocks.retrieve(self.clock.id)
        else:
            raise RuntimeError(f"test clock {self.clock.id} did not finish advancing")
        self.now = to

    def call(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._call(self.number, body)

    # ---------------------------------------------------------------- reading back

    def sub(self, sub_id: Any, expand: list[str] | None = None) -> dict[str, Any]:
        if not isinstance(sub_id, str) or not sub_id.startswith("sub_"):
            raise Mismatch(f"no subscription id in the answer (got {sub_id!r})")
        found: dict[str, Any] = self.c.v1.subscriptions.retrieve(
            sub_id, {"expand": expand or []}).to_dict()
        return found

    def items(self, sub: dict[str, Any]) -> list[tuple[str, Any]]:
        return sorted((i["price"]["id"], i.get("quantity")) for i in sub["items"]["data"])

    def invoice(self, invoice_id: Any) -> dict[str, Any]:
        if isinstance(invoice_id, dict):
            invoice_id = invoice_id.get("id")
        found: dict[str, Any] = self.c.v1.invoices.retrieve(str(invoice_id)).to_dict()
        return found

    def invoices(self, sub_id: str) -> list[dict[str, Any]]:
        """The subscription's invoices, oldest first."""
        listed = self.c.v1.invoices.list({"subscription": sub_id, "limit": 100}).data
        return sorted((i.to_dict() for i in listed), key=lambda i: (i["created"], i["id"]))

    def latest(self, sub_id: str) -> dict[str, Any]:
        return self.invoice(self.sub(sub_id)["latest_invoice"])

    def pending_items(self, customer: str) -> int:
        return len(self.c.v1.invoice_items.list(
            {"customer": customer, "pending": True, "limit": 100}).data)

    def owned(self, sub: dict[str, Any], customer: str) -> None:
        expect("the subscription's customer", sub["customer"], customer)


# -------------------------------------------------------------------- the families

def incomplete_payment(g: Gym) -> None:
    plan, q = g.p["plans"][0], g.p["quantity"]
    customer = g.customer(card=None)
    answer = g.call({"customer": customer, "price": g.prices[0]})
    sub = g.sub(answer.get("subscription"), ["latest_invoice.confirmation_secret"])
    g.owned(sub, customer)
    expect("items", g.items(sub), [(g.prices[0], q)])
    expect("status", sub["status"], "incomplete")
    invoice = sub["latest_invoice"]
    expect("first invoice status", invoice["status"], "open")
    expect("first invoice amount_due", invoice["amount_due"], plan["amount"] * q)
    secret = field(invoice, "confirmation_secret", "client_secret")
    expect("client_secret", secret_of(answer, "client_secret", "pi_"), secret)
    # The browser's part, done here with the secret key: the payment goes through.
    g.c.v1.payment_intents.confirm(str(secret).split("_secret_")[0],
                                   {"payment_method": "pm_card_visa"})
    expect("status once paid", g.sub(sub["id"])["status"], "active")
    expect("first invoice once paid", g.invoice(invoice["id"])["status"], "paid")


def trial_without_card(g: Gym) -> None:
    days, behavior = g.p["trial_days"], g.p["end_behavior"]
    customer = g.customer(card=None)
    answer = g.call({"customer": customer, "price": g.prices[0]})
    sub = g.sub(answer.get("subscription"), ["pending_setup_intent"])
    g.owned(sub, customer)
    expect("items", g.items(sub), [(g.prices[0], 1)])
    expect("status", sub["status"], "trialing")
    expect("trial_end", sub["trial_end"], g.now + days * DAY)
    expect("trial end behaviour without a payment method",
           field(sub, "trial_settings", "end_behavior", "missing_payment_method"), behavior)
    expect("setup_client_secret", secret_of(answer, "setup_client_secret", "seti_"),
           field(sub, "pending_setup_intent", "client_secret"))
    expect("first invoice total", g.invoice(sub["latest_invoice"])["total"], 0)
    g.advance(sub["trial_end"] + 2 * HOUR)
    expect("status after the trial", g.sub(sub["id"])["status"],
           "canceled" if behavior == "cancel" else "paused")


def next_day_of_month(now: int, day: int) -> int:
    here = dt.datetime.fromtimestamp(now, dt.UTC)
    candidate = int(here.replace(day=day).timestamp())
    return candidate if candidate > now else add_months(candidate, 1)


def anchored_coupon(g: Gym) -> None:
    plan, q, percent = g.p["plans"][0], g.p["quantity"], g.p["percent_off"]
    customer = g.customer()
    answer = g.call({"customer": customer, "price": g.prices[0]})
    sub = g.sub(answer.get("subscription"), ["discounts"])
    g.owned(sub, customer)
    expect("items", g.items(sub), [(g.prices[0], q)])
    anchor = next_day_of_month(g.now, g.p["anchor_day"])
    expect("billing_cycle_anchor", sub["billing_cycle_anchor"], anchor)
    coupons = [field(d, "source", "coupon") or field(d, "coupon") for d in sub["discounts"]]
    coupons = [g.c.v1.coupons.retrieve(c).to_dict() if isinstance(c, str) else c
               for c in coupons]
    expect("discounts", [(c["percent_off"], c["duration"]) for c in coupons],
           [(percent, "forever")])
    full = plan["amount"] * q
    first = prorate(full, g.now, add_months(anchor, -1), anchor)
    invoice = g.invoice(sub["latest_invoice"])
    expect("first invoice total", invoice["total"], first - percent_of(first, percent))
    expect("first invoice status", invoice["status"], "paid")
    g.advance(anchor + 2 * HOUR)
    renewal = g.latest(sub["id"])
    expect("renewal on the anchor", renewal["created"], anchor)
    expect("renewal total", renewal["total"], full - percent_of(full, percent))
    expect("renewal status", renewal["status"], "paid")


def one_time_items(g: Gym) -> None:
    plan, fee = g.p["plans"]
    q, k = g.p["quantity"], g.p["fee_quantity"]
    customer = g.customer()
    answer = g.call({"customer": customer, "price": g.prices[0], "one_time_price": g.prices[1]})
    sub = g.sub(answer.get("subscription"))
    g.owned(sub, customer)
    expect("items", g.items(sub), [(g.prices[0], q)])
    invoices = g.invoices(sub["id"])
    expect("invoices so far", len(invoices), 1)
    first = invoices[0]
    expect("first invoice total", first["total"], plan["amount"] * q + fee["amount"] * k)
    expect("first invoice status", first["status"], "paid")
    fee_lines = [line["amount"] for line in first["lines"]["data"]
                 if fee["name"] in (line.get("description") or "")]
    expect("one-time line", fee_lines, [fee["amount"] * k])
    g.advance(add_months(g.now, 1) + 2 * HOUR)
    renewal = g.latest(sub["id"])
    expect("renewal (no one-time items)", (renewal["total"], descriptions(renewal)),
           (plan["amount"] * q, [plan_line(plan, q)]))
    expect("renewal status", renewal["status"], "paid")


def ending_schedule(g: Gym) -> None:
    first, second = g.p["plans"]
    months1, months2 = g.p["months"]
    q, end = g.p["quantity"], g.p["end_behavior"]
    start = g.now
    customer = g.customer()
    answer = g.call({"customer": customer, "first_price": g.prices[0],
                     "second_price": g.prices[1]})
    sched_id = answer.get("schedule")
    if not isinstance(sched_id, str) or not sched_id.startswith("sub_sched_"):
        raise Mismatch(f"no schedule id in the answer (got {sched_id!r})")
    schedule = g.c.v1.subscription_schedules.retrieve(sched_id).to_dict()
    expect("schedule customer", schedule["customer"], customer)
    expect("end_behavior", schedule["end_behavior"], end)
    sub_id = schedule["subscription"]
    sub = g.sub(sub_id)
    expect("first phase items", g.items(sub), [(g.prices[0], 1)])
    expect("first invoice total", g.latest(sub_id)["total"], first["amount"])
    total = months1 + months2
    for month in range(1, total + 1):
        g.advance(add_months(start, month) + 2 * HOUR)
        sub = g.sub(sub_id)
        if month < total:
            amount = first["amount"] if month < months1 else second["amount"] * q
            invoice = g.latest(sub_id)
            line = plan_line(first, 1) if month < months1 else plan_line(second, q)
            expect(f"invoice after {month} month(s)", (invoice["created"], invoice["total"],
                                                       invoice["status"], descriptions(invoice)),
                   (add_months(start, month), amount, "paid", [line]))
    if end == "cancel":
        expect("status after the last phase", sub["status"], "canceled")
        expect("ended_at", sub["ended_at"], add_months(start, total))
    else:
        expect("status after the last phase", sub["status"], "active")
        expect("schedule after the last phase", sub["schedule"], None)
        expect("items after the last phase", g.items(sub), [(g.prices[1], q)])
        invoice = g.latest(sub_id)
        expect("invoice after the release", (invoice["created"], invoice["total"]),
               (add_months(start, total), second["amount"] * q))


def downgrade_at_period_end(g: Gym) -> None:
    high, low = g.p["plans"]
    q = g.p["quantity"]
    start = g.now
    customer, sub_id = g.running()
    answer = g.call({"subscription": sub_id, "price": g.prices[1]})
    sub = g.sub(sub_id)
    expect("items before the period ends", g.items(sub), [(g.prices[0], q)])
    if not sub.get("schedule"):
        raise Mismatch("the subscription is not managed by a schedule")
    expect("schedule", answer.get("schedule"), sub["schedule"])
    expect("invoices before the period ends", len(g.invoices(sub_id)), 1)
    expect("pending invoice items", g.pending_items(customer), 0)
    g.advance(add_months(start, 1) + 2 * HOUR)
    sub = g.sub(sub_id)
    expect("status", sub["status"], "active")
    expect("items after the period ends", g.items(sub), [(g.prices[1], q)])
    renewal = g.latest(sub_id)
    expect("renewal", (renewal["created"], renewal["total"], renewal["status"],
                       descriptions(renewal)),
           (add_months(start, 1), low["amount"] * q, "paid", [plan_line(low, q)]))


def cancel_at_date(g: Gym) -> None:
    customer, sub_id = g.running()
    target = g.now + g.p["cancel_after_days"] * DAY
    g.call({"subscription": sub_id})
    sub = g.sub(sub_id)
    expect("cancel_at", sub["cancel_at"], target)
    expect("status before the date", sub["status"], "active")
    expect("pending invoice items", g.pending_items(customer), 0)
    expect("invoices", len(g.invoices(sub_id)), 1)
    g.advance(target + HOUR)
    sub = g.sub(sub_id)
    expect("status after the date", sub["status"], "canceled")
    expect("ended_at", sub["ended_at"], target)
    expect("invoices after the cancellation", len(g.invoices(sub_id)), 1)
    expect("pending invoice items after", g.pending_items(customer), 0)
    expect("customer balance", g.c.v1.customers.retrieve(customer).balance, 0)


def metered_usage(g: Gym) -> None:
    p = g.p
    start = g.now
    customer = g.customer()
    event = f"gym_usage_{g.clock.id[-10:].lower()}"
    meter = g.c.v1.billing.meters.create({
        "display_name": p["product"], "event_name": event,
        "default_aggregation": {"formula": "sum"}})
    answer = g.call({"customer": customer, "meter": meter.id})
    price_id = answer.get("price")
    if not isinstance(price_id, str) or not price_id.startswith("price_"):
        raise Mismatch(f"no price id in the answer (got {price_id!r})")
    price = g.c.v1.prices.retrieve(price_id, {"expand": ["product"]}).to_dict()
    expect("price", (price["unit_amount"], field(price, "recurring", "meter"),
                     field(price, "recurring", "usage_type"),
                     field(price, "recurring", "interval"), price["transform_quantity"],
                     field(price, "product", "name")),
           (p["unit_amount"], meter.id, "metered", "month",
            {"divide_by": p["package"], "round": p["round"]}, p["product"]))
    sub = g.sub(answer.get("subscription"))
    g.owned(sub, customer)
    expect("items", [i for i, _ in g.items(sub)], [price_id])
    expect("first invoice total", g.latest(sub["id"])["total"], 0)
    for day, value in zip((3, 10, 20), p["usage"], strict=True):
        g.advance(start + day * DAY)
        g.c.v1.billing.meter_events.create({"event_name": event, "timestamp": g.now,
                                            "payload": {"stripe_customer_id": customer,
                                                        "value": str(value)}})
    g.advance(add_months(start, 1) + 2 * HOUR)
    used = sum(p["usage"])
    packages = -(-used // p["package"]) if p["round"] == "up" else used // p["package"]
    renewal = g.latest(sub["id"])
    expect("usage invoice", (renewal["created"], renewal["total"], renewal["status"]),
           (add_months(start, 1), packages * p["unit_amount"], "paid"))


def preview_change(g: Gym) -> None:
    current, other = g.p["plans"]
    q, new_q = g.p["quantity"], g.p["new_quantity"]
    start = g.now
    customer, sub_id = g.running()
    when = g.now - g.p["proration_hours_ago"] * HOUR
    answer = g.call({"subscription": sub_id, "price": g.prices[1], "proration_date": when})
    end = add_months(start, 1)
    proration = prorate(other["amount"] * new_q, when, start, end) - \
        prorate(current["amount"] * q, when, start, end)
    expect("proration", answer.get("proration"), proration)
    expect("amount_due", answer.get("amount_due"),
           max(0, other["amount"] * new_q + proration))
    sub = g.sub(sub_id)
    expect("the subscription, unchanged", g.items(sub), [(g.prices[0], q)])
    expect("pending invoice items", g.pending_items(customer), 0)
    expect("invoices", len(g.invoices(sub_id)), 1)


def immediate_upgrade(g: Gym) -> None:
    low, high = g.p["plans"]
    q = g.p["quantity"]
    start = g.now
    customer, sub_id = g.running()
    answer = g.call({"subscription": sub_id, "price": g.prices[1]})
    end = add_months(start, 1)
    credit = prorate(low["amount"] * q, g.now, start, end)
    charge = prorate(high["amount"] * q, g.now, start, end)
    sub = g.sub(sub_id)
    expect("items", g.items(sub), [(g.prices[1], q)])
    expect("invoice", answer.get("invoice"), sub["latest_invoice"])
    invoice = g.invoice(sub["latest_invoice"])
    expect("proration invoice", (invoice["total"], invoice["status"]),
           (charge - credit, "paid"))
    lines = sorted((line["amount"], (line.get("description") or "").split(" on ")[0])
                   for line in invoice["lines"]["data"])
    expect("proration lines", lines, [(-credit, "Unused time"), (charge, "Remaining time")])
    expect("billing_cycle_anchor", sub["billing_cycle_anchor"], start)
    expect("pending invoice items", g.pending_items(customer), 0)
    g.advance(end + 2 * HOUR)
    renewal = g.latest(sub_id)
    expect("renewal", (renewal["created"], renewal["total"]), (end, high["amount"] * q))


def pause_collection(g: Gym) -> None:
    # While paused the subscription keeps running and renewing, but each invoice created
    # before `resumes_at` is kept as a draft / marked uncollectible / voided, uncharged;
    # from `resumes_at` on collection resumes (pause_collection back to null) and the next
    # renewal is paid (billing/subscriptions/pause-payment).
    customer, sub_id = g.running()
    resumes = g.now + g.p["resume_after_days"] * DAY
    g.call({"subscription": sub_id})
    sub = g.sub(sub_id)
    expect("pause_collection", sub["pause_collection"],
           {"behavior": g.p["behavior"], "resumes_at": resumes})
    expect("status", sub["status"], "active")
    expect("cancel_at", (sub["cancel_at"], sub["cancel_at_period_end"]), (None, False))
    expect("items", g.items(sub), [(g.prices[0], 1)])
    expect("pending invoice items", g.pending_items(customer), 0)
    paused = {"keep_as_draft": "draft", "mark_uncollectible": "uncollectible",
              "void": "void"}[g.p["behavior"]]
    start, months = int(g.p["start"]), 1
    while True:
        renewal = add_months(start, months)
        g.advance(renewal + 2 * HOUR)
        invoice = g.latest(sub_id)
        day = dt.datetime.fromtimestamp(renewal, dt.UTC).date().isoformat()
        expect(f"the renewal invoice of {day}", invoice["created"], renewal)
        if renewal >= resumes:
            expect(f"the renewal of {day}, after the pause", (
                invoice["status"], invoice["amount_paid"]), ("paid", g.p["plans"][0]["amount"]))
            break
        expect(f"the renewal of {day}, while paused", (invoice["status"],
                                                        invoice["amount_paid"]), (paused, 0))
        months += 1
    expect("pause_collection after resumes_at", g.sub(sub_id)["pause_collection"], None)


def dunning_recovery(g: Gym) -> None:
    plan = g.p["plans"][0]
    customer = g.customer("pm_card_chargeCustomerFail")
    sub = g.c.v1.subscriptions.create({"customer": customer, "items": [
        {"price": g.prices[0]}], "trial_period_days": g.p["trial_days"]})
    g.advance(sub.trial_end + 2 * HOUR)
    invoice = g.latest(sub.id)
    if (g.sub(sub.id)["status"], invoice["status"]) != ("past_due", "open"):
        raise RuntimeError("precondition: the renewal payment did not fail")
    g.call({"subscription": sub.id, "invoice": invoice["id"]})
    default = g.c.v1.customers.retrieve(customer).invoice_settings.default_payment_method
    if not default:
        raise Mismatch("the customer has no default payment method for invoices")
    card = g.c.v1.payment_methods.retrieve(str(default)).to_dict()
    expect("the default card", (field(card, "card", "last4"), card["customer"]),
           (g.p["last4"], customer))
    now = g.invoice(invoice["id"])
    if g.p["retry"]:
        expect("invoice before the retry", (now["status"], now["attempt_count"]),
               ("open", invoice["attempt_count"]))
        g.advance(int(invoice["next_payment_attempt"]) + HOUR)
        now = g.invoice(invoice["id"])
    expect("invoice", (now["status"], now["amount_paid"]), ("paid", plan["amount"]))
    expect("status", g.sub(sub.id)["status"], "active")


def balance_credit(g: Gym) -> None:
    plan = g.p["plans"][0]
    credit = g.p["credit"]
    start = g.now
    customer, sub_id = g.running()
    g.call({"customer": customer})
    expect("balance", g.c.v1.customers.retrieve(customer).balance, -credit)
    moves = [(t.amount, t.description, t.currency) for t in
             g.c.v1.customers.balance_transactions.list(customer).data]
    expect("balance transactions", moves, [(-credit, g.p["description"], "usd")])
    g.advance(add_months(start, 1) + 2 * HOUR)
    renewal = g.latest(sub_id)
    expect("renewal", (renewal["starting_balance"], renewal["amount_due"],
                       renewal["status"]),
           (-credit, max(0, plan["amount"] - credit), "paid"))
    expect("balance after the renewal", g.c.v1.customers.retrieve(customer).balance,
           min(0, plan["amount"] - credit))


FAMILIES: dict[str, Callable[[Gym], None]] = {
    f.__name__: f for f in (
        incomplete_payment, trial_without_card, anchored_coupon, one_time_items,
        ending_schedule, downgrade_at_period_end, cancel_at_date, metered_usage,
        preview_change, immediate_upgrade, pause_collection, dunning_recovery,
        balance_credit)}
