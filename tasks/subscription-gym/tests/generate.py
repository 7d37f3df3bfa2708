"""subscription-gym challenge generator: one billing challenge per family, drawn from a seed.

    python generate.py --seed N          # prints the challenges (text and parameters)

Each challenge has a plain-language `text` (what the agent reads), the JSON fields the
grader will POST to the agent's endpoint (`request`), what the endpoint must answer
(`response`), and the `params` the grader needs to build the preconditions and the
expected values (plans, amounts, quantities, days, dates). Every instant is a UTC
midnight, every day of the month at most 28, so calendar arithmetic never clamps.
"""

from __future__ import annotations

import argparse
import calendar
import datetime as dt
import json
import random
from typing import Any

PUBLIC_SEED = 20261203
DAY = 86_400

FAMILIES = ("incomplete_payment", "trial_without_card", "anchored_coupon", "one_time_items",
            "ending_schedule", "downgrade_at_period_end", "cancel_at_date", "metered_usage",
            "preview_change", "immediate_upgrade", "pause_collection", "dunning_recovery",
            "balance_credit")

PLANS = ("Starter", "Team", "Growth", "Pro", "Business", "Scale", "Studio", "Premium",
         "Plus", "Enterprise")
AMOUNTS = (900, 1200, 1500, 1900, 2400, 2900, 3900, 4900, 7900, 9900)
FEES = ("Onboarding fee", "Setup fee", "Hardware kit", "Training session", "Welcome pack")
PAUSES = {"void": "void every invoice created while paused",
          "keep_as_draft": "keep every invoice created while paused as a draft",
          "mark_uncollectible": "mark every invoice created while paused as uncollectible"}
CARDS = {"pm_card_visa": "4242", "pm_card_mastercard": "4444", "pm_card_amex": "0005"}


def add_months(ts: int, months: int) -> int:
    day = dt.datetime.fromtimestamp(ts, dt.UTC)
    month0 = day.month - 1 + months
    year, month = day.year + month0 // 12, month0 % 12 + 1
    last = calendar.monthrange(year, month)[1]
    return int(day.replace(year=year, month=month, day=min(day.day, last)).timestamp())


def date_text(ts: int) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%B %-d, %Y")


def money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


def _start(rng: random.Random) -> int:
    """A UTC midnight between February and July 2026 (the account clock starts in January)."""
    return int(dt.datetime(2026, rng.randint(2, 7), rng.randint(1, 28), tzinfo=dt.UTC)
               .timestamp())


def _plans(rng: random.Random, count: int, ordered: bool = False) -> list[dict[str, Any]]:
    names = rng.sample(PLANS, count)
    amounts = sorted(rng.sample(AMOUNTS, count), reverse=True) if ordered \
        else rng.sample(AMOUNTS, count)
    return [{"name": n, "amount": a, "interval": "month"} for n, a in zip(names, amounts,
                                                                          strict=True)]


def _running(rng: random.Random, plan: dict[str, Any], quantity: int) -> tuple[int, str]:
    """Precondition wording for a subscription the grader already runs (days into it)."""
    days = rng.randint(5, 20)
    return days, (f"The customer has been subscribed to {plan['name']} "
                  f"({money(plan['amount'])} a month) × {quantity} for {days} days.")


def incomplete_payment(rng: random.Random) -> dict[str, Any]:
    plan = _plans(rng, 1)[0]
    plan["interval"] = rng.choice(["month", "year"])
    if plan["interval"] == "year":
        plan["amount"] *= 10
    quantity = rng.randint(1, 5)
    return {"title": "Subscription that waits for its first payment",
            "text": (f"Subscribe the customer to the price `price` ({plan['name']}, "
                     f"{money(plan['amount'])} a {plan['interval']}) with quantity {quantity}. "
                     "The customer has no payment method yet: the subscription must wait, "
                     "incomplete, for its first invoice to be paid, and the browser will "
                     "confirm that payment with Stripe.js. Answer with the subscription id "
                     "and the client secret the browser needs to confirm the payment."),
            "request": {"customer": "cus_...", "price": "price_..."},
            "response": {"subscription": "sub_...", "client_secret": "..."},
            "params": {"plans": [plan], "quantity": quantity}}


