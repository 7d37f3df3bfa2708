"""Subscription schedules on a test clock: phases change prices at their start, the
schedule ends by cancelling or releasing, and schedules can start later."""

from __future__ import annotations

from datetime import UTC, datetime

import stripe

from billing_helpers import JAN_1, make_shop


def at(month: int, day: int = 1, hour: int = 0) -> int:
    return int(datetime(2026, month, day, hour, tzinfo=UTC).timestamp())


def test_phases_then_cancel(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    basic, pro = shop.price(1000), shop.price(3000)
    schedule = client.v1.subscription_schedules.create(params={
        "customer": shop.customer.id, "start_date": "now", "end_behavior": "cancel",
        "phases": [{"items": [{"price": basic.id}],
                    "duration": {"interval": "month", "interval_count": 2}},
                   {"items": [{"price": pro.id, "quantity": 2}],
                    "duration": {"interval": "month"}}]})
    assert schedule.status == "active" and schedule.subscription
    assert [(p.start_date, p.end_date) for p in schedule.phases] == [
        (JAN_1, at(3)), (at(3), at(4))]
    assert schedule.current_phase.end_date == at(3)
    sub_id = schedule.subscription
    assert client.v1.subscriptions.retrieve(sub_id).schedule == schedule.id
    shop.advance(at(2, 15))  # at most two monthly intervals per advance
    shop.advance(at(4, 1, 2))
    invoices = client.v1.invoices.list(params={"subscription": sub_id}).data
    assert [(i.created, i.amount_paid) for i in reversed(invoices)] == [
        (JAN_1, 1000), (at(2), 1000), (at(3), 6000)]
    sub = client.v1.subscriptions.retrieve(sub_id)
    assert (sub.status, sub.ended_at) == ("canceled", at(4))
    assert client.v1.subscription_schedules.retrieve(schedule.id).status == "completed"


def test_from_subscription_release_and_later_start(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    price = shop.price(1500)
    sub = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                 "items": [{"price": price.id}]})
    schedule = client.v1.subscription_schedules.create(params={"from_subscription": sub.id})
    assert schedule.status == "active" and schedule.phases[0].end_date == at(2)
    assert schedule.phases[0]["items"][0].price == price.id
    released = client.v1.subscription_schedules.release(schedule.id)
    assert released.status == "released" and released.released_subscription == sub.id
    assert client.v1.subscriptions.retrieve(sub.id).schedule is None

    # Written the pre-2026 way: phases sized in `iterations` of their price's interval.
    later = client.v1.subscription_schedules.create(params={
        "customer": shop.customer.id, "start_date": at(1, 15),
        "phases": [{"items": [{"price": price.id}], "iterations": 2}]},  # type: ignore[typeddict-unknown-key]
        options={"stripe_version": "2025-01-27.acacia"})
    assert later.phases[0].end_date == at(3, 15)
    assert later.status == "not_started" and later.subscription is None
    shop.advance(at(1, 15, 1))
    later = client.v1.subscription_schedules.retrieve(later.id)
    assert later.status == "active"
    started = client.v1.subscriptions.retrieve(later.subscription)
    assert started.start_date == at(1, 15) and started.status == "active"
    canceled = client.v1.subscription_schedules.cancel(later.id)
    assert canceled.status == "canceled"
    assert client.v1.subscriptions.retrieve(later.subscription).status == "canceled"
