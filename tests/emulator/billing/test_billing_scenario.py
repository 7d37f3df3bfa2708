"""A subscription's life on a test clock: trial, three paid renewals, a declined renewal
(past_due and a retry), recovery with a new card, cancellation at period end. Every
invoice and every subscription/invoice event is checked, with its simulated time."""

from __future__ import annotations

from datetime import UTC, datetime

import stripe

from billing_helpers import FAILING_CARD, GOOD_CARD, JAN_1, make_shop

HOUR = 3600


def at(month: int, day: int, hour: int = 0) -> int:
    return int(datetime(2026, month, day, hour, tzinfo=UTC).timestamp())


def test_trial_renewals_failure_recovery_cancellation(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    price = shop.price(2000)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}], "trial_period_days": 7})
    assert sub.status == "trialing"

    # Trial ends Jan 8; renewals Jan 8, Feb 8, Mar 8 (a clock moves at most two of its
    # shortest subscription's intervals per advance, as in Stripe).
    shop.advance(at(2, 8, 2))
    shop.advance(at(3, 8, 2))
    assert client.v1.subscriptions.retrieve(sub.id).status == "active"
    shop.use_card(FAILING_CARD)
    shop.advance(at(4, 12))  # Apr 8 renewal declines, the Apr 11 retry too
    sub = client.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    assert sub.status == "past_due"
    failing = sub.latest_invoice
    assert (failing.status, failing.attempt_count, failing.next_payment_attempt) == (
        "open", 2, at(4, 16, 1))
    shop.use_card(GOOD_CARD)
    recovered = client.v1.invoices.pay(failing.id)
    assert (recovered.status, recovered.attempt_count) == ("paid", 3)
    sub = client.v1.subscriptions.update(sub.id, params={"cancel_at_period_end": True})
    assert (sub.status, sub.cancel_at, sub.canceled_at) == ("active", at(5, 8), at(4, 12))
    shop.advance(at(5, 20))
    sub = client.v1.subscriptions.retrieve(sub.id)
    assert (sub.status, sub.ended_at) == ("canceled", at(5, 8))

    invoices = list(reversed(client.v1.invoices.list(params={
        "subscription": sub.id, "limit": 20}).data))
    got = [(i.billing_reason, i.status, i.amount_paid, i.attempt_count, i.created,
            i.status_transitions.finalized_at, i.status_transitions.paid_at,
            (i.lines.data[0].period.start, i.lines.data[0].period.end)) for i in invoices]
    assert got == [
        ("subscription_create", "paid", 0, 0, JAN_1, JAN_1, JAN_1, (JAN_1, at(1, 8))),
        ("subscription_cycle", "paid", 2000, 1, at(1, 8), at(1, 8, 1), at(1, 8, 1),
         (at(1, 8), at(2, 8))),
        ("subscription_cycle", "paid", 2000, 1, at(2, 8), at(2, 8, 1), at(2, 8, 1),
         (at(2, 8), at(3, 8))),
        ("subscription_cycle", "paid", 2000, 1, at(3, 8), at(3, 8, 1), at(3, 8, 1),
         (at(3, 8), at(4, 8))),
        ("subscription_cycle", "paid", 2000, 3, at(4, 8), at(4, 8, 1), at(4, 12),
         (at(4, 8), at(5, 8))),
    ]

    events = [(e.created, e.type, e.data.object.to_dict().get("status")) for e in shop.events()
              if e.type.startswith(("customer.subscription.", "invoice."))]
    renewal = lambda month: [  # noqa: E731 - one paid renewal's events, in order
        (at(month, 8), "invoice.created", "draft"),
        (at(month, 8), "customer.subscription.updated", "active"),
        (at(month, 8, 1), "invoice.finalized", "open"),
        (at(month, 8, 1), "invoice.paid", "paid"),
        (at(month, 8, 1), "invoice.payment_succeeded", "paid")]
    first_renewal = renewal(1)
    first_renewal[1] = (at(1, 8), "customer.subscription.updated", "active")
    assert events == [
        (JAN_1, "customer.subscription.created", "trialing"),
        (JAN_1, "invoice.created", "draft"),
        (JAN_1, "invoice.finalized", "paid"),
        (JAN_1, "invoice.paid", "paid"),
        (JAN_1, "invoice.payment_succeeded", "paid"),
        (at(1, 5), "customer.subscription.trial_will_end", "trialing"),
        *first_renewal, *renewal(2), *renewal(3),
        (at(4, 8), "invoice.created", "draft"),
        (at(4, 8), "customer.subscription.updated", "active"),
        (at(4, 8, 1), "invoice.finalized", "open"),
        (at(4, 8, 1), "invoice.payment_failed", "open"),
        (at(4, 8, 1), "customer.subscription.updated", "past_due"),
        (at(4, 11, 1), "invoice.payment_failed", "open"),
        (at(4, 12), "invoice.paid", "paid"),
        (at(4, 12), "invoice.payment_succeeded", "paid"),
        (at(4, 12), "customer.subscription.updated", "active"),
        (at(4, 12), "customer.subscription.updated", "active"),
        (at(5, 8), "customer.subscription.deleted", "canceled"),
    ]
    # The trial's end is visible in the first renewal's previous attributes.
    trial_update = next(e for e in shop.events() if e.type == "customer.subscription.updated")
    assert trial_update.data.previous_attributes["status"] == "trialing"
    declines = [e for e in shop.events() if e.type == "payment_intent.payment_failed"]
    assert [e.created for e in declines] == [at(4, 8, 1), at(4, 11, 1)]