def trial_without_card(rng: random.Random) -> dict[str, Any]:
    plan = _plans(rng, 1)[0]
    days = rng.choice([7, 10, 14, 21, 30])
    behavior = rng.choice(["cancel", "pause"])
    then = "canceled" if behavior == "cancel" else "paused"
    return {"title": "Free trial, card later",
            "text": (f"Start a {days}-day free trial of {plan['name']} (price `price`, "
                     f"{money(plan['amount'])} a month, quantity 1) for a customer who has "
                     "not given a payment method. Collect the card later, in the browser, "
                     "through the subscription's pending SetupIntent. If the trial ends "
                     f"and there is still no payment method, the subscription must be {then}. "
                     "Answer with the subscription id and the client secret of that "
                     "SetupIntent."),
            "request": {"customer": "cus_...", "price": "price_..."},
            "response": {"subscription": "sub_...", "setup_client_secret": "seti_..._secret_..."},
            "params": {"plans": [plan], "trial_days": days, "end_behavior": behavior}}


def anchored_coupon(rng: random.Random, start: int) -> dict[str, Any]:
    plan = _plans(rng, 1)[0]
    quantity = rng.randint(1, 6)
    start_day = dt.datetime.fromtimestamp(start, dt.UTC).day
    percent = rng.choice([10, 15, 20, 25, 30, 40, 50])

    def first_invoice(day: int) -> float:  # roughly: days to the anchor over 31
        return plan["amount"] * quantity * ((day - start_day) % 28) / 31 * (100 - percent) / 100

    # The prorated, discounted first invoice stays well above Stripe's 50-cent minimum
    # charge (the emulator refuses a smaller one; Stripe's handling is not modelled).
    anchor_day = rng.choice([d for d in range(1, 29) if d != start_day
                             and first_invoice(d) >= 150])
    return {"title": "Anchored billing day with a lasting discount",
            "text": (f"Subscribe the customer to {plan['name']} (price `price`, "
                     f"{money(plan['amount'])} a month) with quantity {quantity}, billed on "
                     f"day {anchor_day} of every month at 00:00 UTC: the first invoice, now, "
                     "charges the prorated time until the next such day. Give the "
                     f"subscription {percent}% off every invoice, forever (create the "
                     "coupon). The customer already has a default card."),
            "request": {"customer": "cus_...", "price": "price_..."},
            "response": {"subscription": "sub_..."},
            "params": {"plans": [plan], "quantity": quantity, "anchor_day": anchor_day,
                       "percent_off": percent}}


def one_time_items(rng: random.Random) -> dict[str, Any]:
    plan = _plans(rng, 1)[0]
    quantity = rng.randint(1, 4)
    fee = {"name": rng.choice(FEES), "amount": rng.choice([2500, 4900, 9900, 14900]),
           "interval": None}
    count = rng.randint(1, 3)
    return {"title": "One-time items on the first invoice",
            "text": (f"Subscribe the customer to {plan['name']} (price `price`, "
                     f"{money(plan['amount'])} a month) with quantity {quantity}, and "
                     f"charge {count} × {fee['name']} (the one-time price `one_time_price`, "
                     f"{money(fee['amount'])} each) on the first invoice only, in the same "
                     "payment. The customer already has a default card."),
            "request": {"customer": "cus_...", "price": "price_...",
                        "one_time_price": "price_..."},
            "response": {"subscription": "sub_..."},
            "params": {"plans": [plan, fee], "quantity": quantity, "fee_quantity": count}}


def ending_schedule(rng: random.Random) -> dict[str, Any]:
    first, second = _plans(rng, 2)
    months1, months2 = rng.randint(1, 3), rng.randint(1, 2)
    quantity = rng.randint(2, 5)
    end = rng.choice(["cancel", "release"])
    after = ("ends: the subscription is canceled" if end == "cancel" else
             f"is released: the subscription simply goes on with {second['name']} × "
             f"{quantity} every month")
    return {"title": "A schedule with phases that ends",
            "text": (f"Put the customer on a subscription schedule that starts now: "
                     f"{months1} monthly billing period(s) of {first['name']} (price "
                     f"`first_price`, {money(first['amount'])} a month) × 1, then "
                     f"{months2} monthly period(s) of {second['name']} (price "
                     f"`second_price`, {money(second['amount'])} a month) × {quantity}; after "
                     f"that the schedule {after}. The customer already has a default card."),
            "request": {"customer": "cus_...", "first_price": "price_...",
                        "second_price": "price_..."},
            "response": {"schedule": "sub_sched_..."},
            "params": {"plans": [first, second], "months": [months1, months2],
                       "quantity": quantity, "end_behavior": end}}


