"""Subscription schedules on a test clock: phases change prices at their start, the
schedule ends by cancelling or releasing, and schedules can start later."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import stripe

from billing_helpers import DAY, JAN_1, make_shop


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


def test_schedule_starting_now_needs_no_payment_method(client: stripe.StripeClient) -> None:
    """A schedule whose first phase starts now creates its subscription with a draft first
    invoice (https://docs.stripe.com/api/subscriptions/create: for a first invoice that
    starts as a draft, use subscription schedules), so a customer without a payment method
    is fine; the draft finalizes an hour later or when finalized by hand, and can then be
    paid. A failed charge after that makes the subscription past_due, not incomplete."""
    shop = make_shop(client, card=False)
    price = shop.price(2500)
    schedule = client.v1.subscription_schedules.create(params={
        "customer": shop.customer.id, "start_date": "now",
        "phases": [{"items": [{"price": price.id}], "duration": {"interval": "month"}}]})
    sub = client.v1.subscriptions.retrieve(schedule.subscription,
                                           params={"expand": ["latest_invoice"]})
    assert sub.status == "active" and sub.schedule == schedule.id
    draft = sub.latest_invoice
    assert (draft.status, draft.amount_due, draft.billing_reason) == (
        "draft", 2500, "subscription_create")
    assert draft.automatically_finalizes_at == JAN_1 + 3600
    opened = client.v1.invoices.finalize_invoice(draft.id)
    assert (opened.status, opened.amount_remaining) == ("open", 2500)
    paid = client.v1.invoices.pay(opened.id, params={"payment_method": "pm_card_visa"})
    assert (paid.status, paid.amount_paid) == ("paid", 2500)

    failing = make_shop(client, card=False)
    failing.use_card("pm_card_chargeCustomerFail")
    later = client.v1.subscription_schedules.create(params={
        "customer": failing.customer.id, "start_date": "now",
        "phases": [{"items": [{"price": price.id}], "duration": {"interval": "month"}}]})
    failing.advance(JAN_1 + 2 * 3600)
    sub = client.v1.subscriptions.retrieve(later.subscription,
                                           params={"expand": ["latest_invoice"]})
    assert (sub.status, sub.latest_invoice.status) == ("past_due", "open")


def test_default_settings_reach_the_subscription(client: stripe.StripeClient) -> None:
    """`default_settings` (collection method, invoice settings, default payment method,
    description) apply to the schedule's subscription unless a phase sets its own
    (https://docs.stripe.com/api/subscription_schedules/create)."""
    shop = make_shop(client, card=False)
    price = shop.price(4000)
    invoiced = client.v1.subscription_schedules.create(params={
        "customer": shop.customer.id, "start_date": "now",
        "default_settings": {"collection_method": "send_invoice",
                             "invoice_settings": {"days_until_due": 30},
                             "description": "Team plan"},
        "phases": [{"items": [{"price": price.id}], "duration": {"interval": "month"}}]})
    assert invoiced.default_settings.collection_method == "send_invoice"
    assert invoiced.default_settings.invoice_settings.days_until_due == 30
    sub = client.v1.subscriptions.retrieve(invoiced.subscription)
    assert (sub.collection_method, sub.days_until_due, sub.description) == (
        "send_invoice", 30, "Team plan")
    shop.advance(JAN_1 + 2 * 3600)
    [inv] = client.v1.invoices.list(params={"subscription": sub.id}).data
    assert (inv.status, inv.collection_method, inv.due_date) == (
        "open", "send_invoice", JAN_1 + 3600 + 30 * DAY)

    card = client.v1.payment_methods.attach("pm_card_visa",
                                            params={"customer": shop.customer.id})
    charged = client.v1.subscription_schedules.create(params={
        "customer": shop.customer.id, "start_date": "now",
        "default_settings": {"default_payment_method": card.id},
        "phases": [{"items": [{"price": price.id}], "duration": {"interval": "month"}}]})
    sub = client.v1.subscriptions.retrieve(charged.subscription)
    assert sub.default_payment_method == card.id
    shop.advance(JAN_1 + 4 * 3600)
    sub = client.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    assert (sub.latest_invoice.status, sub.latest_invoice.amount_paid) == ("paid", 4000)


def test_default_settings_refusals(client: stripe.StripeClient) -> None:
    """send_invoice without days_until_due, or a payment method the customer does not
    have, is refused and creates nothing."""
    shop = make_shop(client, card=False)
    price = shop.price(4000)
    phases = [{"items": [{"price": price.id}], "duration": {"interval": "month"}}]
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.subscription_schedules.create(params={
            "customer": shop.customer.id, "start_date": "now", "phases": phases,
            "default_settings": {"collection_method": "send_invoice"}})
    assert caught.value.param == "default_settings[invoice_settings][days_until_due]"
    stranger = client.v1.payment_methods.create(params={"type": "card",
                                                        "card": {"token": "tok_visa"}})
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.subscription_schedules.create(params={
            "customer": shop.customer.id, "start_date": "now", "phases": phases,
            "default_settings": {"default_payment_method": stranger.id}})
    assert caught.value.param == "default_settings[default_payment_method]"
    assert client.v1.subscription_schedules.list(
        params={"customer": shop.customer.id}).data == []
    assert client.v1.subscriptions.list(params={"customer": shop.customer.id}).data == []


def test_phase_discounts_apply_while_the_phase_runs(client: stripe.StripeClient) -> None:
    """A phase's `discounts` discount the subscription during that phase only: an intro
    coupon on the first phase, full price in the next
    (https://docs.stripe.com/api/subscription_schedules/create, phases.discounts).
    Phase settings the emulator would not apply are refused, not dropped."""
    shop = make_shop(client)
    price = shop.price(2000)
    intro = client.v1.coupons.create(params={"percent_off": 50, "duration": "forever"})
    schedule = client.v1.subscription_schedules.create(params={
        "customer": shop.customer.id, "start_date": "now",
        "phases": [{"items": [{"price": price.id}], "discounts": [{"coupon": intro.id}],
                    "duration": {"interval": "month"}},
                   {"items": [{"price": price.id}], "duration": {"interval": "month"}}]})
    assert schedule.phases[0].discounts[0].coupon == intro.id
    shop.advance(at(1, 1, 2))
    shop.advance(at(2, 1, 2))
    invoices = client.v1.invoices.list(params={"subscription": schedule.subscription}).data
    assert [i.amount_paid for i in reversed(invoices)] == [1000, 2000]
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.subscription_schedules.create(params={
            "customer": shop.customer.id, "start_date": "now",
            "phases": [{"items": [{"price": price.id}], "duration": {"interval": "month"},
                        "add_invoice_items": [{"price": price.id}]}]})
    assert caught.value.code == "emulator_unsupported"
    assert caught.value.param == "phases[0][add_invoice_items]"
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.subscription_schedules.create(params={
            "customer": shop.customer.id, "start_date": "now",
            "phases": [{"items": [{"price": price.id}], "duration": {"interval": "month"},
                        "discounts": [{"coupon": "nope"}]}]})
    assert caught.value.param == "phases[0][discounts][0][coupon]"