def downgrade_at_period_end(rng: random.Random) -> dict[str, Any]:
    high, low = _plans(rng, 2, ordered=True)
    quantity = rng.randint(1, 4)
    days, running = _running(rng, high, quantity)
    return {"title": "Downgrade at the end of the period",
            "text": (f"{running} Downgrade the subscription `subscription` to {low['name']} "
                     f"(price `price`, {money(low['amount'])} a month), same quantity, from "
                     "its next billing period on, with a subscription schedule: nothing "
                     "changes and nothing is charged or credited before then, and the next "
                     f"renewal bills {low['name']} in full."),
            "request": {"subscription": "sub_...", "price": "price_..."},
            "response": {"schedule": "sub_sched_..."},
            "params": {"plans": [high, low], "quantity": quantity, "days_in": days}}


def cancel_at_date(rng: random.Random) -> dict[str, Any]:
    plan = _plans(rng, 1)[0]
    quantity = rng.randint(1, 3)
    days, running = _running(rng, plan, quantity)
    after = rng.randint(2, 7)  # stays inside the first period (28 days at least)
    return {"title": "Cancel on a date, no proration",
            "text": (f"{running} Schedule the subscription `subscription` to end {after} days "
                     "from now, at 00:00 UTC of that day. The customer keeps the service "
                     "until then and gets no credit or refund for the unused time (no "
                     "proration), and nothing else is charged."),
            "request": {"subscription": "sub_..."},
            "response": {"subscription": "sub_..."},
            "params": {"plans": [plan], "quantity": quantity, "days_in": days,
                       "cancel_after_days": after}}


def metered_usage(rng: random.Random) -> dict[str, Any]:
    package = rng.choice([100, 500, 1000, 2500])
    unit = rng.choice([50, 125, 200, 350, 500])
    rounding = rng.choice(["up", "down"])
    usage = [rng.randint(1, 4) * package + rng.randint(1, package - 1) for _ in range(3)]
    name = rng.choice(["API calls", "Emails sent", "Minutes transcribed", "Reports built"])
    how = "a started package counts in full" if rounding == "up" else \
        "only complete packages count"
    return {"title": "Usage billed through a meter",
            "text": (f"Bill the customer for {name.lower()} in arrears, at "
                     f"{money(unit)} per package of {package} ({how}), every month. The "
                     "usage is reported to the billing meter `meter` (the customer is the "
                     "event payload's `stripe_customer_id`, the amount its `value`); create "
                     f"the price (product name \"{name}\") on that meter and subscribe the "
                     "customer to it. Nothing is charged up front; each month's invoice "
                     "bills the previous month's usage. The customer already has a default "
                     "card."),
            "request": {"customer": "cus_...", "meter": "mtr_..."},
            "response": {"subscription": "sub_...", "price": "price_..."},
            "params": {"product": name, "package": package, "unit_amount": unit,
                       "round": rounding, "usage": usage}}


def preview_change(rng: random.Random) -> dict[str, Any]:
    current, other = _plans(rng, 2)
    quantity, new_quantity = rng.randint(1, 4), rng.randint(1, 5)
    days, running = _running(rng, current, quantity)
    hours = rng.randint(1, 12)
    return {"title": "Preview a plan change",
            "text": (f"{running} The customer is considering {other['name']} (price "
                     f"`price`, {money(other['amount'])} a month) × {new_quantity}. Without "
                     "changing anything, preview the customer's next regular invoice (the "
                     "renewal at the end of the current period) of the subscription "
                     "`subscription` as it would be if that change were made now with "
                     "prorations calculated as of `proration_date` (a Unix timestamp), the "
                     "prorations landing on that renewal. Answer with that invoice's "
                     "`amount_due` and the sum of its proration line amounts (cents)."),
            "request": {"subscription": "sub_...", "price": "price_...",
                        "proration_date": 1770000000},
            "response": {"amount_due": 0, "proration": 0},
            "params": {"plans": [current, other], "quantity": quantity,
                       "new_quantity": new_quantity, "days_in": days,
                       "proration_hours_ago": hours}}


def immediate_upgrade(rng: random.Random) -> dict[str, Any]:
    high, low = _plans(rng, 2, ordered=True)
    quantity = rng.randint(1, 4)
    days, running = _running(rng, low, quantity)
    return {"title": "Upgrade now, invoice now",
            "text": (f"{running} Upgrade the subscription `subscription` to {high['name']} "
                     f"(price `price`, {money(high['amount'])} a month), same quantity, "
                     "effective now, and invoice and charge the prorated difference "
                     "immediately (the billing day does not change)."),
            "request": {"subscription": "sub_...", "price": "price_..."},
            "response": {"invoice": "in_..."},
            "params": {"plans": [low, high], "quantity": quantity, "days_in": days}}


def pause_collection(rng: random.Random) -> dict[str, Any]:
    plan = _plans(rng, 1)[0]
    days, running = _running(rng, plan, 1)
    behavior = rng.choice(sorted(PAUSES))
    resume = rng.randint(20, 60)
    return {"title": "Pause payment collection",
            "text": (f"{running} The customer asked for a break: pause payment collection "
                     f"on the subscription `subscription` until 00:00 UTC {resume} days from "
                     f"now, when it resumes by itself, and {PAUSES[behavior]}. The "
                     "subscription itself keeps running (it is not canceled or paused)."),
            "request": {"subscription": "sub_..."},
            "response": {"subscription": "sub_..."},
            "params": {"plans": [plan], "quantity": 1, "days_in": days,
                       "behavior": behavior, "resume_after_days": resume}}


def dunning_recovery(rng: random.Random) -> dict[str, Any]:
    plan = _plans(rng, 1)[0]
    card = rng.choice(sorted(CARDS))
    retry = rng.choice([True, False])
    when = ("Do not charge it now: Stripe's next automatic retry must collect the open "
            "invoice with the new card." if retry else
            "Then pay the open invoice with it right away.")
    return {"title": "Past due: recover with a new card",
            "text": (f"The customer's {plan['name']} subscription (`subscription`, "
                     f"{money(plan['amount'])} a month) is past due: its renewal payment "
                     "was declined and Stripe is retrying it. The customer sent a new card, "
                     f"the test payment method `{card}`: attach it and make it the "
                     f"customer's default for invoices. {when}"),
            "request": {"subscription": "sub_...", "invoice": "in_..."},
            "response": {"payment_method": "pm_..."},
            "params": {"plans": [plan], "quantity": 1, "card": card, "last4": CARDS[card],
                       "retry": retry, "trial_days": rng.randint(1, 4)}}


def balance_credit(rng: random.Random) -> dict[str, Any]:
    plan = _plans(rng, 1)[0]
    days, running = _running(rng, plan, 1)
    credit = rng.choice([round(plan["amount"] * f / 100) for f in (30, 50, 75, 120, 150)])
    note = rng.choice(["Goodwill credit", "Outage compensation", "Referral reward"])
    return {"title": "Credit the customer's balance",
            "text": (f"{running} Give the customer (`customer`) a credit of {money(credit)} "
                     f"on their Stripe customer balance, described \"{note}\", so that their "
                     "next invoices use it up before their card is charged."),
            "request": {"customer": "cus_..."},
            "response": {"customer": "cus_..."},
            "params": {"plans": [plan], "quantity": 1, "days_in": days, "credit": credit,
                       "description": note}}


def generate(seed: int) -> list[dict[str, Any]]:
    """One challenge per family, numbered in a seeded order."""
    rng = random.Random(seed)
    order = list(FAMILIES)
    rng.shuffle(order)
    out = []
    for number, family in enumerate(order, start=1):
        start = _start(rng)
        maker = globals()[family]
        made = maker(rng, start) if family == "anchored_coupon" else maker(rng)
        made["params"]["start"] = start
        out.append({"number": number, "family": family, **made})
    return out


def public_view(challenges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the agent gets: text, request and response shapes; no grading parameters."""
    return [{k: c[k] for k in ("number", "title", "text", "request", "response")}
            for c in challenges]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=PUBLIC_SEED)
    print(json.dumps(generate(parser.parse_args().seed), indent=2))


if __name__ == "__main__":
    main()
